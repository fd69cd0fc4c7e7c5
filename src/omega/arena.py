"""Bot-against-bot matches: rotating seats, reproducible seeds, parallel games, Elo.

``omega match BOT_A BOT_B`` is a thin shell around :func:`run_match`.  Each game runs in a
worker process (``jobs`` of them at once).  Seats rotate so every bot takes every colour
equally often: with 2 players BOT_A alternates between White and Black; with 3 or 4 players
BOT_A holds one seat and BOT_B every other seat, BOT_A's seat rotating over the colours.

Game ``i``'s bots get seeds derived from (``seed``, ``i``, seat), so the same call gives the
same games whatever ``jobs`` is.

>>> result = run_match("random", "random", games=4, size=3, seed=1, jobs=1)
>>> result.games, result.wins["a"] + result.wins["b"]
(4, 4)
>>> [result.by_color[c]["games"] for c in ("White", "Black")]
[2, 2]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from omega.ai import make_bot, parse_spec
from omega.ai.base import Bot
from omega.game import SWAP, Color, Game, IllegalMove
from omega.texts import one_line

__all__ = [
    "GameJob",
    "GameResult",
    "MatchResult",
    "derive_seed",
    "elo_from_rate",
    "elo_interval",
    "match_main",
    "play_game",
    "run_match",
    "seat_of_a",
    "seeded_spec",
    "wilson_interval",
]

#: Two-sided 95% quantile of the standard normal distribution.
Z95 = 1.959963984540054


# -- seats and seeds ---------------------------------------------------------------------


def seat_of_a(game_index: int, players: int) -> int:
    """The seat (player index, 0 = White at the start) BOT_A takes in game ``game_index``.

    BOT_A's seat cycles over 0 .. players-1, so over ``k * players`` games it holds each
    colour exactly ``k`` times; BOT_B holds all the other seats.

    >>> [seat_of_a(i, 2) for i in range(4)], [seat_of_a(i, 3) for i in range(4)]
    ([0, 1, 0, 1], [0, 1, 2, 0])
    """
    return game_index % players


def derive_seed(match_seed: int, game_index: int, seat: int, spec_seed: str = "") -> int:
    """A bot's seed for one seat of one game, from the match seed (63 bits, stable).

    A hash rather than arithmetic so that neighbouring games and seats get unrelated
    streams, and the result does not depend on the order in which workers run games.

    >>> derive_seed(0, 0, 0) == derive_seed(0, 0, 0) != derive_seed(0, 0, 1)
    True
    """
    text = f"omega-match:{match_seed}:{game_index}:{seat}:{spec_seed}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def seeded_spec(spec: str, seed: int) -> str:
    """``spec`` with its ``seed`` option set to ``seed`` (any seed it had is replaced).

    >>> seeded_spec("mcts:time=0.5,seed=3", 9)
    'mcts:time=0.5,seed=9'
    """
    name, options = parse_spec(spec)
    options["seed"] = str(seed)
    return name + ":" + ",".join(f"{k}={v}" for k, v in options.items())


# -- one game ----------------------------------------------------------------------------


@dataclass(frozen=True)
class GameJob:
    """Everything a worker needs to play game ``index`` of a match."""

    index: int
    spec_a: str
    spec_b: str
    size: int
    players: int
    pie: bool
    seed: int
    record_dir: str | None = None

    @property
    def a_seat(self) -> int:
        """The seat BOT_A holds in this game."""
        return seat_of_a(self.index, self.players)

    def spec_for_seat(self, seat: int) -> str:
        """The seeded spec of the bot in ``seat``."""
        spec = self.spec_a if seat == self.a_seat else self.spec_b
        own_seed = parse_spec(spec)[1].get("seed", "")
        return seeded_spec(spec, derive_seed(self.seed, self.index, seat, own_seed))


@dataclass(frozen=True)
class GameResult:
    """How one game of a match went, from BOT_A's point of view.

    ``a_color`` is the colour BOT_A held at the end (after a pie swap it is not its seat's
    starting colour); ``scores`` are per colour label; ``margin`` is BOT_A's score minus the
    best other colour's score.
    """

    index: int
    a_seat: int
    a_color: str
    a_won: bool
    winner: str
    scores: dict[str, int]
    margin: int
    log10_ratio: float
    turns: int
    swapped_by: str | None
    seconds: float
    a_think: float
    a_turns: int
    b_think: float
    b_turns: int


def play_game(job: GameJob) -> GameResult:
    """Play one game of a match and return its result (runs in a worker process).

    Raises RuntimeError naming the bot if a bot answers an illegal action.

    >>> r = play_game(GameJob(0, "random", "random", size=3, players=2, pie=False, seed=0))
    >>> r.a_color, r.turns
    ('White', 8)
    """
    game = Game(players=job.players, size=job.size, pie_rule=job.pie)
    bots: list[Bot] = [make_bot(job.spec_for_seat(seat)) for seat in range(job.players)]
    think = [0.0, 0.0]  # BOT_A, BOT_B
    moves = [0, 0]
    swapped_by: str | None = None
    started = time.perf_counter()
    while not game.is_over:
        seat = game.current_player
        assert seat is not None
        side = 0 if seat == job.a_seat else 1
        t0 = time.perf_counter()
        action = bots[seat].choose(game.copy())
        think[side] += time.perf_counter() - t0
        moves[side] += 1
        try:
            game.apply(action)
        except IllegalMove as e:
            spec = job.spec_a if side == 0 else job.spec_b
            raise RuntimeError(f"game {job.index}: bot {spec!r} played an illegal action {action!r}: {e}") from None
        if action == SWAP:
            swapped_by = "a" if side == 0 else "b"
    seconds = time.perf_counter() - started

    a_color = game.color_of(job.a_seat)
    scores = game.scores()
    winner = game.ranking()[0]
    best_other = max((s for c, s in scores.items() if c != a_color), default=0)
    a_score = scores[a_color]
    result = GameResult(
        index=job.index,
        a_seat=job.a_seat,
        a_color=a_color.label,
        a_won=game.player_of(winner) == job.a_seat,
        winner=winner.label,
        scores={c.label: s for c, s in scores.items()},
        margin=a_score - best_other,
        # Scores are products and span orders of magnitude: a log ratio averages better.
        log10_ratio=_log10(max(a_score, 1)) - _log10(max(best_other, 1)),
        turns=game.turns_played,
        swapped_by=swapped_by,
        seconds=seconds,
        a_think=think[0],
        a_turns=moves[0],
        b_think=think[1],
        b_turns=moves[1],
    )
    if job.record_dir is not None:
        _save_record(job, game)
    return result


def _log10(n: int) -> float:
    # math.log10 takes arbitrary-size ints exactly enough for products beyond float range.
    return math.log10(n)


def _save_record(job: GameJob, game: Game) -> None:
    tags = {"Event": "omega match", "Game": str(job.index + 1), "Seed": str(job.seed)}
    # A colour tag names the player who started with that colour (as in the record format).
    for seat in range(job.players):
        tags[Color(seat).label] = job.spec_for_seat(seat)
    tags["BotA"] = Color(job.a_seat).label
    path = Path(job.record_dir or ".") / f"game-{job.index + 1:05d}.txt"
    path.write_text(game.record(tags), encoding="utf-8")


# -- statistics --------------------------------------------------------------------------


def wilson_interval(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a win rate (95% by default).

    Unlike the plain normal interval it stays inside [0, 1] and is sensible for small
    samples and for 0 or ``games`` wins.

    >>> low, high = wilson_interval(60, 100)
    >>> round(low, 4), round(high, 4)
    (0.502, 0.6906)
    """
    if games <= 0:
        return (0.0, 1.0)
    p = wins / games
    z2 = z * z
    centre = (p + z2 / (2 * games)) / (1 + z2 / games)
    half = z * math.sqrt(p * (1 - p) / games + z2 / (4 * games * games)) / (1 + z2 / games)
    return (max(0.0, centre - half), min(1.0, centre + half))


