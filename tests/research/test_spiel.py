"""The OpenSpiel game: random games through ``pyspiel`` scored as ``Game`` scores the same
actions, OpenSpiel's own consistency check, and OpenSpiel's MCTS bot playing it to the end."""

from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import mcts

from omega import Color
from omega.game import MAX_PLAYERS, MIN_PLAYERS
from omega.spiel import OmegaState, load

from .replay import expected_returns, replay

SETTINGS = [(2, 2, False), (2, 3, True), (2, 5, True), (2, 6, False), (3, 3, False), (3, 5, False),
            (4, 3, False), (4, 6, False)]


def play_randomly(state: OmegaState, rng: random.Random) -> list[int]:
    actions = []
    while not state.is_terminal():
        assert state.returns() == [0.0] * state.num_players()
        player = state.current_player()
        assert player == state.game.current_player
        assert state.legal_actions() == sorted(state.legal_actions())
        action = rng.choice(state.legal_actions())
        actions.append(action)
        state.apply_action(action)
    return actions


@pytest.mark.parametrize(("players", "size", "pie"), SETTINGS)
def test_random_games_score_as_game_does(players: int, size: int, pie: bool) -> None:
    game = pyspiel.load_game("omega", {"players": players, "size": size, "pie_rule": pie})
    assert game.num_players() == players
    rng = random.Random(players * 100 + size)
    for _ in range(4):
        state = game.new_initial_state()
        actions = play_randomly(state, rng)
        assert actions == state.history()
        assert len(actions) <= game.max_game_length()
        assert state.current_player() == pyspiel.PlayerId.TERMINAL
        replayed = replay(actions, players, size, pie)
        assert replayed.is_over and replayed == state.game
        assert state.game.scores() == replayed.scores()  # every colour's final score
        assert state.returns() == pytest.approx(expected_returns(replayed))
        assert sum(state.returns()) == pytest.approx(0, abs=1e-12)


@pytest.mark.parametrize(("players", "size", "pie"), [(2, 3, True), (3, 4, False), (4, 3, False)])
def test_openspiel_consistency_check(players: int, size: int, pie: bool) -> None:
    # OpenSpiel's own random simulation test: clones, histories, serialisation, returns.
    pyspiel.random_sim_test(load(players, size, pie), num_sims=5, serialize=True, verbose=False)


def test_game_information() -> None:
    game = load(players=3, size=5)
    assert str(game) == "omega(pie_rule=False,players=3,size=5)"
    assert game.num_distinct_actions() == 61 + 1
    assert game.max_game_length() == 6 * 9  # 6 rounds of 9 stones
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-1.0, 1.0, 0.0)
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert load(players=2, size=5, pie_rule=True).max_game_length() == 15 * 4 + 1
    assert pyspiel.load_game("omega").get_parameters() == {"players": 2, "size": 5, "pie_rule": False}


@pytest.mark.parametrize("params", [{"players": MAX_PLAYERS + 1}, {"players": MIN_PLAYERS - 1}, {"size": 14},
                                    {"players": 3, "pie_rule": True}, {"players": 4, "size": 2}])
def test_bad_parameters_are_refused(params: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        pyspiel.load_game("omega", params)


def test_clones_are_independent() -> None:
    state = load(size=3).new_initial_state()
    state.apply_action(9)
    copy = state.clone()
    copy.apply_action(0)
    assert state.stepwise.staged == ("c3",) and copy.game.history == (("c3", "a1"),)
    assert state.history() == [9] and copy.history() == [9, 0]


def test_observation_tensor_holds_the_planes() -> None:
    game = load(players=2, size=3, pie_rule=True)
    state = game.new_initial_state()
    for action in (9, 0, game.num_distinct_actions() - 1):  # White c3, Black a1, swap
        state.apply_action(action)
    assert state.action_to_string(0, 19) == "swap" and state.action_to_string(1, 9) == "c3"
    tensor = np.array(state.observation_tensor(0)).reshape(game.observation_tensor_shape())
    assert (tensor == state.stepwise.planes(0)).all()
    assert tensor[0, 2, 2] == 1 and tensor[1, 0, 0] == 1  # c3 White, a1 Black
    assert tensor[2 * 2 + 1 + Color.BLACK].sum() == 19  # player 0 holds Black after the swap
    assert "Black's turn" in state.observation_string(0)
    assert state.information_state_string(0) == "9, 0, 19"


@pytest.mark.parametrize("players", [2, 3])
def test_openspiel_mcts_bot_plays_a_whole_game(players: int) -> None:
    game = load(players=players, size=3, pie_rule=players == 2)
    rng = np.random.RandomState(7)
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=40,
                       evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng), random_state=rng)
    state = game.new_initial_state()
    while not state.is_terminal():
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
    replayed = replay(state.history(), players, 3, players == 2)
    assert replayed == state.game and replayed.is_over
    assert state.returns() == pytest.approx(expected_returns(replayed))
