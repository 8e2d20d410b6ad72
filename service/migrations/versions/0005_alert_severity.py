"""alerts.severity: ``action`` (for the umpire to decide) or ``info`` (a camera notice the tracker settled)

An ``info`` alert is stored resolved from the start (service/alert_levels.py): in the list and the timeline, never
open. Every alert recorded before this revision was one for the umpire: ``action``.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-05
"""
import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("alerts") as batch:
        batch.add_column(sa.Column("severity", sa.String(length=8), nullable=False, server_default="action"))


def downgrade() -> None:
    with op.batch_alter_table("alerts") as batch:
        batch.drop_column("severity")
