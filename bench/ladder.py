"""The levels' ladder: each computer level against the one below, and a rating for each.

Plays ``--games`` games of level ``k + 1`` against level ``k`` for every step from
``--first`` to ``--last`` (2 players, side 5, the pie rule on; every level at its own
iteration budget with its time cap lifted, so a busy machine plays the same games, only
later), one game at a time in this process.  Each step's tally is added to ``--out`` (one
JSON line a step) as soon as it is played, so a long ladder can be played in parts; a step
played again with the same seed replaces the earlier one, with another seed adds to it.  ``--reference random`` adds level 1 against the
random player; ``--gap 2`` plays each level against the one two below instead (more games
between the same levels, for the fit).

Then it fits one rating per level to every game in the file (Bradley-Terry on the Elo
scale, with half a win for each side of every pairing so that a 100-0 step stays finite),
anchored so that level ``--anchor`` reads ``--anchor-rating`` (1000, the display rating a
new player starts at: docs/ratings.md), with 95% intervals from the fit's information
matrix, and prints the table of docs/measured/2026-12-06-ten-levels.md.

    .venv/bin/python bench/ladder.py --games 100 --first 1 --last 11 --out ladder.jsonl
    .venv/bin/python bench/ladder.py --fit-only --out ladder.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

from omega.ai.levels import LEVELS, MAX_LEVEL, MIN_LEVEL
from omega.arena import run_match, wilson_interval

#: Elo points per natural-log unit of odds.
ELO = 400 / math.log(10)


def spec(player: str) -> str:
    """The bot spec of a ladder player: ``random``, or a level (by number) with no time cap.

    >>> spec("3"), spec("random")
    ('mcts:level=3,time=3600', 'random')
    """
    return player if not player.isdigit() else f"mcts:level={player},time=3600"


def play_step(a: str, b: str, games: int, seed: int) -> dict[str, object]:
    """``games`` games of ladder player ``a`` against ``b``: the tally, as one JSON line."""
    began = time.perf_counter()
    match = run_match(spec(a), spec(b), games=games, size=5, players=2, seed=seed, jobs=1, pie=True)
    return {"a": a, "b": b, "games": match.games, "a_wins": match.wins["a"],
            "by_color": match.by_color, "seconds": round(time.perf_counter() - began, 1), "seed": seed}


def fit(steps: list[dict[str, object]], anchor: str, anchor_rating: float) -> dict[str, tuple[float, float, float]]:
    """Each player's rating and 95% interval, fitted to the tallies ``steps``.

    >>> r = fit([{"a": "2", "b": "1", "games": 100, "a_wins": 76}], "1", 1000)
    >>> round(r["1"][0]), round(r["2"][0]), r["2"][1] < r["2"][0] < r["2"][2]
    (1000, 1198, True)
    """
    players = sorted({str(s["a"]) for s in steps} | {str(s["b"]) for s in steps}, key=_order)
    free = [p for p in players if p != anchor]
    at = {p: i for i, p in enumerate(free)}
    x = np.zeros(len(free))

    def strength(p: str) -> float:
        return 0.0 if p == anchor else float(x[at[p]])

    for _ in range(100):  # Newton's method on the log-likelihood (concave: it converges)
        grad, hess = np.zeros(len(free)), np.zeros((len(free), len(free)))
        for s in steps:
            a, b = str(s["a"]), str(s["b"])
            won, n = float(s["a_wins"]) + 0.5, float(s["games"]) + 1.0  # type: ignore[arg-type]
            p = 1 / (1 + math.exp(strength(b) - strength(a)))
            g, h = won - n * p, n * p * (1 - p)
            for who, sign in ((a, 1.0), (b, -1.0)):
                if who in at:
                    grad[at[who]] += sign * g
                    hess[at[who], at[who]] += h
            if a in at and b in at:
                hess[at[a], at[b]] -= h
                hess[at[b], at[a]] -= h
        move = np.linalg.solve(hess, grad)
        x += move
        if np.abs(move).max() < 1e-10:
            break
    spread = np.sqrt(np.diag(np.linalg.inv(hess)))
    out = {anchor: (anchor_rating, anchor_rating, anchor_rating)}
    for p, i in at.items():
        mid, half = anchor_rating + ELO * x[i], 1.96 * ELO * spread[i]
        out[p] = (mid, mid - half, mid + half)
    return out


def _order(player: str) -> tuple[int, int]:
    return (1, int(player)) if player.isdigit() else (0, 0)


def table(steps: list[dict[str, object]], ratings: dict[str, tuple[float, float, float]]) -> str:
    """The ladder as a Markdown table: each step's tally and score, each level's rating."""
    lines = ["| level | budget | step | games | score of the stronger (95% interval) | its wins as White / as Black "
             "| rating (95% interval) |",
             "|---:|---|---|---:|---|---|---|"]
    below = {str(s["a"]): _together([t for t in steps if t["a"] == s["a"] and t["b"] == s["b"]]) for s in steps
             if _gap(s) == 1 or not str(s["b"]).isdigit()}
    for lv in LEVELS:
        key = str(lv.number)
        budget = f"{lv.iterations:,} it" + (f", blunder {lv.blunder:g}" if lv.blunder else "")
        s = below.get(key)
        if s is None:
            step = games = score = colors = "-"
        else:
            n, won = int(s["games"]), float(s["a_wins"])  # type: ignore[call-overload, arg-type]
            low, high = wilson_interval(round(won), n)
            step, games = f"{s['a']} vs {s['b']}", str(n)
            score = f"{won:g}–{n - won:g}: {won / n:.2f} [{low:.2f}, {high:.2f}]"
            by = s["by_color"]
            colors = " / ".join(f"{c['a_wins']} of {c['games']}" for c in by.values()) if isinstance(by, dict) else "-"
        r = ratings.get(key)
        shown = f"{r[0]:.0f} [{r[1]:.0f}, {r[2]:.0f}]" if r else "-"
        lines.append(f"| {lv.number} | {budget} | {step} | {games} | {score} | {colors} | {shown} |")
    others = [f"{p}: {r[0]:.0f} [{r[1]:.0f}, {r[2]:.0f}]" for p, r in ratings.items() if not p.isdigit()]
    lines += [f"\nAlso rated: {'; '.join(others)}."] if others else []
    wider = sorted({(str(s["a"]), str(s["b"])) for s in steps if _gap(s) > 1}, key=lambda ab: int(ab[1]))
    if wider:
        lines += ["", "| match | games | score of the stronger (95% interval) |", "|---|---:|---|"]
        for a, b in wider:
            s = _together([t for t in steps if (t["a"], t["b"]) == (a, b)])
            n, won = int(s["games"]), float(s["a_wins"])  # type: ignore[call-overload, arg-type]
            low, high = wilson_interval(round(won), n)
            lines.append(f"| level {a} vs level {b} | {n} | {won:g}–{n - won:g}: {won / n:.2f} [{low:.2f}, {high:.2f}] |")
    return "\n".join(lines)


def _gap(step: dict[str, object]) -> int:
    a, b = str(step["a"]), str(step["b"])
    return int(a) - int(b) if a.isdigit() and b.isdigit() else 0


def _together(parts: list[dict[str, object]]) -> dict[str, object]:
    """The tallies of one step played in parts (with different seeds), added up."""
    by: dict[str, dict[str, int]] = {}
    for part in parts:
        for colour, c in part["by_color"].items():  # type: ignore[attr-defined]
            mine = by.setdefault(colour, {"games": 0, "a_wins": 0})
            mine["games"] += c["games"]
            mine["a_wins"] += c["a_wins"]
    return {"a": parts[0]["a"], "b": parts[0]["b"], "games": sum(int(p["games"]) for p in parts),  # type: ignore[call-overload]
            "a_wins": sum(float(p["a_wins"]) for p in parts), "by_color": by}  # type: ignore[arg-type]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--first", type=int, default=MIN_LEVEL, help="lowest level of the steps played")
    parser.add_argument("--last", type=int, default=MAX_LEVEL - 1, help="the step of this level against the one above")
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--gap", type=int, default=1, help="play level k + gap against level k")
    parser.add_argument("--reference", default=None, help="'random': also play level 1 against the random player")
    parser.add_argument("--out", type=Path, default=Path("ladder.jsonl"))
    parser.add_argument("--anchor", default="3")
    parser.add_argument("--anchor-rating", type=float, default=1000.0)
    parser.add_argument("--fit-only", action="store_true")
    args = parser.parse_args(argv)
    steps = [json.loads(line) for line in args.out.read_text().splitlines()] if args.out.exists() else []
    pairs = [] if args.fit_only else [(str(k + args.gap), str(k)) for k in range(args.first, args.last + 1)
                                      if k + args.gap <= MAX_LEVEL]
    if args.reference and not args.fit_only:
        pairs.insert(0, ("1", args.reference))
    for a, b in pairs:
        step = play_step(a, b, args.games, args.seed)
        print(json.dumps(step), flush=True)
        steps = [s for s in steps if (s["a"], s["b"], s["seed"]) != (a, b, args.seed)] + [step]
        args.out.write_text("".join(json.dumps(s) + "\n" for s in steps))
    print(table(steps, fit(steps, args.anchor, args.anchor_rating)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