def _rate_bounds(games: int) -> tuple[float, float]:
    # A clean sweep has no finite Elo. We count it as if half a game of the n+1th went the
    # other way: (n + 0.5) / (n + 1).  That stays monotone (a sweep always rates above
    # n-1 wins out of n) and grows with the evidence (10-0 -> +529, 100-0 -> +921).
    n = max(games, 1)
    return (0.5 / (n + 1), (n + 0.5) / (n + 1))


def elo_from_rate(rate: float, games: int) -> float:
    """Elo difference for a 2-player score rate, finite even at 0% and 100%.

    ``-400 * log10(1/p - 1)``, with ``p`` kept inside [0.5/(n+1), (n+0.5)/(n+1)] so that a
    clean sweep of ``n`` games counts as ``n + 0.5`` wins out of ``n + 1``.

    >>> round(elo_from_rate(0.6, 100), 2), round(elo_from_rate(1.0, 10), 1)
    (70.44, 528.9)
    """
    low, high = _rate_bounds(games)
    p = min(max(rate, low), high)
    return -400.0 * math.log10(1.0 / p - 1.0)


def elo_interval(wins: int, games: int) -> tuple[float, float]:
    """95% interval of the Elo difference: the Wilson interval mapped to Elo.

    Ends are bounded like :func:`elo_from_rate`, so a sweep's open end is the sweep's own
    (finite) estimate.

    >>> low, high = elo_interval(60, 100)
    >>> round(low, 1), round(high, 1)
    (1.4, 139.5)
    """
    low, high = wilson_interval(wins, games)
    return (elo_from_rate(low, games), elo_from_rate(high, games))


