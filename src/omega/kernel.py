"""The fast array kernel of Omega: the second home of the rules, built for search.

``omega.game.Game`` is the readable statement of the rules; this module holds the same
rules in flat NumPy arrays with Numba-compiled loops, for the bots and ``omega bench``.
Differential tests (``tests/test_kernel.py``) keep the two equal.

State: a flat ``int8`` board (:data:`EMPTY`, else the colour), a neighbour table padded with
-1, a union-find forest (``parent``; a root holds its group's size in ``size``), and per
colour a stone count and a running *log-score* (the sum of ``log(size)`` over its groups),
so placing a stone updates the score in a few operations.  Scores are compared as
log-scores; when two are within :data:`EPS` the kernel multiplies the exact group sizes in
fixed-width limbs, so close results are decided exactly, as ``Game`` does with big ints.

>>> from omega import Game
>>> g = Game(players=2, size=5); g.play(["e5", "a1"]); g.play(["e4", "a2"])
>>> k = KernelState.from_game(g)
>>> k.scores() == g.scores(), k.group_sizes(1)
(True, [2])
>>> wins = k.playouts(1000, seed=1)
>>> int(wins.sum())
1000
"""

from __future__ import annotations

import math
from functools import cache
from typing import TypeAlias

import numpy as np
from numba import njit
from numpy.typing import NDArray

from omega.board import MAX_SIZE, Board, cell_count
from omega.game import MAX_PLAYERS, Color, Game
from omega.jitcache import forget_stale

# Before any kernel loads its machine code: a cache built from other sources is dropped.
forget_stale()

__all__ = [
    "EMPTY", "EPS", "MAX_COLORS", "BoardArrays", "KernelState", "board_arrays", "compare_exact", "fill_sequence",
    "find_root", "mul_limbs", "next_stone", "place_stone", "rand_below", "random_fill", "random_playouts",
    "score_board", "score_scratch", "seed_state", "winner_of", "xorshift",
    "Float32Array", "Float64Array", "Int8Array", "Int32Array", "Int64Array", "UInt64Array",
]

#: The array types the kernels take (one name per dtype, shared by every search module).
Int8Array: TypeAlias = NDArray[np.int8]
Int32Array: TypeAlias = NDArray[np.int32]
Int64Array: TypeAlias = NDArray[np.int64]
UInt64Array: TypeAlias = NDArray[np.uint64]
Float32Array: TypeAlias = NDArray[np.float32]
Float64Array: TypeAlias = NDArray[np.float64]

#: Log-scores closer than this are compared exactly from the group sizes.
EPS = 1e-9

#: An empty cell of a kernel board (a filled one holds its colour, 0 up).
EMPTY = -1

#: Length of every per-colour array (log-scores, stone counts, a turn's cells): one entry
#: per colour of the largest game, so one array fits any player count.
MAX_COLORS = MAX_PLAYERS

# Limbs of 32 bits enough for any product of group sizes on the largest board: sizes
# adding up to at most its cell count multiply to at most 3**(cells / 3), since splitting
# into threes gives the biggest product.
_LIMBS = math.ceil(cell_count(MAX_SIZE) / 3 * math.log2(3) / 32)
_MASK32 = np.uint64(0xFFFFFFFF)


class BoardArrays:
    """The constant arrays of one board side, shared by every kernel call.

    ``nbr[i]``: the neighbours of cell ``i`` padded with -1; ``back[i]``: the neighbours
    with a smaller index (at most 3), padded with -1, which is all a one-pass union-find
    over the board needs; ``logt[k] = log(k)``.

    >>> a = board_arrays(3); a.nbr.shape, int(a.back[0][0])
    ((19, 6), -1)
    """

    def __init__(self, size: int) -> None:
        board = Board.of(size)
        n = len(board)
        self.size = size
        self.ncell = n
        self.nbr: Int32Array = np.full((n, 6), -1, dtype=np.int32)
        self.back: Int32Array = np.full((n, 3), -1, dtype=np.int32)
        for i, nbs in enumerate(board.neighbours):
            self.nbr[i, : len(nbs)] = nbs
            lower = sorted(k for k in nbs if k < i)
            self.back[i, : len(lower)] = lower
        self.logt: Float64Array = np.zeros(n + 2, dtype=np.float64)
        self.logt[1:] = np.log(np.arange(1, n + 2, dtype=np.float64))


