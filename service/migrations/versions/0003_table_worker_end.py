"""tables.worker_end: how a table's worker last ended (finished, or failed and why)

A restart showed every such table as ``stopped`` with no error: the reason a table failed was lost
(helper-83). None while the worker runs, and after an umpire's stop.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""
import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("worker_end", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("worker_end")
