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
Both cores (root parallelism)
    ``threads`` threads (the kernels release the GIL) search a tree each, with its own
    random stream, and their statistics are added ply by ply at the end; seeded
    iteration budgets stay reproducible.  The other way, ``parallel="tree"``, has the
    threads search one shared tree, each with its own stretch of the pools for new nodes
    and a virtual loss on its path to steer the others elsewhere; it fills one deeper tree
    when the second core is busy with other work, but on a free machine the two threads
    fight over the cache lines of the top nodes they both update, and search about as
    many iterations as one thread alone.
Tree reuse
    Between turns of one game the bot keeps, in each tree, the subtree under the stones
    actually played since its last search (its own turn and the opponents' turns it sees
    through :meth:`MctsBot.choose`), moved to the front of the pools.  A position that
    does not continue the last one simply starts from an empty tree.
Bounded memory
    The pools have a fixed size.  When one is nearly full the search recycles it: the
    nodes with the fewest visits are cut off (their parent edges keep their statistics)
    and the rest is compacted, so the tree goes on deepening at any thinking time.
Time
    A turn's budget (seconds and/or iterations) is the per-turn figure weighted by the
    stage of the game (:data:`STAGE_WEIGHT`: the weights average one over the bot's turns
    of a game).  A search stops early once no remaining simulation could change the turn
    (at each of its plies the leader's visit lead is larger than the simulations left);
    seconds saved that way are banked and spent on the following turns of the same game
    (each turn takes the bank divided by half the bot's turns left).
Pie rule
    As Black's player after turn 1, the bot searches the position and swaps when Black's
    value is below one half (White is ahead, so taking White is better).  As White's
    player on turn 1 with the pie rule on, it plays the searched turn whose value is
    closest to one half, leaving the opponent nothing to gain by the choice.

The search runs in chunks of iterations; between chunks it checks the clock and
:meth:`MctsBot.cancel`.  The web server runs bots in worker processes, so a long search
never blocks a caller.

The first version of this bot (one tree on one core, no reuse, an even split of time, a
tree that stops growing when full) stays available as the bot ``mcts-v1``, with the budgets
of its own five levels, to measure the current one against.

>>> from omega import Game
>>> bot = MctsBot(iterations=200, seed=1)
>>> g = Game(players=2, size=4); g.play(bot.choose(g)); g.turns_played
1
"""

from __future__ import annotations

import math
import threading
import time as _time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import NamedTuple, TypeAlias

import numpy as np
from numba import njit

from omega.ai import levels
from omega.ai.base import float_option, int_option, no_more_options, register
from omega.ai.greedy import greedy_cells
from omega.board import cell_count
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

__all__ = ["MctsBot", "SearchResult", "V1_LEVELS", "bank_share", "rave_value", "stage_weights"]

#: Share of the reward given by the score margin (the rest is win = 1 / loss = 0).
MARGIN_WEIGHT = 0.05

#: Edges in all of one bot's pools together (about 28 bytes each: about 112 MB).
MAX_EDGES = 4_000_000

#: A pool fuller than this share is recycled between chunks ...
RECYCLE_AT = 0.9
#: ... down to at most this share.
RECYCLE_TO = 0.5

#: Weight of a turn's budget by the stage of the game (the share ``f`` of the bot's turns
#: already played, 0 to 1): ``1 - STAGE_WEIGHT + STAGE_WEIGHT * tent(f)``, a tent peaking
#: at :data:`STAGE_PEAK`; the weights are then scaled to average one over the game.
STAGE_WEIGHT = 0.6
STAGE_PEAK = 0.35

#: No turn gets more than this many times the per-turn budget, banked seconds included.
MAX_SHARE = 2.0

#: Threads (trees) by default: both cores of the machine the bot was built for.
DEFAULT_THREADS = 2
#: The ways to use several threads: ``root``, one tree per thread, their statistics added
#: at the end (the default); ``tree``, all threads on one shared tree with virtual losses.
PARALLEL = ("root", "tree")

#: Share of a kept tree's statistics carried into the next turn's search: kept whole,
#: they made the bot weaker (a stale favourite is hard to overturn with c = 0).
KEEP = 0.3

#: An iteration budget smaller than this is searched on one tree whatever ``threads``
#: says: split in two, a small budget loses more strength than the time it saves.
MIN_SPLIT = 100_000


class _Tree(NamedTuple):
    """The search tree in preallocated pools, reused from turn to turn.  A named tuple of
    arrays is one value the compiled search takes whole.

    Node ``i`` owns the edges ``node_first[i]`` to ``node_first[i] + node_count[i] - 1``
    and has been visited ``node_n[i]`` times.  An edge is one stone: its cell, its child
    node (-1 until expanded), visits and reward sum, and the same for its AMAF (RAVE)
    statistics.  ``meta`` holds the ends of the node and edge pools in use and the root
    node.  Node indices and edge positions are in the same order (threads sharing a tree
    each allocate from their own stretch of both pools, the stretches in the same order).
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
            meta=np.zeros(3, dtype=np.int64),
        )

    def grown(self, edges: int) -> _Tree:
        """A larger tree holding this one's nodes and edges."""
        bigger = _Tree.allocate(edges)
        nodes, used = int(self.meta[0]), int(self.meta[1])
        for name in ("node_first", "node_count", "node_n"):
            getattr(bigger, name)[:nodes] = getattr(self, name)[:nodes]
        for name in ("e_cell", "e_child", "e_n", "e_w", "e_an", "e_aw"):
            getattr(bigger, name)[:used] = getattr(self, name)[:used]
        bigger.meta[:] = self.meta
        return bigger

    @property
    def capacity(self) -> int:
        return len(self.e_cell)

    @property
    def root(self) -> int:
        return int(self.meta[2])

    @property
    def fill(self) -> float:
        """The larger of the shares of nodes and of edges in use."""
        return max(float(self.meta[0]) / len(self.node_n), float(self.meta[1]) / len(self.e_cell))

    def stretches(self, k: int) -> list[Int64Array]:
        """The free part of the pools cut into ``k`` stretches, in pool order, one for each
        thread that adds nodes to this tree: ``[next node, end, next edge, end, first
        edge]``."""
        n0, e0 = int(self.meta[0]), int(self.meta[1])
        n, e = len(self.node_n), len(self.e_cell)
        return [np.array([n0 + (n - n0) * t // k, n0 + (n - n0) * (t + 1) // k, e0 + (e - e0) * t // k,
                          e0 + (e - e0) * (t + 1) // k, e0 + (e - e0) * t // k], dtype=np.int64)
                for t in range(k)]

    @staticmethod
    def edges_used(stretches: Sequence[Int64Array]) -> int:
        """Edges in use: those before the first stretch and those taken from each."""
        return int(stretches[0][4]) + sum(int(a[2] - a[4]) for a in stretches)

    def used_to(self, stretches: Sequence[Int64Array]) -> None:
        """Record what the threads allocated from ``stretches`` (the last one ends highest)."""
        self.meta[0] = max(int(a[0]) for a in stretches)
        self.meta[1] = max(int(a[2]) for a in stretches)

    def start(self, cells: Int32Array) -> None:
        """Empty the tree and give it a root whose edges are ``cells``."""
        self.meta[:] = 0
        whole = self.stretches(1)[0]
        _new_node(self, whole, cells, len(cells))
        self.used_to([whole])

    def edges(self, node: int) -> slice:
        first = int(self.node_first[node])
        return slice(first, first + int(self.node_count[node]))

    def child(self, node: int, cell: int) -> int:
        """The child node of ``node`` reached by a stone on ``cell`` (-1: none)."""
        edges = self.edges(node)
        found = np.flatnonzero(self.e_cell[edges] == cell)
        return int(self.e_child[edges.start + int(found[0])]) if len(found) else -1


# ---------------------------------------------------------------------------------------
# The compiled search.

@njit(cache=True, nogil=True)
def _new_node(tree: _Tree, alloc: Int64Array, cells: Int32Array, ncur: int) -> int:
    """Add a node whose edges are the cells ``cells[:ncur]`` in the stretch of the pools
    ``alloc`` (next node, end, next edge, end); -1 if it is full."""
    node, edge = alloc[0], alloc[2]
    if node >= alloc[1] or edge + ncur > alloc[3]:
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
    alloc[0] = node + 1
    alloc[2] = edge + ncur
    return int(node)


#: An edge statistic: float64 in Python and the shared tree, float32 in a tree of one's own.
Stat: TypeAlias = float | np.float32


@njit(cache=True, nogil=True)
def rave_value(n: Stat, w: Stat, an: Stat, aw: Stat, b: Stat) -> Stat:
    """An edge's value in the selection without exploration: its mean reward ``w / n``
    blended with its AMAF mean ``aw / an`` by ``beta = an / (n + an + b n an)``, computed
    with one division instead of three; ``b < 0``: no RAVE, the mean alone.

    >>> n, w, an, aw, b = 10.0, 6.0, 30.0, 12.0, 0.002
    >>> beta = an / (n + an + b * n * an)
    >>> abs(rave_value(n, w, an, aw, b) - ((1 - beta) * w / n + beta * aw / an)) < 1e-15
    True
    >>> rave_value(0.0, 0.0, 4.0, 3.0, b), rave_value(4.0, 3.0, 9.0, 9.0, -1.0)
    (0.75, 0.75)
    """
    if b < 0.0:
        return w / n
    # (1 - beta) w/n + beta aw/an == (w (1 + b an) + aw) / (n + an + b n an), written
    # without a literal so that float32 statistics are blended in float32
    bn = b * an
    return (w + w * bn + aw) / (n + an + bn * n)


@njit(cache=True, nogil=True)
def _shuffle_edges(e_cell: Int32Array, first: int, last: int, rng: UInt64Array) -> None:
    """Put the cells of the edges ``first`` to ``last - 1`` in a random order (Fisher-Yates),
    so that taking the first unseen edge in edge order takes a random one.

    >>> cells = np.arange(10, dtype=np.int32); _shuffle_edges(cells, 2, 8, seed_state(1))
    >>> cells[:2].tolist() + cells[8:].tolist(), sorted(cells[2:8].tolist()) == list(range(2, 8))
    ([0, 1, 8, 9], True)
    """
    for i in range(last - 1, first, -1):
        j = first + int((xorshift(rng) >> np.uint64(11)) % np.uint64(i - first + 1))
        e_cell[i], e_cell[j] = e_cell[j], e_cell[i]


@njit(cache=True, nogil=True)
def _search(tree: _Tree, alloc: Int64Array, root_w: Float64Array, board0: Int8Array, empties0: Int32Array,
            n_empty0: int, root_turn: int, players: int, back: Int32Array, logt: Float64Array, rng: UInt64Array,
            iterations: int, c_uct: float, rave_b: float, expand_after: float, vloss: float,
            first_version: bool) -> None:
    """Run ``iterations`` MCTS iterations on ``tree`` from its root (at the start of
    ``root_turn``'s turn), adding nodes in the stretch ``alloc`` and each colour's
    rewards to ``root_w``.

    Threads may share the tree: each counts ``vloss`` visits of no reward on the edges of
    its path as it descends (a virtual loss that steers the others elsewhere) and turns
    them into the real visit in the backup.  Their updates of the same statistics may
    race; a lost update costs one simulation's worth of information, never a wrong tree:
    a node is written whole before its parent edge points to it, and two threads adding a
    child to one edge at once only waste one of the two nodes.

    ``first_version`` keeps the arithmetic and loops of the first version of the bot, so
    that ``mcts-v1`` plays the same games at the same speed as it always did.
    """
    node_first, node_count, node_n = tree.node_first, tree.node_count, tree.node_n
    e_cell, e_child, e_n, e_w, e_an, e_aw = tree.e_cell, tree.e_child, tree.e_n, tree.e_w, tree.e_an, tree.e_aw
    root = tree.meta[2]
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
    # A RAVE update without a branch writes every edge of a node, which is fastest for a
    # tree of one's own (half the cells hold the colour, in no order a predictor learns),
    # but threads sharing the tree then fight over every cache line of its top nodes.
    # Each edge reads its hit from a float32 table ``hit_of[colour, cell]`` built once a
    # simulation, so the update is a float32 add on every edge.
    touch_all = not first_version and vloss == 0.0
    # On a tree of its own with RAVE and no exploration term (the default bot), a thread
    # also selects in float32 with no random number per unseen edge (those score 2, and a
    # node's edges are shuffled on its first visit, so the first unseen edge in edge order
    # is a random one).  Shuffling a shared node's edges would race with the other threads,
    # so a shared tree does not.
    own_tree_rave = touch_all and use_rave and c_uct == 0.0
    b32 = np.float32(rave_b)
    two32 = np.float32(2.0)
    hit_of = np.zeros((MAX_COLORS, ncell), dtype=np.float32)
    for _ in range(iterations):
        board[:] = board0
        ncur = n_empty0
        for i in range(ncur):
            cells[i] = empties0[i]
            pos[empties0[i]] = i
        turn, step, k, terminal = next_stone(players, root_turn, 0, ncur)
        node = root
        depth = 0
        while True:
            first = node_first[node]
            last = first + node_count[node]
            best = first
            if own_tree_rave:
                if node_n[node] == 0.0:
                    _shuffle_edges(e_cell, first, last, rng)
                best_v32: Stat = np.float32(-1.0)
                for f in range(first, last):
                    seen = e_n[f] + e_an[f] > 0.0
                    v32 = rave_value(e_n[f], e_w[f], e_an[f], e_aw[f], b32) if seen else two32
                    if v32 > best_v32:
                        best_v32 = v32
                        best = f
            else:
                explore = c_uct * math.sqrt(math.log(node_n[node] + 1.0))
                best_v: Stat = -1e300
                for f in range(first, last):
                    n = e_n[f]
                    an = e_an[f]
                    if n + an == 0.0:
                        v: Stat = 2.0 + (xorshift(rng) >> np.uint64(40)) * 1e-13  # unseen: try first, in random order
                    elif explore == 0.0 and not first_version:
                        v = rave_value(n, e_w[f], an, e_aw[f], rave_b)
                    else:
                        q = e_w[f] / n if n > 0.0 else 0.0
                        if use_rave and an > 0.0:
                            beta = an / (n + an + rave_b * n * an)
                            q = (1.0 - beta) * q + beta * e_aw[f] / an
                        v = q + explore / math.sqrt(n + 1.0) if explore > 0.0 else q
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
            e_n[best] += vloss
            node_n[node] += vloss
            turn, step, k, terminal = next_stone(players, turn, step + 1, ncur)
            if terminal:
                break
            child = e_child[best]
            if child < 0:
                if e_n[best] - vloss + 1.0 >= expand_after:
                    child = _new_node(tree, alloc, cells, ncur)
                    if child >= 0:
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
            root_w[c] += reward[c]
        if touch_all and use_rave:
            for c in range(players):
                for i in range(ncell):
                    hit_of[c, i] = board[i] == c
        for d in range(depth):
            node = path_node[d]
            f = path_edge[d]
            r = reward[path_mover[d]]
            e_n[f] += 1.0 - vloss
            e_w[f] += r
            node_n[node] += 1.0 - vloss
            if use_rave:
                k = path_color[d]
                first = node_first[node]
                if touch_all:
                    hits, r32 = hit_of[k], np.float32(r)  # adding a hit of 0 changes nothing
                    for g in range(first, first + node_count[node]):
                        h = hits[e_cell[g]]
                        e_an[g] += h
                        e_aw[g] += h * r32
                else:
                    for g in range(first, first + node_count[node]):
                        if board[e_cell[g]] == k:
                            e_an[g] += 1.0
                            e_aw[g] += r


@njit(cache=True, nogil=True)
def _compact(tree: _Tree, root: int, min_visits: float) -> None:
    """Make node ``root`` the root of a compacted tree: keep its subtree, less the nodes
    visited fewer than ``min_visits`` times (and theirs), and move what is kept to the
    front of the pools, in the same order.

    A node's edges follow those of every node with a smaller index, so copying the kept
    nodes in index order never overwrites one not yet copied.
    """
    nodes = tree.meta[0]
    node_first, node_count, node_n = tree.node_first, tree.node_count, tree.node_n
    e_child = tree.e_child
    remap = np.full(nodes, -1, dtype=np.int32)
    stack = np.empty(nodes, dtype=np.int32)
    remap[root] = 0
    stack[0] = root
    top = 1
    while top > 0:
        top -= 1
        node = stack[top]
        for f in range(node_first[node], node_first[node] + node_count[node]):
            child = e_child[f]
            if child >= 0 and node_n[child] >= min_visits and remap[child] < 0:
                remap[child] = 0
                stack[top] = child
                top += 1
    kept = 0
    for old in range(nodes):
        if remap[old] >= 0:
            remap[old] = kept
            kept += 1
    edge = 0
    for old in range(nodes):
        new = remap[old]
        if new < 0:
            continue
        first, count, visits = node_first[old], node_count[old], node_n[old]
        node_first[new] = edge
        node_count[new] = count
        node_n[new] = visits
        for i in range(count):
            src, dst = first + i, edge + i
            child = e_child[src]
            tree.e_cell[dst] = tree.e_cell[src]
            e_child[dst] = remap[child] if child >= 0 else -1
            tree.e_n[dst] = tree.e_n[src]
            tree.e_w[dst] = tree.e_w[src]
            tree.e_an[dst] = tree.e_an[src]
            tree.e_aw[dst] = tree.e_aw[src]
        edge += count
    tree.meta[0] = kept
    tree.meta[1] = edge
    tree.meta[2] = remap[root]


# ---------------------------------------------------------------------------------------
# The Python face.


@dataclass
class SearchResult:
    """What a search found: the turn (cells by colour index), the root value for the
    mover, the iterations run and the time taken.

    ``values`` holds each colour's mean reward at the root over this search's simulations
    (colour order; about the colour's chance of winning, the margin adding at most
    :data:`MARGIN_WEIGHT`).
    """

    cells: list[int]
    value: float
    iterations: int
    seconds: float
    #: The mover's mean reward over the simulations through the chosen turn's deepest
    #: searched stone (None when the tree did not reach it).
    turn_value: float | None = None
    values: list[float] = field(default_factory=list)
    #: Simulations already in the tree when the search started (kept from earlier turns).
    reused: int = 0
    #: Most edges in use in the pools at once, and how many times they were recycled.
    edges: int = 0
    recycled: int = 0


def stage_weights(turns: int, weight: float = STAGE_WEIGHT, peak: float = STAGE_PEAK) -> list[float]:
    """The budget factors of a player's ``turns`` turns of a game, averaging one.

    >>> [round(w, 2) for w in stage_weights(5)]
    [0.97, 1.31, 1.24, 0.91, 0.58]
    >>> stage_weights(3, weight=0.0)
    [1.0, 1.0, 1.0]
    """
    if turns <= 1:
        return [1.0] * max(turns, 0)
    span = max(peak, 1.0 - peak)
    raw = [1.0 - weight + weight * (1.0 - abs(k / (turns - 1) - peak) / span) for k in range(turns)]
    mean = sum(raw) / turns
    return [w / mean for w in raw]


def bank_share(bank: float, turns_left: int) -> float:
    """The banked seconds a turn may add when the bot has ``turns_left`` turns to play,
    this one included: the bank divided by half of them.  Not by all of them: the last
    turns are nearly settled and stop early, so a share kept for them would mostly be
    banked again and never spent.

    >>> bank_share(3.0, 6), bank_share(3.0, 3), bank_share(3.0, 1)
    (1.0, 3.0, 3.0)
    """
    return bank / max(1, turns_left // 2)


class MctsBot:
    """Monte Carlo tree search with RAVE; see the module doc for the design.

    ``iterations`` and ``time`` (seconds) bound each turn's search (whichever comes
    first; ``level`` picks both from :data:`omega.ai.levels.LEVELS`).  ``seed`` makes
    iteration-bounded searches reproducible.  ``threads`` threads search at once
    (``parallel``: ``"root"``, a tree each, the default, or ``"tree"``, one shared tree; budgets below
    :data:`MIN_SPLIT` use one); ``reuse`` keeps the tree between turns, its statistics
    scaled by ``keep``; ``manage`` weights each turn's budget by the stage of the game and
    stops a settled search early; ``recycle`` frees the least-visited nodes when the pools
    (``max_edges`` in all) fill up, otherwise the tree stops growing.  ``c`` (exploration),
    ``rave`` (RAVE bias constant; negative turns RAVE off) and ``expand`` (visits before an
    edge becomes a node) are for tuning.  ``first_version`` searches with the first
    version's arithmetic and loops (``mcts-v1``: the same games at the same speed).

    >>> bot = MctsBot(iterations=MIN_SPLIT, seed=1)
    >>> bot.threads, bot.parallel, MctsBot(iterations=600).threads
    (2, 'root', 1)
    """

    def __init__(self, iterations: int | None = None, time: float | None = None, level: int | None = None,
                 seed: int | None = None, c: float = 0.0, rave: float = 0.002, expand: int = 2,
                 threads: int = DEFAULT_THREADS, reuse: bool = True, manage: bool = True, recycle: bool = True,
                 max_edges: int = MAX_EDGES, keep: float = KEEP, parallel: str = PARALLEL[0],
                 name: str = "mcts", first_version: bool = False) -> None:
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
        small = iterations is not None and iterations < MIN_SPLIT
        self.threads = 1 if small else max(1, threads)
        self.reuse = reuse
        self.manage = manage
        self.recycle = recycle
        self.max_edges = max_edges
        self.keep = keep
        self.first_version = first_version
        if parallel not in PARALLEL:
            raise ValueError(f"parallel must be one of {', '.join(PARALLEL)}, got {parallel!r}")
        self.parallel = parallel
        parts = [f"level={level}"] if level is not None else []
        if iterations is not None and level is None:
            parts.append(f"iterations={iterations}")
        if time is not None and level is None:
            parts.append(f"time={time:g}")
        if seed is not None:
            parts.append(f"seed={seed}")
        self.name = name + (":" + ",".join(parts) if parts else "")
        self._rng = np.random.default_rng(seed)
        self._trees: list[_Tree] = []
        #: The game (settings and history) at the root of the kept trees; None: nothing kept.
        self._kept: tuple[tuple[int, int, bool], tuple[Action, ...]] | None = None
        #: Seconds saved by early stops, to spend on later turns of the same game.
        self._bank = 0.0
        #: Simulations in the subtrees kept for the next search (before scaling by ``keep``).
        self._reused = 0
        self._cancel = threading.Event()
        self.last: SearchResult | None = None

    def take_tree(self, other: object) -> None:
        """Continue from the trees ``other`` (an earlier bot of the same kind) kept, if
        its settings match; the next :meth:`choose` uses them only if its game continues
        the position ``other`` last searched, and starts afresh otherwise.

        >>> from omega import Game
        >>> first, then = MctsBot(iterations=300, seed=1), MctsBot(iterations=300, seed=2)
        >>> g = Game(players=2, size=4); g.play(first.choose(g))
        >>> then.take_tree(first); g.play(then.choose(g)); then.last.reused > 0
        True
        """
        if (isinstance(other, MctsBot) and other is not self and other.threads == self.threads
                and other.parallel == self.parallel and other.max_edges == self.max_edges and self.reuse):
            self._trees, self._kept, self._bank = other._trees, other._kept, other._bank
            other._trees, other._kept = [], None

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
        if not self._continue(game):
            for tree in self._trees:
                _reset(tree)
            self._bank = 0.0
        scale, bonus = self._budget_share(state)
        result = self._run(state, pie_opening, scale, bonus)
        self._kept = ((game.players, game.size, game.pie_rule), game.history) if self.reuse else None
        if game.can_swap and result.value < 0.5:
            return SWAP
        return tuple(game.cells[i] for i in result.cells)

    def search(self, state: KernelState, balanced: bool = False) -> SearchResult:
        """Search ``state`` (at the start of a turn) from an empty tree and return the
        chosen turn (the whole per-turn budget, without weighting by the stage)."""
        for tree in self._trees:
            _reset(tree)
        self._kept = None
        self._reused = 0
        return self._run(state, balanced, 1.0, 0.0)

    # -- between turns ------------------------------------------------------------------

    def _continue(self, game: Game) -> bool:
        """Move each kept tree's root to ``game``'s position if ``game`` continues the
        position last searched; False if there is nothing to keep."""
        if self._kept is None or not self.reuse or not self._trees:
            return False
        settings, history = self._kept
        if settings != (game.players, game.size, game.pie_rule) or game.history[:len(history)] != history:
            return False
        index = game.board.index
        players = game.players
        # The kept root is at the start of the turn of the colour to move back then.
        turn = sum(1 for a in history if a != SWAP) % players
        plies = []
        for action in game.history[len(history):]:
            if action == SWAP:
                continue  # a swap changes who holds a colour, not the position
            plies += [index(action[(turn + j) % players]) for j in range(players)]
            turn = (turn + 1) % players
        for tree in self._trees:
            node = tree.root
            for cell in plies:
                node = tree.child(node, cell) if node >= 0 else -1
            if node < 0:
                _reset(tree)
            else:
                _compact(tree, node, 0.0)
                self._reused += int(tree.node_n[tree.root])
                if self.keep < 1.0:
                    nodes, used = int(tree.meta[0]), int(tree.meta[1])
                    tree.node_n[:nodes] *= self.keep
                    for stats in (tree.e_n, tree.e_w, tree.e_an, tree.e_aw):
                        stats[:used] *= np.float32(self.keep)
        return True

    def _budget_share(self, state: KernelState) -> tuple[float, float]:
        """This turn's factor on the per-turn budget, and the banked seconds it may add."""
        if not self.manage:
            return 1.0, 0.0
        square = state.players * state.players
        turns = cell_count(state.size) // square  # each player's turns in a game
        played = (cell_count(state.size) - state.empty) // square
        if turns <= 0:
            return 1.0, 0.0
        k = min(played, turns - 1)
        bonus = bank_share(self._bank, turns - k)
        self._bank -= bonus
        return stage_weights(turns)[k], bonus

    # -- the search ---------------------------------------------------------------------

    def _run(self, state: KernelState, balanced: bool, scale: float, bonus: float) -> SearchResult:
        if state.over or state.step != 0:
            raise ValueError("search starts at the start of a turn of a game in progress")
        a = state.arrays
        empties = state.empties()
        threads = self.threads
        budget = None if self.iterations is None else max(1, math.ceil(self.iterations * scale / threads))
        trees = self._trees_for(len(empties), budget)
        reused, self._reused = self._reused, 0
        for tree in trees:
            if tree.meta[0] == 0:
                tree.start(empties)
        # Each thread: the tree it searches and its stretch of that tree's pools.
        share = threads // len(trees)
        stretches = [tree.stretches(share) for tree in trees]
        work = [(trees[t // share], stretches[t // share][t % share]) for t in range(threads)]
        root_w = [np.zeros(MAX_COLORS, dtype=np.float64) for _ in range(threads)]
        rngs = [seed_state(int(self._rng.integers(0, 2**62))) for _ in range(threads)]
        vloss = 1.0 if share > 1 else 0.0
        start = _time.perf_counter()
        seconds = None
        if self.time is not None:
            wanted = self.time * scale + bonus
            seconds = min(wanted, MAX_SHARE * self.time)
            self._bank += min(bonus, wanted - seconds)  # what the cap cuts off stays in the bank
        deadline = start + seconds if seconds is not None else math.inf
        per_thread = budget if budget is not None else 2**62
        done = 0
        edges = 0
        recycled = 0
        # Iteration budgets check the settled test on a fixed schedule (every ``step``
        # iterations), so a seeded search does the same work on any machine, time cap or not.
        # A time cap needs the clock looked at every few milliseconds as well: a budget of a
        # billion iterations "capped at 1 s" must stop at 1 s, not after its first 64th; its
        # chunks end on the schedule's marks, so the settled test sees the same counts.
        step = max(16, per_thread // 64) if budget is not None else 0
        chunk = step if seconds is None else 32  # no time cap: there is a budget, so a step

        def run(i: int, n: int) -> None:
            tree, alloc = work[i]
            _search(tree, alloc, root_w[i], state.board, empties, len(empties), state.turn, state.players, a.back,
                    a.logt, rngs[i], n, self.c, self.rave, float(self.expand), vloss, self.first_version)

        pool = ThreadPoolExecutor(threads - 1) if threads > 1 else None
        try:
            while done < per_thread and not self._cancel.is_set():
                n = min(chunk, per_thread - done)
                if step:
                    n = min(n, step - done % step)  # never across a mark of the schedule
                t0 = _time.perf_counter()
                others = [pool.submit(run, i, n) for i in range(1, threads)] if pool is not None else []
                run(0, n)
                for future in others:
                    future.result()
                done += n
                for tree, own in zip(trees, stretches, strict=True):
                    tree.used_to(own)
                edges = max(edges, sum(_Tree.edges_used(own) for own in stretches))
                now = _time.perf_counter()
                if now >= deadline:
                    break
                if self.recycle:
                    for i, tree in enumerate(trees):
                        if any(_nearly_full(tree, alloc, share) for alloc in stretches[i]):
                            if share > 1:
                                _compact(tree, tree.root, 0.0)  # close the gaps between stretches
                            if tree.fill > RECYCLE_AT:
                                _recycle(tree)
                                recycled += 1
                            stretches[i][:] = tree.stretches(share)
                    work = [(trees[t // share], stretches[t // share][t % share]) for t in range(threads)]
                rate = n / max(now - t0, 1e-6)
                if seconds is not None:
                    # Chunks of about 20 ms (the clock and cancel() are checked often enough),
                    # none running past the deadline.
                    chunk = max(16, min(chunk * 2, int(rate * 0.02), int(rate * (deadline - now))))
                if self.manage and (not step or done % step == 0):
                    left = per_thread - done
                    if seconds is not None:
                        left = min(left, int(done / max(now - start, 1e-6) * (deadline - now)) + 1)
                    if _settled(trees, left * threads, state.players):
                        break
        finally:
            if pool is not None:
                pool.shutdown()
        elapsed = _time.perf_counter() - start
        if seconds is not None and budget is None and self.manage and elapsed < seconds and not self._cancel.is_set():
            # Only a search bounded by time alone saves time by stopping early; an iteration
            # budget's time is a cap, not an allowance.
            self._bank += seconds - elapsed
        self._cancel.clear()
        cells, value, turn_value = self._pick(state, trees, balanced)
        total = done * threads
        values = [float(sum(w[c] for w in root_w)) / total if total else 1.0 / state.players
                  for c in range(state.players)]
        self.last = SearchResult(cells=cells, value=value, iterations=total, seconds=elapsed,
                                 turn_value=turn_value, values=values, reused=reused,
                                 edges=edges, recycled=recycled)
        return self.last

    def _trees_for(self, n_empty: int, per_thread: int | None) -> list[_Tree]:
        count = self.threads if self.parallel == "root" else 1
        share = self.threads // count
        cap = max(n_empty * 8 * share, self.max_edges // count)
        if per_thread is not None:
            want = max(n_empty * 64, per_thread * share * n_empty // max(1, self.expand))
        else:
            want = cap
        want = min(cap, max(want, n_empty * 8 * share))
        trees = self._trees[:count]
        trees = [tree if tree.capacity >= want else tree.grown(want) for tree in trees]
        trees += [_Tree.allocate(want) for _ in range(count - len(trees))]
        self._trees = trees
        return trees

    def _pick(self, state: KernelState, trees: Sequence[_Tree], balanced: bool) -> tuple[list[int], float,
                                                                                       float | None]:
        players = state.players
        order = state.turn_colors()
        cells = [-1] * players
        nodes = [t.root for t in trees]
        root_n = sum(float(t.e_n[t.edges(t.root)].sum()) for t in trees)
        root_w = sum(float(t.e_w[t.edges(t.root)].sum()) for t in trees)
        # No iteration at all (cancelled at once): no opinion, so no swap.
        value = root_w / root_n if root_n > 0 else 0.5
        j = 0
        turn_value = None
        if balanced:
            nodes, j, turn_value = _balanced_first(trees, cells, order)
        while j < players and sum(float(t.node_n[v]) for t, v in zip(trees, nodes, strict=True) if v >= 0) >= 8:
            ply = _Ply(trees, nodes)
            best = int(np.lexsort((-ply.q, -ply.n))[0])  # most visits, then best mean
            cells[order[j]] = int(ply.cells[best])
            turn_value = float(ply.w[best] / max(1.0, float(ply.n[best])))
            nodes = ply.children(best)
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


class _Ply:
    """The statistics of one position's edges added over the trees that reached it, in
    the edge order of the first of them (so one tree reads exactly as its own edges)."""

    def __init__(self, trees: Sequence[_Tree], nodes: Sequence[int]) -> None:
        self.trees = trees
        self.nodes = nodes
        present = [(t, v) for t, v in zip(trees, nodes, strict=True) if v >= 0]
        first_tree, first_node = present[0]
        self.cells = first_tree.e_cell[first_tree.edges(first_node)].copy()
        self.n = first_tree.e_n[first_tree.edges(first_node)].astype(np.float64)
        self.w = first_tree.e_w[first_tree.edges(first_node)].astype(np.float64)
        for tree, node in present[1:]:
            edges = tree.edges(node)
            where = np.full(int(self.cells.max()) + 1, 0, dtype=np.int64)
            where[self.cells] = np.arange(len(self.cells))
            at = where[tree.e_cell[edges]]
            np.add.at(self.n, at, tree.e_n[edges])
            np.add.at(self.w, at, tree.e_w[edges])
        self.q = self.w / np.maximum(self.n, 1.0)

    def children(self, i: int) -> list[int]:
        """Each tree's node after the stone on ``self.cells[i]`` (-1: not in that tree)."""
        cell = int(self.cells[i])
        return [tree.child(node, cell) if node >= 0 else -1 for tree, node in zip(self.trees, self.nodes, strict=True)]

    def visits(self, nodes: Sequence[int]) -> float:
        """Visits of the position at ``nodes`` over all trees."""
        return sum(float(t.node_n[v]) for t, v in zip(self.trees, nodes, strict=True) if v >= 0)


def _balanced_first(trees: Sequence[_Tree], cells: list[int], order: list[int]) -> tuple[list[int], int,
                                                                                        float | None]:
    """Pie-rule opening: the well-searched first two stones whose value is nearest 1/2."""
    best: tuple[float, float, int, int, _Ply] | None = None
    root = _Ply(trees, [t.root for t in trees])
    for i in range(len(root.cells)):
        children = root.children(i)
        total = root.visits(children)
        if total < 8:
            continue
        reply = _Ply(trees, children)
        for at in np.flatnonzero(reply.n >= max(4.0, 0.05 * total)):
            key = (abs(float(reply.q[at]) - 0.5), -float(reply.n[at]))
            if best is None or key < (best[0], best[1]):
                best = (key[0], key[1], i, int(at), reply)
    if best is None:
        return [t.root for t in trees], 0, None
    _, _, i, g, reply = best
    cells[order[0]] = int(root.cells[i])
    cells[order[1]] = int(reply.cells[g])
    return reply.children(g), 2, float(reply.q[g])


def _reset(tree: _Tree) -> None:
    """Empty ``tree`` (its pools stay allocated)."""
    tree.meta[:] = 0


def _recycle(tree: _Tree) -> None:
    """Cut off the least-visited nodes until at most :data:`RECYCLE_TO` of the pools is in
    use.  A node is visited at most as often as its parent, so cutting every node below
    a visit count keeps a connected tree."""
    nodes = int(tree.meta[0])
    visits = tree.node_n[:nodes]
    counts = tree.node_count[:nodes].astype(np.int64)
    # Edges (and nodes) kept by each threshold 2**b: those of nodes with at least 2**b visits.
    bucket = np.floor(np.log2(np.maximum(visits, 1.0))).astype(np.int64)
    edges_at = np.cumsum(np.bincount(bucket, weights=counts)[::-1])[::-1]
    nodes_at = np.cumsum(np.bincount(bucket)[::-1])[::-1]
    fits = (edges_at <= RECYCLE_TO * tree.capacity) & (nodes_at <= RECYCLE_TO * len(tree.node_n))
    b = int(np.argmax(fits)) if fits.any() else len(fits)
    _compact(tree, tree.root, float(2**b))


def _nearly_full(tree: _Tree, alloc: Int64Array, share: int) -> bool:
    """True if the stretch ``alloc`` of ``tree``'s pools, one of ``share``, has less room
    left than a share of the whole pools that recycling would leave free."""
    room = 1.0 - RECYCLE_AT
    return bool(alloc[1] - alloc[0] < room * len(tree.node_n) / share
                or alloc[3] - alloc[2] < room * tree.capacity / share)


def _settled(trees: Sequence[_Tree], left: int, stones: int) -> bool:
    """True if the turn can no longer change: at each of its ``stones`` plies, down the
    most-visited path, the leader's lead in visits over the runner-up is more than the
    ``left`` simulations still to run."""
    nodes = [t.root for t in trees]
    for _ in range(stones):
        if all(v < 0 for v in nodes):
            return False  # not searched this deep yet
        ply = _Ply(trees, nodes)
        if len(ply.n) >= 2:
            top = np.partition(ply.n, len(ply.n) - 2)[-2:]
            if top[1] - top[0] <= left:
                return False
        nodes = ply.children(int(np.lexsort((-ply.q, -ply.n))[0]))
    return True


#: The five levels of the first MCTS bot (``mcts-v1:level=N``): iterations and seconds.
V1_LEVELS = {1: (10, 0.5), 2: (600, 1.0), 3: (4_000, 2.0), 4: (25_000, 3.0), 5: (150_000, 5.0)}


def _options(name: str, options: dict[str, str]) -> MctsBot:
    """The bot ``mcts`` or ``mcts-v1`` with the options of a spec."""
    v1 = name == "mcts-v1"
    levels_known = sorted(V1_LEVELS) if v1 else [lv.number for lv in levels.LEVELS]
    level = int_option(options, "level", None, levels_known[0], levels_known[-1])
    iterations = int_option(options, "iterations", None, 1, 10**9)
    seconds = float_option(options, "time", None, 0.001, 3600.0)
    seed = int_option(options, "seed", None, 0, 2**63 - 1)
    c = float_option(options, "c", 0.0, 0.0, 10.0)
    rave = float_option(options, "rave", 0.002, -1.0, 10.0)
    expand = int_option(options, "expand", 2, 1, 1000)
    threads = 1 if v1 else int_option(options, "threads", DEFAULT_THREADS, 1, 64)
    reuse, manage, recycle = ((False, False, False) if v1 else
                              (int_option(options, key, 1, 0, 1) == 1 for key in ("reuse", "manage", "recycle")))
    keep = 1.0 if v1 else float_option(options, "keep", KEEP, 0.0, 1.0)
    parallel = "tree" if v1 else options.pop("parallel", PARALLEL[0])
    if parallel not in PARALLEL:
        raise ValueError(f"bot option parallel must be one of {', '.join(PARALLEL)}, got {parallel!r}")
    no_more_options(name, options)
    assert keep is not None
    assert c is not None and rave is not None and expand is not None and threads is not None
    if not v1:
        return MctsBot(iterations=iterations, time=seconds, level=level, seed=seed, c=c, rave=rave, expand=expand,
                       threads=threads, reuse=reuse, manage=manage, recycle=recycle, keep=keep, parallel=parallel)
    if level is not None:
        iterations = V1_LEVELS[level][0] if iterations is None else iterations
        seconds = V1_LEVELS[level][1] if seconds is None else seconds
    bot = MctsBot(iterations=iterations, time=seconds, seed=seed, c=c, rave=rave, expand=expand, threads=1,
                  reuse=False, manage=False, recycle=False, name=name, first_version=True)
    if level is not None:
        bot.level = level
        bot.name = f"{name}:level={level}" + (f",seed={seed}" if seed is not None else "")
    return bot


@register("mcts")
def _make_mcts(options: dict[str, str]) -> MctsBot:
    return _options("mcts", options)


@register("mcts-v1")
def _make_mcts_v1(options: dict[str, str]) -> MctsBot:
    """The first MCTS bot, kept to measure the current one against: one tree on one core,
    a new tree every turn, the same budget every turn, and a tree that stops growing when
    its pool is full."""
    return _options("mcts-v1", options)

