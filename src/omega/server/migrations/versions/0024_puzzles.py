"""Puzzles: the puzzles with their ratings, each account's puzzle rating, and each account's
rated attempts.

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "puzzles",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("deviation", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("solved", sa.Integer, nullable=False),
    )
    op.create_index("ix_puzzles_rating", "puzzles", ["rating"])
    op.create_table(
        "puzzle_ratings",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("deviation", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("solved", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "puzzle_attempts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("puzzle_id", sa.String(32), sa.ForeignKey("puzzles.id", ondelete="CASCADE"), nullable=False),
        sa.Column("solved", sa.Boolean, nullable=False),
        sa.Column("turn", sa.String(64), nullable=False),
        sa.Column("rating_before", sa.Float, nullable=False),
        sa.Column("rating_after", sa.Float, nullable=False),
        sa.Column("puzzle_before", sa.Float, nullable=False),
        sa.Column("puzzle_after", sa.Float, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("user_id", "puzzle_id", name="uq_puzzle_attempts_user_puzzle"),
    )


def downgrade() -> None:
    op.drop_table("puzzle_attempts")
    op.drop_table("puzzle_ratings")
    op.drop_index("ix_puzzles_rating", table_name="puzzles")
    op.drop_table("puzzles")
