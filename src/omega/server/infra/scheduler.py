"""Work that is due at a time, claimed once across every server process.

A piece of due work is a ``due`` row: a kind, a table (``""`` for site-wide work), the
table version it is about and when it is due.  Rows are written by the action path in the
same commit as the events that make them due (a computer to move), or by the scheduler
itself for recurring work (the sweep for dead processes).  Every process runs one
:class:`Scheduler`: it claims rows that are due (``SKIP LOCKED`` on PostgreSQL, so exactly
one process gets each; SQLite has one process) and hands each to the handler of its kind.
A handler that acts on a table does so through the same action path as a person.

A claim holds while its process lives (its heartbeat in ``servers``) or, for kinds with a
lease, until the lease ends; a claim left by a dead process is taken over.  A handler that
fails gives its claim back with a retry time.

Work is claimed when it is due: the loop sleeps until the earliest ``due_at`` it knows of
(a clock's flag, to the millisecond) and at most ``Settings.sweep_interval``, so work that
another process stored is seen within that interval and done at its time.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol, TypeVar

from omega.server.clock import Clock
from omega.server.config import Settings
from omega.server.infra.due import Due, DueQueue

__all__ = ["Scheduler", "Host", "Departures", "Handler", "SWEEP", "SITE", "wait_set"]

T = TypeVar("T")


class Host(Protocol):
    """What the scheduler runs on: the process's database (its due work and ``servers``
    rows), its id, clock and settings, and the threads that run blocking database work
    (the table core is one)."""

    @property
    def repo(self) -> DueQueue:
        """The database."""
        ...

    @property
    def server_id(self) -> str:
        """This process's id in ``servers``."""
        ...

    @property
    def clock(self) -> Clock:
        """Where the time comes from."""
        ...

    @property
    def settings(self) -> Settings:
        """The process's timings (``sweep_interval``, ``dead_after``, ``retry_delay``)."""
        ...

    async def db(self, fn: Callable[..., T], *args: Any) -> T:
        """Run blocking database work off the event loop."""
        ...


class Departures(Protocol):
    """Told when a server process left (this one at shutdown, or a dead one found by the
    sweep), before its row is forgotten: the tables' presence withdraws its sockets."""

    async def withdraw(self, server_id: str) -> None:
        """Clear what ``server_id`` held."""
        ...

log = logging.getLogger("omega.server")

#: Site-wide work: clear the presence of dead server processes (PostgreSQL only: with SQLite
#: one process owns the database and clears the others' at start-up).
SWEEP = "sweep"
#: The ``table_id`` of work that belongs to no table.
SITE = ""
#: Seconds a sweep's claim lasts, in case its process dies while sweeping.
SWEEP_LEASE = 30.0

#: Does the work; returns when it is due again (recurring work) or None when it is done.
Handler = Callable[[Due], Awaitable[datetime | None]]


async def wait_set(event: asyncio.Event, seconds: float) -> bool:
    """Wait until ``event`` is set or ``seconds`` have passed; True if it was set.

    Unlike ``asyncio.wait_for`` on Python 3.11, a cancellation that arrives while the
    event is being set still cancels: a stopping server's loop must not live on because
    a handler woke it at that moment.

    >>> event = asyncio.Event(); event.set(); asyncio.run(wait_set(event, 1.0))
    True
    """
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            await event.wait()
            return True
    return False


@dataclass
class _Kind:
    handler: Handler
    lease: float | None
    capacity: int
    per_owner: int | None = None
    running: set[asyncio.Task[None]] = field(default_factory=set)


