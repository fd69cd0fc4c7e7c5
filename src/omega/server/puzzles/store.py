"""Where the puzzles are kept: the set loaded from the puzzle file, the ratings, the rated
attempts.  Blocking functions over a SQLAlchemy ``Connection`` (run through
``TableCore.db`` and the repository's ``read``/``write``).

>>> from omega.server.infra.db import make_engine
>>> from omega.server.tables.store import Repository
>>> from omega.puzzles.format import shipped_puzzles
>>> repo = Repository(make_engine("sqlite://")); repo.migrate()
>>> few = shipped_puzzles()[:3]
>>> repo.write(lambda c: load(c, few)), repo.write(lambda c: load(c, few))
(3, 0)
>>> repo.read(lambda c: puzzle_row(c, few[0].id)).attempts
0
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Row, func, insert, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from omega.puzzles.format import Puzzle
from omega.puzzles.glicko import NEWCOMER, Rating
from omega.server.puzzles.models import PuzzleAttemptRow, PuzzleRatingRow, PuzzleRow

__all__ = ["load", "puzzle_row", "pick", "player_row", "attempted", "rating_of", "save_attempt", "CLOSEST"]

#: The puzzles nearest a player's rating that the next one is drawn from.
CLOSEST = 12


def load(conn: Connection, puzzles: Sequence[Puzzle]) -> int:
    """Add the puzzles the database lacks (a puzzle it has keeps its rating); how many were new."""
    have = set(conn.execute(select(PuzzleRow.id)).scalars())
    rows = [{"id": p.id, "players": p.players, "size": p.size, "data": json.dumps(p.to_json()),
             "rating": NEWCOMER.rating, "deviation": NEWCOMER.deviation, "volatility": NEWCOMER.volatility,
             "attempts": 0, "solved": 0} for p in puzzles if p.id not in have]
    if rows:
        # Two processes starting at once may both insert: the second's rows are no news.
        dialect_insert = postgresql_insert if conn.dialect.name == "postgresql" else sqlite_insert
        conn.execute(dialect_insert(PuzzleRow).on_conflict_do_nothing(index_elements=["id"]), rows)
    return len(rows)


def puzzle_row(conn: Connection, puzzle_id: str, lock: bool = False) -> Row[Any] | None:
    """The puzzle's row (``lock``: for update, on PostgreSQL), None for none."""
    query = select(PuzzleRow).where(PuzzleRow.id == puzzle_id)
    if lock and conn.dialect.name == "postgresql":
        query = query.with_for_update()
    return conn.execute(query).one_or_none()


def pick(conn: Connection, user_id: int | None, rating: float, skip: str | None) -> list[Row[Any]]:
    """The :data:`CLOSEST` puzzles nearest ``rating`` that the account (None: a guest)
    has not tried, other than ``skip``."""
    query = select(PuzzleRow)
    if user_id is not None:
        tried = select(PuzzleAttemptRow.puzzle_id).where(PuzzleAttemptRow.user_id == user_id)
        query = query.where(PuzzleRow.id.not_in(tried))
    if skip is not None:
        query = query.where(PuzzleRow.id != skip)
    query = query.order_by(func.abs(PuzzleRow.rating - rating), PuzzleRow.id).limit(CLOSEST)
    return list(conn.execute(query).all())


def player_row(conn: Connection, user_id: int, lock: bool = False) -> Row[Any] | None:
    """The account's puzzle rating row, None before its first rated attempt."""
    query = select(PuzzleRatingRow).where(PuzzleRatingRow.user_id == user_id)
    if lock and conn.dialect.name == "postgresql":
        query = query.with_for_update()
    return conn.execute(query).one_or_none()


def rating_of(row: Row[Any] | None) -> Rating:
    """The Glicko-2 rating a row holds (a newcomer's for None)."""
    return NEWCOMER if row is None else Rating(row.rating, row.deviation, row.volatility)


def attempted(conn: Connection, user_id: int, puzzle_id: str) -> bool:
    """Whether the account has a rated attempt at the puzzle."""
    return conn.execute(select(PuzzleAttemptRow.id).where(PuzzleAttemptRow.user_id == user_id,
                                                          PuzzleAttemptRow.puzzle_id == puzzle_id)).first() is not None


def save_attempt(conn: Connection, user_id: int, puzzle: Row[Any], turn: Sequence[str], solved: bool,
                 player: tuple[Rating, Rating], puzzle_rating: tuple[Rating, Rating], now: datetime) -> None:
    """Store a rated attempt: the attempt, the account's new rating and the puzzle's."""
    before, after = player
    had = player_row(conn, user_id) is not None
    values = {"rating": after.rating, "deviation": after.deviation, "volatility": after.volatility, "updated_at": now}
    if had:
        conn.execute(update(PuzzleRatingRow).where(PuzzleRatingRow.user_id == user_id)
                     .values(**values, attempts=PuzzleRatingRow.attempts + 1,
                             solved=PuzzleRatingRow.solved + int(solved)))
    else:
        conn.execute(insert(PuzzleRatingRow).values(user_id=user_id, **values, attempts=1, solved=int(solved)))
    conn.execute(update(PuzzleRow).where(PuzzleRow.id == puzzle.id)
                 .values(rating=puzzle_rating[1].rating, deviation=puzzle_rating[1].deviation,
                         volatility=puzzle_rating[1].volatility, attempts=PuzzleRow.attempts + 1,
                         solved=PuzzleRow.solved + int(solved)))
    conn.execute(insert(PuzzleAttemptRow).values(
        user_id=user_id, puzzle_id=puzzle.id, solved=solved, turn=" ".join(turn), rating_before=before.rating,
        rating_after=after.rating, puzzle_before=puzzle_rating[0].rating, puzzle_after=puzzle_rating[1].rating,
        created_at=now))
