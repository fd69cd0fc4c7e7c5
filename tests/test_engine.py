"""``omega engine`` driven as a real subprocess over pipes, the way a GUI or a tournament
manager drives it: one command per line, one ``=``/``?`` answer ending in an empty line."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from omega import Color, Game, __version__
from omega.ai import make_bot, registered
from omega.ai.base import register, unregister
from omega.engine import Engine
from omega.game import Action
from omega.record import to_json

ANSWER_TIMEOUT = 30.0  # seconds; generous for a loaded 2-core machine

REQUIRED = (
    "name", "version", "protocol_version", "list_commands", "boardsize", "players", "pie",
    "clear_board", "play", "swap", "genmove", "undo", "time_per_turn", "final_score",
    "showboard", "quit",
)


class EngineProcess:
    """An ``omega engine`` child process with a line reader that never blocks a test forever."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "omega.cli", "engine"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in iter(self.proc.stdout.readline, b""):
            self.lines.put(line)
        self.lines.put(b"")  # end of output

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def read_answer(self) -> str:
        """The next answer: its lines up to (not including) the empty line that ends it."""
        lines: list[str] = []
        while True:
            line = self.lines.get(timeout=ANSWER_TIMEOUT)
            if line == b"":
                raise AssertionError(f"engine output ended inside an answer: {lines!r}")
            text = line.decode("utf-8")
            assert text.endswith("\n"), text
            if text == "\n":
                return "\n".join(lines)
            lines.append(text[:-1])

    def ask(self, command: str) -> str:
        self.send_raw(command.encode("utf-8") + b"\n")
        return self.read_answer()

    def ok(self, command: str) -> str:
        """Send a command that must succeed; return its result (text after ``= ``)."""
        answer = self.ask(command)
        assert answer.startswith("= "), f"{command!r} -> {answer!r}"
        return answer[2:]

    def fail(self, command: str) -> str:
        """Send a command that must fail; return its message (text after ``? ``)."""
        answer = self.ask(command)
        assert answer.startswith("? "), f"{command!r} -> {answer!r}"
        assert "\n" not in answer
        return answer[2:]

    def finish(self) -> tuple[int, str]:
        """Close stdin, wait for the exit; the exit status and standard error."""
        assert self.proc.stdin is not None
        if not self.proc.stdin.closed:
            self.proc.stdin.close()
        status = self.proc.wait(timeout=ANSWER_TIMEOUT)
        assert self.proc.stderr is not None
        return status, self.proc.stderr.read().decode("utf-8", errors="replace")


def board_marks(showboard: str) -> dict[str, str]:
    """Cell -> mark read back from a ``showboard`` answer (rows 'a1 . W . a3')."""
    marks: dict[str, str] = {}
    for line in showboard.split("\n"):
        words = line.split()
        if len(words) < 3 or not words[0][1:].isdigit() or words[-1][0] != words[0][0]:
            continue
        row, first = words[0][0], int(words[0][1:])
        for offset, mark in enumerate(words[1:-1]):
            marks[f"{row}{first + offset}"] = mark
    return marks


@pytest.fixture
def engine() -> Iterator[EngineProcess]:
    process = EngineProcess()
    yield process
    status, stderr = process.finish()
    # Whatever a test sent, the engine ends cleanly and never prints a traceback.
    assert status == 0
    assert stderr == ""


def test_identity_commands(engine: EngineProcess) -> None:
    assert engine.ok("name") == "Omega"
    assert engine.ok("version") == __version__
    assert engine.ok("protocol_version") == "1"
    commands = engine.ok("list_commands").split("\n")
    assert set(REQUIRED) <= set(commands)
    assert {"bot", "scores", "to_move", "can_swap", "record", "loadrecord", "reg_genmove"} <= set(commands)
    for command in commands:
        assert engine.ok(f"known_command {command}") == "true"
    assert engine.ok("known_command fly") == "false"
    assert engine.ok("KNOWN_COMMAND Play") == "true"  # commands are case-insensitive


