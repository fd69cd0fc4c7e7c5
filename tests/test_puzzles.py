"""Puzzles (issue 33): the miner, the themes, the puzzle file, and the promise each puzzle makes,
checked again: its answer is better than every other turn it allows by its stated margin under
a deeper search than the one that found it (and the one that confirmed it), for a sample of
the shipped set and for the puzzles mined here from a tiny record."""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from omega import Game
from omega.puzzles.command import CHECK, puzzles_main
from omega.puzzles.format import PUZZLE_FORMAT, Puzzle, read_puzzles, shipped_puzzles, write_puzzles
from omega.puzzles.glicko import NEWCOMER, Rating, rate
from omega.puzzles.mine import CONFIRM_MARGIN, MARGIN, check, mine_game
from omega.puzzles.themes import THEMES, themes_of
from omega.puzzles.values import DEEP, QUICK, Budget, turns_of, value_turns

#: A side-3 game whose positions hold two puzzles (one asks for a whole turn, one for a stone).
TINY = Game.from_history([("a3", "c3"), ("c4", "e3"), ("c1", "b3"), ("d3", "a2"), ("b4", "d4"), ("c5", "d2"),
                          ("c2", "e4"), ("e5", "a1")], size=3)
#: Shipped puzzles searched again in this test (each takes a few seconds).
SAMPLE = 8


def holds(puzzle: Puzzle, budget: Budget, seed: int) -> tuple[bool, float | None]:
    """Whether ``puzzle``'s answer beats every other turn it allows by its margin under ``budget``."""
    verdict = check(puzzle, budget, seed=seed)
    if verdict is None:
        return False, None
    return verdict.answer == puzzle.answer and verdict.margin >= puzzle.margin, verdict.margin


def test_the_check_is_deeper_than_the_searches_that_found_and_confirmed_the_puzzles() -> None:
    assert DEEP.deeper_than(QUICK) and CHECK.deeper_than(DEEP)
    for puzzle in shipped_puzzles():
        assert puzzle.found == QUICK.to_json() and puzzle.confirmed == DEEP.to_json()


def test_every_turn_is_valued_and_the_best_ones_searched() -> None:
    position = TINY.position_after(6)
    values = value_turns(position, QUICK, seed=3)
    assert sorted(v.turn for v in values) == sorted(turns_of(position))  # every turn, once
    assert [v.value for v in values] == sorted((v.value for v in values), reverse=True)
    assert sum(v.searched for v in values) >= QUICK.searched
    # The given stones keep only the turns that place them.
    given = value_turns(position, QUICK, seed=3, given=(None, "e4"))
    assert {v.turn[1] for v in given} == {"e4"} and len(given) == len(position.empty_cells()) - 1


def test_puzzles_mined_from_a_tiny_record_hold_under_a_deeper_search() -> None:
    found = list(mine_game(TINY, "tiny.txt", seed=1))
    assert [p.source for p in found] == ["tiny.txt#4", "tiny.txt#6"]
    for p in found:
        assert p.margin == MARGIN and p.found_margin >= CONFIRM_MARGIN
        assert p.value - p.second_value == pytest.approx(p.found_margin, abs=1e-9)
        position = p.game()
        assert position.history == TINY.position_after(int(p.source.split("#")[1])).history
        assert set(p.themes) <= set(THEMES) and p.themes == themes_of(position, p.answer)
        ok, margin = holds(p, CHECK, seed=11)
        assert ok, (p.id, margin)
    # The whole turn is asked where it alone leads; one stone where only that stone does.
    assert found[1].given == (None, None) and found[0].given == ("b4", None)


def test_a_sample_of_the_shipped_puzzles_holds_under_a_deeper_search() -> None:
    shipped = shipped_puzzles()
    for p in random.Random(33).sample(shipped, SAMPLE):
        ok, margin = holds(p, CHECK, seed=12)
        assert ok, (p.id, p.source, margin)


