"""Who opened a table (for fair computer queues) and when it last changed (to close tables
abandoned unfinished).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tables", sa.Column("owner", sa.String(64), nullable=True))
    op.add_column("tables", sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True))
    # The last event's time, or the table's creation for one with no event yet.
    op.execute("UPDATE tables SET updated_at = COALESCE("
               "(SELECT MAX(events.created_at) FROM events WHERE events.table_id = tables.id), created_at)")
    op.create_index("ix_tables_status_updated_at", "tables", ["status", "updated_at"])


def downgrade() -> None:
    op.drop_index("ix_tables_status_updated_at", table_name="tables")
    op.drop_column("tables", "updated_at")
    op.drop_column("tables", "owner")
