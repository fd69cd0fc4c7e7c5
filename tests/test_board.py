"""Board geometry and cell notation, checked against every example of the rules page."""

from __future__ import annotations

import pytest

from omega import Game
from omega.board import Board, cell_count, parse_cell

# The side-3 picture of RULES.md, verbatim: neighbours are read off it by position.
SIDE_3_PICTURE = """\
        a1  a2  a3
      b1  b2  b3  b4
    c1  c2  c3  c4  c5
      d2  d3  d4  d5
        e3  e4  e5
"""


def picture_positions(picture: str) -> dict[str, tuple[int, int]]:
    """Cell name -> (line, character column) of its label in the picture."""
    positions = {}
    for line_no, line in enumerate(picture.splitlines()):
        col = 0
        for word in line.split():
            col = line.index(word, col)
            positions[word] = (line_no, col)
            col += len(word)
    return positions


def test_side_3_picture_matches_board_order_and_neighbours() -> None:
    positions = picture_positions(SIDE_3_PICTURE)
    board = Board.of(3)
    # Reading order of the picture (row by row, left to right) is the board's cell order.
    assert list(board.cells) == sorted(positions, key=lambda name: positions[name])
    for name, (line, col) in positions.items():
        # In the drawing, touching hexes are 4 characters apart on one line, or 2 apart on
        # the line above or below.
        touching = {
            other for other, (l2, c2) in positions.items()
            if (l2 == line and abs(c2 - col) == 4) or (abs(l2 - line) == 1 and abs(c2 - col) == 2)
        }
        got = {board.name(i) for i in board.neighbours[board.index(name)]}
        assert got == touching, name


def test_rules_page_neighbours_of_c3() -> None:
    board = Board.of(3)
    assert sorted(board.name(i) for i in board.neighbours[board.index("c3")]) == ["b2", "b3", "c2", "c4", "d3", "d4"]


@pytest.mark.parametrize(("size", "cells"), [(5, 61), (6, 91), (7, 127), (8, 169), (9, 217), (10, 271)])
def test_rules_page_cell_counts(size: int, cells: int) -> None:
    assert cell_count(size) == cells
    assert len(Board.of(size)) == cells
    assert len(Game(size=size).cells) == cells


@pytest.mark.parametrize("size", range(2, 14))
def test_cell_count_and_names_for_every_size(size: int) -> None:
    board = Board.of(size)
    span = 2 * size - 1
    expected = [
        f"{chr(ord('a') + r - 1)}{c}"
        for r in range(1, span + 1)
        for c in range(1, span + 1)
        if abs(r - c) <= size - 1
    ]
    assert list(board.cells) == expected
    assert len(expected) == 3 * size * (size - 1) + 1
    assert board.centre == f"{chr(ord('a') + size - 1)}{size}"
    # Neighbour relation: symmetric, 3 at corners, 4 on edges, 6 inside.
    degree_counts: dict[int, int] = {}
    for i, nbs in enumerate(board.neighbours):
        assert len(set(nbs)) == len(nbs) and i not in nbs
        for j in nbs:
            assert i in board.neighbours[j]
        degree_counts[len(nbs)] = degree_counts.get(len(nbs), 0) + 1
    expected_degrees = {3: 6, 4: 6 * (size - 2), 6: cell_count(size) - 6 * (size - 1)}
    assert degree_counts == {d: k for d, k in expected_degrees.items() if k}


def test_centre_of_standard_board_is_e5() -> None:
    assert Board.of(5).centre == "e5"
    assert Board.of(5).is_cell("e5")


def test_neighbour_offsets_from_rules_page_on_side_5() -> None:
    board = Board.of(5)
    # e5 is the centre: (r, c-1), (r, c+1), (r-1, c-1), (r-1, c), (r+1, c), (r+1, c+1).
    assert {board.name(i) for i in board.neighbours[board.index("e5")]} == {"e4", "e6", "d4", "d5", "f5", "f6"}
    assert {board.name(i) for i in board.neighbours[board.index("a1")]} == {"a2", "b1", "b2"}
    assert {board.name(i) for i in board.neighbours[board.index("i9")]} == {"i8", "h8", "h9"}


@pytest.mark.parametrize("name", ["E5", "e5", "A1", "i9", "I5"])
def test_case_insensitive_input_canonical_lower_case(name: str) -> None:
    board = Board.of(5)
    assert board.is_cell(name)
    assert board.name(board.index(name)) == name.lower()
    assert parse_cell(name, 5) == name.lower()


@pytest.mark.parametrize(
    "name",
    ["e0", "a9", "a6", "i4", "j5", "5e", "e5e", "", " e5", "e 5", "e05", "ee5", "e-1", "e5.", "e10", "z1", "é5"],
)
def test_not_cells_on_side_5(name: str) -> None:
    board = Board.of(5)
    assert not board.is_cell(name)
    with pytest.raises(ValueError, match="is not a cell of the side-5 board"):
        board.index(name)


def test_not_cell_message_explains_the_notation() -> None:
    board = Board.of(5)
    with pytest.raises(ValueError, match=r"rows a-i, columns 1-9, \|row - column\| <= 4"):
        board.index("a9")
    with pytest.raises(ValueError, match="a row letter and a column number"):
        board.index("5e")


def test_non_string_is_not_a_cell() -> None:
    board = Board.of(5)
    assert not board.is_cell(5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="a cell is a string"):
        board.index(None)  # type: ignore[arg-type]


def test_largest_board_rows_run_to_y() -> None:
    board = Board.of(13)
    assert board.cells[-1] == "y25"
    assert board.is_cell("Y25") and not board.is_cell("z25")


@pytest.mark.parametrize("size", [0, 1, 14, -5, 5.0, "5", True, None, [5]])
def test_bad_sizes(size: object) -> None:
    with pytest.raises(ValueError, match="board size must be an integer from 2 to 13"):
        Board.of(size)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="board size must be an integer from 2 to 13"):
        Game(size=size)  # type: ignore[arg-type]


def test_shared_board_instances() -> None:
    assert Board.of(7) is Board.of(7)
    assert Board.of(7) is not Board.of(8)
