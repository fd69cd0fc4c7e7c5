"""The MCTS bot: Monte Carlo tree search with RAVE, compiled with Numba.

Search tree
    A turn (one stone of every colour) is split into single-stone plies: the mover's own
    colour first, then the following colours in turn order.  Since the stones of a turn
    commute, fixing that order loses nothing and turns a turn's ``E**N`` combinations
    into ``N`` choices among ``E`` cells (move grouping).  Every ply of a turn belongs to
    the player whose turn it is: that player picks all of its stones.
Selection
    UCT on the mover's mean reward blended with RAVE (all-moves-as-first) statistics: an
    edge "colour ``k`` on cell ``x``" also learns from every simulation below its node that
    ended with a ``k`` stone on ``x``, whoever put it there and whenever, which is exactly
    what commuting stones allow.  Edges are expanded into nodes on their second visit.
Simulation
    Uniform random stones to the end of the game (the kernel's playout), fully scored.
Reward
    Each player maximises their own result (so 3 and 4 players back up a vector): 1 for
    a win, 0 for a loss, mixed with a small share (:data:`MARGIN_WEIGHT`) of the log-score
    margin so that among won (or lost) lines the bigger margin is preferred.
Pie rule
    As Black's player after turn 1, the bot searches the position and swaps when Black's
    value is below one half (White is ahead, so taking White is better).  As White's
    player on turn 1 with the pie rule on, it plays the searched turn whose value is
    closest to one half, leaving the opponent nothing to gain by the choice.

The search runs in chunks of iterations; between chunks it checks the clock and
:meth:`MctsBot.cancel`.  The kernels release the GIL, and the web server runs bots in a
worker process, so a long search never blocks a caller.

>>> from omega import Game
>>> bot = MctsBot(iterations=200, seed=1)
>>> g = Game(players=2, size=4); g.play(bot.choose(g)); g.turns_played
1
"""

from __future__ import annotations

import math
import threading
import time as _time
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from numba import njit

from omega.ai import levels
from omega.ai.base import float_option, int_option, no_more_options, register
from omega.ai.greedy import greedy_cells
from omega.game import SWAP, Action, Game, IllegalMove
from omega.kernel import (
    MAX_COLORS,
    Float32Array,
    Float64Array,
    Int8Array,
    Int32Array,
    Int64Array,
    KernelState,
    UInt64Array,
    fill_sequence,
    next_stone,
    random_fill,
    score_board,
    seed_state,
    winner_of,
    xorshift,
)

__all__ = ["MctsBot", "SearchResult"]

#: Share of the reward given by the score margin (the rest is win = 1 / loss = 0).
MARGIN_WEIGHT = 0.05


