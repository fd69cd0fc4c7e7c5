"""Where the action path's writes are committed: several tables' writes that wait at the
same moment go to the database in one transaction.

Committing costs the same whether it holds one table's events or fifty: with SQLite in
``synchronous=FULL`` it is one fsync, and SQLite has one writer anyway; on PostgreSQL it is
one flush of the log, one trip to a database thread and one connection taken from the pool.
So while one batch is being committed, the writes that come in wait together and go in the
next batch: under load a commit carries many turns, alone a write goes at once (nobody waits
for a batch to fill).  A refused write is undone alone (a savepoint each, or on PostgreSQL
left out of what the batch sends: ``Repository.write_many``) and every caller is answered
only after the batch's commit: "acknowledged means stored" holds as it did.

On PostgreSQL a batch holds its tables' rows locked until its commit, and other processes
write too (a worker plays a computer's turn; nginx sends a table to one process, but a
process that died hands its tables to another).  A batch takes its tables' rows in the
order of their ids, so two batches never wait on each other in a circle over tables; a write
that still loses a race for locks (PostgreSQL breaks a deadlock over some other row, a
player's rating say, by failing one of them) is undone alone and tried again by itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from omega.server.tables.store import Repository, Write, Writer, lost_a_lock_race

__all__ = ["Commits", "MAX_BATCH", "TRIES"]

T = TypeVar("T")

#: Most writes in one transaction (bounds how long one commit holds the writer).
MAX_BATCH = 128

#: How many times a write that lost a race for row locks is tried in all (the second and
#: third time alone, in a transaction of its own).
TRIES = 3


@dataclass
class _Waiting:
    write: Write[Any]
    answer: asyncio.Future[Any] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


class Commits:
    """Runs the action path's writes, grouped in batches."""

    def __init__(self, repo: Repository, db: Callable[..., Awaitable[Any]]) -> None:
        self.repo = repo
        self._db = db
        self._queue: list[_Waiting] = []
        self._draining = False
        self._drainer: asyncio.Task[None] | None = None
        #: Batches committed and writes in them (for the benchmarks and the status page).
        self.batches = 0
        self.writes = 0

    async def run(self, table_id: str, run: Callable[[Writer | None], T], then: Callable[[T], None], *,
                  grouped: bool = True) -> T:
        """``run`` inside a write transaction, ``then`` once it is committed; returns
        ``run``'s result (or raises its exception) after the commit.

        ``grouped=False``: on PostgreSQL in a transaction of its own, at once, beside the
        batches: for a write whose statements each need their own trip to the database (a
        presence count), which in a batch would hold the batch's turns behind them."""
        write = Write(table_id, run, then)
        waiting = _Waiting(write)
        if not grouped and self.repo.is_postgres:
            await self._commit([waiting], TRIES)
            alone: T = await waiting.answer
            return alone
        self._queue.append(waiting)
        if not self._draining:
            self._draining = True
            # Kept: the event loop holds only a weak reference to a task.
            self._drainer = asyncio.get_running_loop().create_task(self._drain())
        # shield: a caller that goes away (a closed socket) must not cancel a write that the
        # batch may already have committed; the batch answers it either way.
        answer: T = await asyncio.shield(waiting.answer)
        return answer

    async def _drain(self) -> None:
        try:
            while self._queue:
                batch, self._queue = self._queue[:MAX_BATCH], self._queue[MAX_BATCH:]
                if self.repo.is_postgres:
                    batch.sort(key=lambda w: w.write.table_id)  # one order of row locks for everyone
                await self._commit(batch, TRIES)
        finally:
            self._draining = False

    async def _commit(self, batch: list[_Waiting], tries: int) -> None:
        """Commit ``batch`` and answer each of its writes; one that lost a race for locks is
        tried again alone while ``tries`` last."""
        try:
            results = await self._db(self.repo.write_many, [w.write for w in batch])
        except Exception as e:  # the commit failed (or a lone write was refused): nothing stored
            results = [e] * len(batch)
        else:
            self.batches += 1
            self.writes += len(batch)
        for w, result in zip(batch, results, strict=True):
            if not isinstance(result, Exception):
                w.answer.set_result(result)
            elif tries > 1 and lost_a_lock_race(result):
                await self._commit([w], tries - 1)
            else:
                w.answer.set_exception(result)