@cache
def board_arrays(size: int) -> BoardArrays:
    """The shared :class:`BoardArrays` of board side ``size``.

    >>> board_arrays(5) is board_arrays(5), board_arrays(5).ncell
    (True, 61)
    """
    return BoardArrays(size)


# ---------------------------------------------------------------------------------------
# Compiled kernels.  All are nogil so callers may run them on threads; none allocates in
# the inner loops.


@njit(cache=True, nogil=True, inline="always")
def find_root(parent: Int32Array, x: int) -> int:
    """The root of the group of the stone on cell ``x`` (halving the path on the way).

    >>> parent = np.array([0, 0, 1, 3], dtype=np.int32)
    >>> find_root(parent, 2), find_root(parent, 3)
    (0, 3)
    """
    while parent[x] != x:
        parent[x] = parent[parent[x]]  # path halving keeps trees flat
        x = parent[x]
    return x


@njit(cache=True, nogil=True, inline="always")
def _union(parent: Int32Array, size: Int32Array, a: int, b: int) -> int:
    """Join the groups of distinct roots ``a`` and ``b``; returns the new root."""
    if size[a] < size[b]:  # union by size: the larger tree keeps its root
        a, b = b, a
    parent[b] = a
    size[a] += size[b]
    return a


@njit(cache=True, nogil=True)
def place_stone(board: Int8Array, parent: Int32Array, size: Int32Array, logs: Float64Array, counts: Int32Array,
                nbr: Int32Array, logt: Float64Array, cell: int, color: int) -> None:
    """Put a ``color`` stone on empty ``cell``, merging groups and updating the log-score."""
    board[cell] = color
    parent[cell] = cell
    size[cell] = 1
    counts[color] += 1
    root = cell
    for j in range(6):
        k = nbr[cell, j]
        if k < 0:
            break
        if board[k] != color:
            continue
        r = find_root(parent, k)
        if r == root:
            continue
        a, b = size[root], size[r]
        logs[color] += logt[a + b] - logt[a] - logt[b]
        root = _union(parent, size, root, r)


@njit(cache=True, nogil=True)
def mul_limbs(limbs: UInt64Array, k: int) -> None:
    """Multiply in place the number held in ``limbs`` (32 bits each, lowest first) by ``k``.

    >>> limbs = np.array([2**31, 0], dtype=np.uint64); mul_limbs(limbs, 6); [int(v) for v in limbs]
    [0, 3]
    """
    carry = np.uint64(0)
    for i in range(limbs.shape[0]):
        v = limbs[i] * np.uint64(k) + carry
        limbs[i] = v & _MASK32
        carry = v >> np.uint64(32)


@njit(cache=True, nogil=True)
def compare_exact(board: Int8Array, parent: Int32Array, size: Int32Array, counts: Int32Array, a: int,
                  b: int) -> int:
    """Sign of score(a) - score(b), from exact products of the group sizes.

    >>> k = KernelState(players=2, size=3); k.place(0, 0); k.place(1, 0); k.place(5, 1)
    >>> compare_exact(k.board, k.parent, k.gsize, k.counts, 0, 1)
    1
    """
    if a == b:
        return 0
    if counts[a] == 0 or counts[b] == 0:
        return int(counts[a] > 0) - int(counts[b] > 0)
    la = np.zeros(_LIMBS, dtype=np.uint64)
    lb = np.zeros(_LIMBS, dtype=np.uint64)
    la[0] = 1
    lb[0] = 1
    for i in range(board.shape[0]):
        c = board[i]
        if (c == a or c == b) and parent[i] == i:  # noqa: SIM109  (Numba: no tuple test)
            mul_limbs(la if c == a else lb, size[i])
    for i in range(_LIMBS - 1, -1, -1):
        if la[i] != lb[i]:
            return 1 if la[i] > lb[i] else -1
    return 0


@njit(cache=True, nogil=True)
def winner_of(board: Int8Array, parent: Int32Array, size: Int32Array, logs: Float64Array, counts: Int32Array,
              players: int) -> int:
    """The winning colour: highest score, ties to the later colour (exact when close)."""
    best = 0
    for c in range(1, players):
        d = logs[c] - logs[best]
        if d > EPS or (d > -EPS and compare_exact(board, parent, size, counts, c, best) >= 0):
            best = c
    return best


