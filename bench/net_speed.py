"""Iterations a second of the search with and without the learnt network, in one run.

Each game of ``--games`` is played by the two bots against each other (seats alternating),
at an iteration budget, one thread each; the searches' own counts and clocks are added up
per bot, so both bots meet the same positions and the same machine load.

    .venv/bin/python bench/net_speed.py --iterations 1000 --games 4
"""

from __future__ import annotations

import argparse
import json

from omega.ai import make_bot
from omega.ai.mcts import MctsBot
from omega.game import Game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--size", type=int, default=5)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--net", default="net=1", help="the network's options (default net=1)")
    args = parser.parse_args()
    specs = {"mcts": f"mcts:iterations={args.iterations}", "net": f"mcts:iterations={args.iterations},{args.net}"}
    totals = {name: [0, 0.0] for name in specs}
    for g in range(args.games):
        bots = {name: make_bot(f"{spec},seed={g}") for name, spec in specs.items()}
        order = ["mcts", "net"] if g % 2 == 0 else ["net", "mcts"]
        seats = [order[i % 2] for i in range(args.players)]
        game = Game(players=args.players, size=args.size)
        while not game.is_over:
            mover = game.current_player
            assert mover is not None
            name = seats[mover]
            bot = bots[name]
            game.apply(bot.choose(game))
            assert isinstance(bot, MctsBot) and bot.last is not None
            if g > 0:  # the first game compiles
                totals[name][0] += bot.last.iterations
                totals[name][1] += bot.last.seconds
    rates = {name: n / s for name, (n, s) in totals.items()}
    print(json.dumps({"iterations_per_second": {k: round(v) for k, v in rates.items()},
                      "net_over_mcts": round(rates["net"] / rates["mcts"], 3), "games": args.games - 1}))


if __name__ == "__main__":
    main()