# -- a match -----------------------------------------------------------------------------


@dataclass
class MatchResult:
    """The outcome of a match, as :meth:`to_json` reports it (see ``docs/protocol.md``)."""

    spec_a: str
    spec_b: str
    players: int
    size: int
    pie: bool
    seed: int
    jobs: int
    results: list[GameResult] = field(default_factory=list)
    wall_seconds: float = 0.0

    @property
    def games(self) -> int:
        """Games played."""
        return len(self.results)

    @property
    def wins(self) -> dict[str, int]:
        """Games won by BOT_A (``"a"``) and by BOT_B (``"b"``, any of its seats)."""
        a = sum(r.a_won for r in self.results)
        return {"a": a, "b": self.games - a}

    @property
    def score_rate(self) -> float:
        """BOT_A's share of the wins: 1/players for equal strength."""
        return self.wins["a"] / self.games if self.games else 0.0

    @property
    def elo_diff(self) -> float | None:
        """Elo of BOT_A minus BOT_B (2 players only, else None)."""
        if self.players != 2 or not self.games:
            return None
        return elo_from_rate(self.score_rate, self.games)

    @property
    def elo_ci(self) -> tuple[float, float] | None:
        """95% interval of :attr:`elo_diff` (2 players only, else None)."""
        if self.players != 2 or not self.games:
            return None
        return elo_interval(self.wins["a"], self.games)

    @property
    def by_color(self) -> dict[str, dict[str, int]]:
        """Per colour BOT_A held at the end of the game: games and BOT_A's wins."""
        table = {Color(c).label: {"games": 0, "a_wins": 0} for c in range(self.players)}
        for r in self.results:
            table[r.a_color]["games"] += 1
            table[r.a_color]["a_wins"] += int(r.a_won)
        return table

    def to_json(self) -> dict[str, Any]:
        """The JSON object ``omega match --json`` prints."""
        n = self.games or 1
        a_turns = sum(r.a_turns for r in self.results)
        b_turns = sum(r.b_turns for r in self.results)
        ci = self.elo_ci
        rate_low, rate_high = wilson_interval(self.wins["a"], self.games)
        out: dict[str, Any] = {
            "bot_a": self.spec_a,
            "bot_b": self.spec_b,
            "players": self.players,
            "size": self.size,
            "pie": self.pie,
            "seed": self.seed,
            "games": self.games,
            "wins": self.wins,
            "score_rate": self.score_rate,
            "score_rate_ci": [rate_low, rate_high],
            "expected_rate": 1 / self.players,
            "elo_diff": self.elo_diff,
            "elo_ci": list(ci) if ci is not None else None,
            "by_color": self.by_color,
            "margin": {
                "mean": sum(r.margin for r in self.results) / n,
                "mean_log10_ratio": sum(r.log10_ratio for r in self.results) / n,
            },
            "turns_per_game": sum(r.turns for r in self.results) / n,
            "seconds": {
                "total": self.wall_seconds,
                "per_game": sum(r.seconds for r in self.results) / n,
                "a_per_turn": sum(r.a_think for r in self.results) / max(a_turns, 1),
                "b_per_turn": sum(r.b_think for r in self.results) / max(b_turns, 1),
            },
            "jobs": self.jobs,
        }
        if self.pie:
            out["swaps"] = {
                "a": sum(r.swapped_by == "a" for r in self.results),
                "b": sum(r.swapped_by == "b" for r in self.results),
            }
        return out


