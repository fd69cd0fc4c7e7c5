"""The rules of RULES.md, one hand-checkable example at a time, played through ``Game``."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from observe import observable_state
from omega import Color, Game, IllegalMove
from omega.board import cell_count

W, B, R, U = Color.WHITE, Color.BLACK, Color.RED, Color.BLUE


def play_all(game: Game, turns: list[tuple[str, ...]]) -> Game:
    for turn in turns:
        game.play(list(turn))
    return game


# -- scores ---------------------------------------------------------------------------------


def test_groups_of_3_4_5_score_60_and_one_group_of_12_scores_12() -> None:
    # White: a1-a5 (5 in the top row), c1-c4 (4), e1-e3 (3); rows b and d keep them apart.
    white = ["a1", "a2", "a3", "a4", "a5", "c1", "c2", "c3", "c4", "e1", "e2", "e3"]
    # Black: i5-i9, h4-h9 and g9, one chain of 12 along the bottom-right.
    black = ["i5", "i6", "i7", "i8", "i9", "h4", "h5", "h6", "h7", "h8", "h9", "g9"]
    game = play_all(Game(players=2, size=5), list(zip(white, black, strict=True)))
    assert game.group_sizes(W) == [5, 4, 3]
    assert game.group_sizes(B) == [12]
    assert game.scores() == {W: 60, B: 12}
    assert game.ranking() == [W, B]
    assert not game.is_over and game.turns_played == 12


def test_a_merging_stone_lowers_the_score() -> None:
    game = play_all(Game(players=2, size=5), [("e1", "a1"), ("e2", "a3"), ("e3", "a5"), ("e5", "i5"), ("e6", "i7"), ("e7", "i9")])
    assert game.group_sizes(W) == [3, 3] and game.score(W) == 9
    game.play(["e4", "g5"])  # White's own stone joins its two groups of 3 into one of 7
    assert game.group_sizes(W) == [7] and game.score(W) == 7
    # Placing an opponent's stone can merge the opponent: Black's a1, a3, a5 singles.
    assert game.score(B) == 1
    game.play(["c5", "a2"])
    assert game.group_sizes(B) == [3, 1, 1, 1, 1, 1] and game.score(B) == 3  # a1-a2-a3; a5 i5 i7 i9 g5


def test_every_colour_scores_zero_without_stones() -> None:
    for players in (2, 3, 4):
        game = Game(players=players, size=5)
        assert game.scores() == {Color(i): 0 for i in range(players)}
        assert all(game.groups(c) == [] for c in game.colors)
    two = Game(players=2, size=5)
    two.play(["e5", "a1"])
    # Colours not in play have no stones and score 0.
    assert two.score(R) == 0 and two.score(U) == 0 and two.groups(U) == []
    assert R not in two.scores()


def test_scores_are_exact_beyond_64_bits() -> None:
    # Side 10, 2 players: products of many groups, computed exactly as Python integers.
    game = Game(players=2, size=10)
    rng = random.Random(7)
    while not game.is_over:
        game.play(rng.sample(game.empty_cells(), 2))
    for color in game.colors:
        product = 1
        for size in game.group_sizes(color):
            product *= size
        assert game.score(color) == product
    assert max(game.scores().values()) > 2**32  # even random play passes 32 bits on side 10


# -- the end of the game --------------------------------------------------------------------


# floor(cells / N^2) rounds and cells mod N^2 empty cells, worked out by hand from 3n(n-1)+1.
END_TABLE = {
    # size: {players: (rounds, empty cells left)}
    5: {2: (15, 1), 3: (6, 7), 4: (3, 13)},
    6: {2: (22, 3), 3: (10, 1), 4: (5, 11)},
    7: {2: (31, 3), 3: (14, 1), 4: (7, 15)},
    8: {2: (42, 1), 3: (18, 7), 4: (10, 9)},
    9: {2: (54, 1), 3: (24, 1), 4: (13, 9)},
    10: {2: (67, 3), 3: (30, 1), 4: (16, 15)},
}


@pytest.mark.parametrize("size", sorted(END_TABLE))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_game_length_and_empty_cells_left(size: int, players: int) -> None:
    cells = cell_count(size)
    rounds, left = END_TABLE[size][players]
    assert (rounds, left) == (cells // players**2, cells % players**2)
    game = Game(players=players, size=size)
    rng = random.Random(size * 10 + players)
    turns = 0
    while not game.is_over:
        # The game never ends inside a round: only just before White's turn.
        assert turns % players != 0 or game.empty_count >= players * players
        game.play(rng.sample(game.empty_cells(), players))
        turns += 1
    assert turns == rounds * players == game.turns_played
    assert game.empty_count == left == len(game.empty_cells())
    assert game.round == rounds
    assert game.to_move is None and game.current_player is None
    with pytest.raises(IllegalMove, match="the game is over"):
        game.play(game.empty_cells()[:players])


def test_game_ends_exactly_when_fewer_than_n_squared_cells_are_empty_before_white() -> None:
    # Side 2 has 7 cells: 2 players play one round (4 stones) and stop with 3 empty.
    game = Game(players=2, size=2)
    game.play(["a1", "a2"])
    assert not game.is_over and game.empty_count == 5  # 5 >= 4 but it is Black's turn anyway
    game.play(["b1", "b2"])
    assert game.is_over and game.empty_count == 3
    # 3 and 4 players cannot even start on 7 cells.
    assert Game(players=3, size=2).is_over and Game(players=4, size=2).is_over
    assert Game(players=4, size=3).empty_count == 19  # 19 >= 16: one round possible
    assert not Game(players=4, size=3).is_over


# -- winner and tie-breaks ------------------------------------------------------------------


def test_two_player_tie_goes_to_black() -> None:
    game = play_all(Game(players=2, size=2), [("a1", "c3"), ("c2", "b1")])
    assert game.is_over
    assert game.scores() == {W: 1, B: 1}
    assert game.ranking() == [B, W]
    assert game.winner is B


def test_three_player_tie_at_the_top() -> None:
    turns = [("e4", "c4", "b2"), ("c5", "d4", "c3"), ("b1", "e3", "c1"),
             ("a3", "e5", "a2"), ("c2", "d3", "b3"), ("b4", "d2", "a1")]
    game = play_all(Game(players=3, size=3), turns)
    assert game.is_over and game.empty_cells() == ("d5",)  # 19 cells, 2 rounds, 1 left
    assert sorted(map(sorted, game.groups(W))) == [["a3", "b4", "c5"], ["b1", "c2"], ["e4"]]
    assert sorted(map(sorted, game.groups(B))) == [["c4", "d2", "d3", "d4", "e3", "e5"]]
    assert sorted(map(sorted, game.groups(R))) == [["a1", "a2", "b2", "b3", "c3"], ["c1"]]
    assert game.scores() == {W: 6, B: 6, R: 5}  # 3x2x1, 6, 5x1
    assert game.ranking() == [B, W, R]
    assert game.winner is B


def test_four_player_ties() -> None:
    turns = [("d2", "d3", "a2", "c2"), ("c4", "c3", "c1", "b3"), ("d5", "c5", "b2", "b1"), ("b4", "a3", "a1", "e5")]
    game = play_all(Game(players=4, size=3), turns)
    assert game.is_over and game.empty_count == 3  # 19 cells, 1 round of 16 stones
    assert game.scores() == {W: 3, B: 2, R: 3, U: 2}  # 3x1, 2x1x1, 3x1, 2x1x1
    assert game.ranking() == [R, W, U, B]
    assert game.winner is R
    # All four equal: the last colour in turn order wins.
    start = Game(players=4, size=5)
    start.play(["a1", "a3", "a5", "c1"])
    assert start.ranking() == [U, R, B, W]


def test_ranking_and_winner_while_playing() -> None:
    game = play_all(Game(players=3, size=5), [("e5", "a1", "i9"), ("e4", "a3", "i7")])
    assert game.scores() == {W: 2, B: 1, R: 1}
    assert game.ranking() == [W, R, B]
    assert game.winner is None  # no winner before the end


# -- the pie rule ---------------------------------------------------------------------------


def test_pie_swap_exchanges_players_and_keeps_blacks_turn() -> None:
    game = Game(players=2, size=5, pie_rule=True)
    assert not game.can_swap
    game.play(["e5", "a1"])
    assert game.can_swap and game.to_move is B and game.current_player == 1
    game.swap()
    assert game.swapped and not game.can_swap
    assert game.player_of(W) == 1 and game.player_of(B) == 0
    assert game.color_of(0) is B and game.color_of(1) is W
    # Player 0 places twice in a row: first as White (turn 1), now as Black.
    assert game.to_move is B and game.current_player == 0
    assert game.stone("e5") is W  # the stones stay; only the players change
    game.play(["e4", "a2"])
    assert game.to_move is W and game.current_player == 1
    assert game.history == (("e5", "a1"), "swap", ("e4", "a2"))
    assert game.turns_played == 2


def test_pie_tie_goes_with_the_colour_not_the_player() -> None:
    game = Game(players=2, size=2, pie_rule=True)
    game.play(["a1", "c3"])
    game.swap()
    game.play(["c2", "b1"])
    assert game.is_over and game.scores() == {W: 1, B: 1}
    assert game.winner is B and game.player_of(B) == 0  # player 0 swapped away White and won
    # Without the swap the same stones make player 1 the winner.
    plain = play_all(Game(players=2, size=2), [("a1", "c3"), ("c2", "b1")])
    assert plain.winner is B and plain.player_of(B) == 1


def test_playing_on_instead_of_swapping() -> None:
    game = Game(players=2, size=5, pie_rule=True)
    game.play(["e5", "a1"])
    game.play(["e4", "a2"])  # Black's player declines the swap
    assert not game.swapped and not game.can_swap and game.current_player == 0
    with pytest.raises(IllegalMove, match="only right after the first turn"):
        game.swap()


@pytest.mark.parametrize("players", [3, 4])
def test_pie_rule_is_a_two_player_option(players: int) -> None:
    with pytest.raises(ValueError, match="2-player option"):
        Game(players=players, size=5, pie_rule=True)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"players": 1}, "players must be 2, 3 or 4"),
        ({"players": 5}, "players must be 2, 3 or 4"),
        ({"players": True}, "players must be 2, 3 or 4"),
        ({"players": "2"}, "players must be 2, 3 or 4"),
        ({"size": 1}, "board size must be an integer from 2 to 13"),
        ({"size": 14}, "board size must be an integer from 2 to 13"),
        ({"pie_rule": 1}, "pie_rule must be True or False"),
    ],
)
def test_bad_game_settings(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Game(**kwargs)


def test_settings_are_kept() -> None:
    game = Game(players=3, size=7)
    assert (game.players, game.size, game.pie_rule) == (3, 7, False)
    assert Game(players=2, size=6, pie_rule=True).pie_rule is True


# -- illegal actions: each names the problem and changes nothing ----------------------------


def _midgame() -> Game:
    game = Game(players=2, size=5)
    game.play(["e5", "a1"])
    game.play(["e4", "a2"])
    return game


def _mapping_missing_black(g: Game) -> None:
    g.play({W: "c3"})


def _mapping_with_red(g: Game) -> None:
    g.play({W: "c3", B: "c4", R: "c5"})


def _mapping_with_text_key(g: Game) -> None:
    g.play({"white": "c3", B: "c4"})  # type: ignore[dict-item]


ILLEGAL: list[tuple[str, Callable[[Game], None], str]] = [
    ("bad name", lambda g: g.play(["5e", "c3"]), r"'5e' is not a cell of the side-5 board \(a cell is a row letter"),
    ("off board", lambda g: g.play(["a9", "c3"]), r"'a9' is not a cell of the side-5 board \(rows a-i"),
    ("empty name", lambda g: g.play(["", "c3"]), "'' is not a cell"),
    ("occupied by own colour", lambda g: g.play(["e5", "c3"]), "cell e5 is occupied by White"),
    ("occupied by other colour", lambda g: g.play(["c3", "A1"]), "cell a1 is occupied by Black"),
    ("twice in one turn", lambda g: g.play(["c3", "C3"]), "cell c3 is given twice in one turn"),
    ("too few cells", lambda g: g.play(["c3"]), r"a turn places 2 stones \(one per colour\), got 1 cell$"),
    ("too many cells", lambda g: g.play(["c3", "c4", "c5"]), r"a turn places 2 stones \(one per colour\), got 3 cells"),
    ("no cells", lambda g: g.play([]), "got 0 cells"),
    ("a string, not a list", lambda g: g.play("c3 c4"), "a turn is a list of 2 cells in colour order"),  # type: ignore[arg-type]
    ("not a cell name", lambda g: g.play(["c3", 7]), "Black cell 7 is not a cell name"),  # type: ignore[list-item]
    ("mapping missing a colour", _mapping_missing_black, "missing Black"),
    ("mapping with a colour not in play", _mapping_with_red, "Red is not in play in a 2-player game"),
    ("mapping with a bad key", _mapping_with_text_key, "bad colour in turn"),
    ("swap without the pie rule", lambda g: g.swap(), "swap is not allowed: the pie rule is off"),
    ("apply nonsense", lambda g: g.apply("pass"), "'pass' is not an action"),
]


@pytest.mark.parametrize(("what", "action", "message"), ILLEGAL, ids=[i[0] for i in ILLEGAL])
def test_illegal_action_names_the_problem_and_changes_nothing(what: str, action: Callable[[Game], None], message: str) -> None:
    game = _midgame()
    before = observable_state(game)
    with pytest.raises(IllegalMove, match=message):
        action(game)
    assert observable_state(game) == before
    game.play(["c3", "c4"])  # and the game goes on normally
    assert game.turns_played == 3


def test_illegal_swaps_change_nothing() -> None:
    fresh = Game(players=2, size=5, pie_rule=True)
    cases: list[tuple[Game, str]] = [(fresh, "only right after the first turn")]
    swapped = Game(players=2, size=5, pie_rule=True)
    swapped.play(["e5", "a1"])
    swapped.swap()
    cases.append((swapped, "only right after the first turn"))
    later = play_all(Game(players=2, size=5, pie_rule=True), [("e5", "a1"), ("e4", "a2")])
    cases.append((later, "only right after the first turn"))
    over = play_all(Game(players=2, size=2, pie_rule=True), [("a1", "c3"), ("c2", "b1")])
    cases.append((over, "the game is over"))
    for game, message in cases:
        before = observable_state(game)
        with pytest.raises(IllegalMove, match=message):
            game.swap()
        assert observable_state(game) == before


def test_every_action_after_the_end_is_rejected() -> None:
    game = play_all(Game(players=2, size=2), [("a1", "c3"), ("c2", "b1")])
    before = observable_state(game)
    for action in (lambda: game.play(["a2", "b2"]), lambda: game.play({W: "a2", B: "b2"}), game.swap,
                   lambda: game.apply(("a2", "b2"))):
        with pytest.raises(IllegalMove, match="the game is over"):
            action()
        assert observable_state(game) == before


def test_undo_with_nothing_to_undo() -> None:
    game = Game()
    before = observable_state(game)
    with pytest.raises(IllegalMove, match="nothing to undo"):
        game.undo()
    assert observable_state(game) == before


def test_illegal_move_is_a_value_error() -> None:
    assert issubclass(IllegalMove, ValueError)


# -- undo and copy --------------------------------------------------------------------------


def test_undo_after_the_end_reopens_the_game() -> None:
    game = play_all(Game(players=2, size=2), [("a1", "c3")])
    before = observable_state(game)
    game.play(["c2", "b1"])
    assert game.is_over and game.winner is B
    game.undo()
    assert not game.is_over and game.winner is None and game.to_move is B
    assert observable_state(game) == before


def test_undo_of_swap_and_of_turns() -> None:
    game = Game(players=2, size=5, pie_rule=True)
    empty = observable_state(game)
    game.play(["e5", "a1"])
    after_one = observable_state(game)
    game.swap()
    game.play(["e4", "a2"])
    game.undo()
    assert game.current_player == 0 and game.swapped
    game.undo()  # takes back the swap
    assert observable_state(game) == after_one and game.can_swap and game.current_player == 1
    game.undo()
    assert observable_state(game) == empty


def test_copy_is_independent() -> None:
    game = Game(players=2, size=5, pie_rule=True)
    game.play(["e5", "a1"])
    twin = game.copy()
    assert twin == game and twin is not game
    twin.swap()
    twin.play(["e4", "a2"])
    assert game.history == (("e5", "a1"),) and not game.swapped and game.stone("e4") is None
    assert game.scores() == {W: 1, B: 1} and twin.scores() == {W: 2, B: 2}
    game.play(["c3", "c4"])
    assert twin.stone("c3") is None


def test_play_accepts_a_mapping_in_any_key_order() -> None:
    a = Game(players=3, size=5)
    a.play({R: "i9", W: "e5", B: "a1"})
    b = Game(players=3, size=5)
    b.play(["e5", "a1", "i9"])
    assert a == b and a.history == (("e5", "a1", "i9"),)


def swapped_game() -> Game:
    """Three entries: a turn, the pie swap, a turn."""
    game = Game(players=2, size=5, pie_rule=True)
    game.play(["e5", "a1"])
    game.swap()
    game.play(["e4", "a2"])
    return game


def test_a_game_from_its_history() -> None:
    played = swapped_game()
    rebuilt = Game.from_history(played.history, players=2, size=5, pie_rule=True)
    assert rebuilt == played and observable_state(rebuilt) == observable_state(played)
    # Entries as a program sends them: lists of cells, any case.
    assert Game.from_history([["E5", "A1"], "swap", ["e4", "a2"]], 2, 5, True) == played
    assert Game.from_history([], players=3, size=4) == Game(players=3, size=4)


@pytest.mark.parametrize(
    ("history", "message"),
    [
        ([["e5", "a1"], ["e5", "b1"]], "cell e5 is occupied by White"),
        ([["e5", "a1"], "swap"], "swap is not allowed: the pie rule is off"),
        ([["e5", "a1"], "pass"], "'pass' is not an action"),
        ([["e5"]], r"a turn places 2 stones \(one per colour\), got 1 cell"),
    ],
)
def test_a_bad_history_is_an_illegal_move(history: list[Any], message: str) -> None:
    with pytest.raises(IllegalMove, match=message):
        Game.from_history(history)


def test_bad_settings_for_a_history() -> None:
    with pytest.raises(ValueError, match="players must be 2, 3 or 4"):
        Game.from_history([], players=5)


def test_position_after_some_entries() -> None:
    game = swapped_game()
    assert game.position_after(0) == Game(players=2, size=5, pie_rule=True)
    after_swap = game.position_after(2)
    assert after_swap.history == (("e5", "a1"), "swap") and after_swap.swapped and after_swap.current_player == 0
    full = game.position_after(3)
    assert full == game and full is not game
    full.undo()
    assert game.history[-1] == ("e4", "a2")  # a new game, not a view of this one


@pytest.mark.parametrize("entries", [-1, 2, True, "1", 1.0])
def test_position_after_needs_a_count_of_entries_in_the_history(entries: Any) -> None:
    game = Game()
    game.play(["e5", "a1"])
    with pytest.raises(ValueError, match=r"^position_after takes 0 to 1 entries \(the length of the history\), got "):
        game.position_after(entries)
