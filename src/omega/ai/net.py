"""The learnt evaluation: a small policy and value network over the board, evaluated with
Numba inside the search (no learning library needed to play).

Input
    One row of :data:`FEATURES` numbers per cell, in the frame of the player to move (so
    one network serves every seat): a stone of the mover's colour, of the next colour, and
    so on (four channels, for up to four players), an empty cell, how far the cell is on
    the board's edge, and, the same on every cell, the colour of the stone to place
    (relative to the mover), the number of players and the share of empty cells.  A
    position is the start of a turn or any point inside one, since the search places a
    turn one stone at a time (:mod:`omega.ai.tree`).
Body
    A first layer per cell, then :data:`Net` ``layers`` residual layers; each mixes a
    cell's own channels, the sum of its (up to six) neighbours' channels and the board's
    mean, so the same weights fit every board side.
Heads
    The policy: one logit per cell (the caller keeps the empty ones); the value: the
    chance of each seat (mover first) to win, from the board's mean and maximum channels,
    a softmax over the game's players.

Training (``omega train fit``, :mod:`omega.ai.fit`) writes the weights into an ``.npz``;
:func:`load_net` reads it.  The package ships one (:data:`WEIGHTS_FILE`).

>>> from omega.kernel import KernelState
>>> state = KernelState(players=2, size=3)
>>> logits, value = evaluate(load_net(), state.board, 0, 0, 2, 3)
>>> logits.shape, round(float(value[:2].sum()), 5), float(value[2])
((19,), 1.0, 0.0)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from numba import njit
from numpy.typing import NDArray

from omega.board import Board
from omega.kernel import MAX_COLORS, Float32Array, Int8Array, Int32Array, board_arrays

__all__ = ["FEATURES", "WEIGHTS_FILE", "Net", "encode", "evaluate", "forward", "load_net", "no_net", "symmetries",
           "trained_players"]

#: Numbers per cell in the input: 4 stone colours, empty, edge, 4 colours to place,
#: 3 player counts, share of empty cells.
FEATURES = 14
_EMPTY, _EDGE, _PLACING, _PLAYERS, _SHARE = 4, 5, 6, 10, 13

#: The weights shipped with the package (in ``omega/ai/``).
WEIGHTS_FILE = "net_weights.npz"


class Net(NamedTuple):
    """The network's weights (float32): ``w_in``, ``b_in`` the first layer (features to
    ``C`` channels); ``ws``, ``wn``, ``wg``, ``b`` the residual layers (own cell, sum of
    neighbours, board mean; shape ``(layers, C, C)``); ``w_p``, ``b_p`` the policy head;
    ``w_v1``, ``b_v1``, ``w_v2``, ``b_v2`` the value head (mean and max of the channels to
    ``H`` hidden units to four seats).  A named tuple of arrays is one value a compiled
    function takes whole.

    >>> net = load_net(); net.ws.shape[1] == net.w_in.shape[1], net.w_v2.shape[1]
    (True, 4)
    """

    w_in: Float32Array
    b_in: Float32Array
    ws: Float32Array
    wn: Float32Array
    wg: Float32Array
    b: Float32Array
    w_p: Float32Array
    b_p: Float32Array
    w_v1: Float32Array
    b_v1: Float32Array
    w_v2: Float32Array
    b_v2: Float32Array

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, NDArray[Any]]) -> Net:
        """The weights named by the fields in ``arrays`` (an ``.npz`` may hold more)."""
        return cls(*(np.ascontiguousarray(arrays[name], dtype=np.float32) for name in cls._fields))

    @property
    def present(self) -> bool:
        """False for :func:`no_net`'s empty weights."""
        return bool(self.w_in.shape[1] > 0)


def no_net() -> Net:
    """Empty weights: what the search carries when it uses no network.

    >>> no_net().present
    False
    """
    zero = np.zeros((0, 0), dtype=np.float32)
    return Net(np.zeros((FEATURES, 0), np.float32), np.zeros(0, np.float32), np.zeros((0, 0, 0), np.float32),
               np.zeros((0, 0, 0), np.float32), np.zeros((0, 0, 0), np.float32), zero, np.zeros(0, np.float32),
               np.zeros(1, np.float32), zero, np.zeros(0, np.float32), np.zeros((0, MAX_COLORS), np.float32),
               np.zeros(MAX_COLORS, np.float32))


