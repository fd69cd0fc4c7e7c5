"""Vacation for turn-based games: whether a table lets a seat's clock be paused, and each
account's vacation (its allowance used this year, the one it is on, its setting).

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-04

Tables made before this revision allow pauses, as new ones do unless their creator says not.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain ADD COLUMN: a batch copy of ``tables`` would cascade-delete seats and events on SQLite.
    op.add_column("tables", sa.Column("pausable", sa.Boolean, nullable=False, server_default=sa.true()))
    op.create_table(
        "vacations",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("automatic", sa.Boolean, nullable=False),
        sa.Column("year", sa.Integer, nullable=False),
        sa.Column("used_hours", sa.Integer, nullable=False),
        sa.Column("since", sa.DateTime(timezone=True), nullable=True),
        sa.Column("until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("started_automatically", sa.Boolean, nullable=False),
        sa.Column("back_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("changes", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("vacations")
    op.drop_column("tables", "pausable")
