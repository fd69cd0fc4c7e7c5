"""The account's language: what notices, their mails and pushes, and the account's mails
are written in (a code of ``omega.i18n.LANGUAGES``; NULL: none chosen yet, English).

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Nullable, no default: SQLite adds it without copying the table.
    op.add_column("users", sa.Column("language", sa.String(8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_column("language")