@njit(cache=True, nogil=True)
def score_board(board: Int8Array, back: Int32Array, logt: Float64Array, parent: Int32Array, size: Int32Array,
                logs: Float64Array, counts: Int32Array, players: int) -> None:
    """Rebuild groups of a whole board in one pass; fill ``logs`` and ``counts``."""
    for c in range(players):
        logs[c] = 0.0
        counts[c] = 0
    for i in range(board.shape[0]):
        c = board[i]
        if c < 0:
            continue
        counts[c] += 1
        parent[i] = i
        size[i] = 1
        root = i
        for j in range(3):
            k = back[i, j]
            if k < 0:
                break
            if board[k] != c:
                continue
            r = find_root(parent, k)
            if r == root:
                continue
            root = _union(parent, size, root, r)
    for i in range(board.shape[0]):
        c = board[i]
        if c >= 0 and parent[i] == i:
            logs[c] += logt[size[i]]
    for c in range(players):
        if counts[c] == 0:
            logs[c] = -1.0  # no stones scores 0: below every product (log >= 0)


@njit(cache=True, nogil=True, inline="always")
def next_stone(players: int, turn: int, placed: int, n_empty: int) -> tuple[int, int, int, bool]:
    """Where play stands once ``placed`` stones of colour ``turn``'s turn are on the board
    and ``n_empty`` cells are empty: ``(turn, placed, colour of the next stone, game over)``,
    a completed turn being passed on to the next colour.

    The kernel places a turn one stone at a time, the mover's own colour first, then the
    following colours in turn order.  The game ends just before White's turn when fewer
    cells than players squared are empty (the rule as ``Game`` states it).

    >>> next_stone(3, 1, 1, 50), next_stone(2, 1, 2, 50), next_stone(2, 1, 2, 3)
    ((1, 1, 2, False), (0, 0, 0, False), (0, 0, 0, True))
    """
    # Wrapped by comparison, not by ``%``: a division a stone was a fifth of a simulated
    # stone's cost, and ``turn + placed`` is below twice ``players``.
    if placed == players:
        turn = turn + 1 if turn + 1 < players else 0
        placed = 0
    color = turn + placed
    if color >= players:
        color -= players
    return turn, placed, color, placed == 0 and turn == 0 and n_empty < players * players


@njit(cache=True, nogil=True)
def fill_sequence(players: int, turn: int, step: int, n_empty: int, seq: Int8Array) -> int:
    """Colours still to be placed from (turn colour, stones placed in the turn, empties) to
    the end of the game, written into ``seq``; returns their number.  The order inside the
    fill does not matter to a uniform random fill (stones of different colours commute).

    >>> seq = np.empty(16, dtype=np.int8); n = fill_sequence(2, 1, 1, 5, seq); seq[:n].tolist()
    [0, 0, 1, 0, 1]
    """
    n = 0
    e = n_empty
    turn, step, color, over = next_stone(players, turn, step, e)
    while not over and step > 0:  # the rest of the current turn
        seq[n] = color
        n += 1
        e -= 1
        turn, step, color, over = next_stone(players, turn, step + 1, e)
    while not over:  # whole turns, in colour order
        for c in range(players):
            seq[n] = c
            n += 1
        e -= players
        turn, step, color, over = next_stone(players, turn, players, e)
    return n


@njit(cache=True, nogil=True)
def xorshift(state: UInt64Array) -> np.uint64:
    """Next value of the xorshift64 generator kept in ``state[0]``."""
    x: np.uint64 = state[0]
    x ^= x << np.uint64(13)
    x ^= x >> np.uint64(7)
    x ^= x << np.uint64(17)
    state[0] = x
    return x


