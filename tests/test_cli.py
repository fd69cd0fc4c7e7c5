"""``omega show`` and ``omega play`` run as real processes, with scripted standard input."""

from __future__ import annotations

import json
import os
import pty
import random
import subprocess
import sys
from pathlib import Path

import pytest

from omega import Color, Game
from omega.texts import factors_text

ROOT = Path(__file__).resolve().parent.parent
OMEGA = [sys.executable, "-m", "omega.cli"]
ENV = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}

DOC_RECORD = """\
Players: 2
Size: 3
Pie: yes
White: Bo
Black: Ann

1. d2 d3
2. swap
3. a2 c2
4. c4 c3
5. c1 b3
6. d5 c5
7. b2 b1
8. b4 a3
9. a1 e3
"""

DOC_BOARD = """\
         1   2   3
 a     W   W   B   4
 b   B   W   B   W   5
 c W   B   B   W   B
 d   W   B   .   W
 e     B   .   ."""

TIE_RECORD = "Players: 2\nSize: 2\n\n1. a1 c3\n2. c2 b1\n"


def omega(*args: str, stdin: str = "", env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*OMEGA, *args], input=stdin, capture_output=True, text=True, timeout=60,
        env=env if env is not None else ENV, cwd=cwd,
    )


def assert_one_line_error(result: subprocess.CompletedProcess[str], *parts: str) -> None:
    assert result.returncode == 2, result
    assert result.stderr.count("\n") == 1 and result.stderr.endswith("\n"), result.stderr
    assert "Traceback" not in result.stderr
    for part in parts:
        assert part in result.stderr, (part, result.stderr)


# -- omega show -----------------------------------------------------------------------------


def test_show_text_record(tmp_path: Path) -> None:
    path = tmp_path / "game.txt"
    path.write_text(DOC_RECORD)
    result = omega("show", str(path))
    assert result.returncode == 0 and result.stderr == ""
    out = result.stdout
    assert DOC_BOARD in out
    assert "White: Bo" in out and "after 9 of 9 entries" in out
    assert "White (player 1): 3 x 3 x 2 = 18" in out
    assert "Black (player 0): 7 x 1 = 7" in out
    assert "White groups: [3] a1 a2 b2 | [3] b4 c4 d5 | [2] c1 d2" in out
    assert "Black groups: [7] a3 b1 b3 c2 c3 d3 e3 | [1] c5" in out
    assert "Game over: White (player 1) wins with 18" in out
    assert "1. White (player 1): 3 x 3 x 2 = 18\n  2. Black (player 0): 7 x 1 = 7" in out
    assert "Tie-break" not in out
    assert "\x1b[" not in out  # not a terminal: no colours


def test_show_tie_break_and_stdin() -> None:
    result = omega("show", "-", stdin=TIE_RECORD)
    assert result.returncode == 0
    assert "Tie-break: White and Black both score 1; Black wins as the colour later in turn order." in result.stdout
    assert "Game over: Black (player 1) wins with 1" in result.stdout


def test_show_turn(tmp_path: Path) -> None:
    path = tmp_path / "game.txt"
    Game.from_record(DOC_RECORD)  # the record is valid
    path.write_text(DOC_RECORD.replace("Black: Ann\n", "Black: Ann\nResult: White 18, Black 7; White wins\n"))
    result = omega("show", str(path), "--turn", "1")
    assert result.returncode == 0
    assert "after 1 of 9 entries" in result.stdout
    assert "Black to move (player 1), round 1; 17 empty cells" in result.stdout
    assert "Result" not in result.stdout  # the end result is not the position shown
    after_swap = omega("show", str(path), "--turn", "2")
    assert "Black to move (player 0), round 1" in after_swap.stdout
    assert "Last action: swap" in after_swap.stdout
    start = omega("show", str(path), "--turn", "0")
    assert "White to move (player 0), round 1; 19 empty cells" in start.stdout
    assert "White (player 0): 0" in start.stdout
    assert_one_line_error(omega("show", str(path), "--turn", "10"), "--turn 10 is past the end of the record (9 entries)")
    assert_one_line_error(omega("show", str(path), "--turn", "-1"), "omega show:")


