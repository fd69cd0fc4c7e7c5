"""The kernel is the rules' second home: it must agree with ``Game`` on every position.

Random games on sides 2-10 with 2-4 players are played on both; after every turn the
groups, sizes, scores, side to move, end of game and winner must be equal.  Random
playouts from random positions must end exactly where ``Game`` ends, with its winner.
The one helper that says whose stone comes next and when the game ends follows ``Game``
stone by stone.
"""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from omega import Color, Game
from omega.board import MIN_SIZE
from omega.game import MAX_PLAYERS, MIN_PLAYERS
from omega.kernel import KernelState, compare_exact, mul_limbs, next_stone


def _kernel_groups(k: KernelState, game: Game, color: int) -> set[frozenset[str]]:
    names = game.cells
    return {frozenset(names[i] for i in g) for g in k.groups(color)}


def _assert_same(k: KernelState, game: Game) -> None:
    for c in game.colors:
        assert _kernel_groups(k, game, c) == set(game.groups(c))
        assert k.group_sizes(c) == game.group_sizes(c)
    assert k.scores() == game.scores()
    assert k.over == game.is_over
    assert k.to_move == (None if game.to_move is None else int(game.to_move))
    assert k.leader() == int(game.ranking()[0])
    for c, log in enumerate(k.log_scores()):
        exact = game.score(c)
        assert log == -1.0 if exact == 0 else abs(log - np.log(float(exact))) < 1e-9


games = st.tuples(st.integers(MIN_SIZE, 10), st.integers(MIN_PLAYERS, MAX_PLAYERS), st.integers(0, 2**32))


@settings(max_examples=40, deadline=None)
@given(games)
def test_kernel_follows_game_turn_by_turn(spec: tuple[int, int, int]) -> None:
    size, players, seed = spec
    rng = random.Random(seed)
    game = Game(players=players, size=size)
    by_turn = KernelState(players, size)  # whole turns in colour order
    by_stone = KernelState(players, size)  # one stone at a time, own colour first, as search does
    _assert_same(by_turn, game)
    while not game.is_over:
        cells = rng.sample(game.empty_cells(), players)
        indices = [game.board.index(c) for c in cells]
        game.play(cells)
        by_turn.play_turn(indices)
        for _ in range(players):
            by_stone.place_next(indices[by_stone.placing])
        _assert_same(by_turn, game)
        _assert_same(by_stone, game)
    _assert_same(KernelState.from_game(game), game)
    assert game.winner is not None and by_turn.leader() == int(game.winner)


@settings(max_examples=40, deadline=None)
@given(games)
def test_next_stone_follows_game_stone_by_stone(spec: tuple[int, int, int]) -> None:
    size, players, seed = spec
    rng = random.Random(seed)
    game = Game(players=players, size=size)
    empty = len(game.cells)
    turn, placed, color, over = next_stone(players, 0, 0, empty)
    while True:
        assert (turn, placed) == (0 if game.to_move is None else int(game.to_move), 0)
        assert over == game.is_over
        if over:
            break
        cells = rng.sample(game.empty_cells(), players)
        mover = turn
        colors = []
        for _ in range(players):
            colors.append(color)
            assert not over, "the game cannot end inside a turn"
            empty -= 1
            turn, placed, color, over = next_stone(players, turn, placed + 1, empty)
        # The mover's own stone first, then the following colours in turn order.
        assert colors == [(mover + j) % players for j in range(players)]
        game.play(cells)
        assert empty == game.empty_count


def _finish_like(game: Game, final: np.ndarray) -> Game:
    """Play ``game`` on to the board ``final`` (a playout's end), turn by turn in Game."""
    names = game.cells
    todo = {c: [names[i] for i in np.flatnonzero(final == c) if game.stone(names[i]) is None]
            for c in game.colors}
    out = game.copy()
    while not out.is_over:
        out.play([todo[c].pop() for c in out.colors])
    assert all(not cells for cells in todo.values()), "the playout placed more stones than the game allows"
    return out