@njit(cache=True, nogil=True, inline="always")
def rand_below(state: UInt64Array, n: int) -> int:
    """Uniform integer in ``[0, n)`` (multiply-shift: no division in the loop)."""
    return int(((xorshift(state) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True, nogil=True, inline="always")
def random_fill(board: Int8Array, cells: Int32Array, n_empty: int, seq: Int8Array, length: int,
                rng: UInt64Array) -> None:
    """Put the colours ``seq[:length]`` on uniformly random cells among ``cells[:n_empty]``."""
    e = n_empty
    for t in range(length):
        j = rand_below(rng, e)
        e -= 1
        cell = cells[j]
        cells[j] = cells[e]
        board[cell] = seq[t]


@njit(cache=True, nogil=True)
def seed_state(seed: int) -> UInt64Array:
    """A one-element xorshift state from any integer seed (never zero)."""
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = (np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15)) | np.uint64(1)
    for _ in range(4):
        xorshift(rng)
    return rng


@njit(cache=True, nogil=True)
def score_scratch(ncell: int) -> tuple[Int32Array, Int32Array, Float64Array, Int32Array]:
    """The work arrays of :func:`score_board` and :func:`place_stone` for a board of
    ``ncell`` cells: ``parent`` and ``size`` (per cell, filled as stones are placed), then
    ``logs`` and ``counts`` (per colour, zero).

    >>> parent, size, logs, counts = score_scratch(7); parent.shape, logs.tolist()
    ((7,), [0.0, 0.0, 0.0, 0.0])
    """
    parent = np.empty(ncell, dtype=np.int32)
    size = np.empty(ncell, dtype=np.int32)
    return parent, size, np.zeros(MAX_COLORS, dtype=np.float64), np.zeros(MAX_COLORS, dtype=np.int32)


@njit(cache=True, nogil=True)
def random_playouts(board0: Int8Array, empties0: Int32Array, n_empty: int, back: Int32Array, logt: Float64Array,
                    players: int, turn: int, step: int, count: int, seed: int, wins: Int64Array,
                    final: Int8Array) -> None:
    """Play ``count`` uniform random playouts from a position to the end of the game,
    score each one fully and add each winner to ``wins[colour]``.  The last final board
    is left in ``final`` (tests check it against ``Game``)."""
    ncell = board0.shape[0]
    board = final
    cells = np.empty(ncell, dtype=np.int32)
    parent, size, logs, counts = score_scratch(ncell)
    seq = np.empty(ncell + players * players, dtype=np.int8)
    length = fill_sequence(players, turn, step, n_empty, seq)
    rng = seed_state(seed)
    for _ in range(count):
        board[:] = board0
        cells[:n_empty] = empties0[:n_empty]
        random_fill(board, cells, n_empty, seq, length, rng)
        score_board(board, back, logt, parent, size, logs, counts, players)
        wins[winner_of(board, parent, size, logs, counts, players)] += 1


# ---------------------------------------------------------------------------------------
# The Python face of the kernel.


class KernelState:
    """A position held in kernel arrays: board, union-find, log-scores, turn and step.

    ``step`` counts the stones already placed in the current turn (search places a turn
    one stone at a time, own colour first, then the following colours in turn order).

    >>> k = KernelState(players=2, size=3)
    >>> k.play_turn([k.index("c3"), k.index("a1")]); k.to_move, k.scores()
    (1, {<Color.WHITE: 0>: 1, <Color.BLACK: 1>: 1})
    """

    def __init__(self, players: int, size: int) -> None:
        self.players = players
        self.size = size
        self.arrays = board_arrays(size)
        n = self.arrays.ncell
        self.board: Int8Array = np.full(n, EMPTY, dtype=np.int8)
        self.parent: Int32Array = np.arange(n, dtype=np.int32)
        self.gsize: Int32Array = np.ones(n, dtype=np.int32)
        self.logs: Float64Array = np.zeros(MAX_COLORS, dtype=np.float64)
        self.counts: Int32Array = np.zeros(MAX_COLORS, dtype=np.int32)
        self.empty = n
        self.turn = 0
        self.step = 0
        self.over = bool(next_stone(players, 0, 0, n)[3])

    @classmethod
    def from_game(cls, game: Game) -> KernelState:
        """The kernel state of a ``Game`` position (stones, colour to move, end).

        >>> g = Game(players=3, size=4); g.play(["d4", "a1", "g7"])
        >>> KernelState.from_game(g).to_move
        1
        """
        state = cls(game.players, game.size)
        index = game.board.index
        for cell, color in game.stones().items():
            state.place(index(cell), int(color))
        state.turn = 0 if game.to_move is None else int(game.to_move)
        state.over = game.is_over
        return state

    def copy(self) -> KernelState:
        """An independent copy."""
        other = KernelState.__new__(KernelState)
        other.__dict__.update(self.__dict__)
        for name in ("board", "parent", "gsize", "logs", "counts"):
            setattr(other, name, getattr(self, name).copy())
        return other

    def index(self, cell: str) -> int:
        """Index of a cell name on this board."""
        return Board.of(self.size).index(cell)

    @property
    def to_move(self) -> int | None:
        """The colour whose turn it is, None once the game is over."""
        return None if self.over else self.turn

    @property
    def placing(self) -> int:
        """The colour of the next single stone of the current turn."""
        return int(next_stone(self.players, self.turn, self.step, self.empty)[2])

    def turn_colors(self) -> list[int]:
        """The colours of the current turn's stones in the order the kernel places them: the
        mover's own colour first, then the following colours in turn order.

        >>> k = KernelState(players=3, size=4); k.play_turn([0, 1, 2]); k.turn_colors()
        [1, 2, 0]
        """
        return [int(next_stone(self.players, self.turn, j, self.empty)[2]) for j in range(self.players)]

    def place(self, cell: int, color: int) -> None:
        """Put one stone on an empty cell (no turn bookkeeping: for set-up and search)."""
        if self.board[cell] != EMPTY:
            raise ValueError(f"cell {Board.of(self.size).name(cell)} is not empty")
        a = self.arrays
        place_stone(self.board, self.parent, self.gsize, self.logs, self.counts, a.nbr, a.logt, cell, color)
        self.empty -= 1

    def place_next(self, cell: int) -> None:
        """Place the next stone of the current turn; ends the turn (and maybe the game)."""
        if self.over:
            raise ValueError("the game is over")
        self.place(cell, self.placing)
        turn, step, _, over = next_stone(self.players, self.turn, self.step + 1, self.empty)
        self.turn, self.step, self.over = int(turn), int(step), bool(over)

    def play_turn(self, cells: list[int]) -> None:
        """Play a whole turn: ``cells`` are indices in colour order (White, Black, ...)."""
        if self.step != 0 or len(cells) != self.players:
            raise ValueError("a turn is one cell per colour, from the start of the turn")
        for _ in range(self.players):
            self.place_next(cells[self.placing])

    def find(self, cell: int) -> int:
        """Root of the group of the stone on ``cell``."""
        while self.parent[cell] != cell:
            cell = int(self.parent[cell])
        return cell

    def groups(self, color: int) -> list[frozenset[int]]:
        """Groups of ``color`` as sets of cell indices, ordered by first cell."""
        by_root: dict[int, set[int]] = {}
        for i in np.flatnonzero(self.board == color):
            by_root.setdefault(self.find(int(i)), set()).add(int(i))
        return [frozenset(g) for g in by_root.values()]

    def group_sizes(self, color: int) -> list[int]:
        """Group sizes of ``color`` read off the roots, largest first."""
        roots = [i for i in np.flatnonzero(self.board == color) if self.parent[i] == i]
        return sorted((int(self.gsize[i]) for i in roots), reverse=True)

    def scores(self) -> dict[Color, int]:
        """Exact scores as Python integers (products of the roots' sizes)."""
        result = {}
        for c in range(self.players):
            sizes = self.group_sizes(c)
            product = 1
            for s in sizes:
                product *= s
            result[Color(c)] = product if sizes else 0
        return result

    def log_scores(self) -> list[float]:
        """The running log-scores (-1.0 for a colour without stones)."""
        return [float(self.logs[c]) if self.counts[c] else -1.0 for c in range(self.players)]

    def leader(self) -> int:
        """The colour ranked first now (the winner once the game is over), by the kernel's
        own comparison: log-scores, exact products when close."""
        logs = np.array(self.log_scores() + [0.0] * (MAX_COLORS - self.players))
        return int(winner_of(self.board, self.parent, self.gsize, logs, self.counts, self.players))

    def empties(self) -> Int32Array:
        """Indices of the empty cells."""
        return np.flatnonzero(self.board < 0).astype(np.int32)

    def playouts(self, count: int, seed: int = 0) -> Int64Array:
        """Wins per colour of ``count`` uniform random playouts from this position."""
        return self._playouts(count, seed)[0]

    def final_board(self, seed: int = 0) -> Int8Array:
        """The board at the end of one uniform random playout from this position.

        >>> k = KernelState(players=2, size=5); int((k.final_board(seed=3) < 0).sum())
        1
        """
        return self._playouts(1, seed)[1]

    def _playouts(self, count: int, seed: int) -> tuple[Int64Array, Int8Array]:
        wins = np.zeros(self.players, dtype=np.int64)
        final = self.board.copy()
        if self.over:
            wins[self.leader()] += count
            return wins, final
        empties = self.empties()
        a = self.arrays
        random_playouts(self.board, empties, len(empties), a.back, a.logt, self.players,
                        self.turn, self.step, count, seed, wins, final)
        return wins, final
