"""The time control a quick-play player waits for (every rated game has a clock).

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-03

A player waiting when the server upgrades waits for the default preset (the queue's
entries last minutes, and quick play had no clock to choose before).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

#: ``omega.server.tables.timecontrol.QUICKPLAY_DEFAULT`` when this revision was written (a
#: migration keeps its own copy: it must mean the same whatever the code says later).
_DEFAULT = "5+5"


def upgrade() -> None:
    with op.batch_alter_table("quickplay") as batch:
        batch.add_column(sa.Column("time_control", sa.String(16), nullable=False, server_default=_DEFAULT))


def downgrade() -> None:
    with op.batch_alter_table("quickplay") as batch:
        batch.drop_column("time_control")
