"""Sixteen computer levels instead of twelve (issue 36): four new budgets split the
steepest steps of the ladder, and every computer seat and every challenge's computer level
moves to the level of the same search budget (``omega.ai.levels.RENUMBERED_TWELVE``).
Finished tables move too, so a game's record and the profile's list name the computer it
was played against.
"""

from alembic import op

revision = "0027"
down_revision = "0026"

# Written out, not imported: a migration stays what it was when the levels change again.
UP = {1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8, 7: 10, 8: 11, 9: 12, 10: 13, 11: 15, 12: 16}
# Back to the twelve levels: each level to the one of the nearest budget by ratio (of two as
# near, the stronger).
DOWN = {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 5, 7: 6, 8: 6, 9: 6, 10: 7, 11: 8, 12: 9, 13: 10, 14: 11, 15: 11, 16: 12}


def _remap(mapping: dict[int, int]) -> None:
    # One CASE per table, so no seat is moved twice (5 -> 6 -> 8).
    case = " ".join(f"WHEN {old} THEN {new}" for old, new in mapping.items())
    for table in ("seats", "challenges"):
        op.execute(f"UPDATE {table} SET level = CASE level {case} ELSE level END WHERE level IS NOT NULL")


def upgrade() -> None:
    _remap(UP)


def downgrade() -> None:
    _remap(DOWN)
