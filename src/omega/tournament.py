"""Tournaments of computer players, run here: ``omega tournament``.

The field is ``entrants`` computer players whose levels (``omega.ai.levels``) are given out
in turn: with levels 1-5, entrant ``i`` (numbered from 1) plays at level ``1 + (i - 1) mod 5``
and is named ``L<level>-<i>``. A level is also the entrant's rating, so a Swiss pairs
stronger against stronger. Each round is paired by :mod:`omega.pairing`, its tables are
played in worker processes (``jobs`` at once, like ``omega match``), and the places go back
into the history for the next round. An arena is run in waves: each wave pairs everyone.

``seconds`` caps a turn's thinking below the level's own cap: the bot is ``mcts`` with the
level's budget and ``time=seconds`` (a level picks iterations and time only where a spec
gives none, ``omega.ai.mcts.MctsBot``), so a test can run 32 players quickly.

Table ``t`` of round ``r`` gives its bots seeds derived from (``seed``, ``r``, ``t``, seat),
so the same call plays the same games whatever ``jobs`` is.

>>> result = run_tournament("round_robin", players=3, entrants=3, levels=[1], size=3, jobs=1)
>>> [game.seats for game in result.games]
[(1, 2, 3), (3, 1, 2), (2, 3, 1)]
>>> result.checks()["max_seat_spread"]
0
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import multiprocessing
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from omega.ai import bot_for_level, make_bot
from omega.ai.base import Bot
from omega.ai.levels import LEVELS
from omega.ai.levels import level as level_named
from omega.game import Color, Game, IllegalMove
from omega.pairing import Arena, Bye, Entrant, Format, History, Played, Round, Standing, format_named
from omega.texts import one_line

__all__ = [
    "Computer", "TableJob", "TournamentResult", "check_tournament_args", "computer", "field_of", "format_round",
    "format_standings", "parse_levels", "play_table", "run_tournament", "table_seed", "tournament_main",
]

#: Every level, weakest first: the field's levels when none are given.
ALL_LEVELS = tuple(lv.number for lv in LEVELS)


@dataclass(frozen=True)
class Computer:
    """One entrant: its id, level and name; its rating for pairing is its level.

    >>> Computer(7, 2).name, Computer(7, 2).entrant
    ('L2-7', Entrant(id=7, rating=2.0))
    """

    id: int
    level: int

    @property
    def name(self) -> str:
        """``L<level>-<id>``."""
        return f"L{self.level}-{self.id}"

    @property
    def entrant(self) -> Entrant:
        """The entrant the pairing sees: a higher level is a higher rating."""
        return Entrant(self.id, float(self.level))


def parse_levels(text: str) -> list[int]:
    """The levels of ``--levels``: one (``3``), a range (``1-5``) or a list (``1,3,5``).

    >>> parse_levels("1-5"), parse_levels("4"), parse_levels("5,1")
    ([1, 2, 3, 4, 5], [4], [5, 1])
    >>> parse_levels("0-3")
    Traceback (most recent call last):
    ...
    ValueError: level must be from 1 to 16, got 0
    """
    out: list[int] = []
    for part in text.split(","):
        low, dash, high = part.strip().partition("-")
        try:
            numbers = [int(low)] if not dash else list(range(int(low), int(high) + 1))
        except ValueError:
            raise ValueError(f"levels must be like 1-5, 3 or 1,3,5, got {text!r}") from None
        if not numbers:
            raise ValueError(f"levels {part.strip()!r} is an empty range")
        for number in numbers:
            level_named(number)  # ValueError for a level that does not exist
        out += numbers
    return out


def field_of(entrants: int, levels: Sequence[int]) -> list[Computer]:
    """The field: entrant ``i`` (from 1) at level ``levels[(i - 1) mod len(levels)]``.

    >>> [c.name for c in field_of(4, [1, 5])]
    ['L1-1', 'L5-2', 'L1-3', 'L5-4']
    """
    return [Computer(i, levels[(i - 1) % len(levels)]) for i in range(1, entrants + 1)]


def table_seed(seed: int, round: int, table: int, seat: int) -> int:
    """A bot's seed for one seat of one table (63 bits, stable), from the tournament's seed.

    A hash, so that neighbouring tables and seats get unrelated streams and the order the
    workers play in does not matter.

    >>> table_seed(1, 1, 0, 0) == table_seed(1, 1, 0, 0) != table_seed(1, 1, 0, 1)
    True
    """
    text = f"omega-tournament:{seed}:{round}:{table}:{seat}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


@dataclass(frozen=True)
class TableJob:
    """One table of a round, for a worker: the seats' levels and the game's settings."""

    round: int
    table: int
    levels: tuple[int, ...]
    size: int
    pie: bool
    seed: int
    seconds: float | None = None

    def bot(self, seat: int) -> Bot:
        """The seeded bot of ``seat``: the level's own, or with its thinking capped."""
        return computer(self.levels[seat], table_seed(self.seed, self.round, self.table, seat), self.seconds)


