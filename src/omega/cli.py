"""The ``omega`` command: one console script with a subcommand per job.

Each subcommand's work lives in its own module, imported only when that subcommand runs,
so ``omega show`` needs nothing beyond the standard library.

>>> build_parser().parse_args(["show", "game.txt"]).command
'show'
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from omega import __version__
from omega.board import MAX_SIZE, MIN_SIZE
from omega.game import MAX_PLAYERS, MIN_PLAYERS
from omega.i18n import LANGUAGES
from omega.texts import range_text


class UsageError(Exception):
    """Bad arguments: printed as one line on standard error, exit status 2.

    Raised by the argument parser and for an unknown command; the subcommands print their
    own input errors, since they sit below this module and cannot import it.
    """


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse prints the whole usage block; the contract is one clear line.
        raise UsageError(f"{self.prog}: {message}")


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive number")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def _ranged(low: int, high: int, what: str) -> argparse._ActionType:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} {text!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(range_text(what, low, high, value))
        return value

    return parse


_players = _ranged(MIN_PLAYERS, MAX_PLAYERS, "players")
_size = _ranged(MIN_SIZE, MAX_SIZE, "size")


#: The --smtp option's help (omega serve and omega worker send mail alike).
_SMTP_HELP = ("send mail through this SMTP server: smtp://user:password@host:587?starttls=1 or smtps://... "
              "(default: OMEGA_SMTP_URL; without one, mail is written as .eml files under the data directory)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``omega`` command (all subcommands)."""
    parser = _Parser(prog="omega", description="Play and study Omega, the hex game of multiplied groups.")
    parser.add_argument("--version", action="version", version=f"omega {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    serve = sub.add_parser("serve", help="run the web app")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=_ranged(0, 65535, "port"), default=8000)
    serve.add_argument("--db", default=None, help="SQLAlchemy URL (default: OMEGA_DATABASE_URL or SQLite under ./data/)")
    # 4: twice the cores of a small machine; see docs/architecture.md (Computer players).
    serve.add_argument("--ai-workers", type=_positive_int, default=4,
                       help="processes for computer players (default 4: tables whose computers think at once)")
    serve.add_argument("--access-log", action="store_true", help="log every HTTP request (token values hidden)")
    serve.add_argument("--header-timeout", type=_positive_float, default=None, metavar="SECONDS",
                       help="close a connection whose request headers take longer than this "
                            "(default: the limit in docs/security.md)")
    serve.add_argument("--forwarded-allow-ips", default=None, metavar="ADDRESSES",
                       help="proxies trusted to say whom they forward (X-Forwarded-For), comma-separated "
                            "addresses or networks, or '*'; default: nobody")
    serve.add_argument("--no-workers", action="store_true",
                       help="serve people only: computer turns, reviews and hints are made by `omega worker` "
                            "processes (PostgreSQL)")
    serve.add_argument("--metrics-from", default=None, metavar="ADDRESSES",
                       help="who may read /metrics directly (not through a proxy): comma-separated addresses or "
                            "networks; default: this machine (127.0.0.1,::1)")
    serve.add_argument("--smtp", default=None, metavar="URL", help=_SMTP_HELP)

    worker = sub.add_parser("worker", help="play computer turns, make reviews and search hints for the servers sharing a PostgreSQL database")
    worker.add_argument("--db", default=None, help="SQLAlchemy URL of the site's PostgreSQL database "
                                                   "(default: OMEGA_DATABASE_URL)")
    worker.add_argument("--ai-workers", type=_positive_int, default=4,
                        help="processes for computer players (default 4: turns thought about at once)")
    worker.add_argument("--metrics-port", type=_ranged(0, 65535, "port"), default=None,
                        help="serve this worker's metrics (Prometheus) on this port (0: any free port, "
                             "named in the log); default: none")
    worker.add_argument("--metrics-host", default="127.0.0.1",
                        help="the address the metrics port listens on (default 127.0.0.1)")
    worker.add_argument("--smtp", default=None, metavar="URL", help=_SMTP_HELP)

    play = sub.add_parser("play", help="play a game in the terminal")
    play.add_argument("--players", type=_players, default=2)
    play.add_argument("--size", type=_size, default=5)
    play.add_argument("--pie", action="store_true", help="use the pie rule (2 players)")
    play.add_argument("--ai", action="append", default=[], metavar="SEAT=BOT",
                      help="a computer player in a seat (0-based), e.g. --ai 1=mcts:level=3")
    play.add_argument("--save", metavar="FILE", help="write the record to FILE when the game ends")
    play.add_argument("--no-color", action="store_true", help="plain text board")
    play.add_argument("--lang", choices=LANGUAGES, default=None,
                      help="the language of the game's texts (default: LC_ALL, LC_MESSAGES or LANG, else English)")

    show = sub.add_parser("show", help="show the board, scores and groups of a recorded game")
    show.add_argument("record", metavar="RECORD_FILE", help="a text or JSON record ('-' for standard input)")
    show.add_argument("--turn", type=_ranged(0, 10**6, "turn"), default=None, help="show the position after this many entries")
    show.add_argument("--json", action="store_true")
    show.add_argument("--no-color", action="store_true")
    show.add_argument("--lang", choices=LANGUAGES, default=None, help="the language of the texts (as for play)")

    bench = sub.add_parser("bench", help="measure the engine kernel's playout speed")
    bench.add_argument("--size", type=_size, default=5)
    bench.add_argument("--players", type=_players, default=2)
    bench.add_argument("--seconds", type=_positive_float, default=3.0)
    bench.add_argument("--json", action="store_true")

    match = sub.add_parser("match", help="bots play each other")
    match.add_argument("bot_a", metavar="BOT_A")
    match.add_argument("bot_b", metavar="BOT_B")
    match.add_argument("--games", type=_positive_int, default=100)
    match.add_argument("--size", type=_size, default=5)
    match.add_argument("--players", type=_players, default=2)
    match.add_argument("--seed", type=int, default=0)
    match.add_argument("--jobs", type=_positive_int, default=None, help="parallel games (default: one per core)")
    match.add_argument("--pie", action="store_true")
    match.add_argument("--json", action="store_true")
    match.add_argument("--record-dir", metavar="DIR", default=None, help="save each game's text record in DIR")

    tournament = sub.add_parser("tournament", help="computer players play a tournament here (docs/tournaments.md)")
    tournament.add_argument("--format", default="swiss", help="swiss, round-robin or arena (default swiss)")
    tournament.add_argument("--players", type=_players, default=2, help="seats at each table (default 2)")
    tournament.add_argument("--entrants", type=_positive_int, default=8, help="computer players (default 8)")
    tournament.add_argument("--levels", default=None, metavar="LEVELS",
                            help="levels given out in turn: a range 1-5, one level 3, or a list 1,3,5 "
                                 "(default: every level)")
    tournament.add_argument("--rounds", type=_positive_int, default=None,
                            help="a Swiss's rounds, an arena's waves (a round robin's follow from its field)")
    tournament.add_argument("--size", type=_size, default=5)
    tournament.add_argument("--seed", type=int, default=0)
    tournament.add_argument("--jobs", type=_positive_int, default=None, help="tables played at once (default: one per core)")
    tournament.add_argument("--seconds", type=_positive_float, default=None,
                            help="cap each turn's thinking at this many seconds (below the level's own cap)")
    tournament.add_argument("--pie", action="store_true", help="play with the pie rule (2 players)")
    tournament.add_argument("--json", action="store_true")

    sub.add_parser("engine", help="the line protocol on standard input/output (docs/protocol.md)")

    analyze = sub.add_parser("analyze", help="review a recorded game: win chances, best turns, mistakes")
    analyze.add_argument("record", metavar="RECORD", help="a text or JSON record ('-' for standard input)")
    analyze.add_argument("--iterations", type=_positive_int, default=None,
                         help="simulations per position (default: the review's own, docs/ai.md)")
    analyze.add_argument("--time", type=_positive_float, default=None,
                         help="at most this many seconds per position (default: the review's own)")
    analyze.add_argument("--seed", type=int, default=0)
    analyze.add_argument("--jobs", type=_positive_int, default=None, help="positions searched at once (default: one per core)")
    analyze.add_argument("--json", action="store_true")
    puzzles = sub.add_parser("puzzles", help="mine puzzles from game records, or check a puzzle file (docs/puzzles.md)")
    puzzle_actions = puzzles.add_subparsers(dest="action", required=True, parser_class=_Parser)
    make = puzzle_actions.add_parser("make", help="mine the records' positions for puzzles")
    make.add_argument("records", nargs="+", metavar="RECORDS", help="record files, or folders of them")
    make.add_argument("-o", "--output", required=True, metavar="FILE", help="the puzzle file to write (JSON lines)")
    make.add_argument("--seed", type=int, default=0)
    make.add_argument("--jobs", type=_positive_int, default=1, help="records mined at once (default 1)")
    make.add_argument("--limit", type=_positive_int, default=None, help="stop after this many puzzles")
    check = puzzle_actions.add_parser("check", help="search each puzzle again, deeper, and say which hold")
    check.add_argument("file", metavar="FILE")
    check.add_argument("--sample", type=_positive_int, default=None, help="check this many, drawn by --seed")
    check.add_argument("--seed", type=int, default=7)
    check.add_argument("--keep", metavar="OUT", default=None, help="write the puzzles that hold by the confirming margin to OUT")
    train = sub.add_parser("train", help="make self-play data and train the learnt evaluation (docs/ai.md)")
    train_actions = train.add_subparsers(dest="action", required=True, parser_class=_Parser)
    selfplay = train_actions.add_parser("selfplay", help="games of the search against itself, written to an .npz")
    selfplay.add_argument("-o", "--output", required=True, metavar="FILE", help="the .npz file to write")
    selfplay.add_argument("--games", type=_positive_int, default=100)
    selfplay.add_argument("--size", type=_size, default=5)
    selfplay.add_argument("--players", type=_players, default=2)
    selfplay.add_argument("--bot", default="mcts:iterations=1000",
                          help="the searcher (a bot spec; each seat gets its own seed) (default mcts:iterations=1000)")
    selfplay.add_argument("--opening", type=_ranged(0, 100, "opening"), default=1,
                          help="random turns at the start of each game (default 1)")
    selfplay.add_argument("--seed", type=int, default=0)
    selfplay.add_argument("--jobs", type=_positive_int, default=1, help="games played at once (default 1)")
    fit = train_actions.add_parser("fit", help="train the network on self-play files (needs the train extra)")
    fit.add_argument("data", nargs="+", metavar="DATA", help="self-play .npz files")
    fit.add_argument("-o", "--output", required=True, metavar="FILE", help="the weights (.npz) to write")
    fit.add_argument("--epochs", type=_positive_int, default=10)
    fit.add_argument("--width", type=_positive_int, default=32, help="channels per cell (default 32)")
    fit.add_argument("--layers", type=_ranged(0, 32, "layers"), default=3, help="residual layers (default 3)")
    fit.add_argument("--batch", type=_positive_int, default=256)
    fit.add_argument("--lr", type=_positive_float, default=2e-3, help="learning rate (default 0.002)")
    fit.add_argument("--seed", type=int, default=0)
    ratings = sub.add_parser("ratings", help="the site's player ratings")
    ratings.add_argument("--recompute", action="store_true",
                         help="rebuild every rating from the event log (same values as the live ones)")
    ratings.add_argument("--db", default=None, help="SQLAlchemy URL (default: OMEGA_DATABASE_URL or SQLite under ./data/)")
    admin = sub.add_parser("admin", help="grant, revoke or list the site's roles (admin, moderator)")
    admin.add_argument("action", choices=("grant", "revoke", "list"), help="what to do")
    admin.add_argument("username", nargs="?", help="the account (grant and revoke)")
    admin.add_argument("role", nargs="?", help="admin or moderator (grant and revoke)")
    admin.add_argument("--db", default=None, help="SQLAlchemy URL (default: OMEGA_DATABASE_URL or SQLite under ./data/)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``omega`` command; returns the exit status.

    >>> main(["play", "--players", "7"])
    2
    """
    try:
        args = build_parser().parse_args(argv)
        status = _dispatch(args)
        sys.stdout.flush()  # so that a closed pipe is found here, not at the interpreter's exit
        return status
    except UsageError as e:
        print(str(e).splitlines()[0] if str(e) else "omega: bad arguments", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`omega show game.txt | head`, `omega match ... | head`, a
        # controller that stops `omega engine`): not an error of ours, for any command.
        # Point stdout at /dev/null so the interpreter's final flush does not complain again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _dispatch(args: argparse.Namespace) -> int:
    # Imported here so each subcommand pays only for what it uses.
    if args.command == "serve":
        from omega.server.run import serve_main

        return serve_main(args)
    if args.command == "worker":
        from omega.server.run import worker_main

        return worker_main(args)
    if args.command in ("play", "show"):
        from omega import terminal

        return terminal.play_main(args) if args.command == "play" else terminal.show_main(args)
    if args.command == "bench":
        from omega.bench import bench_main

        return bench_main(args)
    if args.command == "match":
        from omega.arena import match_main

        return match_main(args)
    if args.command == "tournament":
        from omega.tournament import tournament_main

        return tournament_main(args)
    if args.command == "analyze":
        from omega.analysis import analyze_main

        return analyze_main(args)
    if args.command == "engine":
        from omega.engine import engine_main

        return engine_main()
    if args.command == "puzzles":
        from omega.puzzles.command import puzzles_main

        return puzzles_main(args)
    if args.command == "train":
        if args.action == "selfplay":
            from omega.ai.selfplay import selfplay_main

            return selfplay_main(args)
        from omega.ai.fit import fit_main

        return fit_main(args)
    if args.command == "ratings":
        if not args.recompute:
            raise UsageError("omega ratings: nothing to do; pass --recompute")
        from omega.server.ratings.service import recompute_main

        return recompute_main(args.db)
    if args.command == "admin":
        if args.action != "list" and (args.username is None or args.role is None):
            raise UsageError(f"omega admin {args.action}: name the account and the role, e.g. "
                             f"omega admin {args.action} ann moderator")
        from omega.server.accounts.roles import admin_main

        return admin_main(args.action, args.username, args.role, args.db)
    raise UsageError(f"omega: unknown command {args.command!r}")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
