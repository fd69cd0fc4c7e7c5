"""The learnt evaluation: the network's input (omega.ai.net.encode), its forward pass held
to JAX's outputs stored with the shipped weights, the self-play files (omega.ai.selfplay,
``omega train selfplay``) and the search that asks the network (``mcts:net=1``).  None of
these needs JAX: the fit command's own test would, and is left to its extra."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from omega.ai import make_bot
from omega.ai.net import FEATURES, WEIGHTS_FILE, evaluate, load_net, symmetries, trained_players
from omega.board import Board
from omega.cli import main
from omega.game import Game
from omega.kernel import KernelState


def test_the_input_of_a_known_position_is_in_the_movers_frame() -> None:
    # Three players on side 3: White took a1, Black c3, Red e5; Black is to move and is
    # placing a Red stone.  Black's own stone is channel 0, Red's channel 1, White's 2.
    state = KernelState(players=3, size=3)
    for cell, colour in (("a1", 0), ("c3", 1), ("e5", 2)):
        state.place(state.index(cell), colour)
    board = Board.of(3)
    x = np.empty((19, FEATURES), dtype=np.float32)
    from omega.ai.net import encode

    encode(state.board, 1, 2, 3, state.arrays.nbr, x)
    a1, c3, e5, b2 = (board.index(c) for c in ("a1", "c3", "e5", "b2"))
    assert x[c3, :5].tolist() == [1, 0, 0, 0, 0]
    assert x[e5, :5].tolist() == [0, 1, 0, 0, 0]
    assert x[a1, :5].tolist() == [0, 0, 1, 0, 0]
    assert x[b2, :5].tolist() == [0, 0, 0, 0, 1]
    # The edge: a corner has 3 neighbours, the centre 6.
    assert x[a1, 5] == pytest.approx(0.5) and x[c3, 5] == 0.0
    # The same on every cell: placing the next colour (1), three players, 16 of 19 empty.
    assert (x[:, 6:10] == [0, 1, 0, 0]).all() and (x[:, 10:13] == [0, 1, 0]).all()
    assert np.allclose(x[:, 13], 16 / 19)


def test_the_forward_pass_gives_what_jax_gave_when_the_weights_were_trained() -> None:
    with resources.as_file(resources.files("omega.ai") / WEIGHTS_FILE) as path, np.load(path) as ref:
        net = load_net()
        size, players = int(ref["ref_size"]), int(ref["ref_players"])
        assert len(ref["ref_boards"]) >= 2
        for i, board in enumerate(ref["ref_boards"]):
            logits, value = evaluate(net, board, int(ref["ref_turn"][i]), int(ref["ref_colour"][i]), players, size)
            empty = board < 0
            assert np.allclose(logits[empty], ref["ref_logits"][i][empty], atol=1e-4)
            assert np.allclose(value, ref["ref_value"][i], atol=1e-5)


def test_the_network_sees_a_turned_board_as_the_same_board() -> None:
    # Its layers only know neighbours and the whole board, so turning the board turns the
    # policy and leaves the value alone.
    rng = np.random.default_rng(3)
    board = np.where(rng.random(61) < 0.4, rng.integers(0, 2, 61), -1).astype(np.int8)
    logits, value = evaluate(load_net(), board, 0, 1, 2, 5)
    for perm in symmetries(5):
        turned_logits, turned_value = evaluate(load_net(), board[perm], 0, 1, 2, 5)
        assert np.allclose(turned_logits, logits[perm], atol=1e-4)
        assert np.allclose(turned_value, value, atol=1e-5)


def test_selfplay_on_side_3_writes_the_same_valid_file_from_the_same_seed(tmp_path: Path) -> None:
    paths = [tmp_path / "a.npz", tmp_path / "b.npz"]
    for path in paths:
        assert main(["train", "selfplay", "-o", str(path), "--games", "2", "--size", "3",
                     "--bot", "mcts:iterations=150", "--seed", "5"]) == 0
    with np.load(paths[0]) as a, np.load(paths[1]) as b:
        assert sorted(a.files) == sorted(b.files)
        for name in a.files:
            assert np.array_equal(a[name], b[name]), name
        boards, policy = a["boards"], a["policy"]
        assert boards.shape[1] == policy.shape[1] == 19 and len(boards) > 4
        assert np.allclose(policy.sum(axis=1), 1.0)
        assert not (policy[boards >= 0] > 0).any()  # visits only on empty cells
        # Each searched turn: the mover's own colour, then the other one, with the first
        # stone on the board of the second.
        assert set(a["game"].tolist()) == {0, 1} and set(a["winner"].tolist()) <= {0, 1}
        first, second = boards[0], boards[1]
        assert a["colour"][0] == a["turn"][0] != a["colour"][1]
        assert int((second >= 0).sum()) == int((first >= 0).sum()) + 1
        assert int(a["size"]) == 3 and int(a["players"]) == 2 and str(a["bot"]) == "mcts:iterations=150"
    with np.load(paths[0]) as a:
        other = tmp_path / "c.npz"
        assert main(["train", "selfplay", "-o", str(other), "--games", "2", "--size", "3",
                     "--bot", "mcts:iterations=150", "--seed", "6"]) == 0
        with np.load(other) as c:
            assert not np.array_equal(a["policy"][:4], c["policy"][:4])


def test_selfplay_refuses_a_bad_bot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train", "selfplay", "-o", str(tmp_path / "x.npz"), "--bot", "mcts:nets=1"]) == 2
    assert "nets" in capsys.readouterr().err and not (tmp_path / "x.npz").exists()


def test_fit_without_its_extra_names_the_extra(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    try:
        import jax  # noqa: F401
    except ModuleNotFoundError:
        assert main(["train", "fit", str(tmp_path / "none.npz"), "-o", str(tmp_path / "w.npz")]) == 2
        assert "train extra" in capsys.readouterr().err
    else:
        # With the extra, a missing data file is a clear error instead.
        assert main(["train", "fit", str(tmp_path / "none.npz"), "-o", str(tmp_path / "w.npz")]) == 2
        assert "cannot read the data" in capsys.readouterr().err


@pytest.mark.parametrize(("players", "size"), [(2, 4), (3, 4)])
def test_the_bot_with_the_network_plays_legal_turns(players: int, size: int) -> None:
    # The shipped weights were trained on 2 players: with 3 the bot searches as without.
    bot = make_bot("mcts:iterations=300,seed=2,net=1")
    assert bot.name == "mcts:iterations=300,seed=2,net=1"
    game = Game(players=players, size=size)
    for _ in range(3):
        game.apply(bot.choose(game))  # Game.apply refuses an illegal turn
    assert game.turns_played == 3


def test_the_network_changes_the_search_and_mcts_v2_is_todays_bot() -> None:
    game = Game(players=2, size=4)
    chosen = {}
    for spec in ("mcts:iterations=800,seed=4,mast=0", "mcts-v2:iterations=800,seed=4",
                 "mcts:iterations=800,seed=4,mast=0,net=1"):
        bot = make_bot(spec)
        bot.choose(game)
        chosen[spec.split(":")[0] + ("+net" if "net" in spec else "")] = bot.last.plies  # type: ignore[attr-defined]
    assert chosen["mcts"] == chosen["mcts-v2"]
    assert chosen["mcts+net"] != chosen["mcts"]
    with pytest.raises(ValueError, match="net"):
        make_bot("mcts-v2:net=1")
    # With three players mcts-v2 keeps the margin's old share (mcts now gives it 0.2), and
    # with any number its uniform simulations (mcts now learns where stones pay).
    three = Game(players=3, size=4)
    plies = {}
    for spec in ("mcts-v2:iterations=800,seed=4", "mcts:iterations=800,seed=4,margin=0.05,mast=0"):
        bot = make_bot(spec)
        bot.choose(three)
        plies[spec] = bot.last.plies  # type: ignore[attr-defined]
    assert plies["mcts-v2:iterations=800,seed=4"] == plies["mcts:iterations=800,seed=4,margin=0.05,mast=0"]


def test_the_network_is_asked_only_in_games_of_the_player_counts_it_learnt() -> None:
    assert trained_players() == frozenset({2})
    game = Game(players=3, size=4)
    plies = []
    for spec in ("mcts:iterations=800,seed=4", "mcts:iterations=800,seed=4,net=1"):
        bot = make_bot(spec)
        bot.choose(game)
        plies.append(bot.last.plies)  # type: ignore[attr-defined]
    assert plies[0] == plies[1]
