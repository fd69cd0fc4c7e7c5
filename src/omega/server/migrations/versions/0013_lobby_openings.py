"""The address each open lobby table was opened from (its per-address cap counts them).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-03

Tables opened before this revision have no row: their address was never kept, so they
count towards their account's cap only (which is read from their seats).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lobby_openings",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("address", sa.String(64), nullable=False),
    )
    op.create_index("ix_lobby_openings_address", "lobby_openings", ["address"])


def downgrade() -> None:
    op.drop_index("ix_lobby_openings_address", table_name="lobby_openings")
    op.drop_table("lobby_openings")
