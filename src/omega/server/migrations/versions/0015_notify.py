"""Reaching players away from the site: the outbox of mail, the notices delivered per
channel, each account's notification preferences and pending digest, and the site's keys.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("key", sa.String(160), nullable=True, unique=True),
        sa.Column("token", sa.String(64), nullable=False, unique=True),
        sa.Column("to_address", sa.String(320), nullable=False),
        sa.Column("subject", sa.String(255), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("html", sa.Text, nullable=True),
        sa.Column("headers", sa.JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("tries", sa.Integer, nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("given_up_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "notify_deliveries",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("channel", sa.String(16), nullable=False),
        sa.Column("key", sa.String(160), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("subject", sa.String(255), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("path", sa.String(255), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("tries", sa.Integer, nullable=False),
        sa.Column("delivered_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("given_up_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("channel", "key", name="uq_notify_deliveries_channel_key"),
    )
    op.create_table(
        "notify_settings",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("off", sa.JSON, nullable=False),
        sa.Column("digest", sa.Boolean, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "notify_digest",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("key", sa.String(160), nullable=False, unique=True),
        sa.Column("subject", sa.String(255), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("path", sa.String(255), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_notify_digest_user_id", "notify_digest", ["user_id", "id"])
    op.create_table(
        "site_keys",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.String(128), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("site_keys")
    op.drop_index("ix_notify_digest_user_id", table_name="notify_digest")
    op.drop_table("notify_digest")
    op.drop_table("notify_settings")
    op.drop_table("notify_deliveries")
    op.drop_table("outbox")
