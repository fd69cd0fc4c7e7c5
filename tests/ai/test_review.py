"""The review of a game (``omega.ai.review``) on positions whose answers are known by brute
force, and the root values it reads from the search."""

from __future__ import annotations

import itertools

import pytest

from omega import Color, Game
from omega.ai.mcts import MctsBot
from omega.ai.review import BLUNDER, MISTAKE, REVIEW_FORMAT, mark_for, position_seed, review, search_position
from omega.costs import account
from omega.kernel import KernelState


def _won_position() -> Game:
    # Side 3, White to move with two turns left: White wins for sure only with Black on c4
    # and White on a3 or b4 (tests/ai/test_bots.py checks that by brute force).
    game = Game(players=2, size=3)
    for turn in (("c2", "c5"), ("e5", "a1"), ("e3", "c3"), ("e4", "b2"), ("d5", "a2"), ("b3", "b1")):
        game.play(turn)
    return game


def _refutations(game: Game) -> int:
    """Black's replies that win."""
    wins = 0
    for reply in itertools.permutations(game.empty_cells(), 2):
        end = game.copy()
        end.play(list(reply))
        wins += end.winner == Color.BLACK
    return wins


@pytest.mark.parametrize("players", [2, 3, 4])
def test_search_values_are_each_colours_mean_reward(players: int) -> None:
    bot = MctsBot(iterations=3_000, seed=5)
    game = Game(players=players, size=4)
    result = bot.search(KernelState.from_game(game))
    assert len(result.values) == players
    # The mover's entry is the root value; a simulation has one winner, and the margin's
    # share adds at most 0.05 per colour.
    assert result.values[0] == pytest.approx(result.value, abs=1e-3)
    assert 1.0 - 1e-9 <= sum(result.values) <= 1.0 + 0.05 * players
    assert all(0.0 <= v <= 1.0 for v in result.values)


def test_a_turn_that_throws_away_a_won_game_is_a_blunder() -> None:
    game = _won_position()
    # The White turn that leaves Black the most winning replies (19 of 20).
    worst = max(itertools.permutations(game.empty_cells(), 2),
                key=lambda t: _refutations(_after(game, t)))
    assert _refutations(_after(game, worst)) == 19
    game.play(list(worst))
    last = review(game, iterations=20_000).turns[-1]
    assert last.color == Color.WHITE and last.player == 0 and last.played == worst
    assert last.best in {("a3", "c4"), ("b4", "c4")}
    assert last.before[Color.WHITE] > 0.9 and last.after[Color.WHITE] < 0.1
    assert last.loss == pytest.approx(last.mover_before - last.mover_after)
    assert last.loss > BLUNDER and last.mark == "blunder"


def test_the_best_turn_loses_nothing() -> None:
    game = _won_position()
    # Searched with the seed review() gives this position, so the review finds the same turn.
    best = search_position(game, iterations=20_000, seed=position_seed(0, 6)).best
    assert best in {("a3", "c4"), ("b4", "c4")}
    assert best is not None and best != "swap"
    game.play(list(best))
    last = review(game, iterations=20_000).turns[-1]
    assert last.played == last.best and last.loss == 0.0 and last.mark is None


def _after(game: Game, turn: tuple[str, ...]) -> Game:
    after = game.copy()
    after.play(list(turn))
    return after


def test_a_swap_is_an_entry_and_can_be_a_blunder() -> None:
    # On side 2 the game ends after Black's first turn and Black always wins it: taking
    # White by the pie rule throws the game away.
    game = Game(players=2, size=2, pie_rule=True)
    game.play(["b2", "a1"])
    game.swap()
    game.play(["a2", "b1"])
    assert game.is_over
    r = review(game, iterations=2_000)
    assert [t.played for t in r.turns] == [("b2", "a1"), "swap", ("a2", "b1")]
    swap = r.turns[1]
    assert swap.player == 1 and swap.color == Color.BLACK
    assert swap.best != "swap" and swap.mover_before > 0.9   # the player could keep Black, a sure win
    assert swap.mover_after == swap.after[Color.WHITE] < 0.1  # now holding White: lost
    assert swap.mark == "blunder"
    # After the swap Black is player 0's, and the last turn's values are the result.
    assert r.turns[2].player == 0 and r.turns[2].after == (0.0, 1.0)


def test_swap_is_the_best_action_when_white_is_ahead() -> None:
    # Two openings that mirror each other's colours: whichever colour the search prefers
    # in one, it prefers the other colour in the other; swapping is best where White is.
    choices = []
    for opening in (["e5", "a1"], ["a1", "e5"]):
        game = Game(players=2, size=5, pie_rule=True)
        game.play(opening)
        found = search_position(game, iterations=5_000, seed=1)
        white_ahead = found.values[Color.WHITE] > found.values[Color.BLACK]
        assert (found.best == "swap") == white_ahead
        choices.append(white_ahead)
    assert sorted(choices) == [False, True]


def test_the_pie_opening_is_judged_by_what_the_opponent_leaves() -> None:
    game = Game(players=2, size=5, pie_rule=True)
    game.play(["e5", "a1"])
    first = review(game, iterations=5_000).turns[0]
    assert first.mover_before == 0.5
    assert first.mover_after == min(first.after)
    assert first.loss == pytest.approx(0.5 - min(first.after))


def test_equal_seeds_give_equal_reviews_whatever_the_threads() -> None:
    game = Game(players=3, size=4)
    for turn in (("d4", "a1", "g7"), ("c3", "a4", "g4"), ("e5", "d1", "b2")):
        game.play(turn)
    one = review(game, iterations=1_000, seconds=None, seed=3, jobs=1)
    two = review(game, iterations=1_000, seconds=None, seed=3, jobs=2)
    assert one.turns == two.turns
    assert review(game, iterations=1_000, seconds=None, seed=4).turns != one.turns


def test_progress_and_an_unfinished_game() -> None:
    game = Game(players=2, size=4)
    game.play(["a1", "g7"])
    game.play(["d4", "c3"])
    seen: list[tuple[int, int]] = []
    r = review(game, iterations=300, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 3), (2, 3), (3, 3)]  # the empty board, after turn 1, after turn 2
    assert not r.over and len(r.turns) == 2
    assert r.turns[1].before == r.turns[0].after  # one search per position, shared
    with pytest.raises(ValueError, match="nothing to review"):
        review(Game())


def test_marks_and_json() -> None:
    assert mark_for(BLUNDER) == "blunder" and mark_for(MISTAKE) == "mistake"
    assert mark_for(MISTAKE - 0.001) is None and mark_for(0.0) is None
    game = _won_position()
    game.play(["d2", "b4"])
    data = review(game, iterations=5_000).to_json()
    assert data["format"] == REVIEW_FORMAT and data["version"] == 2
    # Version 2: the rules' account and score scale of the game reviewed (omega.costs).
    assert data["account"] == account(game).to_json()
    assert len(data["scores"]["log"]) == len(data["turns"]) + 1 == len(data["scores"]["margin"])
    assert (data["players"], data["size"], data["pie_rule"], data["over"]) == (2, 3, False, False)
    assert data["thresholds"] == {"mistake": MISTAKE, "blunder": BLUNDER}
    last = data["turns"][-1]
    assert last["number"] == 7 and last["played"] == ["d2", "b4"] and last["color"] == "White"
    assert set(last["before"]) == {"White", "Black"} and last["mark"] == "blunder"
    assert data["summary"][0]["blunders"] >= 1 and 6 in data["summary"][0]["biggest"]
