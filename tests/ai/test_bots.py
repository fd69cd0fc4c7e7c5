"""The bots: legal actions, reproducible seeds, sensible choices, clear option errors."""

from __future__ import annotations

import itertools
import threading

import pytest

from omega import Color, Game
from omega.ai import LEVELS, MAX_LEVEL, bot_for_level, level, make_bot
from omega.ai.greedy import GreedyBot
from omega.ai.mcts import MctsBot

SPECS = ["random:seed=1", "greedy:seed=1", "mcts:iterations=150,seed=1"]


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize(("players", "size", "pie"), [(2, 4, True), (2, 3, False), (3, 4, False), (4, 5, False)])
def test_bots_play_whole_games_legally(spec: str, players: int, size: int, pie: bool) -> None:
    game = Game(players=players, size=size, pie_rule=pie)
    bots = [make_bot(spec) for _ in range(players)]
    while not game.is_over:
        before = game.copy()
        action = bots[game.current_player].choose(game)  # type: ignore[index]
        assert game == before, "choose() must not change the game"
        game.apply(action)  # IllegalMove would fail the test
    assert game.winner is not None


@pytest.mark.parametrize("spec", ["greedy:seed=5", "mcts:iterations=300,seed=5"])
def test_same_seed_same_moves(spec: str) -> None:
    def moves() -> list[object]:
        game = Game(players=3, size=4)
        bot = make_bot(spec)
        out = []
        for _ in range(4):
            action = bot.choose(game)
            out.append(action)
            game.apply(action)
        return out

    assert moves() == moves()


def test_mcts_finds_the_only_winning_turns() -> None:
    # Side 3, White to move with two turns left (7 empty cells).  Brute force over every
    # White turn and every Black reply shows White wins for sure only by putting Black on
    # c4 and White on a3 or b4.
    game = Game(players=2, size=3)
    for turn in (("c2", "c5"), ("e5", "a1"), ("e3", "c3"), ("e4", "b2"), ("d5", "a2"), ("b3", "b1")):
        game.play(turn)
    winning = set()
    for w, b in itertools.permutations(game.empty_cells(), 2):
        after = game.copy()
        after.play([w, b])
        if all(_white_wins(after, reply) for reply in itertools.permutations(after.empty_cells(), 2)):
            winning.add((w, b))
    assert winning == {("a3", "c4"), ("b4", "c4")}
    # 2 of the 42 turns: a search that did not see the difference would find one 1 time in
    # 21. A seed now and then misses Black's one refutation of a near-winning turn (18 of
    # 20 found it when measured), so ten seeds must find it eight times.
    found = 0
    for seed in range(10):
        bot = MctsBot(iterations=20_000, seed=seed)
        found += tuple(bot.choose(game)) in winning
        assert bot.last is not None and bot.last.value > 0.9
    assert found >= 8


def _white_wins(game: Game, reply: tuple[str, str]) -> bool:
    end = game.copy()
    end.play(list(reply))
    return end.winner == Color.WHITE


def test_mcts_maximises_the_score_on_the_last_turn() -> None:
    # Black's last turn on side 3: 14 of the 20 turns win, with score ratios from 1 to
    # 1.6; the margin breaks the tie between wins, so Black must take the one turn with
    # the ratio 1.6.
    game = Game(players=2, size=3)
    for turn in (("d2", "d3"), ("a1", "e3"), ("b3", "d4"), ("e5", "b2"), ("d5", "a3"), ("c3", "a2"), ("b1", "e4")):
        game.play(turn)
    assert game.to_move == Color.BLACK and game.empty_count == 5
    outcomes = {turn: _outcome(game, turn) for turn in itertools.permutations(game.empty_cells(), 2)}
    best = max(outcomes.values())
    assert best == (True, 1.6) and list(outcomes.values()).count(best) == 1
    assert sum(won for won, _ in outcomes.values()) == 14
    bot = MctsBot(iterations=4_000, seed=1)
    assert outcomes[bot.choose(game)] == best  # type: ignore[index]


