"""Moderation: players' reports with their evidence, the log of moderators' actions (mutes
and rated bans among them), chat messages a moderator removed, and the rating changes a
moderator reverted.

Revision ID: 0021
Revises: 0019
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain ADD COLUMN: a batch copy of ``chat`` is not needed for a nullable column.
    op.add_column("chat", sa.Column("hidden_at", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("reporter_id", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("reporter_name", sa.String(32), nullable=False),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("username", sa.String(32), nullable=False),
        sa.Column("reason", sa.String(16), nullable=False),
        sa.Column("text", sa.Text, nullable=True),
        sa.Column("table_id", sa.String(32), nullable=True),
        sa.Column("message_id", sa.Integer, nullable=True),
        sa.Column("evidence", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("closed_by", sa.String(32), nullable=True),
        sa.Column("resolution", sa.Text, nullable=True),
        sa.Column("action_id", sa.Integer, nullable=True),
    )
    op.create_index("ix_reports_status_id", "reports", ["status", "id"])
    op.create_index("ix_reports_reporter", "reports", ["reporter_id", "status"])
    op.create_index("ix_reports_user", "reports", ["user_id"])
    op.create_table(
        "moderation_actions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("moderator_id", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("moderator_name", sa.String(32), nullable=False),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("username", sa.String(32), nullable=False),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("detail", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("lifted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("message_id", sa.Integer, nullable=True),
        sa.Column("report_id", sa.Integer, nullable=True),
    )
    op.create_index("ix_moderation_actions_user", "moderation_actions", ["user_id", "action"])
    op.create_table(
        "rating_reverts",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("mu_delta", sa.Float, nullable=False),
        sa.Column("sigma_delta", sa.Float, nullable=False),
        sa.Column("after_table", sa.String(32), nullable=True),
        sa.Column("action_id", sa.Integer, nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("rating_reverts")
    op.drop_index("ix_moderation_actions_user", "moderation_actions")
    op.drop_table("moderation_actions")
    for name in ("ix_reports_user", "ix_reports_reporter", "ix_reports_status_id"):
        op.drop_index(name, "reports")
    op.drop_table("reports")
    with op.batch_alter_table("chat") as batch:
        batch.drop_column("hidden_at")
