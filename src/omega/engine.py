"""``omega engine``: a GTP-like line protocol on standard input/output (``docs/protocol.md``).

One command per line, one answer per command: ``= result`` on success or ``? message`` on
failure, then an empty line.  A command may start with a numeric id, which the answer
echoes (``=7 e5 a1``).  Nothing a controller sends makes the engine print a traceback.

>>> engine = Engine()
>>> engine.execute("1 boardsize 3"), engine.execute("play c3 a1")
('=1 \\n\\n', '= \\n\\n')
>>> print(engine.execute("play c3 b1"), end="")
? cell c3 is occupied by White
<BLANKLINE>
>>> print(engine.execute("to_move"), end="")
= Black
<BLANKLINE>
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO, TextIO

from omega import __version__
from omega.ai import make_bot, parse_spec, registered
from omega.ai.base import Bot
from omega.board import MAX_SIZE, MIN_SIZE, Board
from omega.game import SWAP, Color, Game, IllegalMove, check_players
from omega.record import load
from omega.texts import one_line, range_text, scores_text, standing_text

__all__ = ["Engine", "EngineError", "engine_main", "protocol_board", "PROTOCOL_VERSION", "DEFAULT_TIME"]

#: Version of this protocol (``docs/protocol.md``); bumped on incompatible changes.
PROTOCOL_VERSION = "1"
#: Seconds per turn given to the default (time-limited) bot until ``time_per_turn``.
DEFAULT_TIME = 1.0
#: Bots in order of strength: the default is the first one registered.
_STRENGTH_ORDER = ("mcts", "greedy", "random")
#: Bot options that already say how long a bot thinks; ``time_per_turn`` leaves them alone.
_EFFORT_OPTIONS = ("time", "iterations", "level")


class EngineError(Exception):
    """A command that cannot be carried out; its message is the ``?`` answer."""


@dataclass(frozen=True)
class _Command:
    handler: Callable[[list[str]], str]
    usage: str


def protocol_board(game: Game) -> str:
    """The board as ``showboard`` answers it: row ``a`` at the top, each row labelled by its
    first and last cell, so a program can read it back.

    ``W`` ``B`` ``R`` ``U`` are White, Black, Red and Blue stones, ``.`` an empty cell.
    There is never an empty line (an empty line ends a protocol answer).

    >>> g = Game(size=2); g.play(["b2", "a1"])
    >>> print(protocol_board(g))
     a1 B . a2
    b1 . W . b3
     c2 . . c3
    """
    board: Board = game.board
    n = game.size
    stones = game.stones()
    label_width = len(board.cells[-1])
    lines = []
    for r in range(1, 2 * n):
        first, last = max(1, r - n + 1), min(2 * n - 1, r + n - 1)
        names = [f"{chr(96 + r)}{c}" for c in range(first, last + 1)]
        marks = " ".join(stones[name].letter if name in stones else "." for name in names)
        # Half a cell (one character) of indent per row away from the middle: hex layout.
        lines.append(" " * abs(r - n) + f"{names[0]:>{label_width}} {marks} {names[-1]}")
    return "\n".join(lines)


class Engine:
    """The protocol's state: one game, the engine's bot spec and its time per turn.

    :meth:`execute` takes one input line and returns the full answer (or None for a blank
    or comment line); :attr:`done` turns True after ``quit``.

    >>> e = Engine()
    >>> e.execute("# a comment") is None
    True
    >>> e.execute("known_command genmove")
    '= true\\n\\n'
    """

    def __init__(self) -> None:
        self.game = Game()
        self.done = False
        self.time_per_turn = DEFAULT_TIME
        self._bot_spec: str | None = None  # None: the default bot
        self._bot: Bot | None = None
        self._commands: dict[str, _Command] = {}
        for name, handler, usage in (
            ("protocol_version", self._protocol_version, "protocol_version"),
            ("name", self._name, "name"),
            ("version", self._version, "version"),
            ("known_command", self._known_command, "known_command COMMAND"),
            ("list_commands", self._list_commands, "list_commands"),
            ("quit", self._quit, "quit"),
            ("boardsize", self._boardsize, "boardsize N"),
            ("players", self._players, "players N"),
            ("pie", self._pie, "pie on|off"),
            ("clear_board", self._clear_board, "clear_board"),
            ("play", self._play, "play CELL CELL [CELL [CELL]]"),
            ("swap", self._swap, "swap"),
            ("genmove", self._genmove, "genmove [COLOUR]"),
            ("reg_genmove", self._reg_genmove, "reg_genmove [COLOUR]"),
            ("undo", self._undo, "undo"),
            ("time_per_turn", self._time_per_turn, "time_per_turn SECONDS"),
            ("final_score", self._final_score, "final_score"),
            ("scores", self._scores, "scores"),
            ("to_move", self._to_move, "to_move"),
            ("can_swap", self._can_swap, "can_swap"),
            ("showboard", self._showboard, "showboard"),
            ("bot", self._bot_command, "bot [SPEC]"),
            ("record", self._record, "record"),
            ("loadrecord", self._loadrecord, "loadrecord FILE"),
        ):
            self._commands[name] = _Command(handler, usage)

    # -- the line protocol ------------------------------------------------------------

    def execute(self, line: str) -> str | None:
        """The answer to one input line, ending in an empty line; None if there is no command.

        >>> Engine().execute("7 name")
        '=7 Omega\\n\\n'
        >>> Engine().execute("frobnicate")
        '? unknown command: frobnicate\\n\\n'
        """
        words = _clean(line).split()
        if not words:
            return None
        ident = ""
        if words[0].isdigit() and words[0].isascii():
            ident, words = words[0], words[1:]
        try:
            if not words:
                raise EngineError("no command after the id")
            name, args = words[0].lower(), words[1:]
            command = self._commands.get(name)
            if command is None:
                raise EngineError(f"unknown command: {words[0]}")
            result = command.handler(args)
        except (EngineError, IllegalMove) as e:
            return f"?{ident} {one_line(str(e), 'error')}\n\n"
        except Exception as e:  # a bug or a failing bot: still an answer, never a traceback
            return f"?{ident} internal error: {type(e).__name__}: {one_line(str(e), 'error')}\n\n"
        # An empty line ends the answer, so a multi-line result must not contain one. The
        # first line may be empty: a board or record then starts on the line after "=".
        first, *rest = result.split("\n")
        body = "\n".join([first.rstrip(), *(part for part in rest if part.strip())])
        return f"={ident} {body}\n\n"

    # -- helpers ----------------------------------------------------------------------

    def _args(self, args: list[str], low: int, high: int, usage: str) -> None:
        if not low <= len(args) <= high:
            raise EngineError(f"usage: {usage}")

    def _new_game(self, players: int, size: int, pie: bool) -> None:
        try:
            self.game = Game(players=players, size=size, pie_rule=pie)
        except ValueError as e:
            raise EngineError(str(e)) from None

    def _check_colour(self, args: list[str], usage: str) -> None:
        # Optional colour argument as in GTP's "genmove black": it must be the side to move.
        self._args(args, 0, 1, usage)
        if not args:
            return
        try:
            colour = Color.parse(args[0])
        except ValueError as e:
            raise EngineError(str(e)) from None
        if self.game.to_move is None:
            raise EngineError("the game is over")
        if colour != self.game.to_move:
            raise EngineError(f"it is {self.game.to_move.label}'s turn, not {colour.label}'s")

    def bot_spec(self) -> str:
        """The spec of the bot ``genmove`` uses now (time per turn included).

        >>> e = Engine(); _ = e.execute("bot random:seed=4"); e.bot_spec()
        'random:seed=4'
        """
        if self._bot_spec is None:
            make_bot("random")  # loads the optional bots into the registry
            names = registered()
            name = next((n for n in _STRENGTH_ORDER if n in names), names[0])
            base = name
        else:
            base = self._bot_spec
        name, options = parse_spec(base)
        if any(key in options for key in _EFFORT_OPTIONS):
            return base
        timed = f"{base}{',' if ':' in base else ':'}time={self.time_per_turn:g}"
        try:
            make_bot(timed)
        except ValueError:
            return base  # a bot without a time option (random, greedy) plays as it is
        return timed

    def _engine_bot(self) -> Bot:
        if self._bot is None:
            self._bot = make_bot(self.bot_spec())
        return self._bot

    def _choose(self) -> str:
        if self.game.is_over:
            raise EngineError("the game is over")
        bot = self._engine_bot()
        action = bot.choose(self.game.copy())
        check = self.game.copy()
        try:
            check.apply(action)
        except IllegalMove as e:
            raise EngineError(f"the bot chose an illegal action {action!r}: {e}") from None
        return SWAP if action == SWAP else " ".join(self.game.board.name(self.game.board.index(c)) for c in action)

    # -- commands ---------------------------------------------------------------------

    def _protocol_version(self, args: list[str]) -> str:
        self._args(args, 0, 0, "protocol_version")
        return PROTOCOL_VERSION

    def _name(self, args: list[str]) -> str:
        self._args(args, 0, 0, "name")
        return "Omega"

    def _version(self, args: list[str]) -> str:
        self._args(args, 0, 0, "version")
        return __version__

    def _known_command(self, args: list[str]) -> str:
        self._args(args, 1, 1, "known_command COMMAND")
        return "true" if args[0].lower() in self._commands else "false"

    def _list_commands(self, args: list[str]) -> str:
        self._args(args, 0, 0, "list_commands")
        return "\n".join(self._commands)

    def _quit(self, args: list[str]) -> str:
        self.done = True
        return ""

    def _boardsize(self, args: list[str]) -> str:
        self._args(args, 1, 1, "boardsize N")
        size = _int_arg(args[0], "board size")
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise EngineError(range_text("board size", MIN_SIZE, MAX_SIZE, size))
        self._new_game(self.game.players, size, self.game.pie_rule)
        return ""

    def _players(self, args: list[str]) -> str:
        self._args(args, 1, 1, "players N")
        players = _int_arg(args[0], "players")
        try:
            check_players(players)
        except ValueError as e:
            raise EngineError(str(e)) from None
        if players != 2 and self.game.pie_rule:
            raise EngineError("the pie rule is a 2-player option: send 'pie off' first")
        self._new_game(players, self.game.size, self.game.pie_rule)
        return ""

    def _pie(self, args: list[str]) -> str:
        self._args(args, 1, 1, "pie on|off")
        value = args[0].lower()
        if value not in ("on", "off", "yes", "no"):
            raise EngineError(f"usage: pie on|off (got {args[0]!r})")
        on = value in ("on", "yes")
        if on and self.game.players != 2:
            raise EngineError("the pie rule is a 2-player option")
        self._new_game(self.game.players, self.game.size, on)
        return ""

    def _clear_board(self, args: list[str]) -> str:
        self._args(args, 0, 0, "clear_board")
        self._new_game(self.game.players, self.game.size, self.game.pie_rule)
        return ""

    def _play(self, args: list[str]) -> str:
        cells = [word for arg in args for word in arg.split(",") if word]
        if len(cells) == 1 and cells[0].lower() == SWAP:
            self.game.swap()
            return ""
        if cells and _is_colour(cells[0]):
            # GTP habit: "play white e5 a1"; the colour must be the side to move.
            self._check_colour(cells[:1], "play [COLOUR] CELL CELL [CELL [CELL]]")
            cells = cells[1:]
        if not cells:
            raise EngineError("usage: play CELL CELL [CELL [CELL]] (one cell per colour in colour order)")
        self.game.play(cells)
        return ""

    def _swap(self, args: list[str]) -> str:
        self._args(args, 0, 0, "swap")
        self.game.swap()
        return ""

    def _genmove(self, args: list[str]) -> str:
        self._check_colour(args, "genmove [COLOUR]")
        answer = self._choose()
        self.game.apply(SWAP if answer == SWAP else answer.split())
        return answer

    def _reg_genmove(self, args: list[str]) -> str:
        self._check_colour(args, "reg_genmove [COLOUR]")
        return self._choose()

    def _undo(self, args: list[str]) -> str:
        self._args(args, 0, 0, "undo")
        self.game.undo()
        return ""

    def _time_per_turn(self, args: list[str]) -> str:
        self._args(args, 1, 1, "time_per_turn SECONDS")
        try:
            seconds = float(args[0])
        except ValueError:
            raise EngineError(f"time_per_turn needs a number of seconds, got {args[0]!r}") from None
        if not (seconds > 0 and math.isfinite(seconds)):
            raise EngineError(f"time_per_turn must be a positive number of seconds, got {args[0]!r}")
        self.time_per_turn = seconds
        self._bot = None
        return ""

    def _final_score(self, args: list[str]) -> str:
        self._args(args, 0, 0, "final_score")
        return standing_text(self.game)

    def _scores(self, args: list[str]) -> str:
        self._args(args, 0, 0, "scores")
        return " ".join(f"{c.label} {s}" for c, s in self.game.scores().items())

    def _to_move(self, args: list[str]) -> str:
        self._args(args, 0, 0, "to_move")
        colour = self.game.to_move
        return "none" if colour is None else colour.label

    def _can_swap(self, args: list[str]) -> str:
        self._args(args, 0, 0, "can_swap")
        return "true" if self.game.can_swap else "false"

    def _showboard(self, args: list[str]) -> str:
        self._args(args, 0, 0, "showboard")
        g = self.game
        if g.is_over:
            status = f"game over after {g.turns_played} turns; {standing_text(g)}"
        else:
            assert g.to_move is not None
            status = f"{g.to_move.label} to move (player {g.current_player}), turn {g.turns_played + 1}, round {g.round}"
        return f"\n{protocol_board(g)}\n{status}\nscores: {scores_text(g)}"

    def _bot_command(self, args: list[str]) -> str:
        if not args:
            return self.bot_spec()
        self._args(args, 1, 1, "bot [SPEC]")
        try:
            make_bot(args[0])
        except ValueError as e:
            raise EngineError(str(e)) from None
        self._bot_spec = args[0]
        self._bot = None
        return ""

    def _record(self, args: list[str]) -> str:
        self._args(args, 0, 0, "record")
        # The record's blank line is dropped (it would end the answer); it still parses.
        return "\n" + self.game.record()

    def _loadrecord(self, args: list[str]) -> str:
        if not args:
            raise EngineError("usage: loadrecord FILE")
        path = " ".join(args)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as e:
            raise EngineError(f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from None
        try:
            record = load(text)
        except ValueError as e:
            raise EngineError(f"bad record {path}: {e}") from None
        self.game = record.game
        return ""


def _clean(line: str) -> str:
    # As in GTP: drop control characters but tab, turn tabs into spaces, cut '#' comments.
    line = "".join(ch for ch in line if ch == "\t" or (ch >= " " and ch != "\x7f")).replace("\t", " ")
    return line.split("#", 1)[0]


def _is_colour(word: str) -> bool:
    try:
        Color.parse(word)
    except ValueError:
        return False
    return True


def _int_arg(text: str, what: str) -> int:
    if not (text.isascii() and text.lstrip("+-").isdigit()):
        raise EngineError(f"{what} must be a whole number, got {text!r}")
    return int(text)


def serve(stdin: BinaryIO, stdout: TextIO) -> int:
    """Answer commands from ``stdin`` on ``stdout`` until ``quit`` or end of input."""
    engine = Engine()
    for raw in iter(stdin.readline, b""):
        answer = engine.execute(raw.decode("utf-8", errors="replace"))
        if answer is None:
            continue
        stdout.write(answer)
        stdout.flush()  # a controller waits for each answer before it sends more
        if engine.done:
            break
    return 0


def engine_main() -> int:
    """``omega engine``: serve the protocol on standard input/output; exit status 0.

    A controller that goes away (a closed pipe) is handled by :func:`omega.cli.main`, as
    for every command.
    """
    try:
        return serve(sys.stdin.buffer, sys.stdout)
    except KeyboardInterrupt:
        return 0