class _Tree(NamedTuple):
    """The search tree in preallocated pools, reused from turn to turn.  A named tuple of
    arrays is one value the compiled search takes whole.

    Node ``i`` owns the edges ``node_first[i]`` to ``node_first[i] + node_count[i] - 1``
    and has been visited ``node_n[i]`` times.  An edge is one stone: its cell, its child
    node (-1 until expanded), visits and reward sum, and the same for its AMAF (RAVE)
    statistics.  ``meta`` holds the numbers of nodes and edges in use.
    """

    node_first: Int32Array
    node_count: Int32Array
    node_n: Float64Array
    e_cell: Int32Array
    e_child: Int32Array
    e_n: Float32Array
    e_w: Float32Array
    e_an: Float32Array
    e_aw: Float32Array
    meta: Int64Array
    #: Per colour, the sum of the rewards of every simulation through the root.
    root_w: Float64Array

    @classmethod
    def allocate(cls, edges: int) -> _Tree:
        nodes = max(16, edges // 4)
        return cls(
            node_first=np.zeros(nodes, dtype=np.int32),
            node_count=np.zeros(nodes, dtype=np.int32),
            node_n=np.zeros(nodes, dtype=np.float64),
            e_cell=np.zeros(edges, dtype=np.int32),
            e_child=np.zeros(edges, dtype=np.int32),
            e_n=np.zeros(edges, dtype=np.float32),
            e_w=np.zeros(edges, dtype=np.float32),
            e_an=np.zeros(edges, dtype=np.float32),
            e_aw=np.zeros(edges, dtype=np.float32),
            meta=np.zeros(2, dtype=np.int64),
            root_w=np.zeros(MAX_COLORS, dtype=np.float64),
        )

    @property
    def capacity(self) -> int:
        return len(self.e_cell)

    def edges(self, node: int) -> slice:
        first = int(self.node_first[node])
        return slice(first, first + int(self.node_count[node]))


# ---------------------------------------------------------------------------------------
# The compiled search.

@njit(cache=True, nogil=True)
def _new_node(tree: _Tree, cells: Int32Array, ncur: int) -> int:
    """Append a node whose edges are the cells ``cells[:ncur]``; -1 if the pools are full."""
    node, edge = tree.meta[0], tree.meta[1]
    if node >= tree.node_first.shape[0] or edge + ncur > tree.e_cell.shape[0]:
        return -1
    tree.node_first[node] = edge
    tree.node_count[node] = ncur
    tree.node_n[node] = 0.0
    for i in range(ncur):
        f = edge + i
        tree.e_cell[f] = cells[i]
        tree.e_child[f] = -1
        tree.e_n[f] = 0.0
        tree.e_w[f] = 0.0
        tree.e_an[f] = 0.0
        tree.e_aw[f] = 0.0
    tree.meta[0] = node + 1
    tree.meta[1] = edge + ncur
    return int(node)


@njit(cache=True, nogil=True)
def _search(tree: _Tree, board0: Int8Array, empties0: Int32Array, n_empty0: int, root_turn: int, players: int,
            back: Int32Array, logt: Float64Array, rng: UInt64Array, iterations: int, c_uct: float, rave_b: float,
            expand_after: float) -> None:
    """Run ``iterations`` MCTS iterations on ``tree`` from its root (node 0, at the start
    of ``root_turn``'s turn)."""
    node_first, node_count, node_n = tree.node_first, tree.node_count, tree.node_n
    e_cell, e_child, e_n, e_w, e_an, e_aw = tree.e_cell, tree.e_child, tree.e_n, tree.e_w, tree.e_an, tree.e_aw
    ncell = board0.shape[0]
    board = np.empty(ncell, dtype=np.int8)
    cells = np.empty(ncell, dtype=np.int32)
    pos = np.empty(ncell, dtype=np.int32)
    parent = np.empty(ncell, dtype=np.int32)
    size = np.empty(ncell, dtype=np.int32)
    logs = np.zeros(MAX_COLORS, dtype=np.float64)
    counts = np.zeros(MAX_COLORS, dtype=np.int32)
    reward = np.zeros(MAX_COLORS, dtype=np.float64)
    seq = np.empty(ncell + players * players, dtype=np.int8)
    depth_max = ncell + 1
    path_node = np.empty(depth_max, dtype=np.int32)
    path_edge = np.empty(depth_max, dtype=np.int32)
    path_mover = np.empty(depth_max, dtype=np.int32)
    path_color = np.empty(depth_max, dtype=np.int32)
    use_rave = rave_b >= 0.0
    for _ in range(iterations):
        board[:] = board0
        ncur = n_empty0
        for i in range(ncur):
            cells[i] = empties0[i]
            pos[empties0[i]] = i
        turn, step, k, terminal = next_stone(players, root_turn, 0, ncur)
        node = 0
        depth = 0
        while True:
            first = node_first[node]
            last = first + node_count[node]
            explore = c_uct * math.sqrt(math.log(node_n[node] + 1.0))
            best = first
            best_v = -1e300
            for f in range(first, last):
                n = e_n[f]
                an = e_an[f]
                if n + an == 0.0:
                    v: float = 2.0 + (xorshift(rng) >> np.uint64(40)) * 1e-13  # unseen: try first, in random order
                else:
                    q = e_w[f] / n if n > 0.0 else 0.0
                    if use_rave and an > 0.0:
                        beta = an / (n + an + rave_b * n * an)
                        q = (1.0 - beta) * q + beta * e_aw[f] / an
                    v = q + explore / math.sqrt(n + 1.0)
                if v > best_v:
                    best_v = v
                    best = f
            cell = e_cell[best]
            board[cell] = k
            ncur -= 1
            j = pos[cell]
            moved = cells[ncur]
            cells[j] = moved
            pos[moved] = j
            path_node[depth] = node
            path_edge[depth] = best
            path_mover[depth] = turn
            path_color[depth] = k
            depth += 1
            turn, step, k, terminal = next_stone(players, turn, step + 1, ncur)
            if terminal:
                break
            child = e_child[best]
            if child < 0:
                if e_n[best] + 1.0 >= expand_after:
                    child = _new_node(tree, cells, ncur)
                    e_child[best] = child
                break
            node = child
        length = 0 if terminal else fill_sequence(players, turn, step, ncur, seq)
        random_fill(board, cells, ncur, seq, length, rng)
        score_board(board, back, logt, parent, size, logs, counts, players)
        win = winner_of(board, parent, size, logs, counts, players)
        for c in range(players):
            margin = 1e9
            for d in range(players):
                if d != c and logs[c] - logs[d] < margin:
                    margin = logs[c] - logs[d]
            reward[c] = (1.0 - MARGIN_WEIGHT) * (c == win) + MARGIN_WEIGHT * 0.5 * (1.0 + math.tanh(margin))
            tree.root_w[c] += reward[c]
        for d in range(depth):
            node = path_node[d]
            f = path_edge[d]
            r = reward[path_mover[d]]
            e_n[f] += 1.0
            e_w[f] += r
            node_n[node] += 1.0
            if use_rave:
                k = path_color[d]
                first = node_first[node]
                for g in range(first, first + node_count[node]):
                    if board[e_cell[g]] == k:
                        e_an[g] += 1.0
                        e_aw[g] += r


# ---------------------------------------------------------------------------------------
# The Python face.


@dataclass
class SearchResult:
    """What a search found: the turn (cells by colour index), the root value for the
    mover, the iterations run and the time taken."""

    cells: list[int]
    value: float
    iterations: int
    seconds: float
    #: The mover's mean reward over the simulations through the chosen turn's deepest
    #: searched stone (None when the tree did not reach it).
    turn_value: float | None = None
    #: Each colour's mean reward over every simulation of the search (colour order; one
    #: equal share each when no simulation ran).
    values: list[float] = field(default_factory=list)


class MctsBot:
    """Monte Carlo tree search with RAVE; see the module doc for the design.

    ``iterations`` and ``time`` (seconds) bound each turn's search (whichever comes
    first; ``level`` picks both from :data:`omega.ai.levels.LEVELS`).  ``seed`` makes
    iteration-bounded searches reproducible.  ``c`` (exploration), ``rave`` (RAVE bias
    constant; negative turns RAVE off) and ``expand`` (visits before an edge becomes a
    node) are for tuning.
    """

    #: Edge pool size: about 100 MB at most; when it is full the tree stops growing and
    #: iterations continue from the leaves.
    MAX_EDGES = 4_000_000

    def __init__(self, iterations: int | None = None, time: float | None = None, level: int | None = None,
                 seed: int | None = None, c: float = 0.0, rave: float = 0.002, expand: int = 2) -> None:
        if level is not None:
            budget = levels.level(level)
            iterations = budget.iterations if iterations is None else iterations
            time = budget.seconds if time is None else time
        if iterations is None and time is None:
            time = 1.0
        self.iterations = iterations
        self.time = time
        self.level = level
        self.seed = seed
        self.c = c
        self.rave = rave
        self.expand = expand
        parts = [f"level={level}"] if level is not None else []
        if iterations is not None and level is None:
            parts.append(f"iterations={iterations}")
        if time is not None and level is None:
            parts.append(f"time={time:g}")
        if seed is not None:
            parts.append(f"seed={seed}")
        self.name = "mcts" + (":" + ",".join(parts) if parts else "")
        self._rng = np.random.default_rng(seed)
        self._tree: _Tree | None = None
        self._cancel = threading.Event()
        self.last: SearchResult | None = None

    def cancel(self) -> None:
        """Stop the running search (from another thread) after its current chunk, or the
        next one if none is running; the bot then plays the best turn found so far."""
        self._cancel.set()

    def choose(self, game: Game) -> Action:
        """The searched action for the side to move: a turn in colour order, or ``"swap"``."""
        if game.is_over:
            raise IllegalMove("the game is over")
        state = KernelState.from_game(game)
        pie_opening = game.pie_rule and game.turns_played == 0
        result = self.search(state, balanced=pie_opening)
        if game.can_swap and result.value < 0.5:
            return SWAP
        return tuple(game.cells[i] for i in result.cells)

    def search(self, state: KernelState, balanced: bool = False) -> SearchResult:
        """Search ``state`` (at the start of a turn) and return the chosen turn."""
        if state.over or state.step != 0:
            raise ValueError("search starts at the start of a turn of a game in progress")
        a = state.arrays
        empties = state.empties()
        tree = self._tree_for(len(empties))
        tree.meta[:] = 0
        tree.root_w[:] = 0.0
        _new_node(tree, empties, len(empties))
        rng = seed_state(int(self._rng.integers(0, 2**62)))
        start = _time.perf_counter()
        deadline = start + self.time if self.time is not None else math.inf
        budget = self.iterations if self.iterations is not None else 2**62
        done = 0
        chunk = 32
        while done < budget and not self._cancel.is_set():
            n = min(chunk, budget - done)
            t0 = _time.perf_counter()
            _search(tree, state.board, empties, len(empties), state.turn, state.players, a.back, a.logt, rng, n,
                    self.c, self.rave, float(self.expand))
            done += n
            now = _time.perf_counter()
            if now >= deadline:
                break
            # Chunks of about 20 ms: the clock and cancel() are checked often enough.
            rate = n / max(now - t0, 1e-6)
            chunk = max(16, min(chunk * 2, int(rate * 0.02)))
            if self.time is not None:
                chunk = max(16, min(chunk, int(rate * (deadline - now))))
        seconds = _time.perf_counter() - start
        self._cancel.clear()
        cells, value, turn_value = self._pick(state, tree, balanced)
        values = [float(w) / done if done else 1.0 / state.players for w in tree.root_w[:state.players]]
        self.last = SearchResult(cells=cells, value=value, iterations=done, seconds=seconds,
                                 turn_value=turn_value, values=values)
        return self.last

    def _tree_for(self, n_empty: int) -> _Tree:
        if self.iterations is not None:
            want = max(n_empty * 64, self.iterations * n_empty // max(1, self.expand))
        else:
            want = self.MAX_EDGES
        want = min(self.MAX_EDGES, max(want, n_empty * 8))
        if self._tree is None or self._tree.capacity < want:
            self._tree = _Tree.allocate(want)
        return self._tree

    def _pick(self, state: KernelState, tree: _Tree, balanced: bool) -> tuple[list[int], float, float | None]:
        players = state.players
        order = state.turn_colors()
        cells = [-1] * players
        root = tree.edges(0)
        visits = tree.e_n[root]
        # No iteration at all (cancelled at once): no opinion, so no swap.
        value = float(tree.e_w[root].sum() / float(visits.sum())) if visits.sum() > 0 else 0.5
        node = 0
        j = 0
        turn_value = None
        if balanced:
            node, j, turn_value = self._balanced_first(tree, cells, order)
        while j < players and node >= 0 and tree.node_n[node] >= 8:
            edges = tree.edges(node)
            n = tree.e_n[edges]
            q = tree.e_w[edges] / np.maximum(n, 1.0)
            f = edges.start + int(np.lexsort((-q, -n))[0])  # most visits, then best mean
            cells[order[j]] = int(tree.e_cell[f])
            turn_value = float(tree.e_w[f] / max(1.0, float(tree.e_n[f])))
            node = int(tree.e_child[f])
            j += 1
        if j < players:
            # Too few visits this deep (tiny budgets): finish the turn greedily.
            board = state.copy()
            for color in order[:j]:
                board.place(cells[color], color)
            out = np.full(MAX_COLORS, -1, dtype=np.int32)
            a = state.arrays
            greedy_cells(board.board, board.parent, board.gsize, a.nbr, a.logt, players, state.turn, j,
                         int(self._rng.integers(0, 2**62)), out)
            for color in order[j:]:
                cells[color] = int(out[color])
        return cells, value, turn_value

    def _balanced_first(self, tree: _Tree, cells: list[int], order: list[int]) -> tuple[int, int, float | None]:
        """Pie-rule opening: the well-searched first two stones whose value is nearest 1/2."""
        best: tuple[float, int, int, int] | None = None
        root = tree.edges(0)
        for f in range(root.start, root.stop):
            child = int(tree.e_child[f])
            if child < 0 or tree.node_n[child] < 8:
                continue
            edges = tree.edges(child)
            n = tree.e_n[edges]
            ok = np.flatnonzero(n >= max(4.0, 0.05 * float(tree.node_n[child])))
            for i in ok:
                g = edges.start + int(i)
                q = float(tree.e_w[g] / tree.e_n[g])
                key = (abs(q - 0.5), -float(tree.e_n[g]))
                if best is None or key < (best[0], -float(tree.e_n[best[3]])):
                    best = (key[0], f, child, g)
        if best is None:
            return 0, 0, None
        _, f, child, g = best
        cells[order[0]] = int(tree.e_cell[f])
        cells[order[1]] = int(tree.e_cell[g])
        return int(tree.e_child[g]), 2, float(tree.e_w[g] / tree.e_n[g])


@register("mcts")
def _make_mcts(options: dict[str, str]) -> MctsBot:
    level = int_option(options, "level", None, levels.MIN_LEVEL, levels.MAX_LEVEL)
    iterations = int_option(options, "iterations", None, 1, 10**9)
    seconds = float_option(options, "time", None, 0.001, 3600.0)
    seed = int_option(options, "seed", None, 0, 2**63 - 1)
    c = float_option(options, "c", 0.0, 0.0, 10.0)
    rave = float_option(options, "rave", 0.002, -1.0, 10.0)
    expand = int_option(options, "expand", 2, 1, 1000)
    no_more_options("mcts", options)
    assert c is not None and rave is not None and expand is not None
    return MctsBot(iterations=iterations, time=seconds, level=level, seed=seed, c=c, rave=rave, expand=expand)
