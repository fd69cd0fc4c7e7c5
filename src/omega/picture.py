"""The board drawn in text: the hex layout people read in a terminal, a transcript or an
environment's ``render()``.

>>> from omega import Game
>>> g = Game(size=2); g.play(["a1", "c3"])
>>> print(board_picture(g))
       1   2
 a   W   .   3
 b .   .   .
 c   .   B
"""

from __future__ import annotations

from omega.game import SWAP, Color, Game

__all__ = ["board_picture", "EMPTY"]

EMPTY = "."

# Bold bright white, bold grey (readable on dark and light backgrounds), red, blue.
_ANSI = {Color.WHITE: "\x1b[1;97m", Color.BLACK: "\x1b[1;90m", Color.RED: "\x1b[1;91m", Color.BLUE: "\x1b[1;94m"}
_DIM = "\x1b[2m"
_RESET = "\x1b[0m"

_CELL_WIDTH = 4  # as in the rules page's picture: each row is shifted half a cell (2 columns)


def _paint(text: str, color: Color | None, ansi: bool, fresh: bool = False) -> str:
    if not ansi:
        return text
    underline = "\x1b[4m" if fresh else ""
    return f"{_ANSI[color] if color is not None else _DIM}{underline}{text}{_RESET}"


def board_picture(game: Game, color: bool = False) -> str:
    """The board drawn for people: hex layout, row letters on the left, column numbers along
    the top and right edges (a column runs down and to the left), stones as their
    :attr:`~omega.game.Color.letter`, ``.`` if empty.  With ``color``, stones get ANSI
    colours and those of the last turn are underlined.

    >>> from omega import Game
    >>> g = Game(size=3); g.play(["c3", "a1"])
    >>> print(board_picture(g))
             1   2   3
     a     B   .   .   4
     b   .   .   .   .   5
     c .   .   W   .   .
     d   .   .   .   .
     e     .   .   .
    """
    n = game.size
    rows = 2 * n - 1
    margin = 3  # " a " before the cells

    def x_of(r: int, c: int) -> int:
        # Column c moves half a cell left per row down; row n's first cell sits at the margin.
        return margin + _CELL_WIDTH // 2 * (2 * c - r + n - 2)

    last_action = game.history[-1] if game.history else ()
    fresh = set(last_action) if last_action != SWAP else set()
    lines: list[str] = []
    top = [" "] * (x_of(1, n) + 3)
    for c in range(1, n + 1):
        label = str(c)
        pos = x_of(1, c) + _CELL_WIDTH // 2
        top[pos:pos + len(label)] = label
    lines.append("".join(top).rstrip())
    for r in range(1, rows + 1):
        first, last = max(1, r - n + 1), min(rows, r + n - 1)
        parts = [f" {chr(96 + r)} ", " " * (x_of(r, first) - margin)]
        cells: list[str] = []
        for c in range(first, last + 1):
            name = f"{chr(96 + r)}{c}"
            stone = game.stone(name)
            if stone is None:
                cells.append(_paint(EMPTY, None, color))
            else:
                cells.append(_paint(stone.letter, stone, color, fresh=name in fresh))
        parts.append((" " * (_CELL_WIDTH - 1)).join(cells))
        if r < n:  # the column that starts on the next row is labelled at this row's end
            parts.append(" " * (_CELL_WIDTH - 1) + str(n + r))
        lines.append("".join(parts).rstrip())
    return "\n".join(lines)
