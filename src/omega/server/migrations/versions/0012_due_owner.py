"""Whose work each due row is, so that computer turns are claimed owners in turn; an index
to find an owner's unfinished tables (its computer games are capped).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-03

Rows already due take their table's owner (the account or address that opened it).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("due", sa.Column("owner", sa.String(64), nullable=True))
    due = sa.table("due", sa.column("table_id", sa.String), sa.column("owner", sa.String))
    tables = sa.table("tables", sa.column("id", sa.String), sa.column("owner", sa.String))
    op.get_bind().execute(sa.update(due).values(
        owner=sa.select(tables.c.owner).where(tables.c.id == due.c.table_id).scalar_subquery()))
    op.create_index("ix_tables_owner_status", "tables", ["owner", "status"])


def downgrade() -> None:
    op.drop_index("ix_tables_owner_status", table_name="tables")
    with op.batch_alter_table("due") as batch:
        batch.drop_column("owner")
