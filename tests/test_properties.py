"""Properties of random legal games (with pie swaps and undos), checked with Hypothesis.

Scores are compared with a flood fill written here from the rules page alone (cell names
parsed by hand, neighbours from the six offsets), not with anything inside ``omega``.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from observe import observable_state
from omega import Color, Game, IllegalMove
from omega.record import format_record, from_json, parse_record, to_json

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- an independent model of the score -----------------------------------------------------


def rc(name: str) -> tuple[int, int]:
    return ord(name[0]) - ord("a") + 1, int(name[1:])


def flood_fill_score(stones: dict[str, Color], color: Color) -> tuple[int, list[int]]:
    """Product of group sizes of ``color`` (0 without stones), and the sizes, largest first."""
    mine = {rc(name) for name, c in stones.items() if c == color}
    sizes = []
    while mine:
        stack = [mine.pop()]
        size = 0
        while stack:
            r, c = stack.pop()
            size += 1
            for dr, dc in ((0, -1), (0, 1), (-1, -1), (-1, 0), (1, 0), (1, 1)):
                if (r + dr, c + dc) in mine:
                    mine.remove((r + dr, c + dc))
                    stack.append((r + dr, c + dc))
        sizes.append(size)
    product = 1
    for size in sizes:
        product *= size
    return (product if sizes else 0), sorted(sizes, reverse=True)


# -- random legal games ---------------------------------------------------------------------


@st.composite
def games(draw: st.DrawFn, max_size: int = 6) -> Game:
    """A game part-way or all the way through: random legal turns, maybe a swap, some undos."""
    players = draw(st.integers(2, 4))
    size = draw(st.integers(2 if players == 2 else 3, max_size))
    pie = players == 2 and draw(st.booleans())
    game = Game(players=players, size=size, pie_rule=pie)
    steps = draw(st.integers(0, 80))
    for _ in range(steps):
        if game.is_over:
            break
        if game.can_swap and draw(st.booleans()):
            game.swap()
            continue
        if game.history and draw(st.integers(0, 9)) == 0:
            game.undo()
            continue
        empty = game.empty_cells()
        cells = draw(st.lists(st.sampled_from(empty), min_size=players, max_size=players, unique=True))
        game.play(cells)
    return game


@SETTINGS
@given(games())
def test_scores_match_an_independent_flood_fill(game: Game) -> None:
    stones = game.stones()
    assert len(stones) + game.empty_count == len(game.cells)
    for color in game.colors:
        expected, sizes = flood_fill_score(stones, color)
        assert game.score(color) == expected
        assert game.group_sizes(color) == sizes
        assert sorted(len(g) for g in game.groups(color)) == sorted(sizes)
        assert set().union(*game.groups(color)) == {n for n, c in stones.items() if c == color}
    scores = game.scores()
    assert game.ranking() == sorted(game.colors, key=lambda c: (scores[c], c), reverse=True)
    assert (game.winner == game.ranking()[0]) if game.is_over else game.winner is None


@SETTINGS
@given(games(), st.data())
def test_undo_restores_the_exact_state(game: Game, data: st.DataObject) -> None:
    before = observable_state(game)
    text = game.record()
    if game.is_over:
        return
    if game.can_swap and data.draw(st.booleans()):
        game.swap()
    else:
        game.play(data.draw(st.lists(st.sampled_from(game.empty_cells()), min_size=game.players,
                                     max_size=game.players, unique=True)))
    game.undo()
    assert observable_state(game) == before
    assert game.record() == text


@SETTINGS
@given(games(), st.dictionaries(
    st.from_regex(r"[A-Za-z][A-Za-z0-9_-]{0,10}", fullmatch=True),
    st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), max_size=20),
    max_size=3,
))
def test_text_and_json_records_round_trip(game: Game, tags: dict[str, str]) -> None:
    # Structural tags (Players, Size, Pie, Result) come from the game itself.
    tags = {k: v for k, v in tags.items() if k.lower() not in ("players", "size", "pie", "result")}
    text = format_record(game, tags)
    record = parse_record(text)
    assert record.game == game
    assert observable_state(record.game) == observable_state(game)
    expected_tags = {k: v.strip() for k, v in tags.items()}
    if game.is_over:
        assert record.tags.pop("Result").endswith(f"{game.winner.label} wins")  # type: ignore[union-attr]
    assert record.tags == expected_tags
    assert Game.from_record(text) == game

    data = json.loads(json.dumps(to_json(game, tags)))
    again = from_json(data)
    assert again.game == game and again.tags == tags
    assert observable_state(again.game) == observable_state(game)
    assert data["scores"] == {c.label: str(s) for c, s in game.scores().items()}


@SETTINGS
@given(games(), st.data())
def test_rejected_actions_change_nothing(game: Game, data: st.DataObject) -> None:
    before = observable_state(game)
    n = game.players
    occupied = sorted(game.stones())
    empty = list(game.empty_cells())
    bad: list[Any] = [
        ["zz9"] * n,
        empty[: n - 1] if len(empty) >= n - 1 else ["a1"],
        (empty + ["a1"] * n)[: n + 1],
        "e5",
    ]
    if len(empty) >= 1:
        bad.append([empty[0]] * n)  # a cell twice in one turn (n >= 2)
    if occupied and len(empty) >= n - 1:
        position = data.draw(st.integers(0, n - 1))
        cells = empty[: n - 1]
        cells.insert(position, data.draw(st.sampled_from(occupied)))
        bad.append(cells)
    for cells in bad:
        try:
            game.play(cells)
        except IllegalMove:
            pass
        else:  # pragma: no cover - every case above breaks a rule
            raise AssertionError(f"{cells!r} was accepted")
        assert observable_state(game) == before
    if not game.can_swap:
        try:
            game.swap()
        except IllegalMove:
            pass
        else:  # pragma: no cover
            raise AssertionError("swap was accepted")
        assert observable_state(game) == before


@SETTINGS
@given(games(), st.data())
def test_copy_is_independent(game: Game, data: st.DataObject) -> None:
    before = observable_state(game)
    twin = game.copy()
    assert twin == game and observable_state(twin) == before
    if not twin.is_over:
        twin.play(data.draw(st.lists(st.sampled_from(twin.empty_cells()), min_size=twin.players,
                                     max_size=twin.players, unique=True)))
    elif twin.history:
        twin.undo()
    else:
        return
    assert observable_state(game) == before
    if game.history:
        game.undo()
        assert twin.history[: len(game.history)] == game.history


@settings(max_examples=150, deadline=None)
@given(st.one_of(
    st.text(max_size=200),
    st.lists(st.sampled_from(["Players: 2", "Players: 3", "Size: 3", "Size: 5", "Pie: yes", "Result: White wins",
                              "1. e5 a1", "a1 b2", "c3,c4", "swap", "2. swap", "# note", "", "Event: x",
                              "a1 a2 a3", "b1 b2 b3 b4", "e5 e5", "x9 y9"]), max_size=12).map("\n".join),
))
def test_any_text_is_a_record_or_a_value_error(text: str) -> None:
    try:
        game = Game.from_record(text)
    except ValueError as e:
        message = str(e)
        assert message and "\n" not in message
        assert message.startswith(("line ", "record JSON")), message
    else:
        assert Game.from_record(game.record()) == game


@settings(max_examples=100, deadline=None)
@given(st.recursive(
    st.none() | st.booleans() | st.integers(-3, 20) | st.text(max_size=5) | st.sampled_from(["e5", "a1", "swap", "b2"]),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=12,
), st.integers(2, 4), st.integers(2, 6), st.booleans())
def test_any_json_is_a_record_or_a_value_error(actions: Any, players: int, size: int, pie: bool) -> None:
    data = {"format": "omega-record", "version": 1, "players": players, "size": size, "pie_rule": pie, "actions": actions}
    try:
        record = from_json(data)
    except ValueError as e:
        assert str(e).startswith("record JSON")
    else:
        assert from_json(to_json(record.game)).game == record.game


@SETTINGS
@given(games(), st.data())
def test_position_after_is_the_game_taken_back(game: Game, data: st.DataObject) -> None:
    entries = data.draw(st.integers(0, len(game.history)))
    earlier = game.position_after(entries)
    taken_back = game.copy()
    for _ in range(len(game.history) - entries):
        taken_back.undo()
    assert observable_state(earlier) == observable_state(taken_back)
    assert Game.from_history(game.history, game.players, game.size, game.pie_rule) == game
