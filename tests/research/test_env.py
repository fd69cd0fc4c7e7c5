"""The PettingZoo environment: PettingZoo's own API and seed checks, then the game it plays
checked against ``Game`` replaying the same actions, its observations and its masks."""

from __future__ import annotations

import random
import subprocess
import sys
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from omega import Color, Game, IllegalMove
from omega.board import MAX_SIZE, MIN_SIZE
from omega.env import OmegaEnv, env
from omega.game import MAX_PLAYERS, MIN_PLAYERS

from .replay import expected_returns, replay

SETTINGS = [
    (2, MIN_SIZE, False), (2, MIN_SIZE, True), (2, 5, False), (2, 4, True),
    (3, 3, False), (3, 5, False), (4, 3, False), (4, 4, False), (MAX_PLAYERS, MAX_SIZE, False),
]

# PettingZoo's checks say this of every observation that is a dict, except for the names of
# its own board games, which keep the action mask in the observation as this one does.
DICT_OBSERVATION_WARNINGS = {
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
}


@pytest.mark.parametrize(("players", "size", "pie"), SETTINGS)
def test_pettingzoo_api_test(players: int, size: int, pie: bool) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # What the collector finds of other tests (an unclosed pipe, say) is not the env's.
        warnings.simplefilter("ignore", ResourceWarning)
        api_test(env(players=players, size=size, pie_rule=pie), num_cycles=1000)
        api_test(OmegaEnv(players=players, size=size, pie_rule=pie, render_mode="ansi"), num_cycles=1000)
    assert {str(w.message) for w in caught} <= DICT_OBSERVATION_WARNINGS


@pytest.mark.parametrize(("players", "size", "pie"), [(2, 5, True), (3, 4, False), (4, 3, False)])
def test_pettingzoo_seed_test(players: int, size: int, pie: bool) -> None:
    seed_test(lambda: env(players=players, size=size, pie_rule=pie), num_cycles=200)


def play_randomly(e: OmegaEnv, rng: random.Random) -> tuple[list[int], dict[str, float]]:
    """A whole game of random legal actions; the actions, and each agent's reward at the end."""
    actions: list[int] = []
    final: dict[str, float] = {}
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        assert not truncated
        if terminated:
            final[agent] = reward
            e.step(None)
            continue
        assert reward == 0  # rewards come only at the end
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        assert legal == e.stepwise.legal_actions()
        for other in e.agents:
            if other != agent:
                assert not e.observe(other)["action_mask"].any()
        action = rng.choice(legal)
        actions.append(action)
        e.step(action)
    return actions, final


@pytest.mark.parametrize(("players", "size", "pie"), SETTINGS)
def test_random_games_end_as_game_says(players: int, size: int, pie: bool) -> None:
    rng = random.Random(players * 100 + size)
    e = OmegaEnv(players=players, size=size, pie_rule=pie)
    for _ in range(3):
        e.reset()
        actions, final = play_randomly(e, rng)
        game = replay(actions, players, size, pie)
        assert game == e.game and game.is_over
        assert e.game.scores() == game.scores()
        assert final == pytest.approx({f"player_{p}": r for p, r in enumerate(expected_returns(game))})
        assert sum(final.values()) == pytest.approx(0, abs=1e-12)
        assert e.agents == []


def test_a_turn_is_own_colour_first_then_turn_order() -> None:
    e = OmegaEnv(players=3, size=4)
    e.reset()
    board = e.game.board
    for cell in ("d4", "a1", "g7"):  # White's turn: White, Black, Red
        assert e.agent_selection == "player_0"
        e.step(board.index(cell))
    assert e.game.history == (("d4", "a1", "g7"),)
    placed = []
    for cell in ("d5", "b2", "d3"):  # Black's turn: Black, Red, then White
        assert e.agent_selection == "player_1"
        placed.append(e.placing)
        e.step(board.index(cell))
    assert placed == [Color.BLACK, Color.RED, Color.WHITE]
    assert e.game.history[-1] == ("d3", "d5", "b2")
    assert e.agent_selection == "player_2"


