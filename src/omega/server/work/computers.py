"""Computer seats: their bots think in worker processes, never on the event loop.

When a computer (a computer seat, or the stand-in for a resigned player) is to
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
from collections import deque
from collections.abc import Awaitable, Callable
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, TypeVar

from pebble import ProcessPool

from omega.ai import bot_for_level, make_bot
from omega.ai.levels import STAND_IN_LEVEL, find_level
from omega.game import SWAP, Action
from omega.server.config import is_quick_level
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
FALLBACK_LEVEL = STAND_IN_LEVEL
#: Turns whose waiting and thinking times ``status()`` summarises.
RECENT_TURNS = 500
#: A turn that waits longer than this for a worker is logged as a warning.
SLOW_WAIT = 5.0
#: Seconds between summary lines in the log (while turns are played).
SUMMARY_EVERY = 60.0
#: Seconds between looks, while a bot thinks, at whether its game moved on (then its search
#: is cancelled).
MOVED_ON_CHECK = 0.5
#: Seconds between looks at the clock while a quick level's reply waits out its ``think``.
PAUSE_CHECK = 0.05

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

    async def computer_due(self, table_id: str, version: int) -> bool:
        """Whether the computer's turn thought about at ``version`` is still to be played
        (False once the game ended or its play moved on)."""
        ...


@dataclass(eq=False)
class _Waiting:
    owner: str
    quick: bool
    granted: asyncio.Future[None]
    order: int


class FairSlots:
    """``size`` slots (worker processes) shared fairly among owners (who opened a table).

    - **Owners take turns by the time they used**: a free slot goes to the waiting owner
      that has used the least worker time while it had work here (each owner's work in the
      order it came).  An owner that comes (back) starts at the least time of those present,
      so being away earns no credit to crowd the others out later.
    - **No owner holds every slot**: at most ``per_owner`` at once (by default half of them,
      at least one), so another owner's turn finds a worker as soon as one is free.
    - **Quick work never waits behind slow work**: slow work (a strong level's search, a
      hint, a review) leaves ``reserve`` slots (one, from three slots up) to quick work (a
      turn of a quick level, ``config.is_quick_level``: milliseconds).

    So one owner with many tables delays another owner's quick turn by nothing while any
    quick turn of the others waits, and another owner's slow turn by at most one search.

    >>> async def demo() -> list[str]:
    ...     slots, served = FairSlots(3, per_owner=2), []
    ...     held = [await slots.acquire("a"), await slots.acquire("a")]   # a's cap, and the slow cap
    ...     async def turn(owner: str, name: str, quick: bool = False) -> None:
    ...         slot = await slots.acquire(owner, quick=quick); served.append(name); slots.release(slot, 1.0)
    ...     waiting = [asyncio.create_task(turn(o, n, q)) for o, n, q in
    ...                [("a", "a3", False), ("b", "b1", False), ("c", "c1", True)]]
    ...     await asyncio.sleep(0)          # c1 is quick: it takes the reserved slot at once
    ...     slots.release(held[0], 5.0)     # b1 goes before a3: a is at its cap, and used more
    ...     await asyncio.sleep(0); slots.release(held[1], 5.0)
    ...     await asyncio.gather(*waiting); return served
    >>> asyncio.run(demo())
    ['c1', 'b1', 'a3']
    """

    def __init__(self, size: int, *, per_owner: int | None = None, reserve: int | None = None) -> None:
        self.size = size
        self.per_owner = max(1, size // 2) if per_owner is None else per_owner
        self.reserve = (1 if size >= 3 else 0) if reserve is None else reserve
        self.free = size
        self._slow = 0
        self._holding: dict[str, int] = {}
        self._used: dict[str, float] = {}
        self._waiting: list[_Waiting] = []
        self._order = 0

    @property
    def waiting(self) -> int:
        """Pieces of work waiting for a slot."""
        return len(self._waiting)

    async def acquire(self, owner: str, *, quick: bool = False) -> tuple[str, bool]:
        """Wait for a slot in ``owner``'s place; the slot, to give to :meth:`release`."""
        if owner not in self._used:
            self._used[owner] = min(self._used.values(), default=0.0)
        self._order += 1
        waiting = _Waiting(owner, quick, asyncio.get_running_loop().create_future(), self._order)
        self._waiting.append(waiting)
        self._grant()
        try:
            await waiting.granted
        except asyncio.CancelledError:
            if waiting.granted.done() and not waiting.granted.cancelled():
                self.release((owner, quick), 0.0)  # handed a slot just as we were cancelled: pass it on
            else:
                self._waiting.remove(waiting)
                self._forget_if_idle(owner)
            raise
        return owner, quick

    def release(self, slot: tuple[str, bool], seconds: float) -> None:
        """Give a slot back after ``seconds`` of work: to the next owner whose turn it is."""
        owner, quick = slot
        self.free += 1
        self._slow -= 0 if quick else 1
        self._holding[owner] -= 1
        if not self._holding[owner]:
            del self._holding[owner]
        self._used[owner] = self._used.get(owner, 0.0) + seconds
        self._forget_if_idle(owner)
        self._grant()

    def _forget_if_idle(self, owner: str) -> None:
        if owner not in self._holding and not any(w.owner == owner for w in self._waiting):
            self._used.pop(owner, None)

    def _grant(self) -> None:
        while self.free > 0:
            allowed = [w for w in self._waiting if not w.granted.done()
                       and self._holding.get(w.owner, 0) < self.per_owner
                       and (w.quick or self._slow < self.size - self.reserve)]
            if not allowed:
                break
            chosen = min(allowed, key=lambda w: (self._used[w.owner], w.order))
            self._waiting.remove(chosen)
            self.free -= 1
            self._slow += 0 if chosen.quick else 1
            self._holding[chosen.owner] = self._holding.get(chosen.owner, 0) + 1
            chosen.granted.set_result(None)
        # Waiters cancelled meanwhile are gone from the list by their own except clause.


