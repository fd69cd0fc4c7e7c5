"""Local patterns: what a stone about to be placed sees of its six neighbours.

A stone of colour ``k`` on cell ``x`` sees each neighbour, in order around ``x``, as one
of four things: empty, a ``k`` stone, a stone of another colour, or off the board.  That
makes ``4 ** 6`` rings, which the twelve symmetries of the hexagon (six turns, and each
mirrored) fold into 430 classes.  Whether ``k`` is the colour of the player placing the
stone (their own group grows) or another player's (they shape an opponent's groups)
doubles them: :data:`CLASS_COUNT` pattern classes in all.

Each class has a learnt weight (:data:`omega.ai.pattern_weights.WEIGHTS`, fitted by
``bench/fit_patterns.py`` to the turns that long searches chose): the search adds it to a
node's stones as a prior (see :func:`omega.ai.tree.add_prior`).

>>> from omega.kernel import EMPTY
>>> ring = ring_neighbours(2)            # the side-2 board: a centre cell and six around it
>>> board = np.full(7, EMPTY, dtype=np.int8); board[ring[3, 0]] = 0
>>> a = pattern_class(board, ring, 3, 0, True)    # a white stone next to a white one
>>> board[ring[3, 0]], board[ring[3, 3]] = EMPTY, 0
>>> a == pattern_class(board, ring, 3, 0, True)   # the same, a half-turn round
True
>>> a == pattern_class(board, ring, 3, 1, True)   # a black stone next to a white one
False
"""

from __future__ import annotations

from functools import cache

import numpy as np
from numba import njit

from omega.ai.pattern_weights import WEIGHTS
from omega.board import Board
from omega.kernel import EMPTY, Float32Array, Int8Array, Int32Array

__all__ = ["CLASS_COUNT", "RING_OFFSETS", "pattern_class", "pattern_weights", "ring_code",
           "ring_neighbours", "symmetry_class"]

#: The six neighbour offsets (row, column) in order around a cell.
RING_OFFSETS = ((0, 1), (1, 1), (1, 0), (0, -1), (-1, -1), (-1, 0))

# What a neighbour is, two bits each in a ring code: neighbour d in bits 2d and 2d + 1.
_EMPTY, _SAME, _OTHER, _OFF = 0, 1, 2, 3


@cache
def ring_neighbours(size: int) -> Int32Array:
    """``ring[i, d]``: the neighbour of cell ``i`` in the direction ``RING_OFFSETS[d]``,
    or -1 off the board.

    >>> Board.of(2).cells[3], [Board.of(2).cells[j] for j in ring_neighbours(2)[3]]
    ('b2', ['b3', 'c3', 'c2', 'b1', 'a1', 'a2'])
    >>> ring_neighbours(2)[0].tolist()      # a1, a corner: three neighbours on the board
    [1, 3, 2, -1, -1, -1]
    """
    board = Board.of(size)
    at = {rc: i for i, rc in enumerate(board.coords)}
    ring = np.full((len(board), 6), -1, dtype=np.int32)
    for i, (r, c) in enumerate(board.coords):
        for d, (dr, dc) in enumerate(RING_OFFSETS):
            ring[i, d] = at.get((r + dr, c + dc), -1)
    return ring


def ring_code(digits: list[int]) -> int:
    """The ring code of six neighbours given as 0 (empty), 1 (the stone's colour),
    2 (another colour) or 3 (off the board), in ring order.

    >>> ring_code([1, 0, 0, 0, 0, 0]), ring_code([0, 0, 0, 3, 3, 3])
    (1, 4032)
    """
    return sum(v << (2 * d) for d, v in enumerate(digits))


def _symmetry_classes() -> tuple[Int32Array, int]:
    """Each ring code's class: the same for the twelve turns and mirror images of a ring."""
    smallest = np.empty(4**6, dtype=np.int64)
    for code in range(4**6):
        digits = [(code >> (2 * d)) & 3 for d in range(6)]
        smallest[code] = min(ring_code(seq[r:] + seq[:r]) for seq in (digits, digits[::-1]) for r in range(6))
    number = {code: i for i, code in enumerate(sorted(set(smallest.tolist())))}
    return np.array([number[code] for code in smallest.tolist()], dtype=np.int32), len(number)


_CLASS_OF_CODE, _RINGS = _symmetry_classes()
#: Number of pattern classes: the symmetry classes of a ring, for one's own colour and
#: for another's.
CLASS_COUNT = 2 * _RINGS


def symmetry_class(code: int, own: bool) -> int:
    """The pattern class of ring code ``code`` (``own``: the placing player's colour).

    >>> symmetry_class(ring_code([1, 0, 0, 0, 0, 0]), True) == symmetry_class(ring_code([0, 0, 0, 0, 1, 0]), True)
    True
    >>> symmetry_class(0, True) - symmetry_class(0, False) == CLASS_COUNT // 2
    True
    """
    return int(_CLASS_OF_CODE[code]) + (_RINGS if own else 0)


@njit(cache=True, nogil=True)
def pattern_class(board: Int8Array, ring: Int32Array, cell: int, colour: int, own: bool) -> int:
    """The pattern class of a ``colour`` stone placed on the empty ``cell`` of ``board``
    (a kernel board: colour numbers, ``EMPTY``); ``own``: the colour is the placing
    player's.  See the module's example."""
    code = 0
    for d in range(6):
        j = ring[cell, d]
        if j < 0:
            v = _OFF
        else:
            stone = board[j]
            v = _EMPTY if stone == EMPTY else (_SAME if stone == colour else _OTHER)
        code |= v << (2 * d)
    return int(_CLASS_OF_CODE[code]) + (_RINGS if own else 0)


@cache
def pattern_weights() -> Float32Array:
    """The learnt weight of every pattern class, as the search reads them (float32): a
    stone whose class weighs one more is about e times as likely to be the one a long
    search chooses.

    >>> w = pattern_weights(); w.shape == (CLASS_COUNT,), w.dtype
    (True, dtype('float32'))
    """
    weights = np.array(WEIGHTS, dtype=np.float32)
    if weights.shape != (CLASS_COUNT,):
        raise ValueError(f"omega.ai.pattern_weights has {weights.shape[0]} weights, not {CLASS_COUNT}")
    return weights