def computer(level: int, seed: int, seconds: float | None) -> Bot:
    """The computer player of ``level``; with ``seconds``, its time a turn capped to that.

    >>> computer(3, 1, 0.05).time, computer(1, 1, 5.0).time   # never above the level's own
    (0.05, 1.0)
    """
    if seconds is None:
        return bot_for_level(level, seed)
    cap = min(seconds, level_named(level).seconds)
    return make_bot(f"mcts:level={level},time={cap!r},seed={seed}")


def play_table(job: TableJob) -> tuple[int, ...]:
    """Play one table's game to the end; the finishing place of each seat (0 = winner).

    >>> play_table(TableJob(round=1, table=0, levels=(1, 1), size=2, pie=False, seed=0))
    (1, 0)
    """
    players = len(job.levels)
    game = Game(players=players, size=job.size, pie_rule=job.pie)
    bots = [job.bot(seat) for seat in range(players)]
    while not game.is_over:
        seat = game.current_player
        assert seat is not None
        action = bots[seat].choose(game.copy())
        try:
            game.apply(action)
        except IllegalMove as e:
            raise RuntimeError(f"round {job.round}, table {job.table + 1}: level {job.levels[seat]} "
                               f"played an illegal action {action!r}: {e}") from None
    ranking: list[Color] = game.ranking()
    return tuple(ranking.index(game.color_of(seat)) for seat in range(players))


@dataclass
class TournamentResult:
    """A tournament played to its end: the rounds as paired, the games, the standings."""

    format: Format
    size: int
    seed: int
    pie: bool
    computers: list[Computer]
    rounds: list[Round] = field(default_factory=list)
    games: list[Played] = field(default_factory=list)
    byes: list[Bye] = field(default_factory=list)
    standings: list[Standing] = field(default_factory=list)
    wall_seconds: float = 0.0

    @property
    def history(self) -> History:
        """Everything played, as the pairing reads it."""
        return History(games=tuple(self.games), byes=tuple(self.byes))

    def checks(self) -> dict[str, int]:
        """What a fair event shows: pairs (and whole tables) met more than once, the largest
        difference between a player's most and least used seat (with 2 players, colours),
        the most byes one player had.

        >>> r = TournamentResult(format_named("swiss", 2, 2), 3, 0, False, field_of(2, [1]),
        ...                      games=[Played(1, (1, 2), (0, 1)), Played(2, (1, 2), (1, 0))])
        >>> r.checks()
        {'repeated_pairings': 1, 'repeated_tables': 1, 'max_seat_spread': 2, 'max_byes': 0, 'max_colour_difference': 2}
        """
        pairs = Counter(frozenset(p) for g in self.games for p in itertools.combinations(g.seats, 2))
        tables = Counter(frozenset(g.seats) for g in self.games)
        seats = {c.id: [0] * self.format.players for c in self.computers}
        for game in self.games:
            for seat, x in enumerate(game.seats):
                seats[x][seat] += 1
        byes = Counter(b.entrant for b in self.byes)
        out = {
            "repeated_pairings": sum(n - 1 for n in pairs.values()),
            "repeated_tables": sum(n - 1 for n in tables.values()),
            "max_seat_spread": max((max(c) - min(c) for c in seats.values()), default=0),
            "max_byes": max(byes.values(), default=0),
        }
        if self.format.players == 2:
            out["max_colour_difference"] = max((abs(w - b) for w, b in seats.values()), default=0)
        return out

    def to_json(self) -> dict[str, Any]:
        """The JSON object ``omega tournament --json`` prints."""
        names = {c.id: c.name for c in self.computers}
        return {
            "format": self.format.name,
            "players": self.format.players,
            "size": self.size,
            "seed": self.seed,
            "pie": self.pie,
            "entrants": [{"id": c.id, "name": c.name, "level": c.level, "rating": c.entrant.rating}
                         for c in self.computers],
            "rounds": [{"round": i + 1, "tables": [list(t) for t in r.tables], "byes": list(r.byes)}
                       for i, r in enumerate(self.rounds)],
            "games": [{"round": g.round, "seats": list(g.seats), "places": list(g.places or ())}
                      for g in self.games],
            "tiebreak_names": list(self.format.tiebreak_names),
            "standings": [{
                "rank": s.rank, "entrant": s.entrant, "name": names[s.entrant], "points": s.points,
                "tiebreaks": dict(zip(self.format.tiebreak_names, s.tiebreaks, strict=True)),
                "games": s.games, "wins": s.wins, "byes": s.byes, "seats": list(s.seats),
                "places": list(s.places), "streak": s.streak, "fire": s.fire,
            } for s in self.standings],
            "checks": self.checks(),
            "seconds": self.wall_seconds,
        }


