"""The MCTS search tree: pools of nodes and edges in arrays, and the compiled search
that runs over them (descent, simulation, backup and AMAF update in one Numba loop).

:mod:`omega.ai.mcts` is the bot around it: budgets, threads, the kept tree between turns,
the turn it plays.  This module knows positions only as the kernel's arrays.

>>> from omega.kernel import KernelState, board_arrays, seed_state
>>> from omega.ai.simulation import MAST_SIZE
>>> state = KernelState(players=2, size=3); a = board_arrays(3)
>>> tree = Tree.allocate(10_000); tree.start(state.empties())
>>> whole = tree.stretches(1)[0]; root_w = np.zeros(4)
>>> # Every argument given, as the search gives them: an omitted default is another signature,
>>> # which Numba would compile anew (seconds) instead of loading the one `make kernels` cached.
>>> run_iterations(tree, whole, root_w, state.board, state.empties(), 19, 0, 2, a.back, a.logt,
...                seed_state(1), 500, 0.0, 0.002, 2.0, 0.0, False, Prior.of(3, 20.0, 0.1), 0.0, MARGIN_WEIGHT,
...                Mast.of(19, MAST_SIZE))
>>> tree.used_to([whole]); int(tree.node_n[tree.root]), round(float(root_w[:2].sum()) / 500, 6)
(500, 1.0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple, TypeAlias

import numpy as np
from numba import njit

from omega.ai.net import FEATURES, Net, encode, forward, no_net
from omega.ai.patterns import pattern_class, pattern_weights, ring_neighbours
from omega.ai.simulation import Mast, mast_add, mast_fill
from omega.kernel import (
    MAX_COLORS,
    Float32Array,
    Float64Array,
    Int8Array,
    Int32Array,
    Int64Array,
    UInt64Array,
    board_arrays,
    fill_sequence,
    next_stone,
    random_fill,
    score_board,
    score_scratch,
    winner_of,
    xorshift,
)

__all__ = ["MARGIN_WEIGHT", "MARGIN_WEIGHT_THREE", "NET_CLIP", "PRIOR_AT", "RECYCLE_AT", "RECYCLE_TO", "Prior", "Stat",
           "Tree", "add_net_prior", "add_prior", "compact", "margin_weight", "nearly_full", "new_node", "rave_value",
           "recycle", "run_iterations", "shuffle_edges"]

#: Share of the reward given by the score margin (the rest is win = 1 / loss = 0).
MARGIN_WEIGHT = 0.05

#: ... and with three players, where a bigger share measured better: 0.384 [0.35, 0.42] of
#: the wins over 630 games against the bot with 0.05 in both other seats (fair share 0.333;
#: docs/measured/2026-12-06-multiplayer-search.md).  With two and four players it measured even.
MARGIN_WEIGHT_THREE = 0.2


def margin_weight(players: int) -> float:
    """The share of a simulation's reward given by its score margin at a table of ``players``.

    >>> margin_weight(2), margin_weight(3), margin_weight(4)
    (0.05, 0.2, 0.05)
    """
    return MARGIN_WEIGHT_THREE if players == 3 else MARGIN_WEIGHT

#: A node's stones get their pattern prior (:func:`add_prior`) at its visit number
#: ``PRIOR_AT``, once the node's own simulations give a mean to build it on.
PRIOR_AT = 8

#: A pool fuller than this share is recycled between chunks ...
RECYCLE_AT = 0.9
#: ... down to at most this share.
RECYCLE_TO = 0.5


class Tree(NamedTuple):
    """The search tree in preallocated pools, reused from turn to turn.  A named tuple of
    arrays is one value the compiled search takes whole.

    Node ``i`` owns the edges ``node_first[i]`` to ``node_first[i] + node_count[i] - 1``
    and has been visited ``node_n[i]`` times.  An edge is one stone: its cell, its child
    node (-1 until expanded), visits and reward sum, and the same for its AMAF (RAVE)
    statistics.  ``meta`` holds the ends of the node and edge pools in use and the root
    node.  Node indices and edge positions are in the same order (threads sharing a tree
    each allocate from their own stretch of both pools, the stretches in the same order).

    >>> tree = Tree.allocate(1_000); tree.start(np.arange(5, dtype=np.int32))
    >>> tree.root, tree.edges(tree.root), tree.child(tree.root, 3), tree.capacity
    (0, slice(0, 5, None), -1, 1000)
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
    def allocate(cls, edges: int) -> Tree:
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

    def grown(self, edges: int) -> Tree:
        """A larger tree holding this one's nodes and edges."""
        bigger = Tree.allocate(edges)
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

    def reset(self) -> None:
        """Empty the tree (its pools stay allocated)."""
        self.meta[:] = 0

    def start(self, cells: Int32Array) -> None:
        """Empty the tree and give it a root whose edges are ``cells``."""
        self.meta[:] = 0
        whole = self.stretches(1)[0]
        new_node(self, whole, cells, len(cells))
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
def new_node(tree: Tree, alloc: Int64Array, cells: Int32Array, ncur: int) -> int:
    """Add a node whose edges are the cells ``cells[:ncur]`` in the stretch of the pools
    ``alloc`` (next node, end, next edge, end); -1 if it is full.

    >>> tree = Tree.allocate(100); whole = tree.stretches(1)[0]
    >>> new_node(tree, whole, np.arange(60, dtype=np.int32), 60), new_node(tree, whole, np.arange(60, dtype=np.int32), 60)
    (0, -1)
    """
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


