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
    xorshift,
)

# A random number's low 16 bits, and the shift that scales them to a range (multiply-shift:
# uniform to within cells/65 536, under 0.5% on the largest board).
LOW16 = np.uint64(0xFFFF)
SHIFT16 = np.uint64(16)

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
    whose final board had that colour on that cell, and ``v[player, colour, cell]``, the
    player's mean reward over them (½ before the first; a mean, not a sum, so that a
    simulated stone reads one number a cell and divides nothing).  ``size`` (one number in
    an array) is how many random cells a stone of a simulation chooses from; below 2 the
    simulations are uniformly random and the tables are left empty.

    >>> table = Mast.of(19, 4); table.n.shape, table.v.shape, float(table.v[0, 0, 0]), int(table.size[0])
    ((4, 19), (4, 4, 19), 0.5, 4)
    """

    n: Float64Array
    v: Float64Array
    size: Int64Array

    @classmethod
    def of(cls, cells: int, size: int) -> Mast:
        """Empty tables for a board of ``cells`` cells, choosing among ``size`` cells."""
        width = cells if size >= 2 else 0
        return cls(np.zeros((MAX_COLORS, width)), np.full((MAX_COLORS, MAX_COLORS, width), 0.5),
                   np.array([size], dtype=np.int64))


@njit(cache=True, nogil=True)
def mast_fill(board: Int8Array, cells: Int32Array, n_empty: int, players: int, turn: int, step: int,
              mast: Mast, rng: UInt64Array) -> None:
    """Fill ``board`` to the end of the game from ``step`` stones into ``turn``'s turn, in
    the turn order: each stone goes on the best of ``mast.size`` cells drawn at random
    (with repeats) among ``cells[:n_empty]``, judged by its mover's mean reward when the
    final board had the stone's colour there (½ where no simulation has yet).  The
    mover's own view counts: a player places its own colour where it paid it and the
    others' colours where they paid it too, which is where they hurt their owners.

    Drawing a few cells and keeping the best is a light hand: every empty cell can still
    be chosen, the cell's rank among the drawn ones is all that counts, and it costs a few
    table reads a stone, no look at the groups.  The loop is the search's dearest after the
    tree's, so it is written for the processor: four cells from each random number (16 bits
    each, multiply-shift), the best kept without a branch (a comparison of two random
    cells' values is a coin the branch predictor cannot learn).
    """
    v, size = mast.v, mast.size[0]
    e = n_empty
    t, s, k, over = next_stone(players, turn, step, e)
    while not over:
        row = v[t, k]
        bits = np.uint64(e)
        x = xorshift(rng)
        j = int(((x & LOW16) * bits) >> SHIFT16)
        best = row[cells[j]]
        for d in range(1, size):
            if d & 3 == 0:
                x = xorshift(rng)
            else:
                x >>= SHIFT16
            j2 = int(((x & LOW16) * bits) >> SHIFT16)
            value = row[cells[j2]]
            better = value > best
            best = value if better else best
            j = j2 if better else j
        cell = cells[j]
        e -= 1
        cells[j] = cells[e]
        cells[e] = cell
        board[cell] = k
        t, s, k, over = next_stone(players, t, s + 1, e)


@njit(cache=True, nogil=True)
def mast_add(mast: Mast, board: Int8Array, reward: Float64Array, players: int) -> None:
    """Add one simulation's final ``board`` and each player's ``reward`` to ``mast``'s
    counts and means."""
    n, v = mast.n, mast.v
    for cell in range(board.shape[0]):
        k = board[cell]
        if k < 0:  # the game ends with a few cells empty
            continue
        n[k, cell] += 1.0
        step = 1.0 / n[k, cell]
        for p in range(players):
            v[p, k, cell] += (reward[p] - v[p, k, cell]) * step