@cache
def load_net(path: str | None = None) -> Net:
    """The weights in the ``.npz`` at ``path`` (default: the shipped :data:`WEIGHTS_FILE`),
    read once.

    >>> load_net() is load_net()
    True
    """
    if path is None:
        with resources.as_file(resources.files("omega.ai") / WEIGHTS_FILE) as shipped:
            return _read(shipped)
    return _read(Path(path))


@cache
def trained_players() -> frozenset[int]:
    """The player counts the shipped weights were trained on: the search asks the network
    only in games of these (on 3 players, weights trained on 2 lost 85 games of 90).

    >>> 2 in trained_players()
    True
    """
    with resources.as_file(resources.files("omega.ai") / WEIGHTS_FILE) as shipped, np.load(shipped) as data:
        return frozenset(int(p) for p in data["players"])


def _read(path: Path) -> Net:
    with np.load(path) as data:
        return Net.from_arrays({name: data[name] for name in Net._fields})


@njit(cache=True, nogil=True)
def encode(board: Int8Array, turn: int, colour: int, players: int, nbr: Int32Array, out: Float32Array) -> None:
    """Write the :data:`FEATURES` numbers of each cell of ``board`` into ``out`` (cells by
    features), for the player of colour ``turn`` to place a stone of ``colour``; ``nbr``
    holds each cell's neighbours padded with -1 (:func:`omega.kernel.board_arrays`).

    >>> a = board_arrays(3); board = np.full(19, -1, dtype=np.int8); board[9] = 1
    >>> out = np.empty((19, FEATURES), dtype=np.float32); encode(board, 1, 0, 2, a.nbr, out)
    >>> out[9, :6].tolist(), out[0, :6].tolist(), out[0, 6:].tolist()[:8]
    ([1.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 1.0, 0.5], [0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.947...])
    """
    ncell = board.shape[0]
    empty = 0
    for i in range(ncell):
        if board[i] < 0:
            empty += 1
    share = empty / ncell
    for i in range(ncell):
        for f in range(FEATURES):
            out[i, f] = 0.0
        c = board[i]
        if c < 0:
            out[i, _EMPTY] = 1.0
        else:
            out[i, (c - turn) % players] = 1.0
        missing = 0
        for j in range(6):
            if nbr[i, j] < 0:
                missing += 1
        out[i, _EDGE] = missing / 6.0
        out[i, _PLACING + (colour - turn) % players] = 1.0
        out[i, _PLAYERS + players - 2] = 1.0
        out[i, _SHARE] = share