class ComputerPlayers:
    """Plays the computer's turns that the scheduler of one server process claims.

    ``workers`` processes think at once; further turns wait for a free one, owners taking
    turns (:class:`FairSlots`).  The time a turn waits for a worker and the time it thinks
    are measured apart (``status()``, and the log).  Each turn has
    a wall-clock ``deadline`` (seconds in the worker, waiting for a worker not included): a
    bot still thinking then has its worker killed, and the turn is tried again at the stand-in level (``STAND_IN_LEVEL``);
    if that misses the deadline too, a random legal turn is played, so a table never waits
    longer than about two deadlines for a computer once a worker has it.

    ``paced`` (by default: with the real bots) keeps each reply back until its level's
    ``think`` seconds (``omega.ai.levels``) have passed on ``clock`` since the turn came
    here, so a beginner that answers in a millisecond is seen to think; the wait holds no
    worker, and looks at the clock every :data:`PAUSE_CHECK` seconds (``sleep``), so a test
    moves it on with a fake clock.
    """

    def __init__(self, tables: Tables, workers: int = DEFAULT_WORKERS, bot_factory: BotForLevel = bot_for_level,
                 deadline: float = DEFAULT_DEADLINE, warm: bool | None = None,
                 clock: Callable[[], float] = time.monotonic, metrics: Metrics | None = None,
                 paced: bool | None = None, sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.tables = tables
        self.workers = workers
        self.bot_factory = bot_factory
        self.deadline = deadline
        #: Load the search kernels in each new worker before its first turn (the real bots).
        self.warm = bot_factory is bot_for_level if warm is None else warm
        #: Wait out each level's ``think`` before playing its reply (the real bots).
        self.paced = bot_factory is bot_for_level if paced is None else paced
        self.clock = clock
        self._sleep = sleep
        self._pool: ProcessPool | None = None
        self._slots = FairSlots(workers)
        #: Most turns of one owner thinking at once here (the scheduler claims no more).
        self.per_owner = self._slots.per_owner
        self.turns_played = 0
        #: Turns not played because their game moved on while they waited or thought.
        self.turns_cancelled = 0
        #: Turns whose bot missed the deadline (played at the stand-in level or at random instead).
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
            "turns_played": self.turns_played, "turns_cancelled": self.turns_cancelled,
            "deadline_misses": self.deadline_misses,
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
        slot = await self._slots.acquire(job.owner, quick=is_quick_level(job.level))
        started = self.clock()
        action: Action | None = None
        try:
            # The game may have moved on (a resignation, a flag) while the turn waited.
            if await self.tables.computer_due(job.table_id, job.version):
                action = await self._choose(job)
        finally:
            self._slots.release(slot, self.clock() - started)
        if action is None:
            self.turns_cancelled += 1
            log.info("computer turn at table %s (version %d) dropped: the game moved on", job.table_id, job.version)
            return None
        self._measured(job, started - queued, self.clock() - started)
        if self.paced:
            await self._pause(job.level, queued)
        table_action: TableAction = SwapAction() if action == SWAP else TurnAction(cells=tuple(action))
        if await self.tables.act(due.table_id, COMPUTER, table_action, version=job.version) is not None:
            self.turns_played += 1
        return None

    async def _choose(self, job: ComputerJob) -> Action | None:
        """The bot's action, within the deadline (see the class doc for what happens after);
        None if the game moved on meanwhile."""
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

    async def _think(self, level: int, job: ComputerJob) -> Action | None:
        # The caller holds one of the slots, so a worker is free: the pool counts the deadline
        # from when the worker starts the turn, and kills that worker (only that one) when it
        # passes.
        future = self._workers().schedule(think, (self.bot_factory, level, job.seed, job.game),
                                          timeout=self.deadline)
        # Said once the pool has the turn, so its bot processes exist by now (the first turn
        # starts them within schedule()).  Which of them takes it the pool does not tell.
        log.info("computer turn at table %s (version %d, level %d): thinking", job.table_id, job.version, level)
        thinking = asyncio.wrap_future(future)
        while True:
            done, _ = await asyncio.wait({thinking}, timeout=MOVED_ON_CHECK)
            if done:
                return thinking.result()
            if not await self.tables.computer_due(job.table_id, job.version):
                # Cancelling a running task ends its worker, which the pool replaces: a
                # new worker costs less than the rest of a strong search nobody will use.
                future.cancel()  # type: ignore[no-untyped-call]
                return None

    async def work(self, owner: str, fn: Callable[..., T], *args: Any, deadline: float | None = None,
                   on_start: Callable[[], None] | None = None) -> T:
        """Run ``fn(*args)`` in a worker (other work than a computer's turn: a review's
        search, a hint: slow work), waiting for a free worker in ``owner``'s place.
        TimeoutError (and the worker is restarted) if it takes more than ``deadline``
        seconds (default: a turn's deadline).  ``on_start`` is told when a worker takes it
        (cancelling the work after that ends the worker, before it costs nothing)."""
        slot = await self._slots.acquire(owner)
        if on_start is not None:
            on_start()
        started = self.clock()
        try:
            future = self._workers().schedule(fn, args, timeout=self.deadline if deadline is None else deadline)
            try:
                return await asyncio.wrap_future(future)
            except FutureTimeout:
                raise TimeoutError(f"{getattr(fn, '__name__', 'work')} took more than its deadline") from None
        finally:
            self._slots.release(slot, self.clock() - started)

    async def _pause(self, level: int, since: float) -> None:
        """Wait until ``level``'s ``think`` seconds have passed since ``since`` (``clock``)."""
        known = find_level(level)
        think = known.think if known is not None else 0.0
        while (left := since + think - self.clock()) > 0:
            await self._sleep(min(left, PAUSE_CHECK))

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
