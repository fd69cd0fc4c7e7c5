"""Records with variations (docs/records.md, Variations): the text form written by
``format_tree`` and read by ``parse_tree``, the flat form of programs, and bad input."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from omega import Game, IllegalMove
from omega.game import SWAP
from omega.record import VariationTree, format_record, format_tree, parse_record, parse_tree

DOCS = Path(__file__).resolve().parent.parent / "docs"
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def random_tree(seed: int, players: int, size: int, pie: bool, additions: int) -> VariationTree:
    """A tree grown by playing a random legal action at a random position of it."""
    rng = random.Random(seed)
    pie = pie and players == 2
    tree = VariationTree(players, size, pie, {"Event": "test"})
    nodes = [tree.root]
    for _ in range(additions):
        node = rng.choice(nodes)
        game = tree.game_at(node)
        if game.is_over:
            continue
        if game.can_swap and rng.random() < 0.3:
            action: Any = SWAP
        else:
            action = rng.sample(list(game.empty_cells()), players)
        nodes.append(tree.add(node, action))
    return tree


trees = st.builds(random_tree, st.integers(0, 10**6), st.integers(2, 3), st.integers(2, 4), st.booleans(),
                  st.integers(0, 25))


def shape(tree: VariationTree) -> Any:
    tags = {k: v for k, v in tree.tags.items() if k != "Result"}  # written from the main line
    return (tree.players, tree.size, tree.pie_rule, tags, tree.nodes())


@SETTINGS
@given(trees)
def test_text_round_trip(tree: VariationTree) -> None:
    text = format_tree(tree)
    again = parse_tree(text)
    assert shape(again) == shape(tree)
    assert format_tree(again) == text


@SETTINGS
@given(trees)
def test_flat_round_trip(tree: VariationTree) -> None:
    again = VariationTree.from_nodes(tree.players, tree.size, tree.pie_rule, tree.nodes(), tree.tags)
    assert shape(again) == shape(tree)


@SETTINGS
@given(trees)
def test_the_main_line_is_a_plain_record(tree: VariationTree) -> None:
    """Without variations the text is exactly a plain record; with them, its main line is."""
    main = tree.main_line()
    plain = format_record(main, tree.tags)
    assert parse_tree(plain).nodes() == VariationTree.of_game(main).nodes()
    if len(tree) == len(main.history):
        assert format_tree(tree) == plain
    # Dropping the variation lines leaves the main line's record.
    text = format_tree(tree)
    kept, depth = [], 0
    for line in text.splitlines():
        if line.strip() == "(":
            depth += 1
        elif line.strip() == ")":
            depth -= 1
        elif depth == 0:
            kept.append(line)
    assert parse_record("\n".join(kept) + "\n").game == main


def test_the_docs_example_reads_as_it_says() -> None:
    text = re.search(r"## Variations.*?```text\n(.*?)```", (DOCS / "records.md").read_text(), re.S)
    assert text is not None
    tree = parse_tree(text.group(1))
    assert format_tree(tree) == text.group(1)
    first = tree.root.children[0]
    assert [n.action for n in tree.root.children] == [("c3", "c4"), ("b2", "d4")]
    assert [n.action for n in first.children] == [("d3", "b3"), ("d4", "b1")]
    assert tree.main_line().history == (("c3", "c4"), ("d3", "b3"), ("b2", "c2"))


def test_a_plain_record_refuses_variations_with_a_pointer() -> None:
    with pytest.raises(ValueError, match=r"^line 5: this record has variations"):
        parse_record("Players: 2\nSize: 3\n\n1. a1 a2\n(\n1. b1 b2\n)\n")


@pytest.mark.parametrize(("body", "message"), [
    ("(\n", "line 4: a variation ('(') must follow the entry it replaces"),
    ("1. a1 a2\n(\n)\n", "line 6: a variation needs at least one entry"),
    ("1. a1 a2\n)\n", "line 5: ')' closes no variation"),
    ("1. a1 a2\n(\n1. b1 b2\n", "line 6: a variation is not closed (a ')' line is missing)"),
    ("1. a1 a2\n(\n2. b1 b2\n)\n", "line 6, entry 1: entries must be numbered in order, expected 1, got 2"),
    ("1. a1 a2\n(\n1. a1 a2\n)\n", "line 6, entry 1: this variation repeats a line already given"),
    ("1. a1 a2\n(\n1. b1 a1\n2. a1 c3\n)\n", "line 7, entry 2: cell a1 is occupied by Black"),
    ("1. a1 a2\n(\n(\n", "line 6: a variation ('(') must follow the entry it replaces"),
])
def test_bad_variations_name_the_line(body: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_tree("Players: 2\nSize: 3\n\n" + body)
    assert str(caught.value) == message


def test_an_illegal_entry_is_an_illegal_move() -> None:
    with pytest.raises(IllegalMove, match="entry 2: cell a1 is occupied"):
        parse_tree("Players: 2\nSize: 3\n\n1. a1 a2\n(\n1. b1 a1\n2. a1 c3\n)\n")


@pytest.mark.parametrize(("nodes", "message"), [
    ("x", "the entries must be a list"),
    ([[0]], "entry 1: must be [parent, action]"),
    ([[True, ["a1", "a2"]]], "entry 1: its parent must be 0"),
    ([[0, ["a1", "a2"]], [3, ["b1", "b2"]]], "entry 2: its parent must be 0"),
    ([[0, "pass"]], 'entry 1: an action is a list of cells or "swap"'),
    ([[0, [1, 2]]], "entry 1: an action is a list of cells"),
    ([[0, ["a1", "a1"]]], "entry 1: cell a1 is given twice"),
    ([[0, ["a1", "a2"]], [0, ["A1", "a2"]]], "entry 2: this entry is already a line from its position"),
])
def test_bad_flat_forms_name_the_entry(nodes: Any, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        VariationTree.from_nodes(2, 3, False, nodes)


def test_promote_and_remove() -> None:
    tree = VariationTree(2, 3)
    a = tree.add(tree.root, ["a1", "a2"])
    b = tree.add(tree.root, ["b1", "b2"])
    tree.add(b, ["c1", "c2"])
    assert tree.add(tree.root, ["A1", "a2"]) is a  # the same line, not a second one
    tree.promote(b)
    assert tree.main_line().history == (("b1", "b2"), ("c1", "c2"))
    tree.remove(b)
    assert tree.main_line().history == (("a1", "a2"),) and len(tree) == 1


def test_a_finished_main_line_gets_its_result() -> None:
    game = Game(players=2, size=2)
    game.play(["a1", "c3"])
    game.play(["b2", "a2"])
    assert game.is_over
    tree = VariationTree.of_game(game)
    tree.add(tree.root, ["b2", "a2"])
    text = format_tree(tree)
    assert "Result: " in text
    assert parse_tree(text).tags["Result"] == parse_record(format_record(game)).tags["Result"]
