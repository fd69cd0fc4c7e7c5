"""The MCTS bot's machinery: the first version kept as it was, the selection value, root
values per colour, two trees, the tree kept between turns, recycled pools, early stops and
the simulations that learn where stones pay."""

from __future__ import annotations

import random

import numpy as np
import pytest

from omega import Color, Game
from omega.ai import make_bot
from omega.ai.mcts import MIN_SPLIT, V1_LEVELS, MctsBot, SearchResult
from omega.ai.simulation import MAST_SIZE, Mast, mast_add, mast_fill
from omega.ai.tree import rave_value, shuffle_edges
from omega.game import SWAP, Action
from omega.kernel import KernelState, fill_sequence, seed_state

# Whole games of the first MCTS bot against itself (seats seeded 7, 8, ...), recorded with
# the bot as it was before root parallelism, tree reuse and time management: ``mcts-v1``
# must still play exactly these.
V1_GAMES: dict[tuple[int, int, bool, int], list[Action]] = {
    (2, 4, False, 300): [
        ("e7", "d4"), ("f6", "c1"), ("d1", "c5"), ("c4", "b1"), ("a4", "d5"), ("d3", "d6"), ("g6", "c3"),
        ("b2", "g7"), ("f7", "c2"), ("e4", "b5"), ("a3", "e5"), ("d2", "a2"), ("b3", "f5"), ("f4", "f3"),
        ("b4", "g5"), ("g4", "e3"), ("e2", "c6"), ("e6", "a1")],
    (3, 4, False, 300): [
        ("f6", "c3", "e4"), ("d2", "b2", "a2"), ("a1", "c4", "a3"), ("b4", "c5", "g7"), ("d6", "f7", "b1"),
        ("c6", "b5", "g6"), ("a4", "b3", "f5"), ("d4", "e7", "d7"), ("f3", "d3", "c1"), ("e5", "d5", "e6"),
        ("g5", "f4", "e3"), ("d1", "e2", "c2")],
    (2, 4, True, 400): [
        ("g5", "e5"), "swap", ("c3", "a3"), ("f7", "d5"), ("e4", "d7"), ("e7", "f5"), ("f4", "e6"), ("a1", "d3"),
        ("d4", "b1"), ("f3", "c4"), ("b3", "c6"), ("d2", "b4"), ("g6", "c1"), ("e3", "a2"), ("b2", "c2"),
        ("b5", "f6"), ("g7", "a4"), ("c5", "d6"), ("g4", "d1")],
}


def _self_play(spec: str, players: int, size: int, pie: bool) -> Game:
    game = Game(players=players, size=size, pie_rule=pie)
    bots = [make_bot(f"{spec},seed={7 + seat}") for seat in range(players)]
    while not game.is_over:
        game.apply(bots[game.current_player].choose(game))  # type: ignore[index]
    return game


@pytest.mark.parametrize(("players", "size", "pie", "iterations"), list(V1_GAMES))
def test_the_first_version_plays_as_it_always_did(players: int, size: int, pie: bool, iterations: int) -> None:
    game = _self_play(f"mcts-v1:iterations={iterations}", players, size, pie)
    assert list(game.history) == V1_GAMES[(players, size, pie, iterations)]


def test_the_first_version_keeps_its_own_levels() -> None:
    bot = make_bot("mcts-v1:level=5,seed=3")
    assert isinstance(bot, MctsBot)
    assert (bot.iterations, bot.time, bot.threads, bot.reuse, bot.manage, bot.recycle) == (
        *V1_LEVELS[5], 1, False, False, False)
    assert bot.name == "mcts-v1:level=5,seed=3"
    assert make_bot("mcts-v1:time=1").name == "mcts-v1:time=1"
    with pytest.raises(ValueError, match="has no option threads"):
        make_bot("mcts-v1:threads=2")


def test_root_values_are_each_colours_mean_reward() -> None:
    game = Game(players=2, size=5)
    game.play(["e5", "a1"])
    result = MctsBot(iterations=3_000, seed=4).search(KernelState.from_game(game))
    assert len(result.values) == 2 and all(0.0 <= v <= 1.0 for v in result.values)
    # Two players' rewards add up to one (the winner's 0.95, and the margin's share split).
    assert sum(result.values) == pytest.approx(1.0)
    # A fresh tree: the mover's root value is its own mean reward over the same simulations.
    assert result.value == pytest.approx(result.values[Color.BLACK], abs=1e-4)
    three = MctsBot(iterations=2_000, seed=4).search(KernelState.from_game(Game(players=3, size=4)))
    assert len(three.values) == 3 and all(0.0 <= v <= 1.0 for v in three.values)
    assert sum(three.values) == pytest.approx(1.0, abs=0.05)  # the margin's shares need not add to 0.05