def test_full_game_against_the_random_bot_to_the_end(engine: EngineProcess) -> None:
    engine.ok("boardsize 4")
    engine.ok("bot random:seed=3")
    mirror = Game(players=2, size=4)  # the same moves replayed on the reference rules
    while True:
        to_move = engine.ok("to_move")
        if mirror.is_over:
            assert to_move == "none"
            break
        assert mirror.to_move is not None
        assert to_move == mirror.to_move.label
        if mirror.to_move is Color.WHITE:
            cells = engine.ok("genmove").split()
        else:  # the controller plays Black itself: the first empty cells
            cells = list(mirror.empty_cells()[:2])
            assert engine.ok("play " + " ".join(cells)) == ""
        mirror.play(cells)
        assert engine.ok("scores") == " ".join(f"{c.label} {s}" for c, s in mirror.scores().items())
    assert mirror.turns_played == 18  # 37 cells, 4 per round: 9 rounds
    scores = mirror.scores()
    winner = mirror.winner
    assert winner is not None
    assert engine.ok("final_score") == (
        f"White {scores[Color.WHITE]}, Black {scores[Color.BLACK]}; {winner.label} wins"
    )
    assert engine.fail("genmove") == "the game is over"
    assert "game over after 18 turns" in engine.ok("showboard")
    record = engine.ok("record")
    assert Game.from_record(record) == mirror
    engine.ok("undo")  # taking back the last turn reopens the game
    assert engine.ok("to_move") == "Black"
    assert engine.ok("quit") == ""
    assert engine.finish()[0] == 0


def test_genmove_answers_the_cells_it_plays_in_colour_order(engine: EngineProcess) -> None:
    engine.ok("players 3")
    engine.ok("boardsize 3")
    engine.ok("bot random:seed=8")
    cells = engine.ok("genmove white").split()
    assert len(cells) == 3
    game = Game(players=3, size=3)
    game.play(cells)
    marks = board_marks(engine.ok("showboard"))
    assert len(marks) == 19
    stones = game.stones()
    assert marks == {cell: "WBRU"[stones[cell]] if cell in stones else "." for cell in game.cells}
    # reg_genmove proposes without playing; genmove plays.
    proposal = engine.ok("reg_genmove").split()
    assert len(proposal) == 3
    assert engine.ok("to_move") == "Black"
    assert engine.fail("genmove white") == "it is Black's turn, not White's"
    assert len(engine.ok("genmove b").split()) == 3
    assert engine.ok("to_move") == "Red"


def test_four_players_and_colour_order(engine: EngineProcess) -> None:
    engine.ok("players 4")
    engine.ok("boardsize 3")
    assert engine.ok("play c3 a1 e5 c1") == ""
    assert engine.ok("scores") == "White 1 Black 1 Red 1 Blue 1"
    assert engine.ok("to_move") == "Black"
    assert engine.fail("play c4 a2 e4") == "a turn places 4 stones (one per colour), got 3 cells"
    assert engine.ok("play black c4 a2 e4 c2") == ""  # a GTP-style leading colour is accepted
    assert engine.ok("final_score") == "White 2, Black 2, Red 2, Blue 2; Blue leads"


def test_pie_rule_swap_and_undo(engine: EngineProcess) -> None:
    engine.ok("boardsize 3")
    assert engine.ok("can_swap") == "false"
    engine.ok("pie on")
    engine.ok("play c3 a1")
    assert engine.ok("can_swap") == "true"
    assert engine.ok("swap") == ""
    assert engine.ok("to_move") == "Black"
    assert "Black to move (player 0)" in engine.ok("showboard")
    assert engine.fail("swap") == "swap is allowed only right after the first turn"
    engine.ok("undo")
    assert "Black to move (player 1)" in engine.ok("showboard")
    assert engine.ok("play swap") == ""  # the swap is also accepted as a 'play'
    engine.ok("undo")
    engine.ok("undo")
    assert engine.fail("undo") == "nothing to undo"
    assert engine.fail("players 3") == "the pie rule is a 2-player option: send 'pie off' first"
    engine.ok("pie off")
    engine.ok("play c3 a1")
    assert engine.fail("swap") == "swap is not allowed: the pie rule is off"


