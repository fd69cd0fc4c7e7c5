"""Due work: one ``due`` row per piece of work a server process must do at a time (a
computer's turn, the site-wide sweep), in place of the ``ai_*`` columns of ``tables``.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "due",
        sa.Column("kind", sa.String(16), primary_key=True),
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_by", sa.String(64), nullable=True),
        sa.Column("claim_expires", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_due_due_at", "due", ["due_at"])
    # A computer that was to move is due at once, unclaimed: whoever starts first plays it.
    tables = sa.table("tables", sa.column("id", sa.String), sa.column("version", sa.Integer),
                      sa.column("status", sa.String), sa.column("ai_pending", sa.Boolean))
    due = sa.table("due", sa.column("kind", sa.String), sa.column("table_id", sa.String),
                   sa.column("version", sa.Integer), sa.column("due_at", sa.DateTime(timezone=True)))
    conn = op.get_bind()
    pending = conn.execute(sa.select(tables.c.id, tables.c.version)
                           .where(tables.c.ai_pending.is_(True), tables.c.status == "playing")).all()
    now = datetime.now(UTC)
    for table_id, version in pending:
        conn.execute(sa.insert(due).values(kind="computer", table_id=table_id, version=version, due_at=now))
    op.drop_index("ix_tables_ai_pending", table_name="tables")
    # Plain ALTER TABLE ... DROP COLUMN (SQLite 3.35 and later), never a batch copy: copying
    # "tables" would drop the old one, and with foreign keys on that deletes every seat and
    # event by cascade.
    for column in ("ai_pending", "ai_claim_version", "ai_claim_owner"):
        op.drop_column("tables", column)


def downgrade() -> None:
    op.add_column("tables", sa.Column("ai_pending", sa.Boolean, nullable=False, server_default=sa.false()))
    op.add_column("tables", sa.Column("ai_claim_version", sa.Integer, nullable=True))
    op.add_column("tables", sa.Column("ai_claim_owner", sa.String(64), nullable=True))
    op.create_index("ix_tables_ai_pending", "tables", ["ai_pending"])
    op.execute("UPDATE tables SET ai_pending = TRUE WHERE id IN (SELECT table_id FROM due WHERE kind = 'computer')")
    op.drop_index("ix_due_due_at", table_name="due")
    op.drop_table("due")
