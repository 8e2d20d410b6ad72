"""tables.ruleset: the rule set's full parameters, resolved at registration

Rows registered before this revision get theirs at the next start (service.tables.Registry.load_all),
resolved from ``rules`` and ``overrides`` as they were read until then.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""
import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("ruleset", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("ruleset")
