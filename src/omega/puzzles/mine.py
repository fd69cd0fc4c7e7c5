"""Puzzles mined from game records: positions where one turn is better than every other.

Every position of a record (past the opening, see :data:`MAX_TURNS`) has all its turns
valued by the quick search (:data:`omega.puzzles.values.QUICK`).  A position is a
candidate where the best turn beats every other by :data:`FIND_MARGIN` or more of the
mover's win chance; or, where several turns are close but all share one stone (the other
colours' stones can go anywhere good, but that one cannot), where that stone beats every
other cell for its colour by as much: the puzzle then gives the rest of the best turn and
asks for that stone.  The deeper search (:data:`~omega.puzzles.values.DEEP`, other random
streams) values every turn the puzzle allows again, and the position is a puzzle if it
finds the same best turn ahead of every other by :data:`CONFIRM_MARGIN`.  The puzzle promises :data:`MARGIN`, less than either, so that one
more search of its own (``tests/test_puzzles.py``, ``omega puzzles check``) still finds it
with room for the searches' noise.

>>> from omega import Game
>>> g = Game.from_history([("a3", "c3"), ("c4", "e3"), ("c1", "b3"), ("d3", "a2"), ("b4", "d4"), ("c5", "d2"),
...                        ("c2", "e4"), ("e5", "a1")], size=3)
>>> found = list(mine_game(g, "tiny.txt", seed=1))
>>> [(p.source, p.given, p.answer, p.margin) for p in found]
[('tiny.txt#4', ('b4', None), ('b4', 'd4'), 0.06), ('tiny.txt#6', (None, None), ('c2', 'e4'), 0.06)]
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from omega.ai.review import search_position
from omega.game import Game, Turn
from omega.puzzles.format import Puzzle, puzzle_id
from omega.puzzles.themes import themes_of
from omega.puzzles.values import DEEP, QUICK, Budget, TurnValue, after, fits, turns_of, value_turns

__all__ = ["FIND_MARGIN", "CONFIRM_MARGIN", "MARGIN", "MAX_TURNS", "LINE_TURNS", "Verdict", "judge", "check",
           "mine_game", "engine_line"]

#: The quick search's lead that makes a position a candidate ...
FIND_MARGIN = 0.08
#: ... the deeper search's lead that makes it a puzzle ...
CONFIRM_MARGIN = 0.10
#: ... and the lead a puzzle promises (each re-check must find at least this).
MARGIN = 0.06
#: Positions with more turns than this are passed over: an opening's hundreds of empty
#: cells cost the most to search and, in the games mined so far, never had one best turn.
MAX_TURNS = 1300
#: A puzzle's given stones: a cell, or None for a stone the player finds, per colour.
Given = tuple[str | None, ...]
#: Turns of the search's line shown after the answer.
LINE_TURNS = 2


@dataclass(frozen=True)
class Verdict:
    """What a search says of a position: the best turn, the best other, their values and
    the lead of the first."""

    answer: Turn
    value: float
    second: Turn
    second_value: float

    @property
    def margin(self) -> float:
        """The best turn's lead over every other."""
        return self.value - self.second_value


def judge(values: Sequence[TurnValue]) -> Verdict | None:
    """The verdict on turns valued best first (:func:`~omega.puzzles.values.value_turns`);
    None when the best was not searched (a playout estimate leads) or there is one turn.

    >>> judge([TurnValue(("a1",), 0.9, True, 10), TurnValue(("b1",), 0.5, False, 4)]).margin
    0.4
    """
    if len(values) < 2 or not values[0].searched:
        return None
    return Verdict(values[0].turn, values[0].value, values[1].turn, values[1].value)


