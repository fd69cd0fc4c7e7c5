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
from collections.abc import Callable, Mapping, Sequence
from datetime import date
from typing import IO, Any

# omega.ai loads the search (NumPy, Numba) only when make_bot is asked for one.
from omega.ai import Bot, make_bot
from omega.game import SWAP, Color, Game, IllegalMove
from omega.i18n import DEFAULT, LANGUAGES, N_, Message
from omega.i18n import translatable as _
from omega.picture import board_picture
from omega.record import Record, RecordFileError, read_file, to_json
from omega.texts import action_text, color_name, factors_text, number_text, one_line, tie_break_text

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




def _say(message: Message, lang: str | None) -> str:
    # A sentence in the player's language (None: as written, English).
    return message.in_language(lang) if lang else str(message)


def terminal_language(choice: str | None, env: Mapping[str, str]) -> str | None:
    """The language of ``omega play`` and ``omega show``: ``--lang``, else the locale's
    (``LC_ALL``, ``LC_MESSAGES``, ``LANG``, the first set), if the site speaks it; else None
    (English as written).

    >>> terminal_language(None, {"LANG": "fr_FR.UTF-8"}), terminal_language("de", {"LANG": "fr_FR.UTF-8"})
    ('fr', 'de')
    >>> terminal_language(None, {"LC_ALL": "C.UTF-8", "LANG": "es_ES"}), terminal_language(None, {})
    (None, None)
    """
    wanted = choice or next((env[k] for k in ("LC_ALL", "LC_MESSAGES", "LANG") if env.get(k)), "")
    code = wanted.split(".")[0].split("@")[0].replace("_", "-").split("-")[0].lower()
    return code if code in LANGUAGES and code != DEFAULT else None


def _holder(game: Game, color: Color, names: dict[int, str] | None = None, lang: str | None = None) -> str:
    player = game.player_of(color)
    name = (names or {}).get(player)
    return _say(_("player {player}", player=player), lang) + (f", {name}" if name else "")


def score_lines(game: Game, names: dict[int, str] | None = None, lang: str | None = None) -> list[str]:
    """One line per colour in play: who holds it and its score as factors.

    >>> from omega import Game
    >>> g = Game(); g.play(["e5", "a1"]); g.play(["e4", "c1"])
    >>> print("\\n".join(score_lines(g)))
    White (player 0): 2 = 2
    Black (player 1): 1 x 1 = 1
    """
    return [_score_line(game, c, names, lang) for c in game.colors]


def _score_line(game: Game, color: Color, names: dict[int, str] | None, lang: str | None = None) -> str:
    return f"{color_name(color, lang)} ({_holder(game, color, names, lang)}): {factors_text(game, color, lang)}"


def _sorted_groups(game: Game, color: Color) -> list[list[str]]:
    # Largest first; groups are disjoint, so equal sizes are ordered by their first cell.
    index = game.board.index
    groups = sorted(game.groups(color), key=lambda g: (-len(g), min(map(index, g))))
    return [sorted(g, key=index) for g in groups]


def groups_lines(game: Game, lang: str | None = None) -> list[str]:
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
        out.append(_say(_("{color} groups: {groups}", color=color_name(c, lang), groups=text or _say(_("(none)"), lang)), lang))
    return out


def ranking_lines(game: Game, names: dict[int, str] | None = None, lang: str | None = None) -> list[str]:
    """The final ranking, best first, with each colour's factors.

    >>> from omega import Game
    >>> g = Game(size=2); g.play(["a1", "c3"]); g.play(["c2", "b1"])
    >>> print("\\n".join(ranking_lines(g)))
    1. Black (player 1): 1 x 1 = 1
    2. White (player 0): 1 x 1 = 1
    """
    return [f"{place}. {_score_line(game, c, names, lang)}" for place, c in enumerate(game.ranking(), start=1)]


def status_line(game: Game, names: dict[int, str] | None = None, lang: str | None = None) -> str:
    """Whose turn it is (colour, player, round, empty cells), or the winner.

    >>> from omega import Game
    >>> status_line(Game())
    'White to move (player 0), round 1; 61 empty cells'
    """
    if game.is_over:
        winner = game.winner
        assert winner is not None
        return _say(_("Game over: {color} ({holder}) wins with {score}", color=color_name(winner, lang),
                      holder=_holder(game, winner, names, lang), score=number_text(game.score(winner), lang)), lang)
    color = game.to_move
    assert color is not None
    return _say(_("{color} to move ({holder}), round {round}; {empty} empty cells", color=color_name(color, lang),
                  holder=_holder(game, color, names, lang), round=game.round, empty=game.empty_count), lang)


def _last_turn_line(game: Game, lang: str | None = None) -> str | None:
    if not game.history:
        return None
    last = game.history[-1]
    if last == SWAP:
        return _say(_("Last action: swap (players 0 and 1 exchanged colours)"), lang)
    cells = ", ".join(f"{color_name(Color(i), lang)} {cell}" for i, cell in enumerate(last))
    return _say(_("Last turn: {cells}", cells=cells), lang)


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
    lang = terminal_language(getattr(args, "lang", None), os.environ)
    pie = _say(_(", pie rule"), lang) if game.pie_rule else ""
    head = _say(_("Omega: {players} players, side {size}{pie}; after {done} of {entries} entries", players=game.players,
                  size=game.size, pie=pie, done=len(game.history), entries=entries), lang)
    for key, value in record.tags.items():
        head += f"\n{key}: {value}"
    out = [head, "", board_picture(game, ansi), ""]
    last = _last_turn_line(game, lang)
    if last:
        out.append(last)
    out += score_lines(game, lang=lang)
    out += groups_lines(game, lang)
    out.append(status_line(game, lang=lang))
    if game.is_over:
        out.append(_say(_("Ranking:"), lang))
        out += ["  " + line for line in ranking_lines(game, lang=lang)]
        tie = tie_break_text(game, lang)
        if tie:
            out.append(tie)
    print("\n".join(out))
    return 0