def test_observation_planes() -> None:
    e = OmegaEnv(players=3, size=4)
    e.reset()
    board = e.game.board
    e.step(board.index("d4"))  # White's stone, not yet a whole turn
    e.step(board.index("a1"))  # Black's
    planes = e.observe("player_2")["observation"]
    span = 2 * 4 - 1
    assert planes.shape == (span, span, 3 * 3 + 1) and planes.dtype == np.int8
    on_board = np.zeros((span, span), dtype=bool)
    for r, c in board.coords:
        on_board[r - 1, c - 1] = True
    assert planes[3, 3, 0] == 1 and planes[0, 0, 1] == 1  # d4 is row 4, column 4; a1 is [0, 0]
    assert planes[..., 0].sum() == 1 and planes[..., 1].sum() == 1 and planes[..., 2].sum() == 0
    assert planes[..., 3].sum() == len(board) - 2
    assert (planes[~on_board] == 0).all()  # the corners off the hexagon
    assert (planes[..., 4 + Color.RED] == on_board).all()  # the next stone is Red
    assert planes[..., 4:7].sum() == len(board)
    assert (planes[..., 7 + Color.RED] == on_board).all()  # player 2 holds Red
    assert planes[..., 7:10].sum() == len(board)
    assert (e.observe("player_0")["observation"][..., 7 + Color.WHITE] == on_board).all()


def test_planes_follow_the_game_at_every_turn() -> None:
    rng = random.Random(5)
    e = OmegaEnv(players=4, size=5)
    e.reset()
    while not e.game.is_over:
        if not e.stepwise.staged:
            planes = e.observe(e.agent_selection)["observation"]
            stones = e.game.stones()
            for i, (r, c) in enumerate(e.game.board.coords):
                color = stones.get(e.game.cells[i])
                expected = [int(color == k) for k in range(4)] + [int(color is None)]
                assert planes[r - 1, c - 1, :5].tolist() == expected
        e.step(rng.choice(e.stepwise.legal_actions()))


def test_pie_swap_is_one_more_action() -> None:
    e = OmegaEnv(players=2, size=3, pie_rule=True)
    e.reset()
    swap = len(e.game.cells)
    e.step(0)
    assert e.observe("player_0")["action_mask"][swap] == 0
    e.step(1)
    mask = e.observe("player_1")["action_mask"]
    assert mask[swap] == 1 and mask[:2].tolist() == [0, 0]
    e.step(2)  # player 1 places a stone: no swap in the middle of a turn
    assert e.observe("player_1")["action_mask"][swap] == 0
    e.reset()
    e.step(0)
    e.step(1)
    e.step(swap)
    assert e.game.swapped and e.agent_selection == "player_0"  # now Black, to move again
    planes = e.observe("player_0")["observation"]
    assert planes[..., 2 * 2 + 1 + Color.BLACK].any() and not planes[..., 2 * 2 + 1 + Color.WHITE].any()
    assert e.placing is Color.BLACK


def test_illegal_actions_change_nothing() -> None:
    e = OmegaEnv(players=2, size=3)
    e.reset()
    e.step(4)
    before = e.observe("player_0")
    for action in (4, -1, 20, 19, 2.5):
        with pytest.raises(IllegalMove):
            e.step(action)  # type: ignore[arg-type]
        after = e.observe("player_0")
        assert (after["observation"] == before["observation"]).all()
        assert (after["action_mask"] == before["action_mask"]).all()
    with pytest.raises(ValueError, match="None is not an action"):
        e.step(None)


def test_render() -> None:
    e = OmegaEnv(players=2, size=3, render_mode="ansi")
    e.reset()
    e.step(e.game.board.index("c3"))
    text = e.render()
    assert text is not None and text.endswith("White's turn; chosen so far: White c3")
    with pytest.raises(ValueError, match="render_mode"):
        OmegaEnv(render_mode="rgb_array")


@pytest.mark.parametrize(("players", "size"), [(MIN_PLAYERS, 1), (1, 5), (5, 5), (3, MIN_SIZE), (4, MIN_SIZE)])
def test_settings_without_a_game_are_refused(players: int, size: int) -> None:
    with pytest.raises(ValueError):
        OmegaEnv(players=players, size=size)
    if size >= MIN_SIZE and MIN_PLAYERS <= players <= MAX_PLAYERS:
        assert Game(players=players, size=size).is_over  # the rules allow it, but it has no move


def test_import_omega_needs_no_research_packages() -> None:
    code = (
        "import sys, omega, omega.game, omega.record\n"
        "bad = {'pettingzoo', 'gymnasium', 'pyspiel', 'open_spiel'} & set(sys.modules)\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
