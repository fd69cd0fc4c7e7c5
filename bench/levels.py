"""CPU time a computer player spends on one turn, by level and board side: what one computer
turn costs a worker (docs/scaling.md).

Plays ``--games`` 2-player games per side with the level's own bot on both seats and times
every turn in CPU seconds of this process (``time.process_time``: other jobs on a shared
machine slow the wall clock, not this), after a warm-up that loads the search kernels.
Prints the median and the 90th percentile per level and side, in milliseconds.

    .venv/bin/python bench/levels.py --sides 5 10 --games 1
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

from omega import Game
from omega.ai import bot_for_level
from omega.ai.levels import LEVELS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sides", type=int, nargs="+", default=[5, 10])
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--levels", type=int, nargs="+", default=[lv.number for lv in LEVELS])
    args = parser.parse_args(argv)
    bot_for_level(5, 0).choose(Game())  # load the kernels first
    out = []
    for side in args.sides:
        for level in args.levels:
            spent = []
            for game_number in range(args.games):
                game = Game(players=2, size=side)
                seed = 1000 * game_number
                while not game.is_over:
                    bot = bot_for_level(level, seed + game.turns_played)
                    began = time.process_time()
                    action = bot.choose(game)
                    spent.append(time.process_time() - began)
                    game.play(action)
            ordered = sorted(spent)
            out.append({"side": side, "level": level, "turns": len(spent),
                        "cpu_ms_p50": round(1000 * statistics.median(ordered), 1),
                        "cpu_ms_p90": round(1000 * ordered[int(0.9 * (len(ordered) - 1))], 1)})
            print(json.dumps(out[-1]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