def test_show_json(tmp_path: Path) -> None:
    path = tmp_path / "game.txt"
    path.write_text(DOC_RECORD)
    result = omega("show", str(path), "--json")
    assert result.returncode == 0
    data = json.loads(result.stdout)
    assert result.stdout.count("\n") == 1  # one object on one line
    assert data["winner"] == "White" and data["scores"] == {"White": "18", "Black": "7"}
    assert data["factors"] == {"White": "3 x 3 x 2 = 18", "Black": "7 x 1 = 7"}
    assert data["groups"]["White"] == [["a1", "a2", "b2"], ["b4", "c4", "d5"], ["c1", "d2"]]
    assert data["players_of"] == {"White": 1, "Black": 0}
    assert data["to_move"] is None and data["tie_break"] is None
    assert data["stones"]["a1"] == "White" and "d4" not in data["stones"]
    partial = json.loads(omega("show", str(path), "--json", "--turn", "3").stdout)
    assert partial["entries_shown"] == 3 and partial["entries_total"] == 9
    assert partial["to_move"] == "White" and partial["current_player"] == 1 and partial["winner"] is None
    tie = json.loads(omega("show", "-", "--json", stdin=TIE_RECORD).stdout)
    assert tie["tie_break"].startswith("Tie-break: White and Black both score 1")