class Prior(NamedTuple):
    """What the search knows before it simulates: the pattern weights of
    :mod:`omega.ai.patterns` on one board side, given to a node's stones as ``visits``
    virtual AMAF simulations each, valued ``scale`` per unit of weight above or below the
    node's average (see :func:`add_prior`).  ``visits == 0``: no prior.

    And the learnt network of :mod:`omega.ai.net` (``net``; :func:`omega.ai.net.no_net`:
    none), evaluated at a node's visit number ``net_at``: its policy gives the node's
    stones ``net_visits`` virtual AMAF simulations each, valued ``net_scale`` per unit of
    log-probability above uniform, around the node's mean blended with the network's value
    by ``net_mix``; its value also counts as ``net_value`` simulations of the edge that
    leads to the node (see :func:`add_net_prior`).  ``nbr`` holds the board's neighbours.

    >>> from omega.ai.patterns import CLASS_COUNT
    >>> p = Prior.of(5, 20.0, 0.1); p.ring.shape, p.weights.shape == (CLASS_COUNT,), p.net.present
    ((61, 6), True, False)
    """

    ring: Int32Array
    weights: Float32Array
    visits: float
    scale: float
    net: Net
    nbr: Int32Array
    net_at: float
    net_visits: float
    net_scale: float
    net_mix: float
    net_value: float

    @classmethod
    def of(cls, size: int, visits: float, scale: float, net: Net | None = None, net_at: float = 0.0,
           net_visits: float = 0.0, net_scale: float = 0.0, net_mix: float = 0.0, net_value: float = 0.0) -> Prior:
        return cls(ring_neighbours(size), pattern_weights(), float(visits), float(scale),
                   no_net() if net is None else net, board_arrays(size).nbr, float(net_at) if net is not None else -1.0,
                   float(net_visits), float(net_scale), float(net_mix), float(net_value))


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
def shuffle_edges(e_cell: Int32Array, first: int, last: int, rng: UInt64Array) -> None:
    """Put the cells of the edges ``first`` to ``last - 1`` in a random order (Fisher-Yates),
    so that taking the first unseen edge in edge order takes a random one.

    >>> from omega.kernel import seed_state
    >>> cells = np.arange(10, dtype=np.int32); shuffle_edges(cells, 2, 8, seed_state(1))
    >>> cells[:2].tolist() + cells[8:].tolist(), sorted(cells[2:8].tolist()) == list(range(2, 8))
    ([0, 1, 8, 9], True)
    """
    for i in range(last - 1, first, -1):
        j = first + int((xorshift(rng) >> np.uint64(11)) % np.uint64(i - first + 1))
        e_cell[i], e_cell[j] = e_cell[j], e_cell[i]


