"""Computer seats: their bots think in worker processes, never on the event loop.

When a computer (a computer seat, or the level-1 stand-in for a resigned player) is to
move, the action path stores a ``computer`` row of due work in the same commit.  The
scheduler of one server process claims it and calls :meth:`ComputerPlayers.play`, which
asks the table for the position (:class:`Tables`, a narrow interface: the job, then the
action), has a worker process choose the action, and submits it like any other action,
tied to the version it was chosen at.  If the play moved on meanwhile the action is
dropped; the commit that moved it has made the new turn due.

Pending turns survive crashes and restarts: the ``due`` row stays until the turn is played,
and a claim by a dead process is taken over.

The bots themselves run in the worker processes of ``thinking``.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
from concurrent.futures import TimeoutError as FutureTimeout
from datetime import datetime
from typing import Protocol

from pebble import ProcessPool

from omega.ai import bot_for_level, make_bot
from omega.game import SWAP, Action
from omega.server.actions import Action as TableAction
from omega.server.actions import SwapAction, TurnAction
from omega.server.core import Acted, ComputerJob
from omega.server.identity import COMPUTER, Identity
from omega.server.storage import Due
from omega.server.thinking import BotForLevel, think, worker_init

__all__ = ["ComputerPlayers", "Tables", "DEFAULT_DEADLINE", "DEFAULT_WORKERS"]

log = logging.getLogger("omega.server")

#: Worker processes by default (``omega serve --ai-workers``): see docs/architecture.md.
DEFAULT_WORKERS = 4
#: Seconds a bot may think about one turn (the slowest level caps its search at 5 s).
DEFAULT_DEADLINE = 15.0
#: Level tried when a bot misses its deadline.
FALLBACK_LEVEL = 1

class Tables(Protocol):
    """What the computer players need of the tables: the position to think about, and a way
    to play the chosen action (None: dropped, the play moved on)."""

    async def computer_job(self, table_id: str) -> ComputerJob | None:
        """The position the computer to move at ``table_id`` must think about, if any."""
        ...

    async def act(self, table_id: str, who: Identity, action: TableAction, *, request_id: str | None = None,
                  version: int | None = None) -> Acted | None:
        """Play ``action`` as chosen at ``version``."""
        ...


class ComputerPlayers:
    """Plays the computer's turns that the scheduler of one server process claims.

    ``workers`` processes think at once; further turns wait for a free one.  Each turn has
    a wall-clock ``deadline`` (seconds in the worker, waiting for a worker not included): a
    bot still thinking then has its worker killed, and the turn is tried again at level 1;
    if that misses the deadline too, a random legal turn is played, so a table never waits
    longer than about two deadlines for a computer once a worker has it.
    """

    def __init__(self, tables: Tables, workers: int = DEFAULT_WORKERS, bot_factory: BotForLevel = bot_for_level,
                 deadline: float = DEFAULT_DEADLINE, warm: bool | None = None) -> None:
        self.tables = tables
        self.workers = workers
        self.bot_factory = bot_factory
        self.deadline = deadline
        #: Load the search kernels in each new worker before its first turn (the real bots).
        self.warm = bot_factory is bot_for_level if warm is None else warm
        self._pool: ProcessPool | None = None
        self._free = asyncio.Semaphore(workers)
        self.turns_played = 0
        #: Turns whose bot missed the deadline (played at level 1 or at random instead).
        self.deadline_misses = 0

    def _workers(self) -> ProcessPool:
        if self._pool is None:
            # Started on the first turn, not with the server; spawn, not fork: forking a
            # process that runs an event loop and threads is unsafe.
            self._pool = ProcessPool(max_workers=self.workers, initializer=worker_init,
                                     initargs=(os.getpid(), self.warm),
                                     context=multiprocessing.get_context("spawn"))
        return self._pool

    async def play(self, due: Due) -> datetime | None:
        """Play the computer's turn at ``due.table_id`` (scheduler handler): done (None)
        once the turn is played, dropped, or no computer is to move."""
        job = await self.tables.computer_job(due.table_id)
        if job is None:
            return None
        action = await self._choose(job)
        table_action: TableAction = SwapAction() if action == SWAP else TurnAction(cells=tuple(action))
        if await self.tables.act(due.table_id, COMPUTER, table_action, version=job.version) is not None:
            self.turns_played += 1
        return None

    async def _choose(self, job: ComputerJob) -> Action:
        """The bot's action, within the deadline (see the class doc for what happens after)."""
        level = job.level
        for attempt in ([level, FALLBACK_LEVEL] if level > FALLBACK_LEVEL else [level]):
            try:
                return await self._think(attempt, job)
            except FutureTimeout:
                self.deadline_misses += 1
                log.warning("computer turn at table %s (level %d) missed its %g s deadline; worker restarted",
                            job.table_id, attempt, self.deadline)
        # A uniformly random legal turn costs microseconds: no worker needed.
        log.warning("computer turn at table %s played at random after missed deadlines", job.table_id)
        return make_bot(f"random:seed={job.seed}").choose(job.game)

    async def _think(self, level: int, job: ComputerJob) -> Action:
        async with self._free:
            # The pool counts the deadline from when a worker starts the turn, and kills
            # that worker (only that one) when it passes.
            future = self._workers().schedule(think, (self.bot_factory, level, job.seed, job.game),
                                              timeout=self.deadline)
            return await asyncio.wrap_future(future)

    async def stop(self) -> None:
        """End the worker processes (a running bot included)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.stop()  # type: ignore[no-untyped-call]
            await asyncio.get_running_loop().run_in_executor(None, pool.join, 10)
