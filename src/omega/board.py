"""Board geometry and cell notation for hex-hex boards of side 2 to 13.

A cell is named by a row letter (``a`` is the top row) and a column number, as in
``e5``.  Cell (row ``r``, column ``c``), both counted from 1, exists iff
``|r - c| <= n - 1`` on a board of side ``n``.

>>> b = Board.of(3)
>>> len(b.cells), b.name(b.index("C3"))
(19, 'c3')
>>> sorted(b.name(i) for i in b.neighbours[b.index("c3")])
['b2', 'b3', 'c2', 'c4', 'd3', 'd4']
"""

from __future__ import annotations

import re
from functools import cache

from omega.i18n import Message
from omega.i18n import translatable as _

MIN_SIZE = 2
MAX_SIZE = 13

_CELL_RE = re.compile(r"([a-z])([1-9][0-9]?)")

# Offsets (dr, dc) of the six neighbours, fixed by the notation of the rules page.
NEIGHBOUR_OFFSETS = ((0, -1), (0, 1), (-1, -1), (-1, 0), (1, 0), (1, 1))


def cell_count(size: int) -> int:
    """Number of cells on a board of side ``size``.

    >>> cell_count(5)
    61
    """
    return 3 * size * (size - 1) + 1


def _check_size(size: object) -> None:
    if not isinstance(size, int) or isinstance(size, bool) or not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(_("board size must be an integer from {low} to {high}, got {value}", low=MIN_SIZE, high=MAX_SIZE,
                           value=repr(size)))


class Board:
    """The immutable geometry of one board side: cell names, indices and neighbours.

    Cells are numbered 0.. in reading order (row by row, left to right), which is also
    the order of :attr:`cells`.  Use :meth:`Board.of` to get the shared instance.

    >>> Board.of(5).cells[:3]
    ('a1', 'a2', 'a3')
    """

    __slots__ = ("size", "cells", "coords", "neighbours", "_index")

    def __init__(self, size: int) -> None:
        _check_size(size)
        self.size = size
        span = 2 * size - 1
        coords = [
            (r, c)
            for r in range(1, span + 1)
            for c in range(1, span + 1)
            if abs(r - c) <= size - 1
        ]
        self.coords: tuple[tuple[int, int], ...] = tuple(coords)
        self.cells: tuple[str, ...] = tuple(f"{chr(96 + r)}{c}" for r, c in coords)
        self._index: dict[str, int] = {name: i for i, name in enumerate(self.cells)}
        at = {rc: i for i, rc in enumerate(coords)}
        self.neighbours: tuple[tuple[int, ...], ...] = tuple(
            tuple(
                at[(r + dr, c + dc)]
                for dr, dc in NEIGHBOUR_OFFSETS
                if (r + dr, c + dc) in at
            )
            for r, c in coords
        )

    @staticmethod
    def of(size: int) -> Board:
        """The shared board of side ``size`` (built once, then cached).

        >>> Board.of(5) is Board.of(5)
        True
        """
        # Checked before the cache so that an unhashable or non-int size gets the same
        # ValueError as Board(size) rather than a TypeError from the cache.
        _check_size(size)
        return _shared_board(size)

    def __len__(self) -> int:
        return len(self.cells)

    def __repr__(self) -> str:
        return f"Board.of({self.size})"

    def index(self, name: str) -> int:
        """Index of the cell called ``name`` (case-insensitive); ValueError if none.

        >>> Board.of(5).index("E5")
        30
        """
        if isinstance(name, str):
            found = self._index.get(name) if name.islower() else self._index.get(name.lower())
            if found is not None:
                return found
        raise ValueError(_("{name} is not a cell of the side-{size} board ({hint})", name=repr(name), size=self.size,
                           hint=self._hint(name)))

    def _hint(self, name: object) -> Message:
        if not isinstance(name, str):
            return _("a cell is a string such as 'e5'")
        if not _CELL_RE.fullmatch(name.lower()):
            return _("a cell is a row letter and a column number, such as 'e5'")
        last_row = chr(96 + 2 * self.size - 1)
        return _("rows a-{last_row}, columns 1-{last_column}, |row - column| <= {reach}", last_row=last_row,
                 last_column=2 * self.size - 1, reach=self.size - 1)

    def is_cell(self, name: str) -> bool:
        """Whether ``name`` names a cell of this board (case-insensitive).

        >>> Board.of(5).is_cell("a9"), Board.of(5).is_cell("A5")
        (False, True)
        """
        return isinstance(name, str) and name.lower() in self._index

    def name(self, index: int) -> str:
        """Canonical name of the cell with this index.

        >>> Board.of(5).name(0)
        'a1'
        """
        return self.cells[index]

    @property
    def centre(self) -> str:
        """Name of the centre cell (row ``n``, column ``n``).

        >>> Board.of(5).centre
        'e5'
        """
        return f"{chr(96 + self.size)}{self.size}"


@cache
def _shared_board(size: int) -> Board:
    return Board(size)


def parse_cell(name: str, size: int) -> str:
    """Canonical (lower-case) name of a cell on a side-``size`` board; ValueError if none.

    >>> parse_cell("E5", 5)
    'e5'
    """
    board = Board.of(size)
    return board.cells[board.index(name)]