@njit(cache=True, nogil=True)
def add_prior(tree: Tree, node: int, board: Int8Array, prior: Prior, colour: int, own: bool,
              weight_of: Float64Array) -> None:
    """Give each stone (edge) of ``node`` ``prior.visits`` virtual AMAF simulations, valued
    at the node's mean reward so far plus ``prior.scale`` times the amount by which the
    weight of the stone's pattern class is above the node's average weight (clipped to
    [0, 1]).  ``board`` is the node's position, ``colour`` the colour of its stones,
    ``own`` whether it is the mover's; ``weight_of`` is scratch space, a float per edge.

    Only the AMAF statistics change, so the prior guides the choice while the node has
    few simulations and fades as RAVE's own statistics grow; the node's mean sets its
    level, so it favours no node over its siblings.

    >>> from omega.kernel import KernelState
    >>> state = KernelState(players=2, size=3); tree = Tree.allocate(1_000); tree.start(state.empties())
    >>> tree.e_n[:19], tree.e_w[:19] = 1.0, 0.5              # 19 simulations, mean 0.5
    >>> prior = Prior.of(3, 20.0, 0.1); scratch = np.empty(19)
    >>> add_prior(tree, tree.root, state.board, prior, 0, True, scratch)
    >>> cells, an, aw = tree.e_cell[:19], tree.e_an[:19], tree.e_aw[:19]
    >>> corner, centre = cells == 0, cells == 9                # a1 and c3 on side 3
    >>> an[corner].tolist(), bool(aw[corner] != aw[centre])    # a corner is not the centre
    ([20.0], True)
    >>> round(float(tree.e_aw[:19].sum() / tree.e_an[:19].sum()), 6)   # the node's mean stays
    0.5
    """
    first = tree.node_first[node]
    count = tree.node_count[node]
    w_sum = 0.0
    n_sum = 0.0
    weight_sum = 0.0
    for i in range(count):
        f = first + i
        w_sum += tree.e_w[f]
        n_sum += tree.e_n[f]
        weight = prior.weights[pattern_class(board, prior.ring, tree.e_cell[f], colour, own)]
        weight_of[i] = weight
        weight_sum += weight
    if n_sum <= 0.0:
        return
    mean = w_sum / n_sum
    average = weight_sum / count
    for i in range(count):
        f = first + i
        value = min(1.0, max(0.0, mean + prior.scale * (weight_of[i] - average)))
        tree.e_an[f] += prior.visits
        tree.e_aw[f] += prior.visits * value


#: The network's log-probabilities above uniform count at most this much either way in
#: :func:`add_net_prior` (a cell a hundred times less likely than the average is not worse
#: than one twenty times less).
NET_CLIP = 3.0


@njit(cache=True, nogil=True)
def add_net_prior(tree: Tree, node: int, board: Int8Array, prior: Prior, colour: int, turn: int, players: int,
                  x: Float32Array) -> Float32Array:
    """Evaluate the network at ``node`` (its position ``board``, where colour ``turn``'s
    player places a stone of ``colour``) and give each of its stones ``prior.net_visits``
    virtual AMAF simulations valued ``base + prior.net_scale * z``, clipped to [0, 1]:
    ``base`` is the node's mean reward blended with the network's value for the mover by
    ``prior.net_mix``, ``z`` the stone's log-probability (among the node's stones) above
    the uniform one's, within :data:`NET_CLIP`.  Returns the seats' values (mover first);
    ``x`` is scratch space for the input.

    >>> from omega.ai.net import load_net
    >>> from omega.kernel import KernelState
    >>> state = KernelState(players=2, size=3); tree = Tree.allocate(1_000); tree.start(state.empties())
    >>> tree.e_n[:19], tree.e_w[:19] = 1.0, 0.5
    >>> prior = Prior.of(3, 0.0, 0.0, load_net(), 8, 20.0, 0.2, 0.5)
    >>> x = np.empty((19, FEATURES), dtype=np.float32)
    >>> value = add_net_prior(tree, tree.root, state.board, prior, 0, 0, 2, x)
    >>> tree.e_an[:19].tolist() == [20.0] * 19, round(float(value[:2].sum()), 5)
    (True, 1.0)
    """
    encode(board, turn, colour, players, prior.nbr, x)
    logits, value = forward(prior.net, x, prior.nbr, players)
    first = tree.node_first[node]
    count = tree.node_count[node]
    w_sum = 0.0
    n_sum = 0.0
    top = -1e30
    for i in range(count):
        f = first + i
        w_sum += tree.e_w[f]
        n_sum += tree.e_n[f]
        top = max(top, logits[tree.e_cell[f]])
    if n_sum <= 0.0:
        return value
    total = 0.0
    for i in range(count):
        total += math.exp(logits[tree.e_cell[first + i]] - top)
    base = (1.0 - prior.net_mix) * (w_sum / n_sum) + prior.net_mix * value[0]
    for i in range(count):
        f = first + i
        # log(p * count): 0 for a stone as likely as the average one
        z = logits[tree.e_cell[f]] - top - math.log(total) + math.log(count)
        z = min(NET_CLIP, max(-NET_CLIP, z))
        tree.e_an[f] += prior.net_visits
        tree.e_aw[f] += prior.net_visits * min(1.0, max(0.0, base + prior.net_scale * z))
    return value