def test_rule_commands_start_a_new_game(engine: EngineProcess) -> None:
    engine.ok("play e5 a1")
    engine.ok("clear_board")
    assert engine.ok("scores") == "White 0 Black 0"
    engine.ok("play e5 a1")
    engine.ok("boardsize 6")
    assert engine.ok("scores") == "White 0 Black 0"
    assert engine.ok("play f6 k11") == ""  # k11 exists only from side 6 on
    engine.ok("players 3")
    assert engine.ok("scores") == "White 0 Black 0 Red 0"
    engine.ok("boardsize 2")
    engine.ok("players 4")  # 7 cells < 16: a 4-player game on side 2 is over at once
    assert engine.ok("to_move") == "none"
    assert engine.fail("play a1 a2 b1 b2") == "the game is over"


def test_showboard_draws_the_hex_board(engine: EngineProcess) -> None:
    engine.ok("boardsize 2")
    engine.ok("play b2 a1")
    assert engine.ok("showboard").split("\n") == [
        "",
        " a1 B . a2",
        "b1 . W . b3",
        " c2 . . c3",
        "Black to move (player 1), turn 2, round 1",
        "scores: White 1, Black 1",
    ]


def test_bot_and_time_per_turn(engine: EngineProcess) -> None:
    make_bot("random")  # loads every bot available into the registry, as the engine does
    names = registered()
    strongest = next(n for n in ("mcts", "greedy", "random") if n in names)
    default = engine.ok("bot")
    assert default == ("mcts:time=1" if strongest == "mcts" else strongest)
    engine.ok("time_per_turn 0.25")
    assert engine.ok("bot") == ("mcts:time=0.25" if strongest == "mcts" else strongest)
    engine.ok("bot random:seed=5")
    assert engine.ok("bot") == "random:seed=5"  # random has no time option: left as it is
    assert engine.fail("bot nosuchbot").startswith("unknown bot 'nosuchbot'")
    assert engine.fail("bot random:depth=3") == "bot 'random' has no option depth"
    assert engine.ok("bot") == "random:seed=5"  # a rejected spec changes nothing
    for bad in ("0", "-1", "abc", "inf", "nan"):
        assert engine.fail(f"time_per_turn {bad}").startswith("time_per_turn ")
    assert engine.fail("time_per_turn") == "usage: time_per_turn SECONDS"


def test_same_bot_seed_gives_the_same_moves() -> None:
    games = []
    for _ in range(2):
        process = EngineProcess()
        process.ok("boardsize 3")
        process.ok("bot random:seed=11")
        games.append([process.ok("genmove") for _ in range(4)])
        assert process.finish() == (0, "")
    assert games[0] == games[1]


def test_record_round_trip_through_loadrecord(engine: EngineProcess, tmp_path: Path) -> None:
    engine.ok("pie on")
    engine.ok("play e5 a1")
    engine.ok("swap")
    engine.ok("play e4 a2")
    record = engine.ok("record")
    assert record.startswith("\nPlayers: 2\nSize: 5\nPie: yes\n")
    path = tmp_path / "game.txt"
    path.write_text(record)
    engine.ok("clear_board")
    assert engine.ok(f"loadrecord {path}") == ""
    assert engine.ok("record") == record
    assert engine.ok("to_move") == "White"
    # JSON records load too.
    game = Game(players=3, size=4)
    game.play(["d4", "a1", "g7"])
    json_path = tmp_path / "game.json"
    json_path.write_text(json.dumps(to_json(game)))
    engine.ok(f"loadrecord {json_path}")
    assert engine.ok("scores") == "White 1 Black 1 Red 1"
    assert engine.ok("to_move") == "Black"
    # Bad files leave the game as it was.
    assert engine.fail(f"loadrecord {tmp_path / 'missing.txt'}").startswith("cannot read ")
    bad = tmp_path / "bad.txt"
    bad.write_text("Players: 2\nSize: 5\n\n1. e5 e5\n")
    assert engine.fail(f"loadrecord {bad}").endswith("line 4, entry 1: cell e5 is given twice in one turn")
    assert engine.fail("loadrecord") == "usage: loadrecord FILE"
    assert engine.ok("to_move") == "Black"