def run_tournament(
    format_name: str,
    players: int = 2,
    entrants: int = 8,
    levels: Sequence[int] = ALL_LEVELS,
    rounds: int | None = None,
    size: int = 5,
    seed: int = 0,
    jobs: int | None = None,
    seconds: float | None = None,
    pie: bool = False,
    on_round: Callable[[int, Round, list[Played], TournamentResult], None] | None = None,
) -> TournamentResult:
    """Run a tournament of computer players to its end and return it.

    ``format_name`` is one of :data:`omega.pairing.FORMATS` (``round-robin`` is taken for
    ``round_robin``); ``rounds`` is a Swiss's rounds or an arena's waves, and a round robin
    takes none. ``jobs`` worker processes play the tables of a round (default: one per core; 1
    plays here). ``on_round(number, paired, games, result)`` is called after each round.
    ValueError with a clear message for any bad argument, before anything is played.

    >>> r = run_tournament("swiss", players=2, entrants=3, levels=[1], rounds=2, size=2, jobs=1)
    >>> [len(paired.tables) for paired in r.rounds], r.byes[0], r.checks()["max_byes"]
    ([1, 1], Bye(round=1, entrant=3), 1)
    """
    fmt, waves = check_tournament_args(format_name, players, entrants, levels, rounds, size, seconds, pie)
    computers = field_of(entrants, levels)
    result = TournamentResult(fmt, size, seed, pie, computers)
    field_ = [c.entrant for c in computers]
    level_of = {c.id: c.level for c in computers}
    total = waves if waves is not None else fmt.rounds_for(entrants)
    assert total is not None
    workers = max(1, jobs if jobs is not None else _cores())
    started = time.perf_counter()
    with _Tables(workers) as play:
        for number in range(1, total + 1):
            waiting = [c.id for c in computers] if isinstance(fmt, Arena) else None
            paired = fmt.pair(field_, result.history, number, waiting=waiting)
            table_jobs = [TableJob(number, t, tuple(level_of[x] for x in seats), size, pie, seed, seconds)
                          for t, seats in enumerate(paired.tables)]
            places = play(table_jobs)
            played = [Played(number, seats, places[t]) for t, seats in enumerate(paired.tables)]
            result.rounds.append(paired)
            result.games += played
            if not isinstance(fmt, Arena):  # an arena's unpaired simply wait: no bye, no points
                result.byes += [Bye(number, x) for x in paired.byes]
            if on_round is not None:
                on_round(number, paired, played, result)
    result.standings = fmt.standings(field_, result.history)
    result.wall_seconds = time.perf_counter() - started
    return result


def check_tournament_args(format_name: str, players: int, entrants: int, levels: Sequence[int],
                          rounds: int | None, size: int, seconds: float | None,
                          pie: bool) -> tuple[Format, int | None]:
    """The format, and the arena's waves (None for the others); ValueError naming the first
    bad argument.

    >>> check_tournament_args("swiss", 3, 2, [1], 3, 5, None, False)
    Traceback (most recent call last):
    ...
    ValueError: a tournament of 3-player tables needs at least 3 entrants, got 2
    """
    name = format_name.replace("-", "_")
    if name in ("swiss", "arena") and rounds is None:
        raise ValueError("a Swiss needs --rounds (its rounds)" if name == "swiss" else "an arena needs --rounds (its waves)")
    # An arena's rounds are waves here, not the format's (it is played on the clock); for the
    # others format_named refuses an unknown name, bad players, rounds it does not take.
    fmt = format_named(name, players) if name == "arena" else format_named(name, players, rounds)
    if not isinstance(entrants, int) or entrants < players:
        raise ValueError(f"a tournament of {players}-player tables needs at least {players} entrants, got {entrants}")
    if not levels:
        raise ValueError("give at least one level")
    fmt.rounds_for(entrants)  # ValueError for a field the format cannot take
    for number in set(levels):
        computer(number, 0, seconds)  # ValueError for a level or a time cap the bots refuse
    Game(players=players, size=size, pie_rule=pie)  # ValueError for a bad size or pie rule
    return fmt, rounds if name == "arena" else None


def _cores() -> int:
    # The cores this process may run on (a container or taskset may allow fewer than exist).
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


