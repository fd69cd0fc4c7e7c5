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
from typing import Any

from omega.ai import make_bot
from omega.ai.base import Bot
from omega.game import SWAP, Action, Game

__all__ = ["BotForLevel", "Searched", "spec_bot", "worker_init", "warm_up", "think", "search", "assemble_review",
           "hint", "WORKER_NICENESS", "HINT_SECONDS"]

#: Seconds the search thinks about a hint.
HINT_SECONDS = 1.0

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




#: One searched position of a review as it travels back from a worker: each colour's win
#: probability, the best action (None once over), simulations and seconds.  Plain values,
#: so the server process never loads the search (NumPy, Numba) to read them.
Searched = tuple[tuple[float, ...], Action | None, int, float]


def search(game: Game, iterations: int, seconds: float, seed: int) -> Searched:
    """Runs in a worker: one position of a game's review (``omega.ai.review``).

    >>> values, best, _, _ = search(Game(size=3), 200, 1.0, seed=1)
    >>> len(values), best in (None, "swap") or len(best) == 2
    (2, True)
    """
    from omega.ai.review import search_position

    found = search_position(game, iterations, seconds, seed)
    return found.values, found.best, found.iterations, found.seconds


def assemble_review(game: Game, found: list[Searched], iterations: int, seconds: float) -> dict[str, Any]:
    """Runs in a worker: the review of ``game`` (its JSON form) from its searched positions."""
    from omega.ai.review import PositionValue, assemble

    return assemble(game, [PositionValue(*f) for f in found], iterations, seconds).to_json()


def hint(game: Game, seed: int, seconds: float = HINT_SECONDS) -> Action:
    """Runs in a worker: the best action the search finds in ``seconds`` for the side to
    move (a hint for a person).

    >>> g = Game(size=3); hint(g, seed=1, seconds=0.05)[0] in g.cells
    True
    """
    from omega.ai.review import search_position

    best = search_position(game, iterations=10**9, seconds=seconds, seed=seed).best
    assert best is not None, "a hint is asked for a game in progress"
    return SWAP if best == SWAP else tuple(best)