@settings(max_examples=40, deadline=None)
@given(games, st.floats(0.0, 1.0))
def test_playouts_end_and_score_like_game(spec: tuple[int, int, int], progress: float) -> None:
    size, players, seed = spec
    rng = random.Random(seed)
    game = Game(players=players, size=size)
    rounds = len(game.cells) // players**2
    for _ in range(int(progress * rounds * players)):
        game.play(rng.sample(game.empty_cells(), players))
    k = KernelState.from_game(game)
    final = k.final_board(seed=seed)
    ended = _finish_like(game, final)
    assert ended.is_over
    assert int((final < 0).sum()) == ended.empty_count
    end_state = KernelState.from_game(ended)
    assert np.array_equal(end_state.board, final)
    assert end_state.leader() == int(ended.winner)  # type: ignore[arg-type]
    # The batch agrees with the one-playout path: one playout with this seed wins for the
    # same colour as scoring that final board.
    wins = k.playouts(1, seed=seed)
    assert int(np.argmax(wins)) == int(ended.winner)  # type: ignore[arg-type]


def test_equal_products_tie_to_later_colour() -> None:
    # White: groups 2 and 3 (score 6); Black: one group of 6 (score 6).  The log-scores
    # log 2 + log 3 and log 6 may differ in the last bit; the exact products are equal, so
    # Black (later in turn order) must win, as in Game.
    game = Game(players=2, size=5)
    white = ["a1", "a2", "c1", "c2", "c3"]
    black = ["i5", "i6", "i7", "i8", "i9", "h4"]
    k = KernelState(2, 5)
    for cell in white:
        k.place(k.index(cell), 0)
    for cell in black:
        k.place(k.index(cell), 1)
    assert k.scores() == {Color.WHITE: 6, Color.BLACK: 6}
    assert k.leader() == 1
    game.play(["a1", "i5"])
    assert game.ranking()[0] == Color.BLACK


def test_no_stones_scores_zero_and_loses() -> None:
    k = KernelState(3, 4)
    k.place(k.index("d4"), 2)
    assert k.scores() == {Color.WHITE: 0, Color.BLACK: 0, Color.RED: 1}
    assert k.leader() == 2
    k.place(k.index("a1"), 0)
    assert k.leader() == 2  # equal scores of 1: the later colour wins


def test_game_over_from_the_start_on_tiny_board() -> None:
    # Side 2 has 7 cells, fewer than 16: a 4-player game there is over before it starts
    # and every colour scores 0, so Blue ranks first.
    game = Game(players=4, size=2)
    k = KernelState.from_game(game)
    assert k.over and game.is_over
    assert list(k.playouts(5)) == [0, 0, 0, 5]


def test_exact_products_beyond_64_bits() -> None:
    # Side 13 allows products up to about 3**78: the kernel's fixed limbs must hold them.
    limbs = np.zeros(8, dtype=np.uint64)
    limbs[0] = 1
    expected = 1
    for k in [3] * 70 + [271, 5, 2]:
        mul_limbs(limbs, k)
        expected *= k
    assert expected > 2**120
    assert sum(int(v) << (32 * i) for i, v in enumerate(limbs)) == expected


def test_exact_comparison_matches_python_ints_on_full_boards() -> None:
    rng = random.Random(7)
    for size, players in ((13, 2), (12, 3), (9, 4)):
        game = Game(players=players, size=size)
        while not game.is_over:
            game.play(rng.sample(game.empty_cells(), players))
        k = KernelState.from_game(game)
        scores = game.scores()
        for a in range(players):
            for b in range(players):
                sign = (scores[Color(a)] > scores[Color(b)]) - (scores[Color(a)] < scores[Color(b)])
                assert compare_exact(k.board, k.parent, k.gsize, k.counts, a, b) == sign
