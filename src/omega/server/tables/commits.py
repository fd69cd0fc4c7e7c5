"""Where the action path's writes are committed: several tables' writes that wait at the
same moment go to the database in one transaction.

Committing costs the same whether it holds one table's events or fifty: with SQLite in
``synchronous=FULL`` it is one fsync, and SQLite has one writer anyway.  So while one batch
is being committed, the writes that come in wait together and go in the next batch: under
load a commit carries many turns, alone a write goes at once (nobody waits for a batch to
fill).  Each write keeps its own savepoint (a refused one is undone alone) and its caller is
answered only after the batch's commit: "acknowledged means stored" holds as it did.

PostgreSQL takes row locks and commits in many threads at once, so there each write is a
transaction of its own (a batch of one); grouping there would make processes wait on each
other's locks.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from omega.server.tables.store import Repository, Write, Writer

__all__ = ["Commits", "MAX_BATCH"]

T = TypeVar("T")

#: Most writes in one transaction (bounds how long one commit holds the writer).
MAX_BATCH = 128


@dataclass
class _Waiting:
    write: Write[Any]
    answer: asyncio.Future[Any] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


class Commits:
    """Runs the action path's writes: grouped on SQLite, one by one on PostgreSQL."""

    def __init__(self, repo: Repository, db: Callable[..., Awaitable[Any]]) -> None:
        self.repo = repo
        self._db = db
        self._queue: list[_Waiting] = []
        self._draining = False
        self._drainer: asyncio.Task[None] | None = None
        #: Batches committed and writes in them (for the benchmarks and the status page).
        self.batches = 0
        self.writes = 0

    async def run(self, table_id: str, run: Callable[[Writer | None], T], then: Callable[[T], None]) -> T:
        """``run`` inside a write transaction, ``then`` once it is committed; returns
        ``run``'s result (or raises its exception) after the commit."""
        write = Write(table_id, run, then)
        if self.repo.is_postgres:
            # A batch of one: its exception comes straight out of write_many.
            result: T = (await self._db(self.repo.write_many, [write]))[0]
            return result
        waiting = _Waiting(write)
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
                try:
                    results = await self._db(self.repo.write_many, [w.write for w in batch])
                except Exception as e:  # the commit failed (or a lone write was refused): nothing stored
                    for w in batch:
                        w.answer.set_exception(e)
                    continue
                self.batches += 1
                self.writes += len(batch)
                for w, result in zip(batch, results, strict=True):
                    if isinstance(result, Exception):
                        w.answer.set_exception(result)
                    else:
                        w.answer.set_result(result)
        finally:
            self._draining = False