@njit(cache=True, nogil=True)
def run_iterations(tree: Tree, alloc: Int64Array, root_w: Float64Array, board0: Int8Array, empties0: Int32Array,
            n_empty0: int, root_turn: int, players: int, back: Int32Array, logt: Float64Array, rng: UInt64Array,
            iterations: int, c_uct: float, rave_b: float, expand_after: float, vloss: float,
            first_version: bool, prior: Prior, paranoid: float, margin_w: float, mast: Mast) -> None:
    """Run ``iterations`` MCTS iterations on ``tree`` from its root (at the start of
    ``root_turn``'s turn), adding nodes in the stretch ``alloc`` and each colour's
    rewards to ``root_w``.

    Threads may share the tree: each counts ``vloss`` visits of no reward on the edges of
    its path as it descends (a virtual loss that steers the others elsewhere) and turns
    them into the real visit in the backup.  Their updates of the same statistics may
    race; a lost update costs one simulation's worth of information, never a wrong tree:
    a node is written whole before its parent edge points to it, and two threads adding a
    child to one edge at once only waste one of the two nodes.

    A node's stones get the pattern ``prior`` at its visit number :data:`PRIOR_AT`
    (:func:`add_prior`; none if ``prior.visits`` is 0, nor in the game's last round), and
    the network's at its visit number ``prior.net_at`` (:func:`add_net_prior`; none
    without a network, nor in the game's last round).  On
    a shared tree the count includes the other threads' virtual losses, so a node may get
    its prior twice or not at all: a little more or less guidance, never a wrong tree.

    A simulation's reward for each colour is a win (1) or not (0), ``margin_w`` of it given
    instead by its score margin over the best other colour; each player's choices are
    valued by its own reward (max-n), or with ``paranoid`` of it (0 to 1) by how little
    they leave the root's player (the others taken to play against it).

    Below the tree a simulation fills the board with :func:`mast_fill` when ``mast.size``
    is 2 or more (each stone on the best of that many random cells by ``mast``'s
    statistics, which every simulation adds to), otherwise uniformly at random.

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
    parent, size, logs, counts = score_scratch(ncell)
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
    use_prior = prior.visits > 0.0
    # In the game's last round the simulations are short and all but exact, and a
    # pattern's guess about groups still to grow would only blur the margins between wins.
    last_round = 2 * players * players
    weight_of = np.empty(ncell, dtype=np.float64)
    use_net = prior.net_at >= 0.0
    x = np.empty((ncell if use_net else 0, FEATURES), dtype=np.float32)
    me = root_turn % players  # the searching player (paranoid's reference)
    use_mast = mast.size[0] >= 2
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
            if use_prior and node_n[node] == PRIOR_AT and ncur >= last_round:
                add_prior(tree, node, board, prior, k, k == turn, weight_of)
            if use_net and node_n[node] == prior.net_at and ncur >= last_round:
                value = add_net_prior(tree, node, board, prior, k, turn, players, x)
                if depth > 0 and prior.net_value > 0.0:
                    # The value as simulations of the edge into this node, for its mover.
                    into = path_edge[depth - 1]
                    e_n[into] += prior.net_value
                    e_w[into] += prior.net_value * value[(path_mover[depth - 1] - turn) % players]
            if own_tree_rave:
                if node_n[node] == 0.0:
                    shuffle_edges(e_cell, first, last, rng)
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
                    child = new_node(tree, alloc, cells, ncur)
                    if child >= 0:
                        e_child[best] = child
                break
            node = child
        if use_mast and not terminal:
            mast_fill(board, cells, ncur, players, turn, step, mast, rng)
        else:
            length = 0 if terminal else fill_sequence(players, turn, step, ncur, seq)
            random_fill(board, cells, ncur, seq, length, rng)
        score_board(board, back, logt, parent, size, logs, counts, players)
        win = winner_of(board, parent, size, logs, counts, players)
        for c in range(players):
            margin = 1e9
            for d in range(players):
                if d != c and logs[c] - logs[d] < margin:
                    margin = logs[c] - logs[d]
            reward[c] = (1.0 - margin_w) * (c == win) + margin_w * 0.5 * (1.0 + math.tanh(margin))
            root_w[c] += reward[c]
        if use_mast:
            mast_add(mast, board, reward, players)
        if touch_all and use_rave:
            for c in range(players):
                for i in range(ncell):
                    hit_of[c, i] = board[i] == c
        for d in range(depth):
            node = path_node[d]
            f = path_edge[d]
            mover = path_mover[d]
            r = reward[mover]
            if paranoid > 0.0 and mover != me:
                r = (1.0 - paranoid) * r + paranoid * (1.0 - reward[me])
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
def compact(tree: Tree, root: int, min_visits: float) -> None:
    """Make node ``root`` the root of a compacted tree: keep its subtree, less the nodes
    visited fewer than ``min_visits`` times (and theirs), and move what is kept to the
    front of the pools, in the same order.

    A node's edges follow those of every node with a smaller index, so copying the kept
    nodes in index order never overwrites one not yet copied.

    >>> tree = Tree.allocate(1_000); tree.start(np.arange(3, dtype=np.int32))
    >>> whole = tree.stretches(1)[0]; child = new_node(tree, whole, np.arange(2, dtype=np.int32), 2)
    >>> tree.e_child[1] = child; tree.node_n[child] = 5.0; tree.used_to([whole])
    >>> compact(tree, child, 0.0); int(tree.meta[0]), int(tree.meta[1]), tree.root, float(tree.node_n[0])
    (1, 2, 0, 5.0)
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