def test_root_parallel_trees_are_reproducible_and_share_the_budget() -> None:
    def moves(seed: int) -> list[SearchResult]:
        game = Game(players=2, size=5)
        bot = MctsBot(iterations=MIN_SPLIT, threads=2, parallel="root", seed=seed, manage=False)
        found = []
        for _ in range(2):
            game.apply(bot.choose(game))
            assert bot.last is not None
            found.append(bot.last)
        return found

    first, again = moves(5), moves(5)
    assert [r.cells for r in first] == [r.cells for r in again]
    assert [r.values for r in first] == [r.values for r in again]
    assert all(r.iterations == MIN_SPLIT for r in first)
    assert MctsBot(iterations=MIN_SPLIT - 1, threads=2).threads == 1  # small budgets: one tree


@pytest.mark.slow
@pytest.mark.parametrize("parallel", ["tree", "root"])
def test_two_threads_play_whole_games_in_bounded_pools(parallel: str) -> None:
    # Pools far too small for the budget, so both threads fill their stretches, the tree
    # is compacted and recycled many times (hundreds of times a game), and a shared tree is
    # raced on all along.  Small boards keep the games short: the pool, not the board, is
    # what the test stretches.
    for players, size, edges in ((2, 4, 5_000), (3, 3, 2_000)):
        game = Game(players=players, size=size)
        bot = MctsBot(iterations=MIN_SPLIT, threads=2, parallel=parallel, seed=1, max_edges=edges)
        recycled = 0
        while not game.is_over:
            game.apply(bot.choose(game))  # IllegalMove would fail the test
            assert bot.last is not None and bot.last.edges <= edges
            assert len(bot.last.values) == players
            recycled += bot.last.recycled
        assert recycled > 0


def test_the_tree_is_kept_through_the_turns_in_between() -> None:
    game = Game(players=2, size=4)
    for turn in (("a1", "g7"), ("d4", "c3")):
        game.play(turn)
    bot = MctsBot(iterations=20_000, seed=1, manage=False)
    other = MctsBot(iterations=2_000, seed=2)
    game.apply(bot.choose(game))
    assert bot.last is not None and bot.last.reused == 0
    game.apply(other.choose(game))  # the opponent's turn, which the bot does not see
    game.apply(bot.choose(game))
    assert bot.last.reused > 0
    assert bot.last.iterations == 20_000  # the budget is on top of what was kept
    # A position that does not continue the last one starts afresh.
    bot.choose(Game(players=2, size=4))
    assert bot.last.reused == 0
    # So does a fresh bot (a worker process that never saw the game), and it plays legally.
    fresh = MctsBot(iterations=2_000, seed=1)
    game.apply(fresh.choose(game))
    assert fresh.last is not None and fresh.last.reused == 0


def test_a_tree_survives_a_swap_and_is_handed_to_the_next_bot() -> None:
    game = Game(players=2, size=4, pie_rule=True)
    white = MctsBot(iterations=20_000, seed=1)
    game.apply(white.choose(game))
    game.apply(SWAP)
    game.apply(white.choose(game))  # still the same position, now played by the other player
    assert white.last is not None and white.last.reused > 0
    black = MctsBot(iterations=2_000, seed=2)
    black.take_tree(white)
    game.apply(black.choose(game))
    assert black.last is not None and black.last.reused > 0
    unrelated = MctsBot(iterations=2_000, seed=3, threads=1, reuse=False)
    unrelated.take_tree(black)  # a bot that does not keep trees takes nothing
    unrelated.choose(game)
    assert unrelated.last is not None and unrelated.last.reused == 0


def test_a_full_pool_is_recycled_and_the_search_goes_on() -> None:
    # A pool far too small for the budget: without recycling the tree stops growing; with
    # it the least-visited nodes make room, and either way every iteration is run.
    game = Game(players=2, size=4)
    for recycle in (True, False):
        bot = MctsBot(iterations=20_000, seed=3, max_edges=5_000, recycle=recycle, manage=False)
        game.copy().apply(bot.choose(game))
        assert bot.last is not None and bot.last.iterations == 20_000
        assert bot.last.edges <= 5_000
        assert (bot.last.recycled > 0) == recycle