def _outcome(game: Game, turn: tuple[str, ...]) -> tuple[bool, float]:
    end = game.copy()
    end.play(list(turn))
    scores = end.scores()
    return end.winner == Color.BLACK, scores[Color.BLACK] / scores[Color.WHITE]


def test_swap_decision_is_deterministic_and_follows_the_search_value() -> None:
    # On side 2 the game ends after Black's first turn, and Black always wins it (it can
    # join its two stones, and ties go to Black): swapping to White would lose.
    game = Game(players=2, size=2, pie_rule=True)
    game.play(["b2", "a1"])
    for seed in range(3):
        bot = MctsBot(iterations=500, seed=seed)
        assert bot.choose(game) != "swap"
        assert bot.last is not None and bot.last.value > 0.9
    # On side 5 the decision is the search's own: swap exactly when Black's value < 1/2,
    # and the same seed gives the same decision.
    game = Game(players=2, size=5, pie_rule=True)
    game.play(["e5", "a1"])
    decisions = []
    for _ in range(2):
        bot = MctsBot(iterations=3_000, seed=11)
        action = bot.choose(game)
        assert bot.last is not None
        assert (action == "swap") == (bot.last.value < 0.5)
        decisions.append((action, bot.last.value))
    assert decisions[0] == decisions[1]


def test_pie_opening_is_balanced() -> None:
    # With the pie rule White's player offers a turn the opponent cannot profit from by
    # choosing sides: its searched value is nearer 1/2 than the best turn's.
    plain = MctsBot(iterations=3_000, seed=2)
    plain.choose(Game(players=2, size=4))
    pie = MctsBot(iterations=3_000, seed=2)
    pie.choose(Game(players=2, size=4, pie_rule=True))
    assert plain.last is not None and pie.last is not None
    assert plain.last.turn_value is not None and pie.last.turn_value is not None
    assert abs(pie.last.turn_value - 0.5) < abs(plain.last.turn_value - 0.5)
    assert abs(pie.last.turn_value - 0.5) < 0.1


def test_greedy_swaps_only_when_white_evaluates_higher() -> None:
    game = Game(players=2, size=5, pie_rule=True)
    game.play(["e5", "a1"])  # two growable singletons: equal, so Black keeps its colour
    assert GreedyBot(seed=1).choose(game) != "swap"
    boxed = Game(players=2, size=2, pie_rule=True)
    boxed.play(["a1", "b2"])
    assert GreedyBot(seed=1).choose(boxed) != "swap"


def test_levels_and_names() -> None:
    assert [lv.number for lv in LEVELS] == list(range(1, MAX_LEVEL + 1))
    bot = bot_for_level(2, seed=4)
    assert isinstance(bot, MctsBot)
    assert bot.name == "mcts:level=2,seed=4"
    assert bot.iterations == level(2).iterations and bot.time == level(2).seconds
    with pytest.raises(ValueError, match=f"level must be from 1 to {MAX_LEVEL}"):
        bot_for_level(MAX_LEVEL + 1)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("mcts:level=0", "level must be from 1 to 16"),
        ("mcts:iterations=lots", "iterations='lots' must be a whole number"),
        ("mcts:time=-1", "time must be from"),
        ("mcts:depth=3", "has no option depth"),
        ("mcts:policy=guided", "has no option policy"),
        ("greedy:time=1", "has no option time"),
        ("greedy:seed=x", "must be a whole number"),
        ("minimax", "unknown bot 'minimax'"),
    ],
)
def test_bad_options_say_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_bot(spec)


def test_cancel_stops_a_long_search() -> None:
    bot = MctsBot(time=600.0, seed=1)
    game = Game(players=2, size=5)
    result: list[object] = []
    worker = threading.Thread(target=lambda: result.append(bot.choose(game)))
    worker.start()
    bot.cancel()  # before or during the search: either way it stops after one chunk
    worker.join(timeout=60)
    assert not worker.is_alive()
    game.apply(result[0])  # type: ignore[arg-type]
    assert game.turns_played == 1