def test_the_shipped_set_is_made_from_the_projects_games() -> None:
    shipped = shipped_puzzles()
    assert len(shipped) >= 300
    assert len({p.id for p in shipped}) == len(shipped)
    for p in shipped:
        assert p.margin == MARGIN and p.found_margin >= CONFIRM_MARGIN and p.goal in ("win", "save")
        assert p.source.startswith("game-") and "#" in p.source
        assert all(g in (None, a) for g, a in zip(p.given, p.answer, strict=True))
        assert not p.game().is_over
    assert {p.players for p in shipped} >= {2} and {p.size for p in shipped} >= {4, 5}
    assert set().union(*(set(p.themes) for p in shipped)) == set(THEMES)


def test_the_puzzle_file_round_trips_and_refuses_bad_lines(tmp_path: Path) -> None:
    some = shipped_puzzles()[:5]
    path = tmp_path / "p.jsonl"
    assert write_puzzles(path, some) == 5
    assert read_puzzles(path) == some
    line = some[0].to_json()
    assert line["format"] == PUZZLE_FORMAT and "answer" in line and line["to_move"] in ("White", "Black", "Red", "Blue")
    bad = [{**line, "version": 9}, {k: v for k, v in line.items() if k != "answer"},
           {**line, "answer": [line["moves"][0][0], *line["answer"][1:]]},          # an occupied cell
           {**line, "given": [line["answer"][1], line["answer"][0]]}]                # not the answer's stones
    for data in bad:
        path.write_text(json.dumps(line) + "\n" + json.dumps(data) + "\n")
        with pytest.raises(ValueError, match="line 2"):
            read_puzzles(path)


def test_themes_read_what_the_answer_does() -> None:
    g = Game(size=4)  # White: a1-a3 and c1-c3; Black: g5-g7 and e3-e5; White to move
    for turn in (["a1", "g7"], ["a2", "g6"], ["a3", "g5"], ["c1", "e3"], ["c2", "e4"], ["c3", "e5"]):
        g.play(turn)
    assert themes_of(g, ("d4", "b2")) == ("split",)        # Black's b2 keeps White's two 3s apart
    assert themes_of(g, ("d4", "f5")) == ("merge",)        # Black's f5 joins Black's two 3s into 7
    assert themes_of(g, ("b2", "d4")) == ("sacrifice",)    # White joins its own 3s: 9 becomes 7
    late = TINY.position_after(6)
    assert "endgame" in themes_of(late, ("c2", "e4"))


def test_glicko2_moves_the_player_and_the_puzzle_apart() -> None:
    player, puzzle = Rating(1500, 200), Rating(1700, 80)
    won, lost = rate(player, [(puzzle, 1.0)]), rate(player, [(puzzle, 0.0)])
    assert won.rating - 1500 > 1500 - lost.rating > 0  # beating a harder puzzle gains more than losing costs
    assert won.deviation < 200 and lost.deviation < 200
    assert rate(puzzle, [(player, 0.0)]).rating < 1700 < rate(puzzle, [(player, 1.0)]).rating
    assert rate(NEWCOMER, [(NEWCOMER, 1.0)], min_deviation=45).deviation >= 45


def test_omega_puzzles_make_and_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = tmp_path / "games"
    records.mkdir()
    (records / "game-00001.txt").write_text(TINY.record())
    out = tmp_path / "made.jsonl"
    run = subprocess.run([sys.executable, "-m", "omega.cli", "puzzles", "make", str(records), "-o", str(out),
                          "--seed", "1", "--limit", "1"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    made = read_puzzles(out)
    assert [p.source for p in made] == ["game-00001.txt#4"] and "1 puzzles from 1 records" in run.stdout
    missing = subprocess.run([sys.executable, "-m", "omega.cli", "puzzles", "make", str(tmp_path / "nope"), "-o",
                              str(out)], capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "no such record file or folder" in missing.stderr
    assert read_puzzles(out) == made  # a refused run leaves the file alone
    kept = tmp_path / "kept.jsonl"
    assert puzzles_main(argparse.Namespace(action="check", file=str(out), sample=None, seed=7, keep=str(kept))) == 0
    assert capsys.readouterr().out.endswith("1 of 1 puzzles hold; 1 by 0.1 or more\n") and read_puzzles(kept) == made
