"""What runs in the computer players' worker processes: the bots, and nothing of the
server (a worker imports this module and ``omega.ai`` only, so it starts quickly).

>>> from omega import Game
>>> think(spec_bot("random"), 1, 7, Game())[0] in Game().cells
True
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
import time
from collections.abc import Callable

from omega.ai import make_bot
from omega.ai.base import Bot
from omega.game import SWAP, Action, Game

__all__ = ["BotForLevel", "spec_bot", "worker_init", "warm_up", "think", "WORKER_NICENESS"]

#: Workers run at a lower priority than the server process.
WORKER_NICENESS = 10

#: Makes the bot for a level and seed; must be picklable (it travels to worker processes).
BotForLevel = Callable[[int, int], Bot]


def _spec_bot(spec: str, level: int, seed: int) -> Bot:
    del level
    return make_bot(f"{spec}:seed={seed}")


def spec_bot(spec: str) -> BotForLevel:
    """A factory that ignores the level and always makes the bot ``spec`` (seeded); for tests
    and benchmarks that need quick computer players.

    >>> spec_bot("random")(3, 11).name
    'random:seed=11'
    """
    return functools.partial(_spec_bot, spec)


def worker_init(parent: int, warm: bool) -> None:
    """Runs in each worker when it starts, before its first turn (so no turn's deadline is
    spent on it): yield the CPU to the server process, exit when the server process is gone
    (even killed with SIGKILL, which gives the pool no chance to stop its workers), and load
    the search kernels."""
    with contextlib.suppress(OSError):
        # Bots use every cycle they get; the event loop answering players comes first.
        os.nice(WORKER_NICENESS)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="omega-parent-watch", daemon=True).start()
    if warm:
        warm_up()


def warm_up() -> None:
    """Load (or, without a cache, compile) the search kernels: a tiny search."""
    make_bot("mcts:iterations=32,seed=0").choose(Game())


#: The bot of this worker's last turn: the next bot takes over its search tree, which it
#: uses if its game continues that turn's (the next turn of the same table in this worker).
_last: list[Bot] = []


def think(factory: BotForLevel, level: int, seed: int, game: Game) -> Action:
    """Runs in a worker: ask the bot for its action in ``game``."""
    bot = factory(level, seed)
    take_tree = getattr(bot, "take_tree", None)
    if take_tree is not None and _last:
        take_tree(_last.pop())
    _last[:] = [bot]
    action = bot.choose(game)
    return SWAP if action == SWAP else tuple(action)


