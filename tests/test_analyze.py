"""``omega analyze`` run as a real process: the text and JSON reviews, standard input, the
progress bar only on a terminal, and one-line errors."""

from __future__ import annotations

import json
import os
import pty
import subprocess
from math import log
from pathlib import Path

from omega import Game
from omega.ai.review import DEFAULT_SECONDS
from omega.costs import account
from omega.record import to_json
from test_cli import DOC_RECORD, ENV, OMEGA, assert_one_line_error, omega, read_terminal

QUICK = ("--iterations", "2000", "--seed", "1")


def test_text_review(tmp_path: Path) -> None:
    path = tmp_path / "game.txt"
    path.write_text(DOC_RECORD)
    result = omega("analyze", str(path), *QUICK)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # not a terminal: no progress bar
    out = result.stdout.splitlines()
    assert out[0] == "Review: 2 players, side 3, pie rule; 9 entries; game over"
    assert f"2000 simulations (at most {DEFAULT_SECONDS:g} s) a position" in out[1]
    rows = [line for line in out if line[:4].strip().isdigit()]
    assert len(rows) == 9
    assert rows[1].split()[1:4] == ["Black", "(p1)", "swap"]  # the swap is an entry of its own
    assert rows[-1].split()[-3:] == ["1.00", "0.00", rows[-1].split()[-1]]  # White won: the result itself
    assert any(line.startswith("Player 0 (Ann):") for line in out)  # names from the record's tags
    assert any(line.startswith("Player 1 (Bo):") for line in out)
    # Then who cost whom what: a row per seat, and the colours' final log-scores.
    game = Game.from_record(DOC_RECORD)
    start = out.index(next(line for line in out if line.startswith("Account: ")))
    rows = [line.split() for line in out[start + 2:start + 5]]
    assert rows[0][:3] == ["player", "0", "(Ann)"] and rows[1][:3] == ["player", "1", "(Bo)"]
    assert rows[2][:2] == ["in", "all"]
    assert [float(v) for v in rows[2][2:]] == [round(log(game.score(c)), 2) for c in game.colors]
    for c in range(2):
        assert abs(float(rows[0][3 + c]) + float(rows[1][3 + c]) - float(rows[2][2 + c])) <= 0.011


def test_json_review_from_standard_input() -> None:
    game = Game.from_record(DOC_RECORD)
    result = omega("analyze", "-", "--json", *QUICK, stdin=json.dumps(to_json(game, {"Event": "club"})))
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("\n") == 1
    data = json.loads(result.stdout)
    assert data["format"] == "omega-review" and data["over"] is True
    assert data["budget"] == {"iterations": 2000, "seconds": DEFAULT_SECONDS}
    assert data["tags"] == {"Event": "club"}
    assert [t["played"] for t in data["turns"]] == [a if a == "swap" else list(a) for a in game.history]
    assert data["turns"][-1]["after"] == {"White": 1.0, "Black": 0.0}
    # The rules' figures: the account, and each colour's log-score and margin a position.
    assert data["account"] == account(game).to_json()
    assert len(data["scores"]["log"]) == len(game.history) + 1
    assert data["scores"]["log"][-1] == {c.label: round(log(game.score(c)), 4) for c in game.colors}
    white, black = data["scores"]["log"][-1]["White"], data["scores"]["log"][-1]["Black"]
    assert data["scores"]["margin"][-1] == {"White": round(white - black, 4), "Black": round(black - white, 4)}
    for turn in data["turns"]:
        assert 0.0 <= turn["loss"] <= 1.0 and turn["mark"] in (None, "mistake", "blunder")
    # The same seed and budget give the same review, when the iterations decide (the time
    # cap, which a loaded machine can reach first, is set out of the way).
    first, again = (omega("analyze", "-", "--json", *QUICK, "--time", "600", *jobs, stdin=DOC_RECORD)
                    for jobs in ((), ("--jobs", "1")))
    assert json.loads(again.stdout)["turns"] == json.loads(first.stdout)["turns"]


def test_unfinished_game_is_reviewed_up_to_now() -> None:
    result = omega("analyze", "-", *QUICK, stdin="Players: 3\nSize: 4\n\n1. d4 a1 g7\n2. c3 a4 g4\n")
    assert result.returncode == 0, result.stderr
    assert "2 entries; the game is not over (reviewed up to its last entry)" in result.stdout


def test_errors_are_one_line(tmp_path: Path) -> None:
    assert_one_line_error(omega("analyze", "-", stdin="Players: 2\nSize: 5\n\n"),
                          "omega analyze: standard input: nothing to review: the game has no turns yet")
    assert_one_line_error(omega("analyze", "-", stdin="Players: 2\nSize: 5\n\n1. e5 a1\n2. e4 a1\n"),
                          "omega analyze: standard input: line 5, entry 2: cell a1 is occupied by Black")
    assert_one_line_error(omega("analyze", str(tmp_path / "none.txt")), "cannot read", "No such file")
    assert_one_line_error(omega("analyze", "-", "--iterations", "0"), "--iterations", "must be at least 1")
    assert_one_line_error(omega("analyze", "-", "--time", "-1"), "--time")
    assert_one_line_error(omega("analyze"), "RECORD")


def test_progress_bar_on_a_terminal(tmp_path: Path) -> None:
    path = tmp_path / "game.txt"
    path.write_text(DOC_RECORD)
    master, slave = pty.openpty()
    process = subprocess.Popen([*OMEGA, "analyze", str(path), *QUICK], stdout=subprocess.PIPE, stderr=slave,
                               stdin=subprocess.DEVNULL, env=ENV)
    os.close(slave)
    bar = read_terminal(master)
    assert process.stdout is not None
    out = process.stdout.read().decode()
    assert process.wait(timeout=60) == 0
    assert "\r[" in bar and "10/10 positions" in bar
    assert "positions" not in out and out.startswith("Review:")
