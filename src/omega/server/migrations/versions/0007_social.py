"""Table chat and rematches: kept beside a table, never in its event log.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "chat",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("username", sa.String(32), nullable=True),
        sa.Column("text", sa.Text, nullable=False),
    )
    # A table's history is read newest first by id.
    op.create_index("ix_chat_table_id", "chat", ["table_id", "id"])
    op.create_table(
        "rematches",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("proposer", sa.Integer, nullable=False),
        sa.Column("accepted", sa.Text, nullable=False),
        sa.Column("ended_by", sa.Integer, nullable=True),
        sa.Column("new_table_id", sa.String(32), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("rematches")
    op.drop_index("ix_chat_table_id", table_name="chat")
    op.drop_table("chat")
