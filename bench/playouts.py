"""Kernel speed table: random playouts and MCTS iterations per second against the C yardstick.

Runs ``omega.bench.measure`` on sides 5 and 10 with 2 and 4 players (the figures quoted in
``docs/measured/2026-12-02-kernel-speed.md``) and prints a Markdown table.  Usage::

    .venv/bin/python bench/playouts.py [--seconds 2] [--sizes 5 10] [--players 2 4]
"""

from __future__ import annotations

import argparse
import json

from omega.bench import measure


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--sizes", type=int, nargs="+", default=[5, 10])
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--json", action="store_true", help="one JSON object per line instead of a table")
    args = parser.parse_args()
    if not args.json:
        print("| side | players | playouts/s | C playouts/s | ratio | MCTS iterations/s | mcts-v1 kernel | ratio |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for size in args.sizes:
        for players in args.players:
            r = measure(size, players, args.seconds)
            if args.json:
                print(json.dumps(r), flush=True)
                continue
            c = r.get("c_playouts_per_s")
            print(f"| {size} | {players} | {r['playouts_per_s']:,} | {c if c is None else f'{c:,}'} "
                  f"| {r.get('ratio_to_c', '-')} | {r['mcts_iterations_per_s']:,} | {r['mcts_v1_iterations_per_s']:,} "
                  f"| {r['mcts_ratio_to_v1']} |", flush=True)


if __name__ == "__main__":
    main()
