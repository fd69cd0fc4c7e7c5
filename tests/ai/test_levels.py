"""The computer player's levels: one list, in order, the same as the docs, cheap to import."""

from __future__ import annotations

import itertools
import re
import subprocess
import sys
from pathlib import Path

import pytest

from omega.ai import LEVELS, MAX_LEVEL, MIN_LEVEL, level
from omega.ai.levels import RENUMBERED, RENUMBERED_TWELVE, STAND_IN_LEVEL, Level, level_rating, nearest_level

AI_DOC = Path(__file__).resolve().parents[2] / "docs" / "ai.md"


def test_levels_are_numbered_without_gaps_and_strictly_ordered_by_budget() -> None:
    assert [lv.number for lv in LEVELS] == list(range(MIN_LEVEL, MAX_LEVEL + 1))
    for weaker, stronger in itertools.pairwise(LEVELS):
        # More simulations, no shorter time cap, no more blunders, no longer pause.
        assert weaker.iterations < stronger.iterations
        assert weaker.seconds <= stronger.seconds
        assert weaker.blunder >= stronger.blunder
        assert weaker.think >= stronger.think
        assert weaker.rating_low <= weaker.rating < stronger.rating <= stronger.rating_high
    assert len({lv.name for lv in LEVELS}) == len(LEVELS)
    assert all(lv.name and lv.description for lv in LEVELS)
    # The beginner blunders and is seen to think; the top level is today's strongest.
    assert LEVELS[0].blunder > 0 and LEVELS[0].think > 0
    assert (LEVELS[-1].iterations, LEVELS[-1].blunder) == (300_000, 0.0)


def test_old_level_numbers_move_to_the_level_of_the_same_budget() -> None:
    old_budgets = {1: 10, 2: 600, 3: 4_000, 4: 25_000, 5: 300_000}  # docs/measured/2026-12-02-levels-ladder.md
    assert {old: level(new).iterations for old, new in RENUMBERED.items()} == old_budgets
    assert all(level(new).blunder == 0 for new in RENUMBERED.values())
    assert level(STAND_IN_LEVEL).iterations == old_budgets[1]  # the old level 1 stands in


def test_the_twelve_levels_move_to_the_level_of_the_same_budget() -> None:
    twelve = [1, 2, 8, 10, 30, 100, 300, 600, 1_500, 4_000, 25_000, 300_000]  # 2026-12-06-ten-levels.md
    assert [level(RENUMBERED_TWELVE[old]).iterations for old in range(1, 13)] == twelve
    # The beginners keep their numbers, and with them their blunders.
    assert all(RENUMBERED_TWELVE[old] == old and level(old).blunder > 0 for old in (1, 2, 3))


def test_the_nearest_level_to_a_rating() -> None:
    for lv in LEVELS:
        assert nearest_level(lv.rating) == lv.number
        assert level_rating(lv.number) == lv.rating
    assert nearest_level(-10_000) == MIN_LEVEL and nearest_level(10_000) == MAX_LEVEL


def test_level_looks_a_level_up_or_says_what_is_wrong() -> None:
    assert level(MAX_LEVEL) is LEVELS[-1]
    assert isinstance(level(MIN_LEVEL), Level)
    for bad in (0, MAX_LEVEL + 1, "3", None):
        with pytest.raises(ValueError, match=f"level must be from 1 to {MAX_LEVEL}, got {re.escape(repr(bad))}"):
            level(bad)  # type: ignore[arg-type]


def test_the_docs_table_is_the_list() -> None:
    rows = re.findall(r"^\| (\d+) \| ([^|]+) \| ([\d ]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| (\d+) \[(\d+), (\d+)\] \|",
                      AI_DOC.read_text(encoding="utf-8"), re.M)
    table = [(int(n), name.strip(), int(iterations.replace(" ", "")), float(seconds), float(blunder), float(think),
              int(rating), int(low), int(high)) for n, name, iterations, seconds, blunder, think, rating, low, high in rows]
    assert table == [(lv.number, lv.name, lv.iterations, lv.seconds, lv.blunder, lv.think, lv.rating, lv.rating_low,
                      lv.rating_high) for lv in LEVELS]


def test_levels_load_without_numpy_or_numba() -> None:
    # The server imports the levels in processes that never search.
    code = "import sys, omega.ai.levels; print(sorted({'numpy', 'numba'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("number", [lv.number for lv in LEVELS])
def test_every_level_plays_legal_turns_on_every_side_and_player_count(number: int) -> None:
    # Tiny boards to the end at every player count, and a turn or two on each larger side;
    # the strong levels' time cap is cut so that the test stays quick (the budget is theirs).
    from omega import Game
    from omega.ai import make_bot

    bot = make_bot(f"mcts:level={number},time=0.05,seed={number}")
    for players in (2, 3, 4):
        game = Game(players=players, size=3, pie_rule=players == 2)
        while not game.is_over:
            game.apply(bot.choose(game))  # refuses an illegal turn
    for side in range(4, 11):
        game = Game(players=2 + side % 3, size=side, pie_rule=side % 3 == 0)
        for _ in range(2):
            game.apply(bot.choose(game))
    assert game.turns_played == 2
