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
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout
from datetime import datetime
from typing import Any, Protocol, TypeVar

from pebble import ProcessPool

from omega.ai import bot_for_level, make_bot
from omega.game import SWAP, Action
from omega.server.infra.due import Due
from omega.server.infra.metrics import Metrics
from omega.server.tables.actions import Action as TableAction
from omega.server.tables.actions import SwapAction, TurnAction
from omega.server.tables.identity import COMPUTER, Identity
from omega.server.tables.values import Acted, ComputerJob
from omega.server.work.thinking import BotForLevel, think, worker_init

__all__ = ["ComputerPlayers", "Tables", "DEFAULT_DEADLINE", "DEFAULT_WORKERS"]

log = logging.getLogger("omega.server")
T = TypeVar("T")

#: Worker processes by default (``omega serve --ai-workers``): see docs/architecture.md.
DEFAULT_WORKERS = 4
#: Seconds a bot may think about one turn (the slowest level caps its search at 5 s).
DEFAULT_DEADLINE = 15.0
#: Level tried when a bot misses its deadline.
FALLBACK_LEVEL = 1
#: Turns whose waiting and thinking times ``status()`` summarises.
RECENT_TURNS = 500
#: A turn that waits longer than this for a worker is logged as a warning.
SLOW_WAIT = 5.0
#: Seconds between summary lines in the log (while turns are played).
SUMMARY_EVERY = 60.0

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


class FairSlots:
    """``size`` slots (worker processes) handed out fairly: owners take turns, each owner's
    waiting turns in the order they came.  One owner with many tables waiting therefore
    delays another owner's turn by at most one turn per worker, not by all of its own.

    >>> async def demo() -> list[str]:
    ...     slots, served = FairSlots(1), []
    ...     await slots.acquire("a")                     # the only slot is busy
    ...     async def turn(owner: str, name: str) -> None:
    ...         await slots.acquire(owner); served.append(name); slots.release()
    ...     waiting = [asyncio.create_task(turn(o, n)) for o, n in
    ...                [("a", "a1"), ("a", "a2"), ("a", "a3"), ("b", "b1")]]
    ...     await asyncio.sleep(0); slots.release()
    ...     await asyncio.gather(*waiting); return served
    >>> asyncio.run(demo())
    ['a1', 'b1', 'a2', 'a3']
    """

    def __init__(self, size: int) -> None:
        self.free = size
        self._waiting: OrderedDict[str, deque[asyncio.Future[None]]] = OrderedDict()

    @property
    def waiting(self) -> int:
        """Turns waiting for a slot."""
        return sum(len(q) for q in self._waiting.values())

    async def acquire(self, owner: str) -> None:
        """Wait for a slot, in ``owner``'s place in the rotation."""
        if self.free > 0 and not self._waiting:
            self.free -= 1
            return
        granted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(owner, deque()).append(granted)
        try:
            await granted
        except asyncio.CancelledError:
            if granted.done() and not granted.cancelled():
                self.release()  # handed a slot just as we were cancelled: pass it on
            else:
                queue = self._waiting.get(owner)
                if queue is not None and granted in queue:
                    queue.remove(granted)
                    if not queue:
                        del self._waiting[owner]
            raise

    def release(self) -> None:
        """Give a slot back: to the next owner in the rotation, if anyone waits."""
        while self._waiting:
            owner, queue = next(iter(self._waiting.items()))
            granted = queue.popleft()
            if queue:
                self._waiting.move_to_end(owner)  # this owner's next turn waits for the others
            else:
                del self._waiting[owner]
            if not granted.done():
                granted.set_result(None)
                return
        self.free += 1


