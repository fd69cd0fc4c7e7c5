"""Who cost whom what (omega.costs): hand-checked examples, then properties over random games
against the flood fill of tests/test_properties.py (written from the rules page alone)."""

from __future__ import annotations

import random
from math import log

from hypothesis import given
from hypothesis import strategies as st

from omega import Color, Game
from omega.costs import DIGITS, account, margins, score_curve
from omega.game import SWAP
from test_properties import SETTINGS, flood_fill_score, games

#: docs/ai.md's worked example: side 3, White's seat's last Black stone (b2) joins
#: Black's groups a1-a2-a3 and c2-c3-c4 (3 and 3) into one of 7.
WORKED = [("e3", "a1"), ("e4", "a2"), ("e5", "a3"), ("d2", "c2"), ("b4", "c3"), ("b1", "c4"), ("c5", "b2")]


def close(a: float, b: float) -> bool:
    return abs(a - b) <= 2 * 10 ** -DIGITS


def test_the_worked_example_by_hand() -> None:
    a = account(Game.from_history(WORKED, size=3))
    # White's seat (turns 1, 3, 5, 7) on White: 1, then 3/2 (e5 joins e3-e4's 2), b4 alone,
    # c5 joins b4 (2): log 1.5 + log 2.  On Black: 1, 3/2, c3 joins c2 (2), b2: 7/9.
    assert close(a.net[0][Color.WHITE], log(1.5) + log(2))
    assert close(a.net[0][Color.BLACK], log(1.5) + log(2) + log(7 / 9))
    assert close(a.gain[0][Color.BLACK], log(3)) and close(a.cost[0][Color.BLACK], log(9 / 7))
    # Black's seat (turns 2, 4, 6): e4 and a2 make pairs (log 2 each); d2 joins White's 3
    # (4/3), c2 starts a group (1); b1 alone (1), c4 joins c2-c3 (3/2).
    assert close(a.net[1][Color.WHITE], log(2) + log(4 / 3))
    assert close(a.net[1][Color.BLACK], log(2) + log(1.5))
    assert a.cost[1] == (0.0, 0.0)
    # In all: White's groups 4, 2 and 1 (8), Black's one group of 7.
    assert close(a.final[Color.WHITE], log(8)) and close(a.final[Color.BLACK], log(7))
    assert a.to_json()["players"][0]["cost"] == {"White": 0.0, "Black": 0.2513}


def test_three_players_each_place_every_colour() -> None:
    # Side 3, three turns: each seat places one White, one Black and one Red stone.
    g = Game.from_history([("a1", "e5", "c1"), ("a2", "e4", "c5"), ("b2", "d5", "d2")], players=3, size=3)
    a = account(g)
    # Turn 2 (seat 1) pairs White a1-a2 and Black e5-e4; Red c5 lies alone.
    assert a.net[1] == (round(log(2), 4), round(log(2), 4), 0.0)
    # Turn 3 (seat 2): b2 makes White 3 (3/2), d5 touches e4 and e5 (3/2), d2 touches c1 (2).
    assert a.net[2] == (round(log(1.5), 4), round(log(1.5), 4), round(log(2), 4))
    assert a.net[0] == (0.0, 0.0, 0.0)  # the first stones of each colour: products of 1
    assert [c.label for c in a.holds] == ["White", "Black", "Red"]


def test_a_swap_places_nothing_and_accounts_stay_with_the_seat() -> None:
    g = Game.from_history([("a1", "a2"), SWAP, ("b2", "e5"), ("e4", "b3")], size=3, pie_rule=True)
    a = account(g)
    # Seat 0 plays turn 1 as White; seat 1 swaps (taking White); seat 0, now Black, plays
    # turn 3 and seat 1 turn 4.
    assert [c.label for c in a.holds] == ["Black", "White"]
    # Turn 3 (seat 0): White b2 joins a1 (2), Black e5 lies alone; turn 4 (seat 1): White e4
    # lies alone, Black b3 joins a2 (2).  Each seat is charged for the stones it placed.
    assert a.net[0] == (round(log(2), 4), 0.0)
    assert a.net[1] == (0.0, round(log(2), 4))


def test_the_score_scale() -> None:
    curve = score_curve(Game.from_history(WORKED, size=3))
    assert len(curve) == len(WORKED) + 1 and curve[0] == (0.0, 0.0)
    assert curve[-1] == (round(log(8), 4), round(log(7), 4))
    assert margins(curve[-1]) == (round(log(8), 4) - round(log(7), 4), round(log(7), 4) - round(log(8), 4))
    assert margins((1.0, 3.0, 2.0, 0.0)) == (-2.0, 1.0, -1.0, -3.0)


# -- properties ------------------------------------------------------------------------------


def log_of(stones: dict[str, Color], color: Color) -> float:
    _, sizes = flood_fill_score(stones, color)
    return sum(log(s) for s in sizes)


@SETTINGS
@given(games())
def test_a_colours_accounts_sum_to_its_final_log_score(game: Game) -> None:
    a = account(game)
    for c in game.colors:
        column = sum(a.net[p][c] for p in range(game.players))
        assert abs(column - log_of(game.stones(), c)) <= game.players * 10 ** -DIGITS
        assert close(a.final[c], log_of(game.stones(), c))
    for p in range(game.players):
        for c in game.colors:
            assert a.gain[p][c] >= 0 and a.cost[p][c] >= 0
            assert close(a.net[p][c], a.gain[p][c] - a.cost[p][c])
    assert a.holds == tuple(game.color_of(p) for p in range(game.players))


@SETTINGS
@given(games())
def test_each_turn_is_charged_to_the_seat_that_made_it(game: Game) -> None:
    # The account rebuilt turn by turn with the independent flood fill.
    expected = [[0.0] * game.players for _ in range(game.players)]
    replay = Game(players=game.players, size=game.size, pie_rule=game.pie_rule)
    for action in game.history:
        seat = replay.current_player
        assert seat is not None
        before = {c: log_of(replay.stones(), c) for c in game.colors}
        replay.apply(action)
        for c in game.colors:
            expected[seat][c] += log_of(replay.stones(), c) - before[c]
    a = account(game)
    for p in range(game.players):
        for c in game.colors:
            assert close(a.net[p][c], expected[p][c])


@SETTINGS
@given(st.integers(2, 4), st.integers(3, 6), st.integers(0, 2**32 - 1))
def test_the_columns_do_not_depend_on_the_order_of_the_turns(players: int, size: int, seed: int) -> None:
    # The same turns played in another order end in the same board: each colour's column
    # sums to the same log-score, though the seats' shares may differ.
    rng = random.Random(seed)
    game = Game(players=players, size=size)
    while not game.is_over and rng.random() < 0.97:
        cells = rng.sample(game.empty_cells(), players)
        game.play(cells)
    turns = list(game.history)
    rng.shuffle(turns)
    other = Game.from_history(turns, players=players, size=size)
    mine, theirs = account(game), account(other)
    assert mine.final == theirs.final
    for c in game.colors:
        assert abs(sum(r[c] for r in mine.net) - sum(r[c] for r in theirs.net)) <= players * 10 ** -DIGITS


@SETTINGS
@given(games())
def test_the_score_scale_ends_at_the_final_scores(game: Game) -> None:
    curve = score_curve(game)
    assert len(curve) == len(game.history) + 1
    assert all(close(v, log_of(game.stones(), c)) for c, v in zip(game.colors, curve[-1], strict=True))
    top = margins(curve[-1])
    # The colour ahead leads the second by what the second trails it by.
    assert max(top) == -sorted(top)[-2]
