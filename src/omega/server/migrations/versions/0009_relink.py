"""Which seat created each table (the seat that may make new links on another device).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01

Tables opened before this revision are filled in from their logs: the server stored the
creator's ``join`` as a new table's first event.  A rematch's table had no creator (its
seats hold the secrets of the table before) and keeps NULL, as do tables whose first event
is something else.
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain ADD COLUMN: a batch copy of ``tables`` would cascade-delete seats and events on SQLite.
    op.add_column("tables", sa.Column("creator_seat", sa.Integer, nullable=True))
    conn = op.get_bind()
    tables = sa.table("tables", sa.column("id", sa.String), sa.column("creator_seat", sa.Integer))
    events = sa.table("events", sa.column("table_id", sa.String), sa.column("version", sa.Integer),
                      sa.column("kind", sa.String), sa.column("data", sa.Text))
    rematches = sa.table("rematches", sa.column("new_table_id", sa.String))
    rematch_tables = sa.select(rematches.c.new_table_id).where(rematches.c.new_table_id.is_not(None))
    firsts = conn.execute(sa.select(events.c.table_id, events.c.data).where(
        events.c.version == 1, events.c.kind == "join", events.c.table_id.not_in(rematch_tables))).all()
    for table_id, data in firsts:
        seat = json.loads(data).get("seat")
        if isinstance(seat, int):
            conn.execute(sa.update(tables).where(tables.c.id == table_id).values(creator_seat=seat))


def downgrade() -> None:
    op.drop_column("tables", "creator_seat")
