"""What the puzzle page asks: the next puzzle for a player, a puzzle by its id, an attempt.

A logged-in player gets a puzzle they have not tried, drawn from the :data:`~omega.server.
puzzles.store.CLOSEST` nearest their puzzle rating; their first attempt at each puzzle is
rated (Glicko-2, :mod:`omega.puzzles.glicko`: the player and the puzzle each rated on the
attempt as one game, a solve a win for the player).  A guest plays unrated, drawn near a
newcomer's rating.  The answer and the search's line come back with the verdict, never
before.

>>> view_rating(None) is None, view_rating(Rating(1523.4, 80.0))["rating"]
(True, 1523)
>>> view_rating(Rating(1500, 200))["provisional"]
True
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import Row

from omega.board import parse_cell
from omega.game import Color, IllegalMove
from omega.i18n import message_of
from omega.i18n import translatable as _
from omega.puzzles.format import Puzzle, shipped_puzzles
from omega.puzzles.glicko import MIN_DEVIATION, NEWCOMER, Rating, rate
from omega.server.accounts.store import User
from omega.server.errors import ApiError
from omega.server.puzzles.store import attempted, load, pick, player_row, puzzle_row, rating_of, save_attempt
from omega.server.tables.core import TableCore

__all__ = ["Puzzles", "PROVISIONAL", "NO_PUZZLE", "NO_MORE", "GIVEN_STAY", "view_rating"]

#: A rating whose deviation is above this is shown as provisional.
PROVISIONAL = 110.0
#: The answers for an unknown puzzle, for a player who tried every puzzle, and for a turn
#: that moves a stone the puzzle placed.
NO_PUZZLE = _("there is no such puzzle")
NO_MORE = _("you have tried every puzzle: well done")
GIVEN_STAY = _("bad request: the puzzle's given stones stay where they are: find the others")


def view_rating(rating: Rating | None) -> dict[str, Any] | None:
    """A rating as the page shows it (None stays None)."""
    if rating is None:
        return None
    return {"rating": round(rating.rating), "deviation": round(rating.deviation),
            "provisional": rating.deviation > PROVISIONAL}


def _puzzle(row: Row[Any]) -> Puzzle:
    return Puzzle.from_json(json.loads(row.data))


def _view(row: Row[Any]) -> dict[str, Any]:
    puzzle = _puzzle(row)
    game = puzzle.game()
    return {
        "id": puzzle.id, "players": puzzle.players, "size": puzzle.size, "moves": [list(t) for t in puzzle.moves],
        "stones": {cell: color.label for cell, color in game.stones().items()}, "to_move": puzzle.to_move,
        "given": list(puzzle.given), "themes": list(puzzle.themes), "goal": puzzle.goal,
        "rating": round(row.rating), "attempts": row.attempts, "solved": row.solved,
        "colors": [Color(i).label for i in range(puzzle.players)],
    }


class Puzzles:
    """The site's puzzles, on the server's database; ``source`` gives the set to load (the
    shipped one), added to the database once, on first use."""

    def __init__(self, core: TableCore, source: Callable[[], Sequence[Puzzle]] = shipped_puzzles,
                 rng: random.Random | None = None) -> None:
        self.core = core
        self.source = source
        self.rng = rng or random.Random()
        self._loaded = False
        self._loading = asyncio.Lock()

    async def ensure_loaded(self) -> None:
        """Add the puzzle set to the database if it is not there yet (idempotent)."""
        if self._loaded:
            return
        async with self._loading:
            if not self._loaded:
                # Reading and checking the file replays every puzzle's game: off the event loop.
                await self.core.db(lambda: self.core.repo.write(lambda conn: load(conn, list(self.source()))))
                self._loaded = True

    async def _player(self, user: User | None) -> tuple[Rating | None, dict[str, int]]:
        if user is None:
            return None, {}
        row = await self.core.db(self.core.repo.read, lambda conn: player_row(conn, user.id))
        counts = {"attempts": row.attempts, "solved": row.solved} if row is not None else {"attempts": 0, "solved": 0}
        return (rating_of(row) if row is not None else NEWCOMER), counts

    async def next(self, user: User | None, skip: str | None) -> dict[str, Any]:
        """A puzzle for ``user`` (None: a guest) near their rating, not ``skip``, not one
        they tried; ``not_found`` when none is left."""
        await self.ensure_loaded()
        rating, counts = await self._player(user)
        target = (rating or NEWCOMER).rating
        rows = await self.core.db(self.core.repo.read,
                                  lambda conn: pick(conn, None if user is None else user.id, target, skip))
        if not rows:
            raise ApiError("not_found", NO_MORE if user is not None else NO_PUZZLE)
        chosen = self.rng.choice(rows)
        return {"puzzle": _view(chosen), "player": self._player_view(rating, counts)}

    @staticmethod
    def _player_view(rating: Rating | None, counts: dict[str, int]) -> dict[str, Any] | None:
        view = view_rating(rating)
        return None if view is None else {**view, **counts}

    async def get(self, user: User | None, puzzle_id: str) -> dict[str, Any]:
        """The puzzle ``puzzle_id`` (``not_found`` for none), and whether ``user`` tried it."""
        await self.ensure_loaded()
        row = await self.core.db(self.core.repo.read, lambda conn: puzzle_row(conn, puzzle_id[:32]))
        if row is None:
            raise ApiError("not_found", NO_PUZZLE)
        rating, counts = await self._player(user)
        tried = user is not None and await self.core.db(self.core.repo.read,
                                                        lambda conn: attempted(conn, user.id, puzzle_id))
        return {"puzzle": _view(row), "player": self._player_view(rating, counts), "tried": tried}

    async def attempt(self, user: User | None, puzzle_id: str, cells: Sequence[str]) -> dict[str, Any]:
        """Play ``cells`` (one per colour, colour order) in the puzzle: right or wrong, the
        answer and the search's line, and for an account's first attempt both ratings'
        changes.  ``not_found``, ``bad_request`` (a given stone moved) or ``illegal_move``
        change nothing."""
        await self.ensure_loaded()
        row = await self.core.db(self.core.repo.read, lambda conn: puzzle_row(conn, puzzle_id[:32]))
        if row is None:
            raise ApiError("not_found", NO_PUZZLE)
        puzzle = _puzzle(row)
        turn = self._checked(puzzle, cells)
        solved = turn == tuple(puzzle.answer)
        result: dict[str, Any] = {
            "correct": solved, "rated": False, "answer": list(puzzle.answer), "line": [list(t) for t in puzzle.line],
            "value": puzzle.value, "second": list(puzzle.second), "second_value": puzzle.second_value,
            "margin": puzzle.margin, "player": None, "puzzle": {"rating": round(row.rating), "change": 0},
        }
        if user is None:
            return result
        now = self.core.clock.now()

        def rated(conn: Any) -> dict[str, Any] | None:
            locked = puzzle_row(conn, puzzle.id, lock=True)
            if locked is None or attempted(conn, user.id, puzzle.id):
                return None
            mine = player_row(conn, user.id, lock=True)
            before, theirs = rating_of(mine), rating_of(locked)
            after = rate(before, [(theirs, 1.0 if solved else 0.0)], min_deviation=MIN_DEVIATION)
            moved = rate(theirs, [(before, 0.0 if solved else 1.0)], min_deviation=MIN_DEVIATION)
            save_attempt(conn, user.id, locked, turn, solved, (before, after), (theirs, moved), now)
            attempts = (mine.attempts if mine is not None else 0) + 1
            wins = (mine.solved if mine is not None else 0) + int(solved)
            return {"player": {**(view_rating(after) or {}), "change": round(after.rating) - round(before.rating),
                               "attempts": attempts, "solved": wins},
                    "puzzle": {"rating": round(moved.rating), "change": round(moved.rating) - round(theirs.rating)}}

        changes = await self.core.db(self.core.repo.write, rated)
        if changes is None:
            rating, counts = await self._player(user)
            return {**result, "player": {**(self._player_view(rating, counts) or {}), "change": 0}}
        return {**result, **changes, "rated": True}

    @staticmethod
    def _checked(puzzle: Puzzle, cells: Sequence[str]) -> tuple[str, ...]:
        if len(cells) != puzzle.players:
            raise ApiError("bad_request", _("bad request: a turn is {players} cells, one per colour",
                                            players=puzzle.players))
        try:
            turn = tuple(parse_cell(c, puzzle.size) for c in cells)
            puzzle.game().play(list(turn))
        except (IllegalMove, ValueError) as e:
            raise ApiError("illegal_move", message_of(e)) from None
        if any(g is not None and g != c for g, c in zip(puzzle.given, turn, strict=True)):
            raise ApiError("bad_request", GIVEN_STAY)
        return turn
