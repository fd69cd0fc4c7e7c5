"""Email on accounts: a verified address (unique by its case-folded key), the address asked
for and not verified yet, and the password resets asked for by mail (digests only).

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-04

Accounts made before it have no address: their owners add one on the account page.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMNs and a separate unique index: a batch copy of ``users`` on SQLite would
    # cascade-delete the sessions (and seats' links) that refer to it.
    op.add_column("users", sa.Column("email", sa.String(254), nullable=True))
    op.add_column("users", sa.Column("email_key", sa.String(254), nullable=True))
    op.add_column("users", sa.Column("email_pending", sa.String(254), nullable=True))
    op.create_index("uq_users_email_key", "users", ["email_key"], unique=True)
    op.create_table(
        "password_resets",
        sa.Column("digest", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_password_resets_user_id", "password_resets", ["user_id"])
    op.create_index("ix_password_resets_expires_at", "password_resets", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_password_resets_expires_at", table_name="password_resets")
    op.drop_index("ix_password_resets_user_id", table_name="password_resets")
    op.drop_table("password_resets")
    op.drop_index("uq_users_email_key", table_name="users")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("email_pending")
        batch.drop_column("email_key")
        batch.drop_column("email")
