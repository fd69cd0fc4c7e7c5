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
import contextlib
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

__all__ = ["BotFactory", "ComputerPlayers", "DEFAULT_DEADLINE", "DEFAULT_WORKERS", "think", "spec_bot", "warm_up"]

log = logging.getLogger("omega.server")

#: Worker processes by default (``omega serve --ai-workers``): see docs/architecture.md.
DEFAULT_WORKERS = 4
#: Seconds a bot may think about one turn (the slowest level caps its search at 5 s).
DEFAULT_DEADLINE = 15.0
#: Level tried when a bot misses its deadline.
FALLBACK_LEVEL = 1
#: Seconds a new worker may take to load (or compile) the search kernels.
WARM_UP_DEADLINE = 300.0
#: Workers run at a lower priority than the server process.
WORKER_NICENESS = 10

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


def _worker_init(parent: int) -> None:
    """Runs in each worker when it starts: yield the CPU to the server process, and exit when
    the server process is gone (even killed with SIGKILL, which gives the pool no chance to
    stop its workers)."""
    with contextlib.suppress(OSError):
        # Bots use every cycle they get; the event loop answering players comes first.
        os.nice(WORKER_NICENESS)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="omega-parent-watch", daemon=True).start()


def warm_up() -> None:
    """Runs in a new worker before its first turn: load (or, without a cache, compile) the
    search kernels, so the first turn's deadline is spent thinking."""
    make_bot("mcts:iterations=32,seed=0").choose(Game())


def think(factory: BotFactory, level: int, seed: int, players: int, size: int, pie_rule: bool,
          history: Sequence[Action | list[str]]) -> Action:
    """Runs in a worker: rebuild the game and ask the bot for its action."""
    game = Game(players=players, size=size, pie_rule=pie_rule)
    for action in history:
        game.apply(action if isinstance(action, str) else tuple(action))
    action = factory(level, seed).choose(game)
    return SWAP if action == SWAP else tuple(action)


class _ThinkTimeout(Exception):
    """A bot did not answer within the deadline (its worker was killed)."""


class _Slot:
    """One worker process: a single-process pool, so that a bot past its deadline can be
    killed without touching the turns other workers are thinking about."""

    def __init__(self) -> None:
        self.pool: ProcessPoolExecutor | None = None
        self.warm = False

    def executor(self) -> ProcessPoolExecutor:
        if self.pool is None:
            # spawn, not fork: forking a process that runs an event loop and threads is unsafe.
            self.pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                            initializer=_worker_init, initargs=(os.getpid(),))
            self.warm = False
        return self.pool

    def pids(self) -> list[int]:
        # ProcessPoolExecutor has no public way to reach (or stop) a running job's process.
        return [p.pid for p in getattr(self.pool, "_processes", {}).values() if p.pid is not None]

    def kill(self) -> None:
        """End the worker at once (a running bot included); the next job starts a new one."""
        pool, self.pool = self.pool, None
        if pool is None:
            return
        processes = list(getattr(pool, "_processes", {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            with contextlib.suppress(Exception):
                process.kill()


class ComputerPlayers:
    """Plays the computer's turns of the tables of one server process.

    ``workers`` processes think at once; further turns wait for a free one.  Each turn has
    a wall-clock ``deadline`` (seconds in the worker, queueing not included): a bot still
    thinking then has its worker killed, and the turn is tried again at level 1 in a new
    worker; if that misses the deadline too, a random legal turn is played, so a table never
    waits longer than about two deadlines for a computer.
    """

    def __init__(self, service: object, workers: int = DEFAULT_WORKERS, bot_factory: BotFactory = bot_for_level,
                 retry_delay: float = 3.0, deadline: float = DEFAULT_DEADLINE, warm: bool | None = None) -> None:
        from omega.server.service import TableService

        assert isinstance(service, TableService)
        self.service = service
        self.workers = workers
        self.bot_factory = bot_factory
        self.retry_delay = retry_delay
        self.deadline = deadline
        #: Load the search kernels in each new worker before its first turn (the real bots).
        self.warm = bot_factory is bot_for_level if warm is None else warm
        self._slots = [_Slot() for _ in range(workers)]
        self._free: asyncio.Queue[_Slot] = asyncio.Queue()
        for slot in self._slots:
            self._free.put_nowait(slot)
        self._running: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()  # tables woken while their task was busy
        self._failed_until: dict[str, float] = {}
        self.turns_played = 0
        #: Turns whose bot missed the deadline (played at level 1 or at random instead).
        self.deadline_misses = 0

    def worker_pids(self) -> list[int]:
        """Process ids of the running workers."""
        return [pid for slot in self._slots for pid in slot.pids()]

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
                action = await self._choose(table_id, level, seed, game)
                if await service.act_computer(table_id, version, action):
                    self.turns_played += 1
            except asyncio.CancelledError:
                raise
            except BrokenProcessPool:
                log.error("an AI worker process died; starting a new one")
                self._failed_until[table_id] = loop.time() + self.retry_delay
                return
            except Exception:
                # A bot that fails is a bug to see in the log, not something to hide; the
                # sweeper tries again after a pause.
                log.exception("computer turn at table %s failed", table_id)
                self._failed_until[table_id] = loop.time() + self.retry_delay
                return

    async def _choose(self, table_id: str, level: int, seed: int, game: Game) -> Action:
        """The bot's action, within the deadline (see the class doc for what happens after)."""
        history = [a if a == SWAP else list(a) for a in game.history]
        for attempt in ([level, FALLBACK_LEVEL] if level > FALLBACK_LEVEL else [level]):
            try:
                return await self._think(attempt, seed, game, history)
            except _ThinkTimeout:
                self.deadline_misses += 1
                log.warning("computer turn at table %s (level %d) missed its %g s deadline; worker restarted",
                            table_id, attempt, self.deadline)
        # A uniformly random legal turn costs microseconds: no worker needed.
        log.warning("computer turn at table %s played at random after missed deadlines", table_id)
        return make_bot(f"random:seed={seed}").choose(game)

    async def _think(self, level: int, seed: int, game: Game, history: Sequence[Action | list[str]]) -> Action:
        loop = asyncio.get_running_loop()
        slot = await self._free.get()
        try:
            if self.warm and not slot.warm:
                try:
                    await asyncio.wait_for(loop.run_in_executor(slot.executor(), warm_up), WARM_UP_DEADLINE)
                except TimeoutError:
                    log.error("an AI worker did not load its search kernels in %g s", WARM_UP_DEADLINE)
                    slot.kill()
                    raise _ThinkTimeout from None
                slot.warm = True
            future = loop.run_in_executor(slot.executor(), think, self.bot_factory, level, seed,
                                          game.players, game.size, game.pie_rule, history)
            try:
                return await asyncio.wait_for(future, self.deadline)
            except TimeoutError:
                slot.kill()
                raise _ThinkTimeout from None
            except BrokenProcessPool:
                slot.kill()
                raise
        finally:
            self._free.put_nowait(slot)

    async def stop(self) -> None:
        """Cancel thinking and end the worker processes."""
        for task in list(self._running.values()):
            task.cancel()
        for slot in self._slots:
            slot.kill()
