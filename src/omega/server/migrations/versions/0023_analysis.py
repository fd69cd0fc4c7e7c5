"""Analysis boards: a saved study of a position as a tree of variations, its owner, its key
and the game it was opened from; and the positions asked at servers without computer
players, for a worker to evaluate (with their answers).

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "analysis_boards",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=True),
        sa.Column("owner", sa.String(64), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("pie_rule", sa.Boolean, nullable=False),
        sa.Column("nodes", sa.Text, nullable=False),
        sa.Column("start", sa.Integer, nullable=False),
        sa.Column("source_table", sa.String(32), nullable=True),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_analysis_boards_user_id", "analysis_boards", ["user_id"])
    op.create_index("ix_analysis_boards_owner", "analysis_boards", ["owner"])
    op.create_table(
        "analysis_evaluations",
        sa.Column("digest", sa.String(32), primary_key=True),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("pie_rule", sa.Boolean, nullable=False),
        sa.Column("actions", sa.Text, nullable=False),
        sa.Column("owner", sa.String(64), nullable=False),
        sa.Column("answer", sa.Text, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_analysis_evaluations_created_at", "analysis_evaluations", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_analysis_evaluations_created_at", table_name="analysis_evaluations")
    op.drop_table("analysis_evaluations")
    op.drop_index("ix_analysis_boards_owner", table_name="analysis_boards")
    op.drop_index("ix_analysis_boards_user_id", table_name="analysis_boards")
    op.drop_table("analysis_boards")