def test_show_json_record(tmp_path: Path) -> None:
    from omega.record import to_json

    path = tmp_path / "game.json"
    path.write_text(json.dumps(to_json(Game.from_record(DOC_RECORD), {"Event": "x"})))
    result = omega("show", str(path))
    assert result.returncode == 0
    assert DOC_BOARD in result.stdout and "Event: x" in result.stdout


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("Players: 2\nSize: 5\n\n1. e5 a1\n2. e4 a1\n", "line 5, entry 2: cell a1 is occupied by Black"),
        ("Players: 7\nSize: 5\n", "line 1: Players must be a number from 2 to 4, got '7'"),
        ("Size: 5\n", "line 1: the header has no Players tag"),
        ('{"format": "omega-record", "version": 1, "players": 2, "size": 5, "actions": [["e5"]]}',
         "record JSON, action 1: a turn places 2 stones"),
        ("{broken", "record JSON is not valid JSON"),
    ],
)
def test_show_bad_records(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(content)
    assert_one_line_error(omega("show", str(path)), f"omega show: {path}: {message}")


def test_show_unreadable_files(tmp_path: Path) -> None:
    assert_one_line_error(omega("show", str(tmp_path / "missing.txt")), "cannot read", "No such file or directory")
    assert_one_line_error(omega("show", str(tmp_path)), "cannot read", "Is a directory")
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\xff\xfe\x00")
    assert_one_line_error(omega("show", str(binary)), "not UTF-8 text")
    assert_one_line_error(omega("show"), "omega show:", "RECORD_FILE")


def run_on_terminal(args: list[str], env: dict[str, str]) -> str:
    """Run ``omega`` with its standard output on a pseudo-terminal; returns what it printed."""
    master, slave = pty.openpty()
    process = subprocess.Popen([*OMEGA, *args], stdout=slave, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env)
    os.close(slave)
    text = read_terminal(master)
    assert process.wait(timeout=60) == 0
    return text


def read_terminal(master: int) -> str:
    """Everything written to a pseudo-terminal until its other end is closed; closes ``master``."""
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    return b"".join(chunks).decode()


def test_show_colours_only_on_a_terminal(tmp_path: Path) -> None:
    path = tmp_path / "game.txt"
    path.write_text(DOC_RECORD)
    coloured = run_on_terminal(["show", str(path)], ENV)
    assert "\x1b[1;97mW\x1b[0m" in coloured and "\x1b[1;90mB\x1b[0m" in coloured
    # The last turn (White a1, Black e3) is underlined: one stone of each colour.
    assert coloured.count("\x1b[1;97m\x1b[4mW") == 1 and coloured.count("\x1b[1;90m\x1b[4mB") == 1
    assert coloured.split("\n a ")[1].split("\n")[0].startswith("    \x1b[1;97m\x1b[4mW")  # a1
    assert "\x1b[" not in run_on_terminal(["show", str(path), "--no-color"], ENV)
    assert "\x1b[" not in run_on_terminal(["show", str(path)], {**ENV, "NO_COLOR": "1"})


# -- omega play -----------------------------------------------------------------------------


def scripted_game(players: int, size: int, seed: int) -> list[list[str]]:
    game = Game(players=players, size=size)
    rng = random.Random(seed)
    turns = []
    while not game.is_over:
        cells = rng.sample(game.empty_cells(), players)
        game.play(cells)
        turns.append(cells)
    return turns


def test_full_three_player_game_with_bad_input_and_save(tmp_path: Path) -> None:
    turns = scripted_game(3, 4, seed=11)
    assert len(turns) == 12  # side 4: 37 cells, 4 rounds of 9 stones, 1 cell left
    lines = ["", "help", "hello", "e5", "a1 a1 a2", "a1 a2", "a1 a2 a3 a4", "z9 a1 a2", "swap"]
    for i, cells in enumerate(turns):
        if i == 4:
            lines.append(" , ".join(c.upper() for c in cells))  # commas and upper case
            lines.append("undo")
            lines.append(" ".join(cells))
        elif i == 5:
            occupied = turns[0][0]
            lines.append(f"{occupied} {cells[1]} {cells[2]}")  # an occupied cell
            lines.append(" ".join(cells))
        else:
            lines.append(" ".join(cells))
    lines.append("this line comes after the end and is never read")
    save = tmp_path / "three.txt"
    result = omega("play", "--players", "3", "--size", "4", "--save", str(save), stdin="\n".join(lines) + "\n")
    out = result.stdout
    assert result.returncode == 0, result.stderr
    assert result.stderr == "" and "Traceback" not in out
    assert "Type 3 cells in colour order (White, Black, Red)" in out  # the empty line
    assert "Commands:" in out and "undo" in out  # help
    assert "Unknown command 'hello'; type `help` for the commands." in out
    assert "Illegal turn: a turn places 3 stones (one per colour), got 1 cell." in out
    assert "Illegal turn: cell a1 is given twice in one turn." in out
    assert "got 2 cells" in out and "got 4 cells" in out
    assert "Illegal turn: 'z9' is not a cell of the side-4 board" in out
    assert "Cannot swap: swap is not allowed: the pie rule is off." in out
    assert f"Illegal turn: cell {turns[0][0]} is occupied by White." in out
    assert "Undone." in out
    assert "Red to move (player 2), round 1" in out and "White to move (player 0), round 4" in out

    expected = Game(players=3, size=4)
    for cells in turns:
        expected.play(cells)
    winner = expected.winner
    assert winner is not None
    assert f"Game over: {winner.label} (player {int(winner)}) wins with {expected.score(winner)}" in out
    ranking = "\n".join(
        f"{place}. {c.label} (player {int(c)}): {factors_text(expected, c)}"
        for place, c in enumerate(expected.ranking(), start=1)
    )
    assert "Final ranking:\n" + ranking in out
    assert f"Saved the record to {save}" in out

    saved = Game.from_record(save.read_text())
    assert saved == expected and saved.is_over
    shown = omega("show", str(save))
    assert shown.returncode == 0
    assert "Ranking:\n" + "\n".join("  " + line for line in ranking.splitlines()) in shown.stdout


def test_pie_swap_in_the_terminal(tmp_path: Path) -> None:
    script = "e5 a1\nswap\nswap\ne4 a2\nsave {}\nquit\n".format(tmp_path / "pie.txt")
    result = omega("play", "--pie", stdin=script)
    out = result.stdout
    assert result.returncode == 0
    assert "(pie rule: you may type `swap` to take White's position)" in out
    assert "Swapped: player 1 now holds White, player 0 holds Black." in out
    assert "Black to move (player 0), round 1" in out
    assert "Cannot swap: swap is allowed only right after the first turn." in out
    assert "White to move (player 1), round 2" in out
    assert "Game stopped." in out
    record = (tmp_path / "pie.txt").read_text()
    assert "White: player 1\nBlack: player 0\n" in record
    assert Game.from_record(record).history == (("e5", "a1"), "swap", ("e4", "a2"))


def test_end_of_input_ends_cleanly_and_saves(tmp_path: Path) -> None:
    save = tmp_path / "partial.txt"
    result = omega("play", "--save", str(save), stdin="e5 a1\n")
    assert result.returncode == 0 and result.stderr == ""
    assert "End of input: the game is left unfinished." in result.stdout
    assert Game.from_record(save.read_text()).history == (("e5", "a1"),)
    empty = omega("play", stdin="")
    assert empty.returncode == 0 and "End of input" in empty.stdout


def test_quit_and_unwritable_save(tmp_path: Path) -> None:
    result = omega("play", stdin=f"save {tmp_path}/no/such/dir/x.txt\nsave\nquit\n")
    assert result.returncode == 0
    assert f"Could not save to {tmp_path}/no/such/dir/x.txt: No such file or directory" in result.stdout
    assert "Usage: save FILE" in result.stdout
    assert "Game stopped." in result.stdout


def test_human_against_a_bot(tmp_path: Path) -> None:
    save = tmp_path / "bot.txt"
    result = omega("play", "--size", "2", "--ai", "1=random:seed=3", "--save", str(save), stdin="a1 c3\n")
    assert result.returncode == 0, result.stderr
    assert "Player 1 (random:seed=3) plays: " in result.stdout
    assert "Game over:" in result.stdout and "Final ranking:" in result.stdout
    game = Game.from_record(save.read_text())
    assert game.is_over and game.history[0] == ("a1", "c3") and len(game.history) == 2
    assert "Black: player 1, random:seed=3" in save.read_text()


def test_undo_takes_back_the_bots_turn_too() -> None:
    # Seat 1 is a bot: after the human's turn and the bot's reply, one undo returns to the
    # human's position before their own turn (undoing only the bot's turn would let it replay).
    result = omega("play", "--ai", "1=random:seed=1", stdin="e5 a1\nundo\nquit\n")
    assert result.returncode == 0
    after_undo = result.stdout.split("Undone.")[1]
    assert "White to move (player 0), round 1; 61 empty cells" in after_undo


def test_two_bots_play_a_whole_game_without_input(tmp_path: Path) -> None:
    save = tmp_path / "bots.txt"
    result = omega("play", "--players", "4", "--size", "4", "--ai", "0=random:seed=1", "--ai", "1=random:seed=2",
                   "--ai", "2=random:seed=3", "--ai", "3=random:seed=4", "--save", str(save))
    assert result.returncode == 0
    assert "Blue (player 3, random:seed=4): " in result.stdout
    final_board = result.stdout.split("Last turn:")[-2].rsplit(" a ", 1)[1]
    assert final_board.count("U") == 8 and final_board.count("W") == 8  # 8 stones of each colour
    game = Game.from_record(save.read_text())
    assert game.is_over and game.turns_played == 8  # 37 // 16 = 2 rounds of 4 turns
    assert game.empty_count == 37 % 16


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "3", "--pie"], "omega play: --pie is a 2-player option"),
        (["--ai", "2=random"], "omega play: --ai seat '2' must be a player number from 0 to 1"),
        (["--ai", "random"], "omega play: --ai 'random' must look like SEAT=BOT"),
        (["--ai", "0=nosuch"], "omega play: --ai 0=nosuch: unknown bot 'nosuch'"),
        (["--ai", "0=random", "--ai", "0=random"], "omega play: --ai seat 0 is given twice"),
        (["--size", "14"], "size must be from 2 to 13, got 14"),
        (["--players", "x"], "players 'x' is not a whole number"),
    ],
)
def test_play_bad_arguments(args: list[str], message: str) -> None:
    assert_one_line_error(omega("play", *args, stdin="quit\n"), message)


