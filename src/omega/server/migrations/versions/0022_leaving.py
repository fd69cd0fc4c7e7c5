"""Watching and leaving: each account's choice whether its games are on the live list, and
the closed accounts (when, by whom, when their data is removed, and when it was).

Revision ID: 0022
Revises: 0019
Create Date: 2026-12-10
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "watch_settings",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("listed", sa.Boolean, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "account_closures",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("remove_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("by", sa.String(64), nullable=False),
        sa.Column("removed_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_account_closures_remove_at", "account_closures", ["remove_at"])


def downgrade() -> None:
    op.drop_index("ix_account_closures_remove_at", table_name="account_closures")
    op.drop_table("account_closures")
    op.drop_table("watch_settings")
