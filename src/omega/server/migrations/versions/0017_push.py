"""Web Push: the site's VAPID key pair and the devices subscribed per account.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-04

The key pair is not made here but by the first server to start (``push.store``): a
migration must not hold a secret, and every process agrees on the one row it inserts.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "push_keys",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("private_key", sa.String(64), nullable=False),
        sa.Column("public_key", sa.String(96), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "push_subscriptions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        # 1024: models.ENDPOINT_MAX when this revision was written (a migration keeps its own copy).
        sa.Column("endpoint", sa.String(1024), nullable=False, unique=True),
        sa.Column("p256dh", sa.String(96), nullable=False),
        sa.Column("auth", sa.String(32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_push_subscriptions_user_id", "push_subscriptions", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_push_subscriptions_user_id", table_name="push_subscriptions")
    op.drop_table("push_subscriptions")
    op.drop_table("push_keys")