@njit(cache=True, nogil=True, fastmath=True)
def forward(net: Net, x: Float32Array, nbr: Int32Array, players: int) -> tuple[Float32Array, Float32Array]:
    """The policy logits (one per cell) and the seats' chances to win (mover first, zero
    past ``players``) of the encoded input ``x`` (:func:`encode`).

    The arithmetic, by hand, on a network of one channel and no residual layer, on side 3
    with one stone: the first layer keeps the "empty" feature, the policy doubles it, the
    value head reads its mean (18/19) and maximum (1) into ``18/19 + 1 - 1`` for its one
    hidden unit, which is the mover's logit (the other seat's is 0):

    >>> w = {name: np.zeros(shape, np.float32) for name, shape in (("w_in", (FEATURES, 1)), ("b_in", 1),
    ...      ("ws", (0, 1, 1)), ("wn", (0, 1, 1)), ("wg", (0, 1, 1)), ("b", (0, 1)), ("w_p", 1), ("b_p", 1),
    ...      ("w_v1", (2, 1)), ("b_v1", 1), ("w_v2", (1, 4)), ("b_v2", 4))}
    >>> w["w_in"][_EMPTY, 0] = 1.0; w["w_p"][0] = 2.0; w["w_v1"][:, 0] = 1.0; w["b_v1"][0] = -1.0
    >>> w["w_v2"][0, 0] = 1.0
    >>> a = board_arrays(3); board = np.full(19, -1, dtype=np.int8); board[0] = 0
    >>> x = np.empty((19, FEATURES), np.float32); encode(board, 0, 1, 2, a.nbr, x)
    >>> logits, value = forward(Net.from_arrays(w), x, a.nbr, 2)
    >>> mover = math.exp(18 / 19) / (math.exp(18 / 19) + 1)
    >>> logits[:2].tolist(), abs(float(value[0]) - mover) < 1e-6
    ([0.0, 2.0], True)
    """
    ncell = x.shape[0]
    width = net.w_in.shape[1]
    h = np.empty((ncell, width), dtype=np.float32)
    for i in range(ncell):
        for o in range(width):
            h[i, o] = net.b_in[o]
        for f in range(FEATURES):
            v = x[i, f]
            if v != 0.0:
                for o in range(width):
                    h[i, o] += v * net.w_in[f, o]
        for o in range(width):
            h[i, o] = max(h[i, o], 0.0)
    agg = np.empty((ncell, width), dtype=np.float32)
    out = np.empty((ncell, width), dtype=np.float32)
    mean = np.empty(width, dtype=np.float32)
    shared = np.empty(width, dtype=np.float32)
    for layer in range(net.ws.shape[0]):
        ws, wn = net.ws[layer], net.wn[layer]
        _mean_rows(h, mean)
        for o in range(width):
            shared[o] = net.b[layer, o]
        for k in range(width):
            for o in range(width):
                shared[o] += mean[k] * net.wg[layer, k, o]
        for i in range(ncell):
            for o in range(width):
                agg[i, o] = 0.0
            for j in range(6):
                n = nbr[i, j]
                if n >= 0:
                    for o in range(width):
                        agg[i, o] += h[n, o]
        for i in range(ncell):
            for o in range(width):
                out[i, o] = shared[o]
            for k in range(width):
                hv, av = h[i, k], agg[i, k]
                for o in range(width):
                    out[i, o] += hv * ws[k, o] + av * wn[k, o]
        for i in range(ncell):
            for o in range(width):
                h[i, o] += max(out[i, o], 0.0)
    logits = np.empty(ncell, dtype=np.float32)
    for i in range(ncell):
        s = net.b_p[0]
        for k in range(width):
            s += h[i, k] * net.w_p[k]
        logits[i] = s
    _mean_rows(h, mean)
    hidden = net.b_v1.copy()
    for k in range(width):
        top = h[0, k]
        for i in range(1, ncell):
            top = max(top, h[i, k])
        for o in range(hidden.shape[0]):
            hidden[o] += mean[k] * net.w_v1[k, o] + top * net.w_v1[width + k, o]
    value = np.zeros(MAX_COLORS, dtype=np.float32)
    for s in range(players):
        v = net.b_v2[s]
        for o in range(hidden.shape[0]):
            v += max(hidden[o], 0.0) * net.w_v2[o, s]
        value[s] = v
    top = value[0]
    for s in range(1, players):
        top = max(top, value[s])
    total = 0.0
    for s in range(players):
        value[s] = math.exp(value[s] - top)
        total += value[s]
    for s in range(players):
        value[s] /= total
    return logits, value


@njit(cache=True, nogil=True, inline="always")
def _mean_rows(h: Float32Array, mean: Float32Array) -> None:
    for o in range(h.shape[1]):
        mean[o] = 0.0
    for i in range(h.shape[0]):
        for o in range(h.shape[1]):
            mean[o] += h[i, o]
    for o in range(h.shape[1]):
        mean[o] /= h.shape[0]


def evaluate(net: Net, board: Int8Array, turn: int, colour: int, players: int, size: int
             ) -> tuple[Float32Array, Float32Array]:
    """:func:`forward` on a kernel board (see :func:`encode` for the arguments)."""
    a = board_arrays(size)
    x = np.empty((a.ncell, FEATURES), dtype=np.float32)
    encode(board, turn, colour, players, a.nbr, x)
    return forward(net, x, a.nbr, players)


def symmetries(size: int) -> Int32Array:
    """The twelve symmetries of the board of side ``size`` (six turns, each mirrored or
    not) as permutations of its cells: ``board[perm[s]]`` is the board turned by ``s``.

    >>> perms = symmetries(3); perms.shape, sorted(perms[5].tolist()) == list(range(19))
    ((12, 19), True)
    >>> nb = Board.of(3).neighbours   # neighbours stay neighbours
    >>> all(sorted(p[n] for n in nb[i]) == sorted(nb[p[i]]) for p in perms for i in range(19))
    True
    """
    coords = Board.of(size).coords
    at = {rc: i for i, rc in enumerate(coords)}
    perms = []
    for mirror in (False, True):
        for turns in range(6):
            perm = []
            for r, c in coords:
                x, y = c - size, r - size
                if mirror:
                    x, y = y, x
                for _ in range(turns):
                    # A sixth of a turn: it maps the six neighbour steps (0, ±1), (±1, 0),
                    # ±(1, 1) onto each other.
                    x, y = x - y, x
                perm.append(at[(y + size, x + size)])
            perms.append(perm)
    return np.array(perms, dtype=np.int32)