def check_match_args(spec_a: str, spec_b: str, games: int, size: int, players: int, pie: bool) -> None:
    """ValueError naming the first problem with a match's arguments (bad spec, bad rule).

    >>> check_match_args("random", "nosuchbot", 2, 5, 2, False)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: BOT_B: unknown bot 'nosuchbot'; choose one of ...
    """
    for label, spec in (("BOT_A", spec_a), ("BOT_B", spec_b)):
        try:
            make_bot(spec)
        except ValueError as e:
            raise ValueError(f"{label}: {e}") from None
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    Game(players=players, size=size, pie_rule=pie)  # ValueError for bad size, players, pie


def run_match(
    spec_a: str,
    spec_b: str,
    games: int = 100,
    size: int = 5,
    players: int = 2,
    seed: int = 0,
    jobs: int | None = None,
    pie: bool = False,
    record_dir: str | os.PathLike[str] | None = None,
    progress: Callable[[int, int, MatchResult], None] | None = None,
) -> MatchResult:
    """Play ``games`` games between two bot specs and return the tally.

    ``jobs`` worker processes play games in parallel (default: one per core; 1 plays in
    this process).  Results are in game order and do not depend on ``jobs``.
    ``progress(done, total, partial_result)`` is called after each finished game.  With
    ``record_dir`` each game's text record is saved there (``game-00001.txt``, ...) and,
    at the end, the summary as ``match.json``.  ValueError for a bad spec or bad rules.

    >>> r = run_match("random", "random", games=3, size=3, players=3, seed=2, jobs=1)
    >>> r.wins["a"] + r.wins["b"], r.elo_diff is None
    (3, True)
    """
    check_match_args(spec_a, spec_b, games, size, players, pie)
    if record_dir is not None:
        Path(record_dir).mkdir(parents=True, exist_ok=True)
    workers = max(1, min(jobs if jobs is not None else _cores(), games))
    match = MatchResult(spec_a, spec_b, players, size, pie, seed, workers)
    job_list = [
        GameJob(i, spec_a, spec_b, size, players, pie, seed, None if record_dir is None else str(record_dir))
        for i in range(games)
    ]
    started = time.perf_counter()
    for result in _play_all(job_list, workers):
        match.results.append(result)
        if progress is not None:
            progress(len(match.results), games, match)
    match.results.sort(key=lambda r: r.index)
    match.wall_seconds = time.perf_counter() - started
    if record_dir is not None:
        # The summary next to the games, so a directory of records explains itself.
        summary = Path(record_dir) / "match.json"
        summary.write_text(json.dumps(match.to_json(), indent=2) + "\n", encoding="utf-8")
    return match


def _cores() -> int:
    # The cores this process may run on (a container or taskset may allow fewer than exist).
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def _play_all(jobs: list[GameJob], workers: int) -> Iterator[GameResult]:
    if workers == 1:
        # In-process: no start-up cost, and the same play_game as a worker would run.
        for job in jobs:
            yield play_game(job)
        return
    with multiprocessing.get_context().Pool(workers) as pool:
        # chunksize 1: games can take very different times, keep every worker busy.
        yield from pool.imap_unordered(play_game, jobs, chunksize=1)


# -- command line ------------------------------------------------------------------------


class _Progress:
    """A one-line progress bar on a terminal (plain text, rewritten with carriage returns)."""

    def __init__(self, stream: TextIO, width: int = 30) -> None:
        self.stream = stream
        self.width = width
        self.started = time.perf_counter()

    def __call__(self, done: int, total: int, match: MatchResult) -> None:
        filled = self.width * done // total
        elapsed = time.perf_counter() - self.started
        eta = elapsed / done * (total - done)
        wins = match.wins
        line = (
            f"\r[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} games"
            f"  A {wins['a']} B {wins['b']}  {elapsed:.0f}s, ~{eta:.0f}s left "
        )
        self.stream.write(line)
        if done == total:
            self.stream.write("\n")
        self.stream.flush()


