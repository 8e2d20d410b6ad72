"""matches.players, matches.ruleset: the names and rules a match was played with

A table's players, name and rules can be changed (PATCH /api/tables/{id}); each match keeps its own, so
that a change for round 2 neither renames nor rescores round 1. Existing matches take their table's.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-05
"""
import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("players", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("ruleset", sa.JSON(), nullable=True))
    # until now every match was played with its table's players and rule set (a table could not change them)
    op.execute("UPDATE matches SET players = (SELECT t.players FROM tables t WHERE t.id = matches.table_id), "
               "ruleset = (SELECT t.ruleset FROM tables t WHERE t.id = matches.table_id)")


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("ruleset")
        batch.drop_column("players")
