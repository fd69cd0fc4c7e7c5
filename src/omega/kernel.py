"""The fast array kernel of Omega: the second home of the rules, built for search.

``omega.game.Game`` is the readable statement of the rules; this module holds the same
rules in flat NumPy arrays with Numba-compiled loops, for the bots and ``omega bench``.
Differential tests (``tests/test_kernel.py``) keep the two equal.

State: a flat ``int8`` board (-1 empty, else the colour), a neighbour table padded with
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

from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np
from numba import njit

from omega.board import Board
from omega.game import Color, Game

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["EPS", "KernelState", "Tables", "tables"]

#: Log-scores closer than this are compared exactly from the group sizes.
EPS = 1e-9
# 8 limbs of 32 bits hold any product of group sizes up to side 13 (at most 3**79 < 2**126).
_LIMBS = 8
_MASK32 = np.uint64(0xFFFFFFFF)


class Tables:
    """Per-side constant arrays shared by every kernel call.

    ``nbr[i]``: the neighbours of cell ``i`` padded with -1; ``back[i]``: the neighbours
    with a smaller index (at most 3), padded with -1, which is all a one-pass union-find
    over the board needs; ``logt[k] = log(k)``.

    >>> t = tables(3); t.nbr.shape, int(t.back[0][0])
    ((19, 6), -1)
    """

    def __init__(self, size: int) -> None:
        board = Board.of(size)
        n = len(board)
        self.size = size
        self.ncell = n
        self.nbr = np.full((n, 6), -1, dtype=np.int32)
        self.back = np.full((n, 3), -1, dtype=np.int32)
        for i, nbs in enumerate(board.neighbours):
            self.nbr[i, : len(nbs)] = nbs
            lower = sorted(k for k in nbs if k < i)
            self.back[i, : len(lower)] = lower
        self.logt = np.zeros(n + 2, dtype=np.float64)
        self.logt[1:] = np.log(np.arange(1, n + 2, dtype=np.float64))


@cache
def tables(size: int) -> Tables:
    """The shared :class:`Tables` of board side ``size``."""
    return Tables(size)


# ---------------------------------------------------------------------------------------
# Compiled kernels.  All are nogil so callers may run them on threads; none allocates in
# the inner loops.


@njit(cache=True, nogil=True, inline="always")
def _find(parent: Any, x: int) -> int:
    while parent[x] != x:
        parent[x] = parent[parent[x]]  # path halving keeps trees flat
        x = parent[x]
    return x


@njit(cache=True, nogil=True, inline="always")
def _union(parent: Any, size: Any, a: int, b: int) -> int:
    """Join the groups of distinct roots ``a`` and ``b``; returns the new root."""
    if size[a] < size[b]:  # union by size: the larger tree keeps its root
        a, b = b, a
    parent[b] = a
    size[a] += size[b]
    return a


@njit(cache=True, nogil=True)
def place_stone(board: Any, parent: Any, size: Any, logs: Any, counts: Any, nbr: Any, logt: Any,
                cell: int, color: int) -> None:
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
        r = _find(parent, k)
        if r == root:
            continue
        a, b = size[root], size[r]
        logs[color] += logt[a + b] - logt[a] - logt[b]
        root = _union(parent, size, root, r)


@njit(cache=True, nogil=True)
def _mul_limbs(limbs: Any, k: int) -> None:
    carry = np.uint64(0)
    for i in range(limbs.shape[0]):
        v = limbs[i] * np.uint64(k) + carry
        limbs[i] = v & _MASK32
        carry = v >> np.uint64(32)


@njit(cache=True, nogil=True)
def _exact_cmp(board: Any, parent: Any, size: Any, counts: Any, a: int, b: int) -> int:
    """Sign of score(a) - score(b), from exact products of the group sizes."""
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
            _mul_limbs(la if c == a else lb, size[i])
    for i in range(_LIMBS - 1, -1, -1):
        if la[i] != lb[i]:
            return 1 if la[i] > lb[i] else -1
    return 0


@njit(cache=True, nogil=True)
def winner_of(board: Any, parent: Any, size: Any, logs: Any, counts: Any, players: int) -> int:
    """The winning colour: highest score, ties to the later colour (exact when close)."""
    best = 0
    for c in range(1, players):
        d = logs[c] - logs[best]
        if d > EPS or (d > -EPS and _exact_cmp(board, parent, size, counts, c, best) >= 0):
            best = c
    return best


@njit(cache=True, nogil=True)
def score_board(board: Any, back: Any, logt: Any, parent: Any, size: Any, logs: Any, counts: Any,
                players: int) -> None:
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
            r = _find(parent, k)
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


@njit(cache=True, nogil=True)
def fill_sequence(players: int, turn: int, step: int, n_empty: int, seq: Any) -> int:
    """Colours still to be placed from (turn colour, stones placed in the turn, empties) to
    the end of the game, written into ``seq``; returns their number.  The order inside the
    fill does not matter to a uniform random fill (stones of different colours commute)."""
    n = 0
    e = n_empty
    if step > 0:
        for j in range(step, players):
            seq[n] = (turn + j) % players
            n += 1
        e -= players - step
        turn = (turn + 1) % players
    while not (turn == 0 and e < players * players):
        for c in range(players):
            seq[n] = c
            n += 1
        e -= players
        turn = (turn + 1) % players
    return n


@njit(cache=True, nogil=True)
def xorshift(state: Any) -> Any:
    """Next value of the xorshift64 generator kept in ``state[0]``."""
    x = state[0]
    x ^= x << np.uint64(13)
    x ^= x >> np.uint64(7)
    x ^= x << np.uint64(17)
    state[0] = x
    return x


@njit(cache=True, nogil=True, inline="always")
def rand_below(state: Any, n: int) -> int:
    """Uniform integer in ``[0, n)`` (multiply-shift: no division in the loop)."""
    return int(((xorshift(state) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True, nogil=True, inline="always")
def random_fill(board: Any, cells: Any, n_empty: int, seq: Any, length: int, rng: Any) -> None:
    """Put the colours ``seq[:length]`` on uniformly random cells among ``cells[:n_empty]``."""
    e = n_empty
    for t in range(length):
        j = rand_below(rng, e)
        e -= 1
        cell = cells[j]
        cells[j] = cells[e]
        board[cell] = seq[t]


@njit(cache=True, nogil=True)
def seed_state(seed: int) -> Any:
    """A one-element xorshift state from any integer seed (never zero)."""
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = (np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15)) | np.uint64(1)
    for _ in range(4):
        xorshift(rng)
    return rng


@njit(cache=True, nogil=True)
def random_playouts(board0: Any, empties0: Any, n_empty: int, back: Any, logt: Any, players: int,
                    turn: int, step: int, count: int, seed: int, wins: Any, final: Any) -> None:
    """Play ``count`` uniform random playouts from a position to the end of the game,
    score each one fully and add each winner to ``wins[colour]``.  The last final board
    is left in ``final`` (tests check it against ``Game``)."""
    ncell = board0.shape[0]
    board = final
    cells = np.empty(ncell, dtype=np.int32)
    parent = np.empty(ncell, dtype=np.int32)
    size = np.empty(ncell, dtype=np.int32)
    logs = np.zeros(4, dtype=np.float64)
    counts = np.zeros(4, dtype=np.int32)
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
        self.tables = tables(size)
        n = self.tables.ncell
        self.board: NDArray[np.int8] = np.full(n, -1, dtype=np.int8)
        self.parent: NDArray[np.int32] = np.arange(n, dtype=np.int32)
        self.gsize: NDArray[np.int32] = np.ones(n, dtype=np.int32)
        self.logs: NDArray[np.float64] = np.zeros(4, dtype=np.float64)
        self.counts: NDArray[np.int32] = np.zeros(4, dtype=np.int32)
        self.turn = 0
        self.step = 0
        self.empty = n
        self.over = n < players * players

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
        return (self.turn + self.step) % self.players

    def place(self, cell: int, color: int) -> None:
        """Put one stone on an empty cell (no turn bookkeeping: for set-up and search)."""
        if self.board[cell] >= 0:
            raise ValueError(f"cell {Board.of(self.size).name(cell)} is not empty")
        t = self.tables
        place_stone(self.board, self.parent, self.gsize, self.logs, self.counts, t.nbr, t.logt, cell, color)
        self.empty -= 1

    def place_next(self, cell: int) -> None:
        """Place the next stone of the current turn; ends the turn (and maybe the game)."""
        if self.over:
            raise ValueError("the game is over")
        self.place(cell, self.placing)
        self.step += 1
        if self.step == self.players:
            self.step = 0
            self.turn = (self.turn + 1) % self.players
            if self.turn == 0 and self.empty < self.players * self.players:
                self.over = True

    def play_turn(self, cells: list[int]) -> None:
        """Play a whole turn: ``cells`` are indices in colour order (White, Black, ...)."""
        if self.step != 0 or len(cells) != self.players:
            raise ValueError("a turn is one cell per colour, from the start of the turn")
        order = [(self.turn + j) % self.players for j in range(self.players)]
        for color in order:
            self.place_next(cells[color])

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
        logs = np.array(self.log_scores() + [0.0] * (4 - self.players))
        return int(winner_of(self.board, self.parent, self.gsize, logs, self.counts, self.players))

    def empties(self) -> NDArray[np.int32]:
        """Indices of the empty cells."""
        return np.flatnonzero(self.board < 0).astype(np.int32)

    def playouts(self, count: int, seed: int = 0) -> NDArray[np.int64]:
        """Wins per colour of ``count`` uniform random playouts from this position."""
        return self._playouts(count, seed)[0]

    def final_board(self, seed: int = 0) -> NDArray[np.int8]:
        """The board at the end of one uniform random playout from this position.

        >>> k = KernelState(players=2, size=5); int((k.final_board(seed=3) < 0).sum())
        1
        """
        return self._playouts(1, seed)[1]

    def _playouts(self, count: int, seed: int) -> tuple[NDArray[np.int64], NDArray[np.int8]]:
        wins = np.zeros(self.players, dtype=np.int64)
        final = self.board.copy()
        if self.over:
            wins[self.leader()] += count
            return wins, final
        empties = self.empties()
        t = self.tables
        random_playouts(self.board, empties, len(empties), t.back, t.logt, self.players,
                        self.turn, self.step, count, seed, wins, final)
        return wins, final
