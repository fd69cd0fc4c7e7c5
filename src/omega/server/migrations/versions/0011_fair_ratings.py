"""Fair-play records for ratings: the rated tables whose game did not count and why, the
flags of accounts of a shared origin meeting at a rated table, the digest of the address an
account was made from and each session logged in from, and an index for the pair limit
(an account's rated games of the last day).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03

Accounts and sessions made before it have no origin: they are never flagged by it.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("users", sa.Column("origin", sa.String(32), nullable=True))
    op.add_column("sessions", sa.Column("origin", sa.String(32), nullable=True))
    op.create_index("ix_rating_changes_user_at", "rating_changes", ["user_id", "at"])
    op.create_table(
        "unrated_games",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("reason", sa.String(16), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "fair_play_flags",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), nullable=False),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("other_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("reason", sa.String(32), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("table_id", "user_id", "other_id", "reason", name="uq_fair_play_flags"),
    )
    op.create_index("ix_fair_play_flags_at", "fair_play_flags", ["at"])
    op.create_index("ix_fair_play_flags_user", "fair_play_flags", ["user_id"])
    op.create_index("ix_fair_play_flags_other", "fair_play_flags", ["other_id"])


def downgrade() -> None:
    op.drop_table("fair_play_flags")
    op.drop_table("unrated_games")
    op.drop_index("ix_rating_changes_user_at", table_name="rating_changes")
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("origin")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("origin")