def test_a_settled_search_stops_early_only_when_managed() -> None:
    # Black's last turn on side 3 (see test_bots.py): the best turn stands out quickly.
    game = Game(players=2, size=3)
    for turn in (("d2", "d3"), ("a1", "e3"), ("b3", "d4"), ("e5", "b2"), ("d5", "a3"), ("c3", "a2"), ("b1", "e4")):
        game.play(turn)
    managed = MctsBot(iterations=200_000, seed=1, threads=1)
    plain = MctsBot(iterations=200_000, seed=1, threads=1, manage=False)
    assert managed.choose(game) == plain.choose(game)
    assert managed.last is not None and plain.last is not None
    assert managed.last.iterations < plain.last.iterations == 200_000


def test_a_time_cap_never_reached_changes_nothing_in_a_seeded_search() -> None:
    # The review's promise: the same seed and iteration budget give the same values, with a
    # time cap out of the way.  The capped search looks at the clock in chunks sized by its
    # speed; the settled test must still run at the same counts, or the early stop (and so
    # the values) would depend on how fast the machine happened to be.
    game = Game(players=2, size=3)
    for turn in (("d2", "d3"), ("a1", "e3"), ("b3", "d4"), ("e5", "b2"), ("d5", "a3"), ("c3", "a2"), ("b1", "e4")):
        game.play(turn)
    plain, capped = (MctsBot(iterations=50_000, time=time, seed=1, threads=1).search(KernelState.from_game(game))
                     for time in (None, 600.0))
    assert plain.iterations < 50_000  # it did stop early, the case that needs the schedule
    assert (capped.iterations, capped.cells, capped.values) == (plain.iterations, plain.cells, plain.values)


@pytest.mark.parametrize(("spec", "message"), [
    ("mcts:threads=0", "threads must be from 1"),
    ("mcts:reuse=2", "reuse must be from 0 to 1"),
    ("mcts:manage=yes", "manage='yes' must be a whole number"),
    ("mcts-v1:level=6", "level must be from 1 to 5"),
])
def test_bad_switches_say_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_bot(spec)


def test_a_time_cap_stops_a_huge_iteration_budget() -> None:
    # A hint and a review search "a billion iterations, at most 0.2 s": the cap must end it,
    # not the end of a first chunk sized from the budget (a 64th of it, 15.6 million).
    bot = MctsBot(iterations=10**9, time=0.2, seed=1)
    bot.choose(Game(players=2, size=5))
    assert bot.last is not None and 0 < bot.last.iterations < 10**9 // 64 // 10


def test_rave_value_is_the_textbook_blend_over_random_statistics() -> None:
    # The kernel's one-division form against beta = an / (n + an + b n an) blending the two means.
    rng = random.Random(5)
    for _ in range(2000):
        n, an = rng.choice([0.0, rng.uniform(0.3, 1e5)]), rng.uniform(0.3, 1e5)
        w, aw = rng.uniform(0, 1) * n, rng.uniform(0, 1) * an
        b = rng.choice([0.0, 0.002, rng.uniform(0, 1)])
        beta = an / (n + an + b * n * an)
        mean = w / n if n > 0 else 0.0
        assert rave_value(n, w, an, aw, b) == pytest.approx((1 - beta) * mean + beta * aw / an, rel=1e-12, abs=1e-15)
        if n > 0:
            assert rave_value(n, w, an, aw, -1.0) == pytest.approx(w / n, rel=1e-15)


def test_rave_value_blends_float32_statistics_in_float32() -> None:
    # The bot's own-tree selection passes the pools' float32 statistics as they are.
    n, w, an, aw, b = (np.float32(x) for x in (10.0, 6.0, 30.0, 12.0, 0.002))
    value = rave_value(n, w, an, aw, b)
    bn = b * an  # every step of the one-division form rounded to float32, as the kernel does
    assert value == float((w + w * bn + aw) / (n + an + bn * n))
    assert value != rave_value(float(n), float(w), float(an), float(aw), float(b))
    beta = float(an / (n + an + b * n * an))
    assert value == pytest.approx((1 - beta) * float(w / n) + beta * float(aw / an), rel=1e-6)


