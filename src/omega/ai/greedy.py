"""The greedy bot: one turn of look-ahead with a static evaluation of groups.

Each stone of the turn is chosen in turn (own colour first, then the following colours
in turn order) as the empty cell that most improves the mover's evaluation against the
opponents' mean.  A colour's evaluation is a sum over its groups:

* a group of 3 or more stones is worth ``log(size)``: exactly its share of the log-score;
* a group of 1 or 2 stones that can still grow (an empty cell beside it) is worth
  ``size * log(3) / 3``: it is on its way to a group of 3, the most productive size
  (3 stones in a group of 3 give ``log 3``: more per stone than any other size);
* a group of 1 or 2 that is boxed in is worth only ``log(size)``.

So the mover likes new growable singletons and groups of 3, grows groups past 3 only
when it must, and places opponents' stones where they merge opponent groups into big ones
or box in their small groups.  Ties are broken by the seed.  The whole turn is one Numba
call: well under a millisecond on side 10.

>>> from omega import Game
>>> bot = GreedyBot(seed=1)
>>> g = Game(players=2, size=5); g.play(bot.choose(g)); g.turns_played
1
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from omega.ai.base import int_option, no_more_options, register
from omega.game import SWAP, Action, Game, IllegalMove
from omega.kernel import (
    MAX_COLORS,
    Float64Array,
    Int8Array,
    Int32Array,
    KernelState,
    find_root,
    next_stone,
    place_stone,
    seed_state,
    xorshift,
)

__all__ = ["GreedyBot", "evaluate", "greedy_cells"]

#: Value per stone of a small group that can still grow (log 3 / 3).
PER_STONE = math.log(3.0) / 3.0


@njit(cache=True, nogil=True, inline="always")
def _group_value(s: int, growable: bool, logt: Float64Array) -> float:
    if s < 3 and growable:
        return s * PER_STONE
    return float(logt[s])


@njit(cache=True, nogil=True)
def _small_growable(board: Int8Array, nbr: Int32Array, y: int, color: int, skip: int) -> bool:
    """Whether the group of 1 or 2 stones holding ``y`` has an empty neighbour other than ``skip``."""
    if _has_empty_neighbour(board, nbr, y, skip):
        return True
    for j in range(6):
        z = nbr[y, j]
        if z < 0:
            break
        if board[z] == color and _has_empty_neighbour(board, nbr, z, skip):  # z: partner of a 2
            return True
    return False


@njit(cache=True, nogil=True, inline="always")
def _has_empty_neighbour(board: Int8Array, nbr: Int32Array, y: int, skip: int) -> bool:
    for j in range(6):
        k = nbr[y, j]
        if k < 0:
            break
        if board[k] < 0 and k != skip:
            return True
    return False


@njit(cache=True, nogil=True)
def placement_delta(board: Int8Array, parent: Int32Array, size: Int32Array, nbr: Int32Array, logt: Float64Array,
                    x: int, color: int, players: int, delta: Float64Array, roots: Int32Array) -> None:
    """Change of every colour's evaluation if a ``color`` stone went on empty cell ``x``
    (``roots``: room for the six group roots around it, reused from call to call so that
    the loop over every empty cell allocates nothing)."""
    for c in range(players):
        delta[c] = 0.0
    nroots = 0
    merged = 1
    partner = -1
    for j in range(6):
        k = nbr[x, j]
        if k < 0:
            break
        c = board[k]
        if c < 0:
            continue
        r = find_root(parent, k)
        seen = False
        for i in range(nroots):
            if roots[i] == r:
                seen = True
        if seen:
            continue
        roots[nroots] = r
        nroots += 1
        s = size[r]
        if c == color:
            merged += s
            partner = k
            delta[c] -= _group_value(s, _small_growable(board, nbr, k, c, -1), logt)
        elif s < 3:
            # x was a liberty of this small opponent group: it may now be boxed in.
            before = _group_value(s, _small_growable(board, nbr, k, c, -1), logt)
            after = _group_value(s, _small_growable(board, nbr, k, c, x), logt)
            delta[c] += after - before
    if merged < 3:
        growable = _small_growable(board, nbr, x, color, x)
        if not growable and partner >= 0:
            growable = _small_growable(board, nbr, partner, color, x)
        delta[color] += _group_value(merged, growable, logt)
    else:
        delta[color] += logt[merged]


@njit(cache=True, nogil=True)
def evaluate(board: Int8Array, parent: Int32Array, size: Int32Array, nbr: Int32Array, logt: Float64Array,
             players: int, out: Float64Array) -> None:
    """Static evaluation of every colour (sum of group values) into ``out``."""
    for c in range(players):
        out[c] = 0.0
    for i in range(board.shape[0]):
        c = board[i]
        if c >= 0 and parent[i] == i:
            s = size[i]
            out[c] += _group_value(s, s < 3 and _small_growable(board, nbr, i, c, -1), logt)


@njit(cache=True, nogil=True)
def greedy_cells(board0: Int8Array, parent0: Int32Array, size0: Int32Array, nbr: Int32Array, logt: Float64Array,
                 players: int, mover: int, first: int, seed: int, out: Int32Array) -> None:
    """Choose ``out[colour]`` for the stones ``first..players-1`` of ``mover``'s turn
    (own colour first, then the following colours), one stone after the other."""
    board = board0.copy()
    parent = parent0.copy()
    size = size0.copy()
    logs = np.zeros(MAX_COLORS, dtype=np.float64)
    counts = np.zeros(MAX_COLORS, dtype=np.int32)
    delta = np.zeros(MAX_COLORS, dtype=np.float64)
    roots = np.empty(6, dtype=np.int32)
    rng = seed_state(seed)
    for j in range(players):
        if j < first:
            continue
        k = next_stone(players, mover, j, 0)[2]  # only the colour: a game never ends inside a turn
        best = -1
        best_v = -1e18
        for x in range(board.shape[0]):
            if board[x] >= 0:
                continue
            placement_delta(board, parent, size, nbr, logt, x, k, players, delta, roots)
            v = delta[mover]
            for c in range(players):
                if c != mover:
                    v -= delta[c] / (players - 1)
            v += (xorshift(rng) >> np.uint64(40)) * 1e-12  # seeded tie-break
            if v > best_v:
                best_v = v
                best = x
        out[k] = best
        place_stone(board, parent, size, logs, counts, nbr, logt, best, k)


class GreedyBot:
    """One turn of look-ahead with the group evaluation described in the module doc."""

    def __init__(self, seed: int | None = None) -> None:
        self.name = "greedy" if seed is None else f"greedy:seed={seed}"
        self._rng = np.random.default_rng(seed)

    def choose(self, game: Game) -> Action:
        """The greedy turn for the side to move (or ``"swap"`` when that looks better)."""
        if game.is_over:
            raise IllegalMove("the game is over")
        state = KernelState.from_game(game)
        if game.can_swap and self.should_swap(state):
            return SWAP
        return self.turn(state, game)

    def should_swap(self, state: KernelState) -> bool:
        """Swap when White's evaluation is higher than Black's (ties: keep Black)."""
        values = np.zeros(MAX_COLORS, dtype=np.float64)
        a = state.arrays
        evaluate(state.board, state.parent, state.gsize, a.nbr, a.logt, state.players, values)
        return bool(values[0] > values[1] + 1e-9)

    def turn(self, state: KernelState, game: Game) -> tuple[str, ...]:
        """The cells of the greedy turn, in colour order."""
        out = np.full(MAX_COLORS, -1, dtype=np.int32)
        a = state.arrays
        seed = int(self._rng.integers(0, 2**62))
        greedy_cells(state.board, state.parent, state.gsize, a.nbr, a.logt, state.players, state.turn,
                     0, seed, out)
        return tuple(game.cells[int(out[c])] for c in range(state.players))


@register("greedy")
def _make_greedy(options: dict[str, str]) -> GreedyBot:
    seed = int_option(options, "seed", None, 0, 2**63 - 1)
    no_more_options("greedy", options)
    return GreedyBot(seed=seed)
