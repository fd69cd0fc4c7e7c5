"""Levels for every player (issue 36).

Twelve computer levels instead of five: every computer seat and every
challenge's computer level moves to the level of the same search budget
(``omega.ai.levels.RENUMBERED``: 1 -> 4, 2 -> 8, 3 -> 10, 4 -> 11, 5 -> 12).  Finished tables
move too, so a game's record and the profile's list name the computer it was played against.

Quick play's opt-in computer opponent: ``quickplay.computer`` (false for those waiting now).

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0026"
down_revision = "0025"
branch_labels = None
depends_on = None

# Written out, not imported: a migration stays what it was when the levels change again.
UP = {1: 4, 2: 8, 3: 10, 4: 11, 5: 12}
# Back to the five levels: each new level to the old one of the nearest budget.
DOWN = {1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 2, 7: 2, 8: 2, 9: 3, 10: 3, 11: 4, 12: 5}


def _remap(mapping: dict[int, int]) -> None:
    case = " ".join(f"WHEN {old} THEN {new}" for old, new in mapping.items())
    op.execute(f"UPDATE seats SET level = CASE level {case} ELSE level END WHERE level IS NOT NULL")
    op.execute(f"UPDATE challenges SET level = CASE level {case} ELSE level END WHERE level IS NOT NULL")


def upgrade() -> None:
    _remap(UP)
    # Not null with a default: SQLite adds it without copying the table.
    op.add_column("quickplay", sa.Column("computer", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("quickplay") as batch:
        batch.drop_column("computer")
    _remap(DOWN)