def test_colour_letters_when_not_a_terminal() -> None:
    result = omega("play", "--size", "3", stdin="c3 a1\nquit\n")
    board_after = result.stdout.split("c3 a1\n", 1)[1]
    assert " a     B   .   .   4" in board_after
    assert " c .   .   W   .   ." in board_after
    assert all(ch not in result.stdout for ch in "\x1b")
    assert Color.parse("u") is Color.BLUE  # Blue's letter on the board is U


def test_save_to_a_name_with_spaces(tmp_path: Path) -> None:
    target = tmp_path / "my game.txt"
    result = omega("play", stdin=f"e5 a1\nsave {target}\nquit\n")
    assert f"Saved the record to {target}" in result.stdout
    assert Game.from_record(target.read_text()).history == (("e5", "a1"),)


def into_closed_pipe(args: list[str], env: dict[str, str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    """Run ``omega`` with its standard output on a pipe whose read end is already closed."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run([*OMEGA, *args], env=env, input=stdin, stdout=write_end, stderr=subprocess.PIPE,
                              text=True, timeout=60)
    finally:
        os.close(write_end)


def test_show_into_a_closed_pipe_is_quiet() -> None:
    # Like `omega show game.txt | head -0`: nobody reads the output. The read end is closed
    # before the process starts, so its first write fails with EPIPE every time.
    result = into_closed_pipe(["show", str(ROOT / "docs" / "example-game.txt")], ENV)
    assert result.returncode == 0
    assert result.stderr == ""


def test_a_reader_that_closes_early_gets_no_traceback() -> None:
    # `omega match ... | head -1`: the reader stops after one line.
    process = subprocess.Popen(
        [*OMEGA, "match", "random", "random", "--games", "300", "--jobs", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.readline()
    process.stdout.close()
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=60) == 0
    assert "Traceback" not in stderr


@pytest.mark.parametrize(("args", "stdin"), [
    (["show", str(ROOT / "docs" / "example-game.txt")], ""),
    (["match", "random", "random", "--games", "2", "--size", "3", "--jobs", "1"], ""),
    (["play"], "e5 a1\nquit\n"),
    (["engine"], "name\nshowboard\nquit\n"),
])
def test_buffered_output_into_a_closed_pipe_is_quiet(args: list[str], stdin: str) -> None:
    # Without PYTHONUNBUFFERED the output waits in a buffer, so the closed pipe shows up only
    # when that buffer is flushed: still no message and exit status 0, for every command.
    result = into_closed_pipe(args, {k: v for k, v in ENV.items() if k != "PYTHONUNBUFFERED"}, stdin)
    assert (result.returncode, result.stderr) == (0, "")
