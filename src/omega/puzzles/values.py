"""How good every turn of a position is, for the mover: the search behind the puzzles.

A turn is one stone of every colour, so a side-5 position of 40 empty cells has 1,560 turns
for 2 players; no tree search looks at each of them.  :func:`value_turns` values them all by
**sequential halving**: every turn gets ``playouts`` uniform random playouts from the
position it leaves; the better half (by the mover's share of wins so far) gets twice as
many more, and so on, until :attr:`Budget.searched` turns are left.  Those, and the turn a
tree search of the position itself prefers (so a turn the playouts misjudge is still
searched), are then each valued by an MCTS search of the position after them
(:func:`omega.ai.review.search_position`): the mover's win chance there.

Each turn's value is the last estimate it got: a turn dropped early was below the
survivors of its round, one searched has its search's value.  A **deeper** budget gives
every turn more playouts and the finalists longer searches.

>>> from omega import Game
>>> g = Game(size=2); g.play(["a1", "c3"])           # 5 empty cells left: 20 turns
>>> found = value_turns(g, Budget(2, 3, 200), seed=1)
>>> len(found), found[0].searched, found[-1].searched
(20, True, False)
>>> 0.0 <= found[-1].value <= found[0].value <= 1.0
True
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from omega.ai.review import search_position
from omega.game import Game, Turn
from omega.kernel import KernelState

__all__ = ["Budget", "TurnValue", "QUICK", "DEEP", "value_turns", "turns_of", "after", "fits"]


@dataclass(frozen=True)
class Budget:
    """How hard :func:`value_turns` looks: ``playouts`` for every turn in the first round,
    then ``searched`` finalists with ``iterations`` simulations each.

    >>> DEEP.deeper_than(QUICK), QUICK.deeper_than(DEEP)
    (True, False)
    """

    playouts: int
    searched: int
    iterations: int

    def deeper_than(self, other: Budget) -> bool:
        """Whether this budget is at least ``other``'s everywhere and more somewhere."""
        mine, theirs = (self.playouts, self.searched, self.iterations), (other.playouts, other.searched,
                                                                           other.iterations)
        return all(a >= b for a, b in zip(mine, theirs, strict=True)) and mine != theirs

    def to_json(self) -> dict[str, int]:
        """The budget as a puzzle file records it.

        >>> QUICK.to_json()
        {'playouts': 2, 'searched': 6, 'iterations': 600}
        """
        return {"playouts": self.playouts, "searched": self.searched, "iterations": self.iterations}


#: The search that finds candidates (cheap: every position of every game is looked at) ...
QUICK = Budget(playouts=2, searched=6, iterations=600)
#: ... and the deeper one that confirms them.
DEEP = Budget(playouts=6, searched=10, iterations=2500)


@dataclass(frozen=True)
class TurnValue:
    """One turn (cells in colour order) and the mover's win chance after it; ``searched``:
    valued by a tree search (else by random playouts), over ``samples`` simulations."""

    turn: Turn
    value: float
    searched: bool
    samples: int


def turns_of(game: Game) -> list[Turn]:
    """Every turn of the position (cells in colour order), in a fixed order.

    >>> g = Game(size=2); g.play(["a1", "c3"]); len(turns_of(g)), turns_of(g)[0]
    (20, ('a2', 'b1'))
    """
    if game.is_over:
        return []
    empty = game.empty_cells()
    return [tuple(cells) for cells in itertools.permutations(empty, game.players)]


def fits(turn: Sequence[str], given: Sequence[str | None] | None) -> bool:
    """Whether ``turn`` places the ``given`` stones (a cell or None per colour; None: any turn).

    >>> fits(("a1", "b2"), [None, "b2"]), fits(("a1", "b2"), ["b2", None]), fits(("a1", "b2"), None)
    (True, False, True)
    """
    return given is None or all(g is None or g == cell for g, cell in zip(given, turn, strict=True))


def after(game: Game, turn: Sequence[str]) -> Game:
    """The position after ``turn`` (a copy; ``game`` is left as it was).

    >>> after(Game(size=2), ["a1", "c3"]).turns_played
    1
    """
    nxt = game.copy()
    nxt.play(list(turn))
    return nxt


def _seed(seed: int, *parts: int) -> int:
    # One stream per (round, turn): the same budget and seed value the same turns the same.
    value = seed
    for part in parts:
        value = (value * 1_000_003 + part) % (2**62)
    return value


def value_turns(game: Game, budget: Budget, seed: int = 0, extra: Iterable[Sequence[str]] = (),
                given: Sequence[str | None] | None = None) -> list[TurnValue]:
    """Every turn of ``game``'s position with the mover's win chance after it, best first
    (see the module doc).  ``extra`` turns (e.g. the one played in the record) are searched
    whatever their playouts say.  ``given`` (a cell or None per colour) keeps only the
    turns that place those stones there.  ValueError for a finished game or a pie-rule
    swap choice.

    >>> g = Game(size=2); g.play(["a1", "c3"])
    >>> [v.turn for v in value_turns(g, Budget(2, 3, 200), given=[None, "b2"])][:1][0][1]
    'b2'
    """
    if game.is_over or game.can_swap:
        raise ValueError("turns are valued in a game in progress, not at a swap choice")
    mover = game.to_move
    assert mover is not None
    turns = [t for t in turns_of(game) if fits(t, given)]
    index = game.board.index
    state = KernelState.from_game(game)
    states: dict[int, KernelState] = {}
    for i, turn in enumerate(turns):
        s = state.copy()
        s.play_turn([index(cell) for cell in turn])
        states[i] = s
    wins = [0] * len(turns)
    tries = [0] * len(turns)
    alive = list(range(len(turns)))
    playouts = max(1, budget.playouts)
    rounds = 0
    while len(alive) > budget.searched:
        for i in alive:
            wins[i] += int(states[i].playouts(playouts, seed=_seed(seed, rounds, i))[int(mover)])
            tries[i] += playouts
        alive.sort(key=lambda i: (-wins[i] / tries[i], i))
        alive = alive[:max(budget.searched, math.ceil(len(alive) / 2))]
        playouts *= 2
        rounds += 1
    finalists = {turns[i] for i in alive}
    root = search_position(game, budget.iterations, None, seed=_seed(seed, 1 << 20))
    if isinstance(root.best, tuple) and fits(root.best, given):
        finalists.add(root.best)
    finalists.update(tuple(t) for t in extra if fits(t, given))
    searched: dict[Turn, TurnValue] = {}
    for k, turn in enumerate(sorted(finalists)):
        found = search_position(after(game, turn), budget.iterations, None, seed=_seed(seed, 1 << 21, k))
        searched[turn] = TurnValue(turn, found.values[int(mover)], True, found.iterations)
    values = [searched.get(turn) or TurnValue(turn, wins[i] / max(1, tries[i]), False, tries[i])
              for i, turn in enumerate(turns)]
    values.sort(key=lambda v: (-v.value, not v.searched, v.turn))
    return values
