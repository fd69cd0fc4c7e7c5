"""The search's local patterns (omega.ai.patterns), their prior (omega.ai.tree.add_prior)
and the script that fits their weights (bench/fit_patterns.py)."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from omega.ai import make_bot
from omega.ai.base import Bot
from omega.ai.patterns import (
    CLASS_COUNT,
    pattern_class,
    pattern_weights,
    ring_code,
    ring_neighbours,
    symmetry_class,
)
from omega.ai.tree import Prior, Tree, add_prior
from omega.board import Board
from omega.game import Game
from omega.kernel import EMPTY, KernelState
from omega.record import format_record

ROOT = Path(__file__).resolve().parents[2]


def play_out(bots: list[Bot], game: Game) -> Game:
    while not game.is_over:
        mover = game.current_player
        assert mover is not None
        game.apply(bots[mover].choose(game))
    return game


def turned(digits: list[int], steps: int, mirrored: bool) -> list[int]:
    seq = digits[::-1] if mirrored else digits
    return seq[steps:] + seq[:steps]


def test_a_ring_has_the_class_of_its_turns_and_mirror_images() -> None:
    rng = random.Random(1)
    for _ in range(500):
        digits = [rng.randrange(4) for _ in range(6)]
        own = rng.random() < 0.5
        expected = symmetry_class(ring_code(digits), own)
        for steps in range(6):
            for mirrored in (False, True):
                assert symmetry_class(ring_code(turned(digits, steps, mirrored)), own) == expected


def test_there_are_as_many_classes_as_burnside_counts() -> None:
    # Rings of 6 neighbours in 4 states up to the 12 symmetries of the hexagon: the
    # identity fixes 4^6 rings, the turns by 1 and 5 steps 4 each, by 2 and 4 steps 4^2
    # each, the half-turn 4^3, the 3 mirrors through corners 4^4 each, the 3 through
    # sides 4^3 each.
    burnside = (4**6 + 2 * 4 + 2 * 4**2 + 4**3 + 3 * 4**4 + 3 * 4**3) // 12
    assert burnside == 430
    assert 2 * burnside == CLASS_COUNT
    assert len({symmetry_class(code, False) for code in range(4**6)}) == burnside
    assert {symmetry_class(code, True) for code in range(4**6)}.isdisjoint(
        {symmetry_class(code, False) for code in range(4**6)})


def test_the_class_of_a_stone_matches_what_a_person_reads_off_the_board() -> None:
    game = Game(2, 5)
    game.play(["e5", "e6"])            # white on the centre, black beside it
    state = KernelState.from_game(game)
    ring = ring_neighbours(5)
    board = Board.of(5)
    d5 = board.index("d5")             # touches the white e5; e6 is two cells away
    digits = []
    for j in ring[d5].tolist():
        stone = game.stone(board.cells[j]) if j >= 0 else None
        digits.append(3 if j < 0 else 0 if stone is None else 1 if stone.value == 0 else 2)
    assert pattern_class(state.board, ring, d5, 0, True) == symmetry_class(ring_code(digits), True)
    # a1 is a corner: three neighbours off the board, the rest empty
    assert pattern_class(state.board, ring, board.index("a1"), 1, False) == symmetry_class(
        ring_code([0, 0, 0, 3, 3, 3]), False)


def test_pattern_classes_agree_with_the_boards_own_neighbours_over_random_positions() -> None:
    rng = random.Random(7)
    for size in (2, 5, 8):
        board = Board.of(size)
        ring = ring_neighbours(size)
        for r in range(len(board)):
            assert sorted(j for j in ring[r].tolist() if j >= 0) == sorted(board.neighbours[r])
        for _ in range(20):
            stones = np.array([rng.choice([EMPTY, EMPTY, 0, 1, 2]) for _ in range(len(board))], dtype=np.int8)
            for cell in np.flatnonzero(stones == EMPTY).tolist():
                colour = rng.randrange(3)
                digits = [3 if j < 0 else 0 if stones[j] == EMPTY else 1 if stones[j] == colour else 2
                          for j in ring[cell].tolist()]
                assert pattern_class(stones, ring, cell, colour, colour == 0) == symmetry_class(
                    ring_code(digits), colour == 0)


def test_the_shipped_weights_are_one_finite_number_per_class() -> None:
    w = pattern_weights()
    assert w.shape == (CLASS_COUNT,) and np.isfinite(w).all() and w.std() > 0


def test_the_prior_orders_a_nodes_stones_by_weight_and_keeps_its_mean() -> None:
    game = Game(2, 5)
    for turn in (["e5", "e6"], ["d4", "f6"], ["c3", "a1"]):
        game.play(turn)
    state = KernelState.from_game(game)
    tree = Tree.allocate(1_000)
    tree.start(state.empties())
    edges = tree.edges(tree.root)
    rng = np.random.default_rng(3)
    tree.e_n[edges] = 2.0
    tree.e_w[edges] = rng.random(edges.stop) * 0.2 + 0.7       # mean reward about 0.8
    n, w = tree.e_n[edges].copy(), tree.e_w[edges].copy()
    prior = Prior.of(5, 20.0, 0.1)
    add_prior(tree, tree.root, state.board, prior, 1, True, np.empty(61))
    weights = np.array([prior.weights[pattern_class(state.board, prior.ring, int(c), 1, True)]
                        for c in tree.e_cell[edges]])
    values = tree.e_aw[edges] / tree.e_an[edges]
    assert (tree.e_an[edges] == 20.0).all()
    assert (tree.e_n[edges] == n).all() and (tree.e_w[edges] == w).all()   # real statistics untouched
    assert ((values >= 0.0) & (values <= 1.0)).all()
    order = np.argsort(weights, kind="stable")
    assert (np.diff(values[order]) >= -1e-6).all()                       # more weight, more value
    assert abs(values.mean() - w.sum() / n.sum()) < 1e-5                 # nothing clipped: the mean stays


def test_a_node_without_simulations_gets_no_prior() -> None:
    state = KernelState(players=2, size=3)
    tree = Tree.allocate(1_000)
    tree.start(state.empties())
    add_prior(tree, tree.root, state.board, Prior.of(3, 20.0, 0.1), 0, True, np.empty(19))
    assert not tree.e_an[:19].any() and not tree.e_aw[:19].any()


@pytest.mark.parametrize("spec", ["mcts:iterations=3000,seed=4,prior=0", "mcts:iterations=3000,seed=4"])
def test_the_bot_plays_whole_games_with_and_without_the_prior(spec: str) -> None:
    game = play_out([make_bot(spec), make_bot("greedy")], Game(2, 4))
    assert game.is_over


def test_the_prior_changes_the_search_and_its_options_are_checked() -> None:
    state = KernelState.from_game(Game(2, 5))
    with_prior = make_bot("mcts:iterations=20000,threads=1,seed=5").search(state)
    without = make_bot("mcts:iterations=20000,threads=1,seed=5,prior=0").search(state)
    assert with_prior.values != without.values
    with pytest.raises(ValueError, match="prior"):
        make_bot("mcts:prior=-1")
    with pytest.raises(ValueError, match="prior"):
        make_bot("mcts-v1:prior=20")


def test_the_fit_script_learns_weights_that_predict_the_choices(tmp_path: Path) -> None:
    records = []
    for seed in range(4):
        game = play_out([make_bot(f"greedy:seed={seed}"), make_bot(f"greedy:seed={seed + 10}")], Game(2, 4))
        path = tmp_path / f"game{seed}.txt"
        path.write_text(format_record(game))
        records.append(str(path))
    out = tmp_path / "weights.py"
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "fit_patterns.py"), *records, "--out", str(out),
                           "--held-out", "0.25", "--steps", "200"], capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    assert lines[0].startswith("fitted on 3 games:") and lines[1].startswith("held out 1 games:")
    # the greedy bot's choices follow its local judgement, so the weights beat random cells
    ll = float(lines[2].split("log-likelihood ")[1].split(" ")[0])
    uniform = float(lines[2].split("(random cells ")[1].split(")")[0])
    assert ll > uniform + 0.3
    namespace: dict[str, object] = {}
    exec(out.read_text(), namespace)
    weights = namespace["WEIGHTS"]
    assert isinstance(weights, tuple) and len(weights) == CLASS_COUNT