def test_ids_are_echoed_on_success_and_failure(engine: EngineProcess) -> None:
    assert engine.ask("12 name") == "=12 Omega"
    assert engine.ask("0 boardsize 3") == "=0 "
    assert engine.ask("7 play c3 c3") == "?7 cell c3 is given twice in one turn"
    assert engine.ask("99 frobnicate") == "?99 unknown command: frobnicate"
    assert engine.ask("5") == "?5 no command after the id"
    engine.ok("time_per_turn 0.2")  # the default bot (the strongest registered) is quick
    assert engine.ask("3 genmove").startswith("=3 ")
    assert engine.ask("42 quit") == "=42 "
    assert engine.finish()[0] == 0


def test_malformed_input_always_gets_an_answer(engine: EngineProcess) -> None:
    # Blank lines and comments get no answer: the next answer is the name's.
    engine.send_raw(b"\n   \n# just a comment\n\t\n")
    assert engine.ok("name") == "Omega"
    assert engine.ok("name # trailing comment") == "Omega"
    assert engine.ok("\tboardsize\t3\r") == ""  # tabs and CR are whitespace
    engine.send_raw(b"na\x01me\n")  # control characters are dropped, as in GTP
    assert engine.read_answer() == "= Omega"
    engine.send_raw(b"\xff\xfe\x80 play\n")  # not UTF-8
    assert engine.read_answer().startswith("? unknown command")
    cases = {
        "frobnicate": "unknown command: frobnicate",
        "name extra": "usage: name",
        "boardsize": "usage: boardsize N",
        "boardsize 3 4": "usage: boardsize N",
        "boardsize x": "board size must be a whole number, got 'x'",
        "boardsize 1": "board size must be from 2 to 13, got 1",
        "boardsize 14": "board size must be from 2 to 13, got 14",
        "boardsize ３": "board size must be a whole number, got '３'",
        "players 5": "players must be 2, 3 or 4, got 5",
        "players two": "players must be a whole number, got 'two'",
        "pie maybe": "usage: pie on|off (got 'maybe')",
        "play": "usage: play CELL CELL [CELL [CELL]] (one cell per colour in colour order)",
        "play c3": "a turn places 2 stones (one per colour), got 1 cell",
        "play c3 a1 b1": "a turn places 2 stones (one per colour), got 3 cells",
        "play c3 zz": "'zz' is not a cell of the side-3 board (a cell is a row letter and a column number, such as 'e5')",
        "play c3 a9": "'a9' is not a cell of the side-3 board (rows a-e, columns 1-5, |row - column| <= 2)",
        "play red c3 a1": "it is White's turn, not Red's",
        "genmove purple": "'purple' is not a colour (White, Black, Red or Blue)",
        "genmove white black": "usage: genmove [COLOUR]",
        "undo": "nothing to undo",
        "swap": "swap is not allowed: the pie rule is off",
        "known_command": "usage: known_command COMMAND",
    }
    for command, message in cases.items():
        assert engine.fail(command) == message, command
    # After every rejected command the game is untouched.
    assert engine.ok("scores") == "White 0 Black 0"
    assert engine.ok("PLAY C3 A1") == ""  # cells are case-insensitive
    assert engine.fail("play c3 b1") == "cell c3 is occupied by White"
    assert engine.ok("record").endswith("1. c3 a1")
    long_line = "play " + "a1 " * 10_000
    assert engine.fail(long_line).startswith("a turn places 2 stones")