def check(puzzle: Puzzle, budget: Budget = DEEP, seed: int = 7) -> Verdict | None:
    """A puzzle searched again (``budget``, ``seed``; every turn that places its given
    stones): the verdict, or None without a searched best turn.  The puzzle holds if the
    verdict's answer is the puzzle's and its margin is at least the puzzle's.  Its answer
    and its best rival are searched whatever their playouts say, as when it was confirmed:
    random playouts misjudge a turn that wins only with exact play after it.

    >>> from omega.puzzles.format import shipped_puzzles
    >>> p = shipped_puzzles()[0]
    >>> v = check(p, QUICK); v is None or v.margin <= 1
    True
    """
    return judge(value_turns(puzzle.game(), budget, seed=seed, extra=[puzzle.answer, puzzle.second],
                             given=puzzle.given))


def engine_line(game: Game, answer: Sequence[str], budget: Budget = DEEP, seed: int = 0,
                turns: int = LINE_TURNS) -> tuple[Turn, ...]:
    """The search's line after ``answer``: the turns it plays next (fewer at the end).

    >>> g = Game(size=3); g.play(["a1", "c3"])
    >>> len(engine_line(g, ["b2", "c2"], QUICK, turns=1))
    1
    """
    line: list[Turn] = []
    game = after(game, answer)
    while len(line) < turns and not game.is_over:
        best = search_position(game, budget.iterations, None, seed=seed + len(line)).best
        assert isinstance(best, tuple)
        line.append(best)
        game = after(game, best)
    return tuple(line)


def _seed(seed: int, index: int, deep: bool) -> int:
    return (seed * 1_000_003 + index) * 2 + int(deep)


def _puzzle(game: Game, given: Given, verdict: Verdict, source: str, quick: Budget, deep: Budget,
            seed: int) -> Puzzle:
    return Puzzle(
        id=puzzle_id(game.players, game.size, [t for t in game.history if isinstance(t, tuple)]),
        players=game.players, size=game.size, given=given,
        moves=tuple(t for t in game.history if isinstance(t, tuple)),
        answer=verdict.answer, value=verdict.value, second=verdict.second, second_value=verdict.second_value,
        margin=MARGIN, found_margin=verdict.margin, themes=themes_of(game, verdict.answer),
        goal="win" if verdict.value >= 0.5 else "save", line=engine_line(game, verdict.answer, deep, seed),
        source=source, found=quick.to_json(), confirmed=deep.to_json(),
    )


def _candidate(values: Sequence[TurnValue], players: int) -> tuple[Given, float] | None:
    """What the quick search's values make a candidate of: the whole best turn, if it leads
    every other by :data:`FIND_MARGIN`; else the one stone of it that leads every other
    cell for that colour (the rest of the turn given) by the most, if by that much."""
    found = judge(values)
    if found is None:
        return None
    if found.margin >= FIND_MARGIN:
        return (None,) * players, found.margin
    best: tuple[Given, float] | None = None
    for color in range(players):
        given = tuple(None if i == color else cell for i, cell in enumerate(found.answer))
        margin = found.value - max(v.value for v in values[1:] if fits(v.turn, given))
        if margin >= FIND_MARGIN and (best is None or margin > best[1]):
            best = given, margin
    return best


def mine_game(game: Game, source: str, seed: int = 0, quick: Budget = QUICK, deep: Budget = DEEP) -> Iterator[Puzzle]:
    """The puzzles of one recorded game (its positions with at most :data:`MAX_TURNS`
    turns, none of a pie-rule game), in the game's order; ``source`` names it in each."""
    if game.pie_rule:
        return
    for k in range(len(game.history)):
        position = game.position_after(k)
        if position.is_over or len(turns_of(position)) > MAX_TURNS:
            continue
        played = game.history[k]
        extra = [played] if isinstance(played, tuple) else []
        values = value_turns(position, quick, seed=_seed(seed, k, False), extra=extra)
        candidate = _candidate(values, game.players)
        if candidate is None:
            continue
        given = candidate[0]
        answer = values[0].turn
        verdict = judge(value_turns(position, deep, seed=_seed(seed, k, True), extra=[answer], given=given))
        if verdict is None or verdict.answer != answer or verdict.margin < CONFIRM_MARGIN:
            continue
        yield _puzzle(position, given, verdict, f"{os.path.basename(source)}#{k}", quick, deep, seed)
