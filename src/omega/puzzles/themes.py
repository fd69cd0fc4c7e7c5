"""A puzzle's themes: what its answer does, read off the board.

``split``
    A stone of another colour goes between two or more of the mover's groups that would be
    worth less joined, so that no one can join them there (a score is a product: two groups
    of 3 are worth 9, joined into one of 7 only 7; and every player places every colour).
``merge``
    An opponent's stone joins two or more of that opponent's groups into one worth less
    than they were.
``sacrifice``
    The mover's log-score lead over the best opponent falls with the turn: something is
    given now for what comes later.
``endgame``
    The answer is one of the mover's last :data:`ENDGAME_ROUNDS` turns: counting decides.

>>> from omega import Game
>>> g = Game(size=4)          # White: a1-a3 and c1-c3; Black: g5-g7 and e3-e5; White to move
>>> for turn in (["a1", "g7"], ["a2", "g6"], ["a3", "g5"], ["c1", "e3"], ["c2", "e4"], ["c3", "e5"]):
...     g.play(turn)
>>> themes_of(g, ("d4", "b2")), themes_of(g, ("d4", "f5")), themes_of(g, ("b2", "d4"))
(('split',), ('merge',), ('sacrifice',))
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from omega.board import cell_count
from omega.game import Color, Game

__all__ = ["THEMES", "ENDGAME_ROUNDS", "themes_of"]

#: Every theme, in the order a puzzle lists them.
THEMES = ("split", "merge", "sacrifice", "endgame")
#: The mover's last turns that count as the endgame.
ENDGAME_ROUNDS = 3


def _groups_touching(game: Game, cell: str, color: Color) -> set[frozenset[str]]:
    board = game.board
    touching = set()
    for n in board.neighbours[board.index(cell)]:
        name = board.name(n)
        if game.stone(name) == color:
            touching.add(game.group_at(name))
    return touching


def _lead(game: Game, mover: Color) -> float:
    # The mover's log-score minus the best other colour's (a colour without stones: 0).
    def log(color: Color) -> float:
        sizes = game.group_sizes(color)
        return sum(math.log(s) for s in sizes) if sizes else 0.0

    return log(mover) - max(log(c) for c in game.colors if c != mover)


def _worse_joined(groups: set[frozenset[str]]) -> bool:
    # Joined by one more stone, these groups would score less than apart.
    sizes = [len(g) for g in groups]
    return len(sizes) >= 2 and math.prod(sizes) > sum(sizes) + 1


def themes_of(game: Game, answer: Sequence[str]) -> tuple[str, ...]:
    """The themes of ``answer`` (cells in colour order) in ``game``'s position."""
    mover = game.to_move
    assert mover is not None
    found = set()
    for color in game.colors:
        if color == mover:
            continue
        cell = answer[color]
        if _worse_joined(_groups_touching(game, cell, mover)):
            found.add("split")
        if _worse_joined(_groups_touching(game, cell, color)):
            found.add("merge")
    nxt = game.copy()
    nxt.play(list(answer))
    if _lead(nxt, mover) < _lead(game, mover) - 1e-9:
        found.add("sacrifice")
    rounds_left = cell_count(game.size) // game.players ** 2 - game.round
    if rounds_left < ENDGAME_ROUNDS:
        found.add("endgame")
    return tuple(t for t in THEMES if t in found)