class Scheduler:
    """Claims due work and runs it; keeps this process's heartbeat (and, with SQLite, moves
    the write-ahead log into the database file at each beat, off the commits' path)."""

    def __init__(self, core: Host, presence: Departures) -> None:
        self.core = core
        self.presence = presence
        self.settings = core.settings
        self._kinds: dict[str, _Kind] = {}
        self._recurring: list[str] = []
        self._beats: list[Callable[[], Awaitable[object]]] = []
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    def handle(self, kind: str, handler: Handler, *, lease: float | None = None, capacity: int = 64,
               per_owner: int | None = None) -> None:
        """Run ``handler`` for due work of ``kind``, at most ``capacity`` at once in this
        process and, with ``per_owner``, at most that many of one owner's (owners served in
        turn: ``DueQueue.claim_due``); a claim lasts ``lease`` seconds (None: while this
        process lives)."""
        self._kinds[kind] = _Kind(handler, lease, capacity, per_owner)

    def every(self, kind: str, seconds: float, job: Callable[[], Awaitable[object]], *, lease: float = 300.0) -> None:
        """Run ``job`` every ``seconds``, in one process of the site at a time (a site-wide
        row of due work; a claim lasts ``lease`` seconds in case its process dies)."""
        async def run(due: Due) -> datetime:
            await job()
            return self.core.clock.now() + timedelta(seconds=seconds)

        self.handle(kind, run, lease=lease, capacity=1)
        self._recurring.append(kind)

    def at_beat(self, job: Callable[[], Awaitable[object]]) -> None:
        """Run ``job`` at every heartbeat of this process (its own work: nothing is claimed)."""
        self._beats.append(job)

    def wake(self) -> None:
        """Look for due work now (new work was stored, or a handler finished)."""
        self._wake.set()

    @property
    def running(self) -> int:
        """Pieces of due work this process is running."""
        return sum(len(k.running) for k in self._kinds.values())

    # -- life cycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Register this process, clear what dead processes left, start the loops."""
        core = self.core
        await core.db(core.repo.register_server, core.server_id, core.clock.now())
        # SQLite: one process owns the database, so every other process row is dead now.
        await self.sweep_dead(None if not core.repo.is_postgres else self.settings.dead_after)
        if core.repo.is_postgres:
            self.every(SWEEP, self.settings.sweep_interval, self._sweep, lease=SWEEP_LEASE)
        for kind in self._recurring:
            # The first process to start makes the row; later ones find it (same version).
            await core.db(core.repo.keep_due, kind, SITE, 0, core.clock.now())
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._claim_forever()), loop.create_task(self._beat_forever())]

    async def stop(self) -> None:
        """Stop claiming, cancel running work, and leave: withdraw this process's presence
        and its ``servers`` row (its claims are free again at once)."""
        for task in self._tasks:
            task.cancel()
        running = [t for k in self._kinds.values() for t in k.running]
        for task in running:
            task.cancel()
        # Their results and errors, cancellations included, are of no interest now; a
        # cancellation of stop() itself still reaches the caller.
        await asyncio.gather(*self._tasks, *running, return_exceptions=True)
        core = self.core
        try:
            # Sockets are closed by now: say so at once rather than when others find us dead.
            await self.presence.withdraw(core.server_id)
            await core.db(core.repo.forget_server, core.server_id)
        except Exception:
            log.exception("could not withdraw presence at shutdown")

    # -- the loops ------------------------------------------------------------------------------

    async def _beat_forever(self) -> None:
        core = self.core
        while True:
            await asyncio.sleep(self.settings.sweep_interval)
            try:
                if not await core.db(core.repo.heartbeat, core.server_id, core.clock.now()):
                    # Stalled past ``dead_after`` (a paused VM, a clock jump): the others
                    # withdrew this process's presence and freed its claims.
                    log.warning("this process was taken for dead by another and has registered again")
                await core.db(core.repo.checkpoint)
                for job in self._beats:
                    await job()
            except Exception:
                log.exception("heartbeat failed")

    async def _claim_forever(self) -> None:
        while True:
            self._wake.clear()
            wait = self.settings.sweep_interval
            try:
                await self.claim()
                # Only kinds with room: work waiting for a free handler is not due for this
                # loop (a handler finishing wakes it), and must not make it spin.
                open_kinds = [name for name, k in self._kinds.items() if len(k.running) < k.capacity]
                first = await self.core.db(self.core.repo.next_due_at, open_kinds) if open_kinds else None
                if first is not None:
                    wait = min(wait, max(0.0, (first - self.core.clock.now()).total_seconds()))
            except Exception:
                log.exception("could not claim due work")
            await wait_set(self._wake, wait)

    async def claim(self) -> int:
        """Claim what is due now, as far as each kind has room; returns how many were claimed."""
        core = self.core
        leases = {name: k.lease for name, k in self._kinds.items() if len(k.running) < k.capacity}
        room = sum(self._kinds[name].capacity - len(self._kinds[name].running) for name in leases)
        per_owner = {name: k.per_owner for name, k in self._kinds.items() if k.per_owner is not None}
        claimed = await core.db(core.repo.claim_due, core.server_id, core.clock.now(), room, leases, per_owner)
        loop = asyncio.get_running_loop()
        for due in claimed:
            kind = self._kinds[due.kind]
            task = loop.create_task(self._run(due, kind))
            kind.running.add(task)
            task.add_done_callback(kind.running.discard)
        return len(claimed)

    async def _run(self, due: Due, kind: _Kind) -> None:
        core = self.core
        try:
            again = await kind.handler(due)
        except asyncio.CancelledError:
            raise
        except Exception:
            # A failing handler is a bug to see in the log, not to hide; try again later.
            log.exception("%s work at table %r failed", due.kind, due.table_id)
            again = core.clock.now() + timedelta(seconds=self.settings.retry_delay)
        try:
            if again is None:
                await core.db(core.repo.finish_due, due, core.server_id)
            else:
                await core.db(core.repo.release_due, due, core.server_id, again)
        finally:
            self.wake()

    # -- the sweep ------------------------------------------------------------------------------

    async def sweep_dead(self, max_age: float | None) -> None:
        """Withdraw the presence of processes whose heartbeat is older than ``max_age``
        seconds (None: every other process) and forget them, which frees their claims."""
        core = self.core
        for dead in await core.db(core.repo.dead_servers, core.server_id, core.clock.now(), max_age):
            await self.presence.withdraw(dead)
            await core.db(core.repo.forget_server, dead)

    async def _sweep(self) -> None:
        await self.sweep_dead(self.settings.dead_after)