def test_end_of_input_without_quit_ends_cleanly() -> None:
    process = EngineProcess()
    process.send_raw(b"boardsize 3\nplay c3")  # the last line has no newline
    assert process.read_answer() == "= "
    assert process.finish() == (0, "")
    # The answer to the unterminated last line was written before the exit.
    assert process.lines.get(timeout=ANSWER_TIMEOUT) == b"? a turn places 2 stones (one per colour), got 1 cell\n"


def test_quit_stops_reading(engine: EngineProcess) -> None:
    engine.send_raw(b"quit\nname\n")
    assert engine.read_answer() == "= "
    assert engine.finish() == (0, "")
    assert engine.lines.get(timeout=ANSWER_TIMEOUT) == b""  # nothing answered after quit


def test_genmove_with_the_greedy_bot(engine: EngineProcess) -> None:
    engine.ok("boardsize 4")
    engine.ok("bot greedy:seed=2")
    mirror = Game(players=2, size=4)
    for _ in range(4):
        cells = engine.ok("genmove").split()
        mirror.play(cells)  # legal on the reference rules
    assert engine.ok("record").endswith("\n".join(f"{i}. {' '.join(a)}" for i, a in enumerate(mirror.history, 1)))


def _doc_sessions() -> list[list[tuple[str, str]]]:
    """The example sessions of docs/protocol.md: (command, answer) pairs, verbatim."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "protocol.md").read_text()
    sessions = []
    for block in text.split("```")[1::2]:
        lines = block.split("\n")[1:]  # drop the fence's language line
        if not lines or not lines[0].startswith("> "):
            continue
        pairs: list[tuple[str, str]] = []
        for line in lines:
            if line.startswith("> "):
                pairs.append((line[2:], ""))
            elif pairs:
                command, answer = pairs[-1]
                pairs[-1] = (command, answer + line + "\n")
        sessions.append(pairs)
    return sessions


def test_the_documented_sessions_are_real() -> None:
    sessions = _doc_sessions()
    assert len(sessions) == 2
    # The session with the (seeded) random bot replays verbatim.
    process = EngineProcess()
    for command, answer in sessions[1]:
        assert process.ask(command) + "\n\n" == answer, command
    assert process.finish() == (0, "")
    # The MCTS session: its record and final score agree with the rules.
    answers = dict(sessions[0])
    game = Game.from_record(answers["record"].removeprefix("= ").strip())
    scores = game.scores()
    assert game.is_over and game.winner is not None
    assert answers["final_score"] == (
        f"= White {scores[Color.WHITE]}, Black {scores[Color.BLACK]}; {game.winner.label} wins\n\n"
    )


class _Swapper:
    """Swaps whenever the pie rule allows it, else plays the first empty cells."""

    name = "swapper"

    def choose(self, game: Game) -> Action:
        return "swap" if game.can_swap else tuple(game.empty_cells()[: game.players])


def test_genmove_answers_swap_when_the_bot_swaps() -> None:
    # In-process (a test bot cannot reach a child process's registry); same Engine code.
    register("test-swapper")(lambda options: _Swapper())
    try:
        engine = Engine()
        assert engine.execute("bot test-swapper") == "= \n\n"
        assert engine.execute("pie on") == "= \n\n"
        assert engine.execute("play e5 a1") == "= \n\n"
        assert engine.execute("5 genmove") == "=5 swap\n\n"
        assert engine.execute("to_move") == "= Black\n\n"
        assert engine.execute("can_swap") == "= false\n\n"
        assert engine.execute("genmove") == "= a2 a3\n\n"  # the first empty cells
        record = engine.execute("record")
        assert record is not None and record.endswith("1. e5 a1\n2. swap\n3. a2 a3\n\n")
    finally:
        unregister("test-swapper")
