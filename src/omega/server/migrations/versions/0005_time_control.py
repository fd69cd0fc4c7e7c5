"""A table's time control (its clocks); tables made before have none (untimed).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # NULL is untimed, so every existing table keeps playing as it did.
    op.add_column("tables", sa.Column("time_control", sa.String(16), nullable=True))


def downgrade() -> None:
    op.drop_column("tables", "time_control")
