"""Peak memory of one long MCTS search: the pools stay bounded at any thinking time.

Searches the empty board for ``--iterations`` simulations (or ``--seconds``) in a fresh
process and prints, as JSON, the search's figures (iterations, edges in use at most,
how often the pools were recycled) and the process's peak resident memory before and after
the search.  Usage::

    .venv/bin/python bench/memory.py [--size 10] [--players 2] [--iterations 400000 | --seconds 10]
        [--spec mcts]
"""

from __future__ import annotations

import argparse
import json
import resource

from omega import Game
from omega.ai import make_bot
from omega.ai.mcts import MctsBot
from omega.kernel import KernelState


def peak_mb() -> float:
    """This process's peak resident memory so far, in MB (Linux reports kilobytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--iterations", type=int, default=400_000, help="ignored with --seconds")
    parser.add_argument("--spec", default="mcts", help="a bot spec without time (mcts, mcts-v1, mcts:threads=1)")
    args = parser.parse_args()
    game = Game(players=args.players, size=args.size)
    make_bot(f"{args.spec}:iterations=64,seed=0").choose(game)  # load the kernels first
    before = peak_mb()
    budget = f"time={args.seconds}" if args.seconds is not None else f"iterations={args.iterations},time=3600"
    bot = make_bot(f"{args.spec}:{budget},seed=1")
    assert isinstance(bot, MctsBot)
    result = bot.search(KernelState.from_game(game))
    print(json.dumps({
        "spec": bot.name, "size": args.size, "players": args.players, "seconds": round(result.seconds, 2),
        "iterations": result.iterations, "edges_at_most": result.edges, "recycled": result.recycled,
        "peak_rss_mb_before": round(before), "peak_rss_mb": round(peak_mb()),
    }))


if __name__ == "__main__":
    main()