def test_unseen_edges_are_tried_in_a_uniformly_random_order() -> None:
    # A node's edges are shuffled on its first visit and its first unseen edge is tried
    # first: every cell must be as likely as any other to come first, and to come last.
    rng = seed_state(3)
    first, last = np.zeros(6, dtype=np.int64), np.zeros(6, dtype=np.int64)
    for _ in range(6000):
        cells = np.arange(10, dtype=np.int32)
        shuffle_edges(cells, 2, 8, rng)
        assert cells[:2].tolist() == [0, 1] and cells[8:].tolist() == [8, 9]
        first[cells[2] - 2] += 1
        last[cells[7] - 2] += 1
    # 1,000 expected each, standard deviation about 29: five of them either way.
    assert first.min() > 850 and first.max() < 1150
    assert last.min() > 850 and last.max() < 1150


def test_with_two_players_the_paranoid_search_is_the_plain_one() -> None:
    # Two players' rewards add up to one, so "the other minimises my reward" (paranoid) and
    # "the other maximises its own" (max-n, the default) are the same search.
    state = KernelState.from_game(Game(players=2, size=4))
    plain = MctsBot(iterations=2_000, seed=7).search(state)
    paranoid = make_bot("mcts:iterations=2000,seed=7,paranoid=1")
    assert isinstance(paranoid, MctsBot)
    found = paranoid.search(state)
    assert found.cells == plain.cells and found.values == pytest.approx(plain.values, abs=1e-9)


def test_without_the_margin_a_simulation_is_worth_a_win_or_nothing() -> None:
    state = KernelState.from_game(Game(players=3, size=4))
    result = MctsBot(iterations=1_000, seed=3, margin=0.0).search(state)
    wins = [v * result.iterations for v in result.values]
    assert sum(wins) == pytest.approx(result.iterations)
    assert wins == pytest.approx([round(w) for w in wins], abs=1e-6)


def _filled(players: int, size: int, turns: int, seed: int) -> tuple[KernelState, np.ndarray]:
    """A position ``turns`` random turns into a game, and its empty cells."""
    game = Game(players=players, size=size)
    rng = random.Random(seed)
    for _ in range(turns):
        empty = list(game.empty_cells())
        game.apply(tuple(rng.sample(empty, players)))
    state = KernelState.from_game(game)
    return state, state.empties()


@pytest.mark.parametrize(("players", "size", "turn", "step"), [(2, 4, 0, 0), (3, 5, 1, 2), (4, 5, 3, 1)])
def test_learning_simulations_place_the_colours_the_rules_still_owe(players: int, size: int, turn: int,
                                                                     step: int) -> None:
    # Whatever the tables say, a simulation ends with the stones of every colour that the
    # turn order still owes (the uniform fill's sequence) and the cells the end leaves empty.
    state, empties = _filled(players, size, 1, seed=players)
    owed = np.empty(len(empties) + players * players, dtype=np.int8)
    length = fill_sequence(players, turn, step, len(empties), owed)
    mast = Mast.of(len(state.board), 4)
    mast.v[:] = np.random.default_rng(1).random(mast.v.shape)
    rng = seed_state(2)
    for _ in range(20):
        board, cells = state.board.copy(), empties.copy()
        mast_fill(board, cells, len(empties), players, turn, step, mast, rng)
        added = board[state.board < 0]
        assert (added >= 0).sum() == length
        assert np.bincount(added[added >= 0], minlength=players).tolist() == \
            np.bincount(owed[:length], minlength=players).tolist()
        assert (board[state.board >= 0] == state.board[state.board >= 0]).all()


def test_learning_simulations_favour_the_cells_that_paid_their_mover() -> None:
    # Black's turn, one stone left (White's) and then the end: four cells empty. One of
    # them paid Black's player well when it ended White and nothing else paid anybody, so
    # the stone goes there whenever it is among the 4 cells drawn: 1 - (3/4)^4 = 0.68 of
    # the time, against 1/4 for a uniform fill.
    board = np.array([0, 1] * 9 + [0], dtype=np.int8)
    empties = np.array([2, 7, 11, 16], dtype=np.int32)
    board[empties] = -1
    target = 11
    mast = Mast.of(19, 4)
    mast.v[1, 0, target] = 0.9  # Black's player, a White stone, on the target
    mast.v[0, 0, :] = 0.9  # White's player's view does not count for Black's stone
    mast.v[0, 0, target] = 0.0
    rng = seed_state(4)
    hits = 0
    for _ in range(4000):
        filled, cells = board.copy(), empties.copy()
        mast_fill(filled, cells, 4, 2, 1, 1, mast, rng)
        assert (filled < 0).sum() == 3 and (filled[empties] == 0).sum() == 1
        hits += filled[target] == 0
    # 2,734 expected, standard deviation about 29.
    assert 2600 < hits < 2870