# -- omega play -------------------------------------------------------------------------------

HELP = N_("""\
Type your turn as one cell per colour, in colour order ({order}), e.g. `{example}`.
Cells are a row letter and a column number (e5); commas or spaces between them; any case.
Commands:
  swap        take over White's position (pie rule, right after the first turn)
  undo        take back the last turn (and the computer players' turns after yours)
  board       show the board again
  save FILE   write the game record to FILE
  help        this text
  quit        stop (the record is saved if --save was given)""")


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
                 read: Callable[[str], str], echo: bool, lang: str | None = None) -> None:
        self.game = game
        self.bots = bots
        self.save_path = save
        self.ansi = ansi
        self.read = read
        self.echo = echo  # piped input is not echoed by the terminal: print it for a readable transcript
        self.names = {seat: bot.name for seat, bot in bots.items()}
        self.lang = lang  # the player's language (None: English as written)

    def say(self, text: str = "") -> None:
        print(text, flush=True)

    def tell(self, message: Message) -> None:
        """Say a marked sentence in the player's language."""
        self.say(_say(message, self.lang))

    def show(self) -> None:
        g = self.game
        self.say()
        self.say(board_picture(g, self.ansi))
        last = _last_turn_line(g, self.lang)
        if last:
            self.say(last)
        for line in score_lines(g, self.names, self.lang):
            self.say(line)
        self.say(status_line(g, self.names, self.lang))
        if g.can_swap:
            self.tell(_("(pie rule: you may type `swap` to take White's position)"))

    def order_text(self) -> str:
        return ", ".join(color_name(c, self.lang) for c in self.game.colors)

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
            self.tell(_("Could not save to {path}: {error}", path=path, error=e.strerror or e))
            return False
        self.tell(_("Saved the record to {path}", path=path))
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
                line = self.read(_say(_("{color} (player {player}), cells for {order}> ", color=color_name(color, self.lang),
                                        player=player, order=self.order_text()), self.lang))
            except EOFError:
                self.say()
                self.tell(_("End of input: the game is left unfinished."))
                return self.finish(0)
            if self.echo:
                self.say(line)
            if self.command(line) == "quit":
                self.tell(_("Game stopped."))
                return self.finish(0)
        self.tell(_("Final ranking:"))  # show() above already printed the board and the winner
        for line in ranking_lines(g, self.names, self.lang):
            self.say(line)
        tie = tie_break_text(g, self.lang)
        if tie:
            self.say(tie)
        return self.finish(0)

    def bot_turn(self, bot: Bot, player: int) -> None:
        g = self.game
        action = bot.choose(g)
        g.apply(action)  # a bot that breaks the rules is a bug: let IllegalMove surface
        self.tell(_("Player {player} ({name}) plays: {action}", player=player, name=bot.name, action=action_text(action)))
        self.show()

    def command(self, line: str) -> str:
        """Act on one line of input; returns ``"quit"`` to stop, else ``""``."""
        g = self.game
        words = line.replace(",", " ").split()
        if not words:
            self.tell(_("Type {count} cells in colour order ({order}), e.g. `{example}`, or `help`.", count=g.players,
                        order=self.order_text(), example=self.example()))
            return ""
        head = words[0].lower()
        if head in ("quit", "exit", "q") and len(words) == 1:
            return "quit"
        if head in ("help", "?", "h") and len(words) == 1:
            self.tell(Message(HELP, {"order": self.order_text(), "example": self.example()}))
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
                self.tell(_("Usage: save FILE"))
            return ""
        if head == "undo" and len(words) == 1:
            self.undo()
            return ""
        if head == SWAP and len(words) == 1:
            try:
                g.swap()
            except IllegalMove as e:
                self.tell(_("Cannot swap: {reason}.", reason=e))
                return ""
            self.tell(_("Swapped: player 1 now holds White, player 0 holds Black."))
            self.show()
            return ""
        if len(words) == 1 and not g.board.is_cell(words[0]):
            self.tell(_("Unknown command {command}; type `help` for the commands.", command=repr(words[0])))
            return ""
        try:
            g.play(words)
        except IllegalMove as e:
            self.tell(_("Illegal turn: {reason}. Type {count} cells in colour order ({order}), e.g. `{example}`.", reason=e,
                        count=g.players, order=self.order_text(), example=self.example()))
            return ""
        self.show()
        return ""

    def undo(self) -> None:
        g = self.game
        if not g.history:
            self.tell(_("Nothing to undo."))
            return
        g.undo()
        # Undoing into a computer player's turn would only make it play again at once, so
        # take back its turns too, back to the last position where a person was to move.
        while g.history and g.current_player in self.bots:
            g.undo()
        self.tell(_("Undone."))
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

    lang = terminal_language(getattr(args, "lang", None), os.environ)
    session = _Session(game, bots, args.save, use_color(sys.stdout, args.no_color), read, echo, lang)
    try:
        return session.run()
    except KeyboardInterrupt:
        print("\nInterrupted.", flush=True)
        return session.finish(130)
