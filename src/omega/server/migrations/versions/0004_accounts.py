"""Accounts: users, their sessions, and the account holding a seat.

Revision ID: 0004
Revises: 0003
Create Date: 2027-01-10
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("username", sa.String(32), nullable=False),
        sa.Column("username_key", sa.String(96), nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("username_key", name="uq_users_username_key"),
    )
    op.create_table(
        "sessions",
        sa.Column("id_hash", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_sessions_user_id", "sessions", ["user_id"])
    op.create_index("ix_sessions_expires_at", "sessions", ["expires_at"])
    if op.get_bind().dialect.name == "sqlite":
        # SQLite takes a REFERENCES clause on a new nullable column, but alembic would add
        # the constraint as a separate step it cannot do there: one plain statement instead
        # of a copy of the table (batch mode).
        op.execute("ALTER TABLE seats ADD COLUMN user_id INTEGER REFERENCES users (id)")
    else:
        op.add_column("seats", sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=True))
    # One seat per account and table; its leading column serves "the tables of a user".
    op.create_index("uq_seats_user_table", "seats", ["user_id", "table_id"], unique=True)


def downgrade() -> None:
    op.drop_index("uq_seats_user_table", table_name="seats")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("user_id")
    op.drop_index("ix_sessions_expires_at", table_name="sessions")
    op.drop_index("ix_sessions_user_id", table_name="sessions")
    op.drop_table("sessions")
    op.drop_table("users")