def recycle(tree: Tree) -> None:
    """Cut off the least-visited nodes until at most :data:`RECYCLE_TO` of the pools is in
    use.  A node is visited at most as often as its parent, so cutting every node below
    a visit count keeps a connected tree.

    >>> tree = Tree.allocate(100); tree.start(np.arange(46, dtype=np.int32))
    >>> whole = tree.stretches(1)[0]; child = new_node(tree, whole, np.arange(45, dtype=np.int32), 45)
    >>> tree.e_child[0] = child; tree.node_n[0], tree.node_n[child] = 9.0, 1.0; tree.used_to([whole])
    >>> tree.fill > RECYCLE_AT, recycle(tree), tree.fill <= RECYCLE_TO
    (True, None, True)
    """
    nodes = int(tree.meta[0])
    visits = tree.node_n[:nodes]
    counts = tree.node_count[:nodes].astype(np.int64)
    # Edges (and nodes) kept by each threshold 2**b: those of nodes with at least 2**b visits.
    bucket = np.floor(np.log2(np.maximum(visits, 1.0))).astype(np.int64)
    edges_at = np.cumsum(np.bincount(bucket, weights=counts)[::-1])[::-1]
    nodes_at = np.cumsum(np.bincount(bucket)[::-1])[::-1]
    fits = (edges_at <= RECYCLE_TO * tree.capacity) & (nodes_at <= RECYCLE_TO * len(tree.node_n))
    b = int(np.argmax(fits)) if fits.any() else len(fits)
    compact(tree, tree.root, float(2**b))


def nearly_full(tree: Tree, alloc: Int64Array, share: int) -> bool:
    """True if the stretch ``alloc`` of ``tree``'s pools, one of ``share``, has less room
    left than a share of the whole pools that recycling would leave free.

    >>> tree = Tree.allocate(1_000); tree.start(np.arange(60, dtype=np.int32))
    >>> [nearly_full(tree, alloc, 2) for alloc in tree.stretches(2)]
    [False, False]
    """
    room = 1.0 - RECYCLE_AT
    return bool(alloc[1] - alloc[0] < room * len(tree.node_n) / share
                or alloc[3] - alloc[2] < room * tree.capacity / share)
