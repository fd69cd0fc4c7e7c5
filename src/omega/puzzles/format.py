"""The puzzle file: one JSON object a line (``docs/puzzles.md`` describes each field).

Plain data and the standard library only, so the server reads the shipped set
(:data:`SHIPPED`) without the search.

>>> p = Puzzle(id="p1", players=2, size=2, moves=(("a1", "c3"),), given=(None, "a2"), answer=("b2", "a2"), value=0.9,
...            second=("a2", "b2"), second_value=0.4, margin=0.06, found_margin=0.5, themes=("endgame",),
...            goal="win", line=(), source="test", found={}, confirmed={})
>>> Puzzle.from_json(p.to_json()) == p
True
>>> p.to_move, p.game().stone("a1")
('Black', <Color.WHITE: 0>)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from omega.game import Color, Game, Turn

__all__ = ["Puzzle", "PUZZLE_FORMAT", "PUZZLE_VERSION", "SHIPPED", "puzzle_id", "puzzle_line", "read_puzzles", "write_puzzles",
           "shipped_puzzles"]

PUZZLE_FORMAT = "omega-puzzle"
PUZZLE_VERSION = 1
#: The set the site ships (made by ``omega puzzles make``; docs/puzzles.md says how).
SHIPPED = "data/puzzles.jsonl"


def puzzle_id(players: int, size: int, moves: Iterable[Turn]) -> str:
    """A puzzle's id: a digest of its position, so one position is one puzzle whatever game
    it came from.

    >>> puzzle_id(2, 5, [("e5", "a1")])
    '744953cfe675'
    """
    text = f"{players}/{size}/" + ";".join(" ".join(t) for t in moves)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class Puzzle:
    """A position where one turn is better than every other that places the ``given``
    stones, by ``margin`` (the mover's win chance after it, 0 to 1), as a deeper search
    confirmed (``found_margin``)."""

    id: str
    players: int
    size: int
    #: The turns that lead to the position (cells in colour order).
    moves: tuple[Turn, ...]
    #: Stones of the turn the puzzle places for the player (a cell, or None for each
    #: stone the player must find), colour order; the answer places them too.
    given: tuple[str | None, ...]
    #: The answer (cells in colour order) and the mover's win chance after it.
    answer: Turn
    value: float
    #: The best other turn and its value.
    second: Turn
    second_value: float
    #: The margin the puzzle promises, and the one the confirming search found.
    margin: float
    found_margin: float
    themes: tuple[str, ...]
    #: ``"win"`` (the answer leaves the mover ahead) or ``"save"``.
    goal: str
    #: The search's line after the answer (the turns it expects next).
    line: tuple[Turn, ...]
    #: Where the position came from (a record's file name and entry).
    source: str
    #: The searches that found and confirmed it (:meth:`omega.puzzles.values.Budget.to_json`).
    found: Mapping[str, int]
    confirmed: Mapping[str, int]

    @property
    def to_move(self) -> str:
        """The colour to move, by name."""
        return Color(len(self.moves) % self.players).label

    def game(self) -> Game:
        """The position as a game (no pie rule: a puzzle is never a swap choice)."""
        return Game.from_history(self.moves, self.players, self.size)

    def to_json(self) -> dict[str, Any]:
        """One line of the puzzle file."""
        return {
            "format": PUZZLE_FORMAT, "version": PUZZLE_VERSION, "id": self.id,
            "players": self.players, "size": self.size, "moves": [list(t) for t in self.moves],
            "to_move": self.to_move, "given": list(self.given), "answer": list(self.answer), "value": round(self.value, 4),
            "second": list(self.second), "second_value": round(self.second_value, 4),
            "margin": self.margin, "found_margin": round(self.found_margin, 4), "themes": list(self.themes),
            "goal": self.goal, "line": [list(t) for t in self.line], "source": self.source,
            "found": dict(self.found), "confirmed": dict(self.confirmed),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Puzzle:
        """A puzzle from one line of the file; ValueError for anything else."""
        if data.get("format") != PUZZLE_FORMAT or data.get("version") != PUZZLE_VERSION:
            raise ValueError(f"not an {PUZZLE_FORMAT} version {PUZZLE_VERSION} line")
        try:
            puzzle = cls(
                id=str(data["id"]), players=int(data["players"]), size=int(data["size"]),
                moves=tuple(tuple(str(c) for c in t) for t in data["moves"]),
                given=tuple(None if c is None else str(c) for c in data["given"]),
                answer=tuple(str(c) for c in data["answer"]), value=float(data["value"]),
                second=tuple(str(c) for c in data["second"]), second_value=float(data["second_value"]),
                margin=float(data["margin"]), found_margin=float(data["found_margin"]),
                themes=tuple(str(t) for t in data["themes"]), goal=str(data["goal"]),
                line=tuple(tuple(str(c) for c in t) for t in data["line"]), source=str(data["source"]),
                found={str(k): int(v) for k, v in data["found"].items()},
                confirmed={str(k): int(v) for k, v in data["confirmed"].items()},
            )
        except (KeyError, TypeError, AttributeError) as e:
            raise ValueError(f"a puzzle line lacks or mistypes a field: {e}") from None
        game = puzzle.game()  # IllegalMove (a ValueError) for moves that cannot be played
        if game.is_over:
            raise ValueError(f"puzzle {puzzle.id}: the game is over in its position")
        game.play(list(puzzle.answer))
        if len(puzzle.given) != puzzle.players or any(g not in (None, a) for g, a in zip(puzzle.given, puzzle.answer, strict=True)):
            raise ValueError(f"puzzle {puzzle.id}: its given stones are not the answer's")
        return puzzle


def read_puzzles(path: str | Path) -> list[Puzzle]:
    """Every puzzle of a file (blank lines skipped); ValueError naming the line for a bad one."""
    puzzles = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            if line.strip():
                try:
                    puzzles.append(Puzzle.from_json(json.loads(line)))
                except ValueError as e:
                    raise ValueError(f"{path}, line {number}: {e}") from None
    return puzzles


def puzzle_line(puzzle: Puzzle) -> str:
    """One line of the puzzle file, with its newline."""
    return json.dumps(puzzle.to_json(), separators=(",", ":")) + "\n"


def write_puzzles(path: str | Path, puzzles: Iterable[Puzzle]) -> int:
    """Write ``puzzles`` to ``path``, one a line; returns how many."""
    count = 0
    with open(path, "w", encoding="utf-8") as f:
        for puzzle in puzzles:
            f.write(puzzle_line(puzzle))
            count += 1
    return count


def shipped_puzzles() -> list[Puzzle]:
    """The puzzles the package ships (:data:`SHIPPED`).

    >>> len(shipped_puzzles()) >= 300
    True
    """
    with resources.as_file(resources.files("omega") / SHIPPED) as path:
        return read_puzzles(path)