def format_table(match: MatchResult) -> str:
    """The human-readable report of ``omega match`` (without ``--json``)."""
    data = match.to_json()
    pie = ", pie rule" if match.pie else ""
    lines = [
        f"A = {match.spec_a}    B = {match.spec_b}",
        f"{match.games} games, {match.players} players, size {match.size}{pie}, seed {match.seed}",
        "",
        f"{'A as':<10}{'games':>7}{'A wins':>8}{'A rate':>9}",
    ]
    for color, row in match.by_color.items():
        rate = f"{100 * row['a_wins'] / row['games']:.1f}%" if row["games"] else "-"
        lines.append(f"{color:<10}{row['games']:>7}{row['a_wins']:>8}{rate:>9}")
    wins = match.wins
    lines.append(f"{'total':<10}{match.games:>7}{wins['a']:>8}{100 * match.score_rate:>8.1f}%")
    low, high = data["score_rate_ci"]
    lines += [
        "",
        f"A wins {wins['a']}, B wins {wins['b']}: A's share {100 * match.score_rate:.1f}% "
        f"(95% {100 * low:.1f}-{100 * high:.1f}%; equal strength {100 / match.players:.1f}%)",
    ]
    if match.elo_diff is not None and match.elo_ci is not None:
        lo, hi = match.elo_ci
        lines.append(f"Elo A - B: {match.elo_diff:+.1f} (95% {lo:+.1f} to {hi:+.1f})")
    if match.pie:
        lines.append(f"Swaps: A {data['swaps']['a']}, B {data['swaps']['b']}")
    margin = data["margin"]
    seconds = data["seconds"]
    lines += [
        f"Mean margin (A - best other): {margin['mean']:+.1f}; mean log10 ratio {margin['mean_log10_ratio']:+.3f}",
        f"Time: {_figure(seconds['per_game'])} s/game, A {_figure(1000 * seconds['a_per_turn'])} ms/turn, "
        f"B {_figure(1000 * seconds['b_per_turn'])} ms/turn; {_figure(seconds['total'])} s wall with {match.jobs} jobs",
    ]
    return "\n".join(lines)


def _figure(x: float) -> str:
    """A measured figure for the report: three significant digits, or whole units from 100
    up, never an exponent (a 1 s turn reads "1,003 ms/turn", not "1e+03").

    >>> _figure(1003.2), _figure(84.14), _figure(0.0123), _figure(5050.7)
    ('1,003', '84.1', '0.0123', '5,051')
    """
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.3g}"


def match_main(args: argparse.Namespace) -> int:
    """``omega match``: play the match ``args`` describe and print the report.

    Exit status 0, or 2 with one line on standard error for a bad spec or bad rules.
    """
    # Usage errors are printed here: omega.cli (and its UsageError) sits above this module.
    try:
        check_match_args(args.bot_a, args.bot_b, args.games, args.size, args.players, args.pie)
    except ValueError as e:
        return _usage_error(str(e))
    record_dir = getattr(args, "record_dir", None)
    if record_dir is not None:
        try:
            Path(record_dir).mkdir(parents=True, exist_ok=True)
        except OSError as e:
            return _usage_error(f"cannot use --record-dir {record_dir}: {e.strerror}")
    progress = _Progress(sys.stderr) if sys.stderr.isatty() else None
    try:
        match = run_match(
            args.bot_a, args.bot_b, games=args.games, size=args.size, players=args.players,
            seed=args.seed, jobs=args.jobs, pie=args.pie, record_dir=record_dir, progress=progress,
        )
    except Exception as e:  # a bot's failure mid-match: one clear line, not a traceback
        print(f"omega match: {type(e).__name__}: {e}".splitlines()[0], file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(match.to_json()))
    else:
        print(format_table(match))
    return 0


def _usage_error(message: str) -> int:
    print(f"omega match: {one_line(message, 'bad arguments')}", file=sys.stderr)
    return 2
