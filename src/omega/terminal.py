"""The terminal front end: ``omega show`` (look at a record) and ``omega play`` (hot-seat game).

Everything here is plain text on standard input/output, so it works the same when a person
types and when a script pipes the input in.  Colours (ANSI) are used only on a terminal,
and never with ``--no-color`` or the ``NO_COLOR`` environment variable.

>>> from omega import Game
>>> g = Game(size=2); g.play(["a1", "c3"])
>>> print(status_line(g))
Black to move (player 1), round 1; 5 empty cells
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from datetime import date
from typing import IO, Any

# omega.ai loads the search (NumPy, Numba) only when make_bot is asked for one.
from omega.ai import Bot, make_bot
from omega.game import SWAP, Color, Game, IllegalMove
from omega.picture import board_picture
from omega.record import Record, RecordFileError, read_file, to_json
from omega.texts import action_text, factors_text, one_line, tie_break_text

__all__ = [
    "score_lines", "status_line", "ranking_lines", "groups_lines", "show_main", "play_main",
]

def use_color(stream: IO[str], no_color_flag: bool) -> bool:
    """Whether to print ANSI colours on ``stream``: a terminal, no ``--no-color``, no ``NO_COLOR``.

    >>> import io
    >>> use_color(io.StringIO(), False)
    False
    """
    return stream.isatty() and not no_color_flag and not os.environ.get("NO_COLOR")




def _holder(game: Game, color: Color, names: dict[int, str] | None = None) -> str:
    player = game.player_of(color)
    name = (names or {}).get(player)
    return f"player {player}" + (f", {name}" if name else "")


def score_lines(game: Game, names: dict[int, str] | None = None) -> list[str]:
    """One line per colour in play: who holds it and its score as factors.

    >>> from omega import Game
    >>> g = Game(); g.play(["e5", "a1"]); g.play(["e4", "c1"])
    >>> print("\\n".join(score_lines(g)))
    White (player 0): 2 = 2
    Black (player 1): 1 x 1 = 1
    """
    return [_score_line(game, c, names) for c in game.colors]


def _score_line(game: Game, color: Color, names: dict[int, str] | None) -> str:
    return f"{color.label} ({_holder(game, color, names)}): {factors_text(game, color)}"


def _sorted_groups(game: Game, color: Color) -> list[list[str]]:
    # Largest first; groups are disjoint, so equal sizes are ordered by their first cell.
    index = game.board.index
    groups = sorted(game.groups(color), key=lambda g: (-len(g), min(map(index, g))))
    return [sorted(g, key=index) for g in groups]


def groups_lines(game: Game) -> list[str]:
    """Every colour's groups, largest first, each as its size and sorted cells.

    >>> from omega import Game
    >>> g = Game(); g.play(["e5", "a1"]); g.play(["e4", "c1"])
    >>> print("\\n".join(groups_lines(g)))
    White groups: [2] e4 e5
    Black groups: [1] a1 | [1] c1
    """
    out = []
    for c in game.colors:
        text = " | ".join(f"[{len(g)}] " + " ".join(g) for g in _sorted_groups(game, c))
        out.append(f"{c.label} groups: {text or '(none)'}")
    return out


def ranking_lines(game: Game, names: dict[int, str] | None = None) -> list[str]:
    """The final ranking, best first, with each colour's factors.

    >>> from omega import Game
    >>> g = Game(size=2); g.play(["a1", "c3"]); g.play(["c2", "b1"])
    >>> print("\\n".join(ranking_lines(g)))
    1. Black (player 1): 1 x 1 = 1
    2. White (player 0): 1 x 1 = 1
    """
    return [f"{place}. {_score_line(game, c, names)}" for place, c in enumerate(game.ranking(), start=1)]


def status_line(game: Game, names: dict[int, str] | None = None) -> str:
    """Whose turn it is (colour, player, round, empty cells), or the winner.

    >>> from omega import Game
    >>> status_line(Game())
    'White to move (player 0), round 1; 61 empty cells'
    """
    if game.is_over:
        winner = game.winner
        assert winner is not None
        return f"Game over: {winner.label} ({_holder(game, winner, names)}) wins with {game.score(winner)}"
    color = game.to_move
    assert color is not None
    return f"{color.label} to move ({_holder(game, color, names)}), round {game.round}; {game.empty_count} empty cells"


def _last_turn_line(game: Game) -> str | None:
    if not game.history:
        return None
    last = game.history[-1]
    if last == SWAP:
        return "Last action: swap (players 0 and 1 exchanged colours)"
    return "Last turn: " + ", ".join(f"{Color(i).label} {cell}" for i, cell in enumerate(last))


# -- omega show -------------------------------------------------------------------------------


class _InputError(Exception):
    """A bad file or record: one line on standard error, exit status 2."""


def _read_record(path: str) -> Record:
    try:
        return read_file(path)
    except RecordFileError as e:
        raise _InputError(str(e)) from None


def _position(record: Record, turn: int | None) -> Game:
    full = record.game
    if turn is None:
        return full
    try:
        return full.position_after(turn)  # argparse has made sure that turn >= 0
    except ValueError:
        raise _InputError(f"--turn {turn} is past the end of the record ({len(full.history)} entries)") from None


def show_json(game: Game, record: Record, entries: int) -> dict[str, Any]:
    """The JSON object ``omega show --json`` prints: the JSON record plus the position's details.

    >>> from omega import Game
    >>> g = Game(); g.play(["e5", "a1"])
    >>> data = show_json(g, Record(game=g), 1)
    >>> data["to_move"], data["factors"]["White"], data["groups"]["Black"]
    ('Black', '1 = 1', [['a1']])
    """
    data = to_json(game, record.tags)
    data.update({
        "entries_shown": len(game.history),
        "entries_total": entries,
        "to_move": game.to_move.label if game.to_move is not None else None,
        "current_player": game.current_player,
        "round": game.round,
        "empty_cells": game.empty_count,
        "players_of": {c.label: game.player_of(c) for c in game.colors},
        "stones": {cell: c.label for cell, c in sorted(game.stones().items(), key=lambda kv: game.board.index(kv[0]))},
        "factors": {c.label: factors_text(game, c) for c in game.colors},
        "groups": {c.label: _sorted_groups(game, c) for c in game.colors},
        "tie_break": tie_break_text(game),
    })
    return data


def show_main(args: argparse.Namespace) -> int:
    """``omega show RECORD_FILE [--turn K] [--json] [--no-color]``; returns the exit status."""
    try:
        record = _read_record(args.record)
        game = _position(record, args.turn)
    except _InputError as e:
        print(f"omega show: {e}", file=sys.stderr)
        return 2
    entries = len(record.game.history)
    if len(game.history) < entries:
        # The Result tag describes the end of the game, not the earlier position shown.
        record = Record(game=record.game, tags={k: v for k, v in record.tags.items() if k != "Result"})
    if args.json:
        print(json.dumps(show_json(game, record, entries)))
        return 0
    ansi = use_color(sys.stdout, args.no_color)
    pie = ", pie rule" if game.pie_rule else ""
    head = f"Omega: {game.players} players, side {game.size}{pie}; after {len(game.history)} of {entries} entries"
    for key, value in record.tags.items():
        head += f"\n{key}: {value}"
    out = [head, "", board_picture(game, ansi), ""]
    last = _last_turn_line(game)
    if last:
        out.append(last)
    out += score_lines(game)
    out += groups_lines(game)
    out.append(status_line(game))
    if game.is_over:
        out.append("Ranking:")
        out += ["  " + line for line in ranking_lines(game)]
        tie = tie_break_text(game)
        if tie:
            out.append(tie)
    print("\n".join(out))
    return 0


# -- omega play -------------------------------------------------------------------------------

HELP = """\
Type your turn as one cell per colour, in colour order ({order}), e.g. `{example}`.
Cells are a row letter and a column number (e5); commas or spaces between them; any case.
Commands:
  swap        take over White's position (pie rule, right after the first turn)
  undo        take back the last turn (and the computer players' turns after yours)
  board       show the board again
  save FILE   write the game record to FILE
  help        this text
  quit        stop (the record is saved if --save was given)"""


def _parse_seats(specs: Sequence[str], players: int) -> dict[int, str]:
    seats: dict[int, str] = {}
    for spec in specs:
        seat_text, eq, bot = spec.partition("=")
        if not eq or not bot.strip():
            raise _InputError(f"--ai {spec!r} must look like SEAT=BOT, e.g. --ai 1=random")
        if not seat_text.strip().isdigit() or not 0 <= int(seat_text) < players:
            raise _InputError(f"--ai seat {seat_text!r} must be a player number from 0 to {players - 1}")
        seat = int(seat_text)
        if seat in seats:
            raise _InputError(f"--ai seat {seat} is given twice")
        seats[seat] = bot.strip()
    return seats


def _make_bots(seats: dict[int, str]) -> dict[int, Bot]:
    if not seats:
        return {}
    bots: dict[int, Bot] = {}
    for seat, spec in seats.items():
        try:
            bots[seat] = make_bot(spec)
        except ValueError as e:
            raise _InputError(f"--ai {seat}={spec}: {one_line(str(e), 'bad input')}") from None
    return bots


class _Session:
    """One terminal game: the loop of showing, reading and applying actions."""

    def __init__(self, game: Game, bots: dict[int, Bot], save: str | None, ansi: bool,
                 read: Callable[[str], str], echo: bool) -> None:
        self.game = game
        self.bots = bots
        self.save_path = save
        self.ansi = ansi
        self.read = read
        self.echo = echo  # piped input is not echoed by the terminal: print it for a readable transcript
        self.names = {seat: bot.name for seat, bot in bots.items()}

    def say(self, text: str = "") -> None:
        print(text, flush=True)

    def show(self) -> None:
        g = self.game
        self.say()
        self.say(board_picture(g, self.ansi))
        last = _last_turn_line(g)
        if last:
            self.say(last)
        for line in score_lines(g, self.names):
            self.say(line)
        self.say(status_line(g, self.names))
        if g.can_swap:
            self.say("(pie rule: you may type `swap` to take White's position)")

    def order_text(self) -> str:
        return ", ".join(c.label for c in self.game.colors)

    def example(self) -> str:
        return " ".join(self.game.empty_cells()[: self.game.players])

    def tags(self) -> dict[str, str]:
        tags = {"Event": "omega play", "Date": date.today().isoformat()}
        for c in self.game.colors:
            tags[c.label] = _holder(self.game, c, self.names)
        return tags

    def write_record(self, path: str) -> bool:
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(self.game.record(self.tags()))
        except OSError as e:
            self.say(f"Could not save to {path}: {e.strerror or e}")
            return False
        self.say(f"Saved the record to {path}")
        return True

    def finish(self, status: int) -> int:
        if self.save_path:
            self.write_record(self.save_path)
        return status

    def run(self) -> int:
        g = self.game
        self.show()
        while not g.is_over:
            player = g.current_player
            assert player is not None
            bot = self.bots.get(player)
            if bot is not None:
                self.bot_turn(bot, player)
                continue
            color = g.to_move
            assert color is not None
            try:
                line = self.read(f"{color.label} (player {player}), cells for {self.order_text()}> ")
            except EOFError:
                self.say()
                self.say("End of input: the game is left unfinished.")
                return self.finish(0)
            if self.echo:
                self.say(line)
            if self.command(line) == "quit":
                self.say("Game stopped.")
                return self.finish(0)
        self.say("Final ranking:")  # show() above already printed the board and the winner
        for line in ranking_lines(g, self.names):
            self.say(line)
        tie = tie_break_text(g)
        if tie:
            self.say(tie)
        return self.finish(0)

    def bot_turn(self, bot: Bot, player: int) -> None:
        g = self.game
        action = bot.choose(g)
        g.apply(action)  # a bot that breaks the rules is a bug: let IllegalMove surface
        self.say(f"Player {player} ({bot.name}) plays: {action_text(action)}")
        self.show()

    def command(self, line: str) -> str:
        """Act on one line of input; returns ``"quit"`` to stop, else ``""``."""
        g = self.game
        words = line.replace(",", " ").split()
        if not words:
            self.say(f"Type {g.players} cells in colour order ({self.order_text()}), e.g. `{self.example()}`, or `help`.")
            return ""
        head = words[0].lower()
        if head in ("quit", "exit", "q") and len(words) == 1:
            return "quit"
        if head in ("help", "?", "h") and len(words) == 1:
            self.say(HELP.format(order=self.order_text(), example=self.example()))
            return ""
        if head in ("board", "show") and len(words) == 1:
            self.show()
            return ""
        if head == "save":
            if len(words) > 1:
                self.write_record(line.strip()[len("save"):].strip())  # the rest of the line, spaces and all
            elif self.save_path:
                self.write_record(self.save_path)
            else:
                self.say("Usage: save FILE")
            return ""
        if head == "undo" and len(words) == 1:
            self.undo()
            return ""
        if head == SWAP and len(words) == 1:
            try:
                g.swap()
            except IllegalMove as e:
                self.say(f"Cannot swap: {e}.")
                return ""
            self.say("Swapped: player 1 now holds White, player 0 holds Black.")
            self.show()
            return ""
        if len(words) == 1 and not g.board.is_cell(words[0]):
            self.say(f"Unknown command {words[0]!r}; type `help` for the commands.")
            return ""
        try:
            g.play(words)
        except IllegalMove as e:
            self.say(f"Illegal turn: {e}. Type {g.players} cells in colour order ({self.order_text()}), e.g. `{self.example()}`.")
            return ""
        self.show()
        return ""

    def undo(self) -> None:
        g = self.game
        if not g.history:
            self.say("Nothing to undo.")
            return
        g.undo()
        # Undoing into a computer player's turn would only make it play again at once, so
        # take back its turns too, back to the last position where a person was to move.
        while g.history and g.current_player in self.bots:
            g.undo()
        self.say("Undone.")
        self.show()


def play_main(args: argparse.Namespace) -> int:
    """``omega play [--players N] [--size S] [--pie] [--ai SEAT=BOT ...] [--save FILE]``."""
    try:
        if args.pie and args.players != 2:
            raise _InputError("--pie is a 2-player option")
        bots = _make_bots(_parse_seats(args.ai, args.players))
    except _InputError as e:
        print(f"omega play: {e}", file=sys.stderr)
        return 2
    game = Game(players=args.players, size=args.size, pie_rule=args.pie)
    echo = not sys.stdin.isatty()
    if not echo:
        with contextlib.suppress(ImportError):  # platforms without GNU readline just lack editing
            import readline  # noqa: F401  (importing it gives input() line editing and history)

    def read(prompt: str) -> str:
        return input(prompt)

    session = _Session(game, bots, args.save, use_color(sys.stdout, args.no_color), read, echo)
    try:
        return session.run()
    except KeyboardInterrupt:
        print("\nInterrupted.", flush=True)
        return session.finish(130)
