"""The simulations' learning: where stones paid in the search's earlier simulations, and
a fill to the end of the game that leans on it (:mod:`omega.ai.tree` runs both below its
tree; ``mast`` of :class:`omega.ai.mcts.MctsBot` sets the number of cells drawn).

>>> from omega.kernel import KernelState, seed_state
>>> state = KernelState(players=2, size=3); table = Mast.of(19, MAST_SIZE)
>>> board, cells = state.board.copy(), state.empties()
>>> mast_fill(board, cells, 19, 2, 0, 0, table, seed_state(1)); int((board >= 0).sum())
16
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from omega.kernel import (
    MAX_COLORS,
    Float64Array,
    Int8Array,
    Int32Array,
    Int64Array,
    UInt64Array,
    next_stone,
    rand_below,
)

__all__ = ["MAST_SIZE", "MAX_MAST", "Mast", "mast_add", "mast_fill"]

#: How many random cells a stone of a simulation chooses among by :class:`Mast`'s
#: statistics (:func:`mast_fill`).  At equal iterations (20 000 a turn, side 5) 4 won 0.70
#: [0.65, 0.75] of 300 two-player games against uniform simulations (docs/measured/2026-12-06-mast-simulations.md).
MAST_SIZE = 4
#: ... at most (the option's bound: more is all but always the best-known cell).
MAX_MAST = 16


class Mast(NamedTuple):
    """What the simulations of one search learn about where stones pay, for :func:`mast_fill`
    (a move-average table, as MAST keeps one; here over the final boards, since a turn's stones
    commute and only where each colour ends up counts): ``n[colour, cell]``, the simulations
    whose final board had that colour on that cell, and ``w[player, colour, cell]``, the
    player's reward summed over them.  ``size`` (one number in an array) is how many random
    cells a stone of a simulation chooses from; below 2 the simulations are uniformly random
    and the tables are left empty.

    >>> table = Mast.of(19, 4); table.n.shape, table.w.shape, int(table.size[0])
    ((4, 19), (4, 4, 19), 4)
    """

    n: Float64Array
    w: Float64Array
    size: Int64Array

    @classmethod
    def of(cls, cells: int, size: int) -> Mast:
        """Empty tables for a board of ``cells`` cells, choosing among ``size`` cells."""
        width = cells if size >= 2 else 0
        return cls(np.zeros((MAX_COLORS, width)), np.zeros((MAX_COLORS, MAX_COLORS, width)),
                   np.array([size], dtype=np.int64))


@njit(cache=True, nogil=True)
def mast_fill(board: Int8Array, cells: Int32Array, n_empty: int, players: int, turn: int, step: int,
              mast: Mast, rng: UInt64Array) -> None:
    """Fill ``board`` to the end of the game from ``step`` stones into ``turn``'s turn, in
    the turn order: each stone goes on the best of ``mast.size`` cells drawn at random
    (with repeats) among ``cells[:n_empty]``, judged by its mover's mean reward when the
    final board had the stone's colour there (0.5 where no simulation has yet).  The
    mover's own view counts: a player places its own colour where it paid it and the
    others' colours where they paid it too, which is where they hurt their owners.

    Drawing a few cells and keeping the best is a light hand: every empty cell can still
    be chosen, the cell's rank among the drawn ones is all that counts, and it costs a few
    random numbers and table reads a stone, no look at the groups.
    """
    n, w, size = mast.n, mast.w, mast.size[0]
    e = n_empty
    t, s, k, over = next_stone(players, turn, step, e)
    while not over:
        j = rand_below(rng, e)
        cell = cells[j]
        seen = n[k, cell]
        best = w[t, k, cell] / seen if seen > 0.0 else 0.5
        for _ in range(size - 1):
            j2 = rand_below(rng, e)
            other = cells[j2]
            seen = n[k, other]
            value = w[t, k, other] / seen if seen > 0.0 else 0.5
            if value > best:
                best, j, cell = value, j2, other
        e -= 1
        cells[j] = cells[e]
        cells[e] = cell
        board[cell] = k
        t, s, k, over = next_stone(players, t, s + 1, e)


@njit(cache=True, nogil=True)
def mast_add(mast: Mast, board: Int8Array, reward: Float64Array, players: int) -> None:
    """Add one simulation's final ``board`` and each player's ``reward`` to ``mast``."""
    n, w = mast.n, mast.w
    for cell in range(board.shape[0]):
        k = board[cell]
        if k < 0:  # the game ends with a few cells empty
            continue
        n[k, cell] += 1.0
        for p in range(players):
            w[p, k, cell] += reward[p]
