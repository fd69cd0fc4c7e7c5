"""The action path's grouped commits (``tables.commits``), on both databases: writes that
wait at the same moment share one transaction, and on PostgreSQL a write that loses a race
for row locks to another process is tried again alone, its caller never shown the
database's error."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy import text

from omega.server.tables.commits import Commits
from omega.server.tables.events import Event, Renamed
from omega.server.tables.identity import TableKeys
from omega.server.tables.state import SeatConfig, TableConfig
from omega.server.tables.store import Repository, Write, Writer

from .server_helpers import PgCluster
from .test_storage import new_repository


def _tables(repo: Repository, names: list[str]) -> None:
    for name in names:
        repo.create_table(TableConfig(name, 2, 5, False, "2026-01-01T00:00:00+00:00",
                                      (SeatConfig("human"), SeatConfig("human"))), TableKeys((None, None), "s" * 64))


def _rename(at: datetime, ran: list[str], first: Callable[[Writer], None] = lambda w: None
            ) -> Callable[[Writer | None], list[Event]]:
    """A write that names seat 0 "Ann", noting the table in ``ran`` each time it runs."""
    def run(w: Writer | None) -> list[Event]:
        assert w is not None
        ran.append(w.table_id)
        first(w)
        return w.append([Event(Renamed(0, "Ann"), at=at, seat=0)], status="waiting", to_move_seat=None)
    return run


async def _in_thread(fn: Callable[..., Any], *args: Any) -> Any:
    return await asyncio.to_thread(fn, *args)


def test_writes_that_wait_together_share_one_commit(db_url: str) -> None:
    repo, now = new_repository(db_url)
    names = [f"group{i:02d}" for i in range(12)]
    _tables(repo, names)
    ran: list[str] = []

    async def play() -> tuple[Commits, list[list[Event]]]:
        commits = Commits(repo, _in_thread)
        stored = await asyncio.gather(*(commits.run(name, _rename(now, ran), lambda _: None)
                                        for name in reversed(names)))
        return commits, stored

    commits, stored = asyncio.run(play())
    assert (commits.batches, commits.writes) == (1, 12)
    assert [[e.version for e in events] for events in stored] == [[1]] * 12
    # PostgreSQL: the batch takes its tables' rows in the order of their ids (so that two
    # processes' batches never wait on each other in a circle); SQLite: as they came.
    assert ran == (names if repo.is_postgres else names[::-1])
    assert all(len(t.events) == 1 for t in map(repo.load, names) if t is not None)
    repo.engine.dispose()


def test_a_write_that_loses_a_deadlock_is_tried_again_alone(pg: PgCluster) -> None:
    repo, now = new_repository(pg.ready_database())
    _tables(repo, ["lockA", "lockB", "lockC"])
    other = repo.engine.connect()  # another process, writing "lockB" and then "lockA"
    other_holds_b, waiting_on_b = threading.Event(), threading.Event()
    ran: list[str] = []

    def lock_b_after_a(w: Writer) -> None:
        if w.table_id == "lockA" and ran.count("lockA") == 1:
            # Only ours notices the circle, so that ours is the one PostgreSQL fails.
            w.conn.exec_driver_sql("SET LOCAL deadlock_timeout = '50ms'")
            waiting_on_b.set()
        w.conn.exec_driver_sql("SELECT id FROM tables WHERE id = 'lockB' FOR UPDATE")

    def the_other_process() -> None:
        with other.begin():
            other.exec_driver_sql("SET LOCAL deadlock_timeout = '60s'")
            other.exec_driver_sql("SELECT id FROM tables WHERE id = 'lockB' FOR UPDATE")
            other_holds_b.set()
            waiting_on_b.wait(10)
            other.exec_driver_sql("SELECT id FROM tables WHERE id = 'lockA' FOR UPDATE")

    async def play() -> tuple[Commits, list[Any]]:
        commits = Commits(repo, _in_thread)
        rival = threading.Thread(target=the_other_process)
        rival.start()
        await asyncio.to_thread(other_holds_b.wait, 10)
        answer = await commits.run("lockA", _rename(now, ran, lock_b_after_a), lambda _: None)
        await asyncio.to_thread(rival.join, 10)
        return commits, [answer]

    commits, answers = asyncio.run(play())
    other.close()
    # "lockA" lost the deadlock (its transaction undone), then went again once the other
    # process was done, and was stored: its caller never saw the deadlock.
    assert ran == ["lockA", "lockA"]
    assert [[e.version for e in a] for a in answers] == [[1]]
    assert (commits.batches, commits.writes) == (1, 1)
    with repo.engine.connect() as conn:
        assert conn.execute(text("SELECT id, version FROM tables ORDER BY id")).all() == \
            [("lockA", 1), ("lockB", 0), ("lockC", 0)]
    repo.engine.dispose()


def test_a_write_that_fails_after_it_sent_a_statement_is_undone_alone(db_url: str) -> None:
    # On PostgreSQL a batch holds its writes' events back to send them in one trip; a write
    # that fails after it sent a statement of its own can only be undone by a savepoint,
    # so the batch is done again one savepoint a write.
    repo, now = new_repository(db_url)
    _tables(repo, ["dirty", "clean", "refused"])
    ran: list[str] = []

    def send_then_fail(w: Writer) -> None:
        if w.table_id == "dirty":
            w.conn.execute(text("UPDATE tables SET owner = 'someone' WHERE id = 'dirty'"))
            raise ValueError("failed after it wrote")
        if w.table_id == "refused":
            raise ValueError("refused before it wrote")

    work = [Write(name, _rename(now, ran, send_then_fail), lambda _: None) for name in ["clean", "dirty", "refused"]]
    results = repo.write_many(work)
    assert [type(r).__name__ for r in results] == ["list", "ValueError", "ValueError"]
    assert [str(r) for r in results[1:]] == ["failed after it wrote", "refused before it wrote"]
    with repo.engine.connect() as conn:
        assert conn.execute(text("SELECT id, version, owner FROM tables ORDER BY id")).all() == \
            [("clean", 1, ""), ("dirty", 0, ""), ("refused", 0, "")]
    # On PostgreSQL the batch stopped at "dirty" and went again, one savepoint a write.
    assert ran == (["clean", "dirty"] if repo.is_postgres else []) + ["clean", "dirty", "refused"]
    repo.engine.dispose()


def test_a_write_refused_before_it_sent_anything_is_left_out_of_the_batch(db_url: str) -> None:
    repo, now = new_repository(db_url)
    _tables(repo, ["kept", "left"])
    ran: list[str] = []

    def refuse(w: Writer) -> None:
        if w.table_id == "left":
            raise ValueError("not your turn")

    results = repo.write_many([Write(name, _rename(now, ran, refuse), lambda _: None) for name in ["kept", "left"]])
    assert [type(r).__name__ for r in results] == ["list", "ValueError"]
    assert ran == ["kept", "left"]  # each once: nothing to undo but what the batch held back
    assert [len(t.events) for t in map(repo.load, ["kept", "left"]) if t is not None] == [1, 0]
    repo.engine.dispose()


def test_due_work_kept_and_dropped_in_a_batch_is_stored_with_its_turns(db_url: str) -> None:
    # A timed game's turn moves its flag's due row in the same commit: on PostgreSQL held
    # back with the batch's turns and sent in the same trip, in order.
    repo, now = new_repository(db_url)
    _tables(repo, ["dueA", "dueB"])
    repo.keep_due("timeout", "dueB", 0, now)
    ran: list[str] = []

    def due_work(w: Writer) -> None:
        if w.table_id == "dueA":
            w.keep_due("timeout", 1, now)
        else:
            w.drop_due("timeout")

    repo.write_many([Write(name, _rename(now, ran, due_work), lambda _: None) for name in ["dueA", "dueB"]])
    assert ran == ["dueA", "dueB"]  # once each: nothing had to be done again
    assert (repo.due_version("timeout", "dueA"), repo.due_version("timeout", "dueB")) == (1, None)
    repo.engine.dispose()
