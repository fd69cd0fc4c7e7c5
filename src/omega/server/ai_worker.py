"""Computer seats: their bots think in worker processes, never on the event loop.

When a computer (a computer seat, or the level-1 stand-in for a resigned player) is to move,
:class:`ComputerPlayers` claims the turn in the database (so among several server processes
only one thinks about it), asks a worker process for the action, and submits it like any
other action, tied to the version it was computed at.  If anything moved meanwhile the
action is dropped and the position is looked at again.

Pending turns survive restarts: the ``tables`` row says a computer is to move, and every
process sweeps for such rows at start-up and every few seconds.

>>> from omega import Game
>>> think(spec_bot("random"), 1, 7, 2, 5, False, [])[0] in Game().cells
True
"""

from __future__ import annotations

import asyncio
import functools
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from omega.ai import bot_for_level, make_bot
from omega.ai.base import Bot
from omega.game import SWAP, Action, Game

__all__ = ["BotFactory", "ComputerPlayers", "think", "spec_bot"]

log = logging.getLogger("omega.server")

#: Makes the bot for a level and seed; must be picklable (it travels to worker processes).
BotFactory = Callable[[int, int], Bot]


def _spec_bot(spec: str, level: int, seed: int) -> Bot:
    del level
    return make_bot(f"{spec}:seed={seed}")


def spec_bot(spec: str) -> BotFactory:
    """A factory that ignores the level and always makes the bot ``spec`` (seeded); for tests
    and benchmarks that need quick computer players.

    >>> spec_bot("random")(3, 11).name
    'random:seed=11'
    """
    return functools.partial(_spec_bot, spec)


def _watch_parent(parent: int) -> None:
    """Runs in each worker: exit when the server process is gone (even killed with SIGKILL,
    which gives the pool no chance to stop its workers)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="omega-parent-watch", daemon=True).start()


def think(factory: BotFactory, level: int, seed: int, players: int, size: int, pie_rule: bool,
          history: Sequence[Action | list[str]]) -> Action:
    """Runs in a worker: rebuild the game and ask the bot for its action."""
    game = Game(players=players, size=size, pie_rule=pie_rule)
    for action in history:
        game.apply(action if isinstance(action, str) else tuple(action))
    action = factory(level, seed).choose(game)
    return SWAP if action == SWAP else tuple(action)


class ComputerPlayers:
    """Plays the computer's turns of the tables of one server process."""

    def __init__(self, service: object, workers: int = 1, bot_factory: BotFactory = bot_for_level,
                 retry_delay: float = 3.0) -> None:
        from omega.server.service import TableService

        assert isinstance(service, TableService)
        self.service = service
        self.workers = workers
        self.bot_factory = bot_factory
        self.retry_delay = retry_delay
        self._pool: ProcessPoolExecutor | None = None
        self._running: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()  # tables woken while their task was busy
        self._failed_until: dict[str, float] = {}
        self.turns_played = 0

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # spawn, not fork: forking a process that runs an event loop and threads is unsafe.
            self._pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_watch_parent, initargs=(os.getpid(),))
        return self._pool

    def schedule(self, table_id: str) -> None:
        """Make sure someone looks at ``table_id``'s computer turn soon."""
        loop = asyncio.get_running_loop()
        if loop.time() < self._failed_until.get(table_id, 0.0):
            return
        if table_id in self._running:
            self._again.add(table_id)
            return
        self._running[table_id] = loop.create_task(self._play(table_id))

    async def _play(self, table_id: str) -> None:
        try:
            await self._play_turns(table_id)
        finally:
            # Synchronously with the end of the task: a schedule() after this starts a new one.
            self._running.pop(table_id, None)

    async def _play_turns(self, table_id: str) -> None:
        service = self.service
        loop = asyncio.get_running_loop()
        while True:
            self._again.discard(table_id)
            try:
                job = await service.computer_job(table_id)
                if job is None:
                    if table_id in self._again:
                        continue  # woken while we looked: look again
                    return
                version, level, seed, game = job
                claimed = await service._db(service.repo.claim_computer_turn, table_id, version, service.server_id)
                if not claimed:
                    return  # another process thinks about this turn
                history = [a if a == SWAP else list(a) for a in game.history]
                action = await loop.run_in_executor(
                    self._executor(), think, self.bot_factory, level, seed,
                    game.players, game.size, game.pie_rule, history)
                if await service.act_computer(table_id, version, action):
                    self.turns_played += 1
            except asyncio.CancelledError:
                raise
            except BrokenProcessPool:
                log.error("an AI worker process died; starting new ones")
                self._pool = None
                self._failed_until[table_id] = loop.time() + self.retry_delay
                return
            except Exception:
                # A bot that fails is a bug to see in the log, not something to hide; the
                # sweeper tries again after a pause.
                log.exception("computer turn at table %s failed", table_id)
                self._failed_until[table_id] = loop.time() + self.retry_delay
                return

    async def stop(self) -> None:
        """Cancel thinking and end the worker processes."""
        for task in list(self._running.values()):
            task.cancel()
        if self._pool is not None:
            processes = list(getattr(self._pool, "_processes", {}).values())
            self._pool.shutdown(wait=False, cancel_futures=True)
            for p in processes:
                p.terminate()
            self._pool = None