def test_learning_simulations_follow_the_turn_order_stone_by_stone() -> None:
    # Three players, Black's turn with one stone placed: Black's player still places Red and
    # White, then Red's player Red, White and Black (its own colour first); 13 cells empty,
    # so the game ends before White's next turn (8 < 9). Each stone's mover likes a cell of
    # its own for it, but Red's player likes cell 8 for Red and for White alike: Red, placed
    # first, takes it. White's player, who places nothing here, likes cell 11 for Red. With
    # 16 draws a stone finds its cell 1 - (12/13)^16 = 0.72 of the time.
    board = np.full(19, -1, dtype=np.int8)
    board[:6] = [0, 1, 2, 0, 1, 2]
    empties = np.arange(6, 19, dtype=np.int32)
    liked = {(1, 2): 6, (1, 0): 7, (2, 2): 8, (2, 0): 8, (2, 1): 10, (0, 2): 11}
    mast = Mast.of(19, 16)
    for (mover, colour), cell in liked.items():
        mast.v[mover, colour, cell] = 1.0
    rng = seed_state(6)
    got = dict.fromkeys(liked, 0)
    for _ in range(2000):
        filled, cells = board.copy(), empties.copy()
        mast_fill(filled, cells, 13, 3, 1, 1, mast, rng)
        assert np.bincount(filled[empties][filled[empties] >= 0], minlength=3).tolist() == [2, 1, 2]
        for (mover, colour), cell in liked.items():
            got[(mover, colour)] += filled[cell] == colour
    for pair in [(1, 2), (1, 0), (2, 2), (2, 1)]:
        assert got[pair] > 0.65 * 2000, (pair, got)
    # White gets cell 8 when Red's stone did not find it and White's did: 0.28 * 0.72.
    assert got[(2, 0)] < 0.3 * 2000, got
    assert got[(0, 2)] < 0.25 * 2000, got  # Red there by chance alone


def test_the_tables_keep_each_players_mean_reward_where_each_colour_ended() -> None:
    mast = Mast.of(7, 4)
    mast_add(mast, np.array([0, 1, 1, -1, 2, 0, 2], dtype=np.int8), np.array([0.25, 0.5, 1.0, 0.0]), 3)
    mast_add(mast, np.array([0, 0, 1, -1, 2, 2, 2], dtype=np.int8), np.array([1.0, 0.0, 0.2, 0.0]), 3)
    assert mast.n[:3].tolist() == [[2, 1, 0, 0, 0, 1, 0], [0, 1, 2, 0, 0, 0, 0], [0, 0, 0, 0, 2, 1, 2]]
    assert mast.v[0, 0].tolist() == [0.625, 1.0, 0.5, 0.5, 0.5, 0.25, 0.5]  # White's player, White's stones
    assert mast.v[2, 2].tolist() == pytest.approx([0.5, 0.5, 0.5, 0.5, 0.6, 0.2, 0.6])  # ½ where none ended
    assert mast.v[1, 1].tolist() == [0.5, 0.5, 0.25, 0.5, 0.5, 0.5, 0.5]
    assert not mast.n[3].any() and (mast.v[3] == 0.5).all()


def test_learning_simulations_are_the_default_and_the_kept_bots_keep_uniform_ones() -> None:
    for spec, mast in (("mcts", MAST_SIZE), ("mcts:mast=0", 0), ("mcts:mast=2", 2), ("mcts-v2", 0),
                       ("mcts-v1", 0), ("mcts:level=16", 0), ("mcts:level=16,mast=3", 3)):
        bot = make_bot(spec)
        assert isinstance(bot, MctsBot) and bot.mast == mast, spec
    with pytest.raises(ValueError, match="mast must be from 0 to 16"):
        make_bot("mcts:mast=17")


def test_a_seeded_search_with_learning_simulations_is_reproducible_and_differs_from_uniform() -> None:
    state = KernelState.from_game(Game(players=3, size=4))
    one, two = (MctsBot(iterations=3_000, seed=5, threads=1).search(state) for _ in range(2))
    assert (one.cells, one.values) == (two.cells, two.values)
    uniform = MctsBot(iterations=3_000, seed=5, threads=1, mast=0).search(state)
    assert uniform.values != one.values