class ComputerPlayers:
    """Plays the computer's turns that the scheduler of one server process claims.

    ``workers`` processes think at once; further turns wait for a free one, owners taking
    turns (:class:`FairSlots`).  The time a turn waits for a worker and the time it thinks
    are measured apart (``status()``, and the log).  Each turn has
    a wall-clock ``deadline`` (seconds in the worker, waiting for a worker not included): a
    bot still thinking then has its worker killed, and the turn is tried again at level 1;
    if that misses the deadline too, a random legal turn is played, so a table never waits
    longer than about two deadlines for a computer once a worker has it.
    """

    def __init__(self, tables: Tables, workers: int = DEFAULT_WORKERS, bot_factory: BotForLevel = bot_for_level,
                 deadline: float = DEFAULT_DEADLINE, warm: bool | None = None,
                 clock: Callable[[], float] = time.monotonic, metrics: Metrics | None = None) -> None:
        self.tables = tables
        self.workers = workers
        self.bot_factory = bot_factory
        self.deadline = deadline
        #: Load the search kernels in each new worker before its first turn (the real bots).
        self.warm = bot_factory is bot_for_level if warm is None else warm
        self.clock = clock
        self._pool: ProcessPool | None = None
        self._slots = FairSlots(workers)
        self.turns_played = 0
        #: Turns whose bot missed the deadline (played at level 1 or at random instead).
        self.deadline_misses = 0
        #: Seconds recent turns waited for a worker, and thought once they had one.
        self.waits: deque[float] = deque(maxlen=RECENT_TURNS)
        self.thinks: deque[float] = deque(maxlen=RECENT_TURNS)
        self._summary_at = clock()
        self._since_summary = 0
        self.metrics = metrics
        if metrics is not None:
            metrics.sample_with(self._sample)

    async def _sample(self) -> None:
        assert self.metrics is not None
        self.metrics.computer_thinking.set(self.workers - self._slots.free)
        self.metrics.computer_waiting.set(self._slots.waiting)

    def status(self) -> dict[str, Any]:
        """Workers, turns thinking and waiting, and how long recent turns waited and thought
        (milliseconds: median, 95th percentile, most), for ``GET /api/status``."""
        return {
            "workers": self.workers, "thinking": self.workers - self._slots.free, "waiting": self._slots.waiting,
            "turns_played": self.turns_played, "deadline_misses": self.deadline_misses,
            "wait_ms": _spread(self.waits), "think_ms": _spread(self.thinks),
        }

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
        queued = self.clock()
        await self._slots.acquire(job.owner)
        started = self.clock()
        try:
            action = await self._choose(job)
        finally:
            self._slots.release()
        self._measured(job, started - queued, self.clock() - started)
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
                if self.metrics is not None:
                    self.metrics.deadline_misses.inc()
                log.warning("computer turn at table %s (level %d) missed its %g s deadline; worker restarted",
                            job.table_id, attempt, self.deadline)
        # A uniformly random legal turn costs microseconds: no worker needed.
        log.warning("computer turn at table %s played at random after missed deadlines", job.table_id)
        return make_bot(f"random:seed={job.seed}").choose(job.game)

    async def _think(self, level: int, job: ComputerJob) -> Action:
        # The caller holds one of the slots, so a worker is free: the pool counts the deadline
        # from when the worker starts the turn, and kills that worker (only that one) when it
        # passes.
        future = self._workers().schedule(think, (self.bot_factory, level, job.seed, job.game),
                                          timeout=self.deadline)
        # Said once the pool has the turn, so its bot processes exist by now (the first turn
        # starts them within schedule()).  Which of them takes it the pool does not tell.
        log.info("computer turn at table %s (version %d, level %d): thinking", job.table_id, job.version, level)
        return await asyncio.wrap_future(future)

    async def work(self, owner: str, fn: Callable[..., T], *args: Any, deadline: float | None = None) -> T:
        """Run ``fn(*args)`` in a worker (other work than a computer's turn: a review's
        search, a hint), waiting for a free worker in ``owner``'s place in the rotation.
        TimeoutError (and the worker is restarted) if it takes more than ``deadline``
        seconds (default: a turn's deadline)."""
        await self._slots.acquire(owner)
        try:
            future = self._workers().schedule(fn, args, timeout=self.deadline if deadline is None else deadline)
            try:
                return await asyncio.wrap_future(future)
            except FutureTimeout:
                raise TimeoutError(f"{getattr(fn, '__name__', 'work')} took more than its deadline") from None
        finally:
            self._slots.release()

    def _measured(self, job: ComputerJob, waited: float, thought: float) -> None:
        self.waits.append(waited)
        self.thinks.append(thought)
        if self.metrics is not None:
            self.metrics.computer_wait.observe(waited)
            self.metrics.computer_think.labels(str(job.level)).observe(thought)
        self._since_summary += 1
        if waited > SLOW_WAIT:
            log.warning("computer turn at table %s waited %.1f s for a worker (%d waiting)",
                        job.table_id, waited, self._slots.waiting)
        now = self.clock()
        if now - self._summary_at >= SUMMARY_EVERY:
            status = self.status()
            log.info("computer turns: %d in the last %.0f s, %d waiting; wait ms p50/p95/max %s; "
                     "think ms p50/p95/max %s", self._since_summary, now - self._summary_at, status["waiting"],
                     "/".join(map(str, status["wait_ms"].values())), "/".join(map(str, status["think_ms"].values())))
            self._summary_at, self._since_summary = now, 0

    async def stop(self) -> None:
        """End the worker processes (a running bot included)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.stop()  # type: ignore[no-untyped-call]
            await asyncio.get_running_loop().run_in_executor(None, pool.join, 10)


def _spread(seconds: deque[float]) -> dict[str, int | None]:
    """Median, 95th percentile and most of ``seconds``, in whole milliseconds.

    >>> _spread(deque([0.001 * n for n in range(1, 101)]))
    {'p50': 50, 'p95': 95, 'max': 100}
    >>> _spread(deque())
    {'p50': None, 'p95': None, 'max': None}
    """
    if not seconds:
        return {"p50": None, "p95": None, "max": None}
    ordered = sorted(seconds)

    def at(q: float) -> int:
        return round(1000 * ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))])

    return {"p50": at(0.50), "p95": at(0.95), "max": round(1000 * ordered[-1])}
