"""``omega analyze RECORD``: the review of a recorded game (:mod:`omega.ai.review`) in text
or JSON, with a progress bar on standard error when it is a terminal.

An unfinished game is reviewed up to its last entry (the report says so); a record without
any entry has nothing to review (exit status 2).

>>> from omega import Game
>>> from omega.ai.review import review
>>> g = Game(size=3); g.play(["b2", "a1"]); g.play(["c5", "c1"])
>>> print(format_review(review(g, iterations=200), g).splitlines()[0])
Review: 2 players, side 3; 2 entries; the game is not over (reviewed up to its last entry)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Mapping
from typing import TextIO

from omega.ai.review import (
    BLUNDER,
    DEFAULT_ITERATIONS,
    DEFAULT_SECONDS,
    MISTAKE,
    NOTHING_TO_REVIEW,
    Review,
    review,
)
from omega.game import Color, Game
from omega.record import RecordFileError, read_file
from omega.texts import action_text

__all__ = ["analyze_main", "format_review"]


class InputError(Exception):
    """A record that cannot be reviewed: one line on standard error, exit status 2."""



class _Progress:
    """A one-line bar on a terminal, rewritten with carriage returns."""

    def __init__(self, stream: TextIO, width: int = 30) -> None:
        self.stream = stream
        self.width = width
        self.started = time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        filled = self.width * done // total
        elapsed = time.perf_counter() - self.started
        eta = elapsed / done * (total - done)
        self.stream.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} positions"
                          f"  {elapsed:.0f}s, ~{eta:.0f}s left ")
        if done == total:
            self.stream.write("\n")
        self.stream.flush()


def _player_name(game: Game, player: int, tags: Mapping[str, str]) -> str:
    # A record's colour tags name who held each colour at the end (after any swap).
    name = tags.get(game.color_of(player).label)
    return f"player {player}" + (f" ({name})" if name else "")


def format_review(result: Review, game: Game, tags: Mapping[str, str] | None = None) -> str:
    """The text report: one line per entry (each colour's win probability after it, the
    loss and the mark), then each player's mistakes, biggest first."""
    tags = tags or {}
    colors = [Color(i) for i in range(result.players)]
    pie = ", pie rule" if result.pie_rule else ""
    state = "game over" if result.over else "the game is not over (reviewed up to its last entry)"
    cap = f" (at most {result.seconds:g} s)" if result.seconds else ""
    lines = [
        f"Review: {result.players} players, side {result.size}{pie}; {len(result.turns)} entries; {state}",
        f"Search: {result.iterations} simulations{cap} a position; mistake: a loss of {MISTAKE:.2f} or more, "
        f"blunder: {BLUNDER:.2f} or more",
        "Win probabilities after each entry; loss: how much the mover's dropped.",
        "",
    ]
    head = f"{'turn':>4}  {'mover':<16}{'played':<{_cells_width(result)}}{'best':<{_cells_width(result)}}"
    head += "".join(f"{c.label:>7}" for c in colors) + f"{'loss':>7}"
    lines.append(head)
    start = result.turns[0].before if result.turns else ()
    lines.append(f"{'':>4}  {'start':<16}{'':<{2 * _cells_width(result)}}" + "".join(f"{v:>7.2f}" for v in start))
    for t in result.turns:
        mover = f"{t.color.label} (p{t.player})"
        line = (f"{t.index + 1:>4}  {mover:<16}{action_text(t.played):<{_cells_width(result)}}"
                f"{action_text(t.best):<{_cells_width(result)}}" + "".join(f"{v:>7.2f}" for v in t.after)
                + f"{t.loss:>7.2f}")
        if t.mark:
            line += f"  {t.mark}"
        lines.append(line)
    lines.append("")
    for p in range(result.players):
        marked = result.mistakes(p)
        who = _player_name(game, p, tags)
        if not marked:
            lines.append(f"{who[0].upper()}{who[1:]}: no mistakes")
            continue
        mistakes = sum(t.mark == "mistake" for t in marked)
        blunders = sum(t.mark == "blunder" for t in marked)
        biggest = ", ".join(f"turn {t.index + 1} ({t.loss:.2f})" for t in marked[:3])
        lines.append(f"{who[0].upper()}{who[1:]}: {_count(mistakes, 'mistake')}, {_count(blunders, 'blunder')}; "
                     f"biggest: {biggest}")
    if result.account is not None:
        lines += _account_lines(result, game, tags)
    lines.append(f"Searched {result.total_iterations} simulations in {result.total_seconds:.1f} s of search")
    return "\n".join(lines)


def _account_lines(result: Review, game: Game, tags: Mapping[str, str]) -> list[str]:
    # Who cost whom what (omega.costs): one row per player, one column per colour.
    account = result.account
    assert account is not None
    colors = [Color(i) for i in range(result.players)]
    width = max(len(_player_name(game, p, tags)) for p in range(result.players)) + 2
    lines = ["", "Account: how each player's stones changed each colour's log-score (natural log of its score)",
             f"  {'':<{width}}" + "".join(f"{c.label:>8}" for c in colors)]
    for p in range(result.players):
        lines.append(f"  {_player_name(game, p, tags):<{width}}" + "".join(f"{v:>+8.2f}" for v in account.net[p]))
    lines.append(f"  {'in all':<{width}}" + "".join(f"{v:>8.2f}" for v in account.final))
    return lines


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _cells_width(result: Review) -> int:
    # Cells are up to 3 characters ("m18"), one per colour, a space apart.
    return 4 * result.players + 2


def _cores() -> int:
    # The cores this process may run on (a container or taskset may allow fewer than exist).
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def analyze_main(args: argparse.Namespace) -> int:
    """``omega analyze RECORD [--iterations N] [--time S] [--seed K] [--jobs J] [--json]``."""
    try:
        record = read_file(args.record)
        if not record.game.history:
            raise InputError(f"{'standard input' if args.record == '-' else args.record}: {NOTHING_TO_REVIEW}")
    except (RecordFileError, InputError) as e:
        print(f"omega analyze: {e}", file=sys.stderr)
        return 2
    progress = _Progress(sys.stderr) if sys.stderr.isatty() else None
    iterations = args.iterations if args.iterations is not None else DEFAULT_ITERATIONS
    seconds = args.time if args.time is not None else DEFAULT_SECONDS
    jobs = args.jobs if args.jobs is not None else _cores()
    result = review(record.game, iterations=iterations, seconds=seconds, seed=args.seed, jobs=jobs,
                    progress=progress)
    if args.json:
        data = result.to_json()
        data["tags"] = dict(record.tags)
        print(json.dumps(data))
    else:
        print(format_review(result, record.game, record.tags))
    return 0