class _Tables:
    """Plays a round's tables: here with one worker, else in a pool kept for the whole event."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.pool: Any = None

    def __enter__(self) -> Callable[[list[TableJob]], list[tuple[int, ...]]]:
        if self.workers > 1:
            self.pool = multiprocessing.get_context().Pool(self.workers)
        return self.play

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()

    def play(self, jobs: list[TableJob]) -> list[tuple[int, ...]]:
        if self.pool is None or len(jobs) < 2:
            return [play_table(job) for job in jobs]
        # chunksize 1: games take very different times (levels differ), keep every worker busy.
        return list(self.pool.imap(play_table, jobs, chunksize=1))


# -- command line ------------------------------------------------------------------------


def format_round(number: int, paired: Round, played: Iterable[Played], names: dict[int, str]) -> str:
    """One round as ``omega tournament`` prints it: each table in seat order and how it ended.

    >>> print(format_round(1, Round(((1, 2),), byes=(3,)), [Played(1, (1, 2), (1, 0))],
    ...                    {1: "L1-1", 2: "L2-2", 3: "L3-3"}))
    Round 1
      L1-1 - L2-2    won by L2-2
      bye: L3-3
    """
    lines = [f"Round {number}"]
    width = max((len(" - ".join(names[x] for x in t)) for t in paired.tables), default=0)
    for game in played:
        seats = " - ".join(names[x] for x in game.seats)
        order = sorted(range(len(game.seats)), key=lambda s: (game.places or ())[s])
        if len(game.seats) == 2:
            outcome = f"won by {names[game.seats[order[0]]]}"
        else:
            outcome = "places: " + ", ".join(names[game.seats[s]] for s in order)
        lines.append(f"  {seats:<{width}}    {outcome}")
    if paired.byes:
        lines.append(f"  {'bye' if len(paired.byes) == 1 else 'byes'}: {', '.join(names[x] for x in paired.byes)}")
    return "\n".join(lines)


def format_standings(result: TournamentResult) -> str:
    """The final standings as ``omega tournament`` prints them, then the fairness checks."""
    names = {c.id: c.name for c in result.computers}
    players = result.format.players
    seat_label = "W-B" if players == 2 else "seats"
    arena = isinstance(result.format, Arena)
    # An arena has no byes (the unpaired wait) but streaks: its last column is the streak, with
    # "fire" when the next game counts double.
    header = ["rank", "name", "points", *result.format.tiebreak_names, "games", "wins", seat_label,
              "streak" if arena else "byes"]
    rows = []
    for s in result.standings:
        last = (f"{s.streak}{' fire' if s.fire else ''}") if arena else str(s.byes)
        rows.append([str(s.rank), names[s.entrant], f"{s.points:g}", *(f"{b:g}" for b in s.tiebreaks),
                     str(s.games), str(s.wins), "-".join(map(str, s.seats)), last])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["Standings", "  " + "  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    for row in rows:
        lines.append("  " + "  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip())
    checks = result.checks()
    spread = "colour difference" if players == 2 else "seat spread"
    lines.append(f"Repeated pairings: {checks['repeated_pairings']}; largest {spread}: "
                 f"{checks['max_seat_spread']}; most byes: {checks['max_byes']}; {result.wall_seconds:.1f} s")
    return "\n".join(lines)


def tournament_main(args: argparse.Namespace) -> int:
    """``omega tournament``: run the tournament ``args`` describe, print each round and the
    standings (or one JSON object with ``--json``).

    Exit status 0, or 2 with one line on standard error for bad arguments.
    """
    # Usage errors are printed here: omega.cli (and its UsageError) sits above this module.
    try:
        levels = parse_levels(args.levels) if args.levels is not None else list(ALL_LEVELS)
        check_tournament_args(args.format, args.players, args.entrants, levels, args.rounds, args.size,
                              args.seconds, args.pie)
    except ValueError as e:
        print(f"omega tournament: {one_line(str(e), 'bad arguments')}", file=sys.stderr)
        return 2

    def show(number: int, paired: Round, played: list[Played], result: TournamentResult) -> None:
        print(format_round(number, paired, played, {c.id: c.name for c in result.computers}), flush=True)

    try:
        result = run_tournament(
            args.format, players=args.players, entrants=args.entrants, levels=levels, rounds=args.rounds,
            size=args.size, seed=args.seed, jobs=args.jobs, seconds=args.seconds, pie=args.pie,
            on_round=None if args.json else show,
        )
    except Exception as e:  # a bot's failure mid-event: one clear line, not a traceback
        print(f"omega tournament: {type(e).__name__}: {e}".splitlines()[0], file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print(format_standings(result))
    return 0
