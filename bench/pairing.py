"""How long the pairing of a Swiss round takes (2 players): the issue's target is under 1 s
for 200 players (docs/tournaments.md).

Plays ``--events`` Swiss tournaments of ``--entrants`` players (random ratings) over
``--rounds`` rounds, each game's result drawn at random, and times every round's
``Swiss.pair`` in CPU seconds of this process (``time.process_time``: other jobs on a shared
machine slow the wall clock, not this; the wall-clock figures are printed too). Prints the
median and the worst round, and, as the yardstick of the same run, the last round paired
again over the complete graph (the window set to the whole field: what the window saves),
with the floaters (tables of unequal scores) of both pairings.

    .venv/bin/python bench/pairing.py --entrants 200 --rounds 9 --events 3
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time

from omega.pairing import Bye, Entrant, History, Played, Swiss


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entrants", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--events", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-yardstick", action="store_true", help="skip the complete-graph pairing")
    args = parser.parse_args(argv)
    swiss = Swiss(players=2, rounds=args.rounds)
    times: list[float] = []
    walls: list[float] = []
    last: tuple[list[Entrant], History, int] | None = None
    for event in range(args.events):
        rng = random.Random(args.seed * 1000 + event)
        field = [Entrant(i, rng.uniform(1000.0, 2500.0)) for i in range(1, args.entrants + 1)]
        games: list[Played] = []
        byes: list[Bye] = []
        for number in range(1, args.rounds + 1):
            history = History(tuple(games), tuple(byes))
            rng.shuffle(field)  # the pairing must not depend on the order it is given
            began, wall = time.process_time(), time.perf_counter()
            paired = swiss.pair(field, history, number)
            times.append(time.process_time() - began)
            walls.append(time.perf_counter() - wall)
            last = (list(field), history, number)
            games += [Played(number, seats, rng.choice(((0, 1), (1, 0)))) for seats in paired.tables]
            byes += [Bye(number, x) for x in paired.byes]
    out: dict[str, object] = {
        "entrants": args.entrants, "rounds": args.rounds, "events": args.events, "pairings": len(times),
        "median_s": round(statistics.median(times), 4), "worst_s": round(max(times), 4),
        "wall_median_s": round(statistics.median(walls), 4), "wall_worst_s": round(max(walls), 4),
    }
    if not args.no_yardstick and last is not None:
        field, history, number = last
        windowed = swiss.pair(field, history, number)
        began = time.process_time()
        full = Swiss(players=2, rounds=args.rounds, window=args.entrants).pair(field, history, number)
        out["complete_graph_s"] = round(time.process_time() - began, 4)
        points = {s.entrant: s.points for s in swiss.standings(field, history)}
        out["floaters"] = sum(points[a] != points[b] for a, b in windowed.tables)
        out["complete_graph_floaters"] = sum(points[a] != points[b] for a, b in full.tables)
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
