"""Table events are published after the commit (``pubsub.Publisher``), and a publish lost
between the commit and the NOTIFY (its process killed there) costs no event: the processes
whose sockets watch the table catch up by version (``TableCore.catch_up_watched``)."""

from __future__ import annotations

import asyncio
import random
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from omega.server.clock import FakeClock
from omega.server.infra.db import make_engine
from omega.server.infra.pubsub import Delivery, PgListener, Publisher, Subscriber, entries
from omega.server.tables.actions import TurnAction
from omega.server.tables.core import TableCore
from omega.server.tables.identity import AccountAuthenticator, SeatHolder
from omega.server.tables.state import SeatConfig
from omega.server.tables.store import Repository
from omega.server.tables.values import NewTable

from .server_helpers import Api, PgCluster, ServeProcess, Socket

pytestmark = pytest.mark.timeout(120)

HUMANS2 = (SeatConfig("human"), SeatConfig("human"))


@contextmanager
def cores(url: str, count: int) -> Iterator[list[TableCore]]:
    """``count`` table cores on one database, as as many server processes would hold."""
    made = []
    try:
        for _ in range(count):
            repo = Repository(make_engine(url))
            repo.migrate()
            made.append(TableCore(repo, FakeClock(), AccountAuthenticator()))
        yield made
    finally:
        for core in made:
            core.close()


async def play(core: TableCore, table_id: str, turns: int, rng: random.Random, first: int = 0) -> list[int]:
    """``turns`` turns through ``core`` (request ids from ``first``); the versions stored."""
    versions = []
    for n in range(first, first + turns):
        cached = await core.fresh(table_id)
        seat = cached.state.to_move_seat()
        assert seat is not None
        cells = TurnAction(tuple(rng.sample(cached.state.game.empty_cells(), 2)))
        acted = await core.act(table_id, SeatHolder(seat), cells, request_id=f"r{n}")
        assert acted is not None
        versions.append(acted.version)
    return versions


def received(sub: Subscriber) -> list[int]:
    """The versions of the events waiting in a socket's inbox (taken out)."""
    out = []
    while not sub.queue.empty():
        item = sub.queue.get_nowait()
        if isinstance(item, Delivery):
            out.append(item.version)
    return out


async def until(sub: Subscriber, version: int) -> list[int]:
    """The versions a socket's inbox receives, up to ``version``."""
    out: list[int] = []
    while not out or out[-1] < version:
        item = await asyncio.wait_for(sub.queue.get(), 30)
        if isinstance(item, Delivery):
            out.append(item.version)
    return out


def test_flush_waits_only_for_the_notes_given_before_it() -> None:
    """Under a steady stream of commits the publisher is never idle; waiting for the notes
    already given (``TableCore.note`` does) still ends."""
    sent: list[str] = []

    async def scenario() -> None:
        async def send(payloads: list[str]) -> None:
            sent.extend(payloads)
            publisher.publish([f"a:t{len(sent)}:1"])  # another commit, every time

        publisher = Publisher(send, window=0.001)
        publisher.publish(["a:t0:1"])
        await asyncio.wait_for(publisher.flush(), 30)
        publisher.publish(["a:t0:2"])
        await asyncio.wait_for(publisher.flush(), 30)

    asyncio.run(scenario())
    assert sent[0] == "a:t0:1" and "a:t0:2" in "\n".join(sent)


def test_turns_are_published_after_their_commit(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """PostgreSQL: each write's note goes out once the write is committed (another
    connection already reads its version); SQLite: one process owns the database, nothing
    is published or looked up."""
    seen: list[tuple[int, int | None]] = []

    async def scenario() -> tuple[int, str]:
        with cores(db_url, 1) as (core,):
            repo = core.repo
            send = repo.publish

            def publish(payloads: list[str]) -> None:
                for _, table_id, version in (e for p in payloads for e in entries(p)):
                    seen.append((int(version), repo.version(table_id)))  # read on a connection of its own
                send(payloads)

            monkeypatch.setattr(repo, "publish", publish)
            table_id = (await core.create(NewTable(2, 5, False, HUMANS2, creator_seat=0)))["id"]
            await play(core, table_id, 5, random.Random(2))
            await core.publisher.flush()
            core.hub.add(table_id, None)
            assert await core.catch_up_watched() == 0
            return core.publisher.notes, table_id

    notes, _ = asyncio.run(scenario())
    if db_url.startswith("sqlite"):
        assert notes == 0 and seen == []
    else:
        # The creator's join, then five turns (seat 1's first one joins it in the same write).
        assert notes == 6 and seen and all(stored is not None and stored >= noted for noted, stored in seen)
        assert max(noted for noted, _ in seen) == 7


def test_a_publish_lost_between_commit_and_notify_is_caught_up_by_version(pg: PgCluster) -> None:
    """Process A commits turns and is "killed" before each publish (its notes are dropped);
    process B, whose socket watches the table, sees every version once, in order, at its
    next heartbeat's catch-up; then, A publishing again, through its listener."""
    url = pg.new_database()

    async def scenario() -> tuple[list[int], list[int], list[int], str]:
        with cores(url, 2) as (a, b):
            table_id = (await a.create(NewTable(2, 5, False, HUMANS2, creator_seat=0)))["id"]
            await b.get(table_id)
            watcher = b.hub.add(table_id, None)
            conninfo = url.replace("postgresql+psycopg://", "postgresql://")
            listener = PgListener(conninfo, b.server_id, b.remote_event, lambda: None, lambda table: None)
            listener.start()
            try:
                await listener.wait_ready(30)
                rng = random.Random(7)
                published = a.publisher.publish
                a.publisher.publish = lambda notes: None  # type: ignore[method-assign]  # killed after each commit
                lost = await play(a, table_id, 3, rng)
                assert received(watcher) == []
                assert await b.catch_up_watched() == 1
                caught = received(watcher)
                assert await b.catch_up_watched() == 0 and received(watcher) == []
                a.publisher.publish = published  # type: ignore[method-assign]
                played = await play(a, table_id, 2, rng, first=3)
                return lost + played, caught, caught + await until(watcher, played[-1]), table_id
            finally:
                await listener.stop()

    stored, caught, seen, table_id = asyncio.run(scenario())
    assert caught == [2, 3, 4, 5]  # the first turn joined seat 1: two events
    assert seen == list(range(2, stored[-1] + 1))  # every version once, in order
    repo = Repository(make_engine(url))
    try:
        loaded = repo.load(table_id)
    finally:
        repo.engine.dispose()
    assert loaded is not None
    turns = [e for e in loaded.events if e.kind == "turn"]
    assert [e.request_id for e in turns] == [f"r{n}" for n in range(5)]  # none lost, none twice


@pytest.mark.slow
def test_a_server_killed_between_commit_and_publish_loses_no_turn(pg: PgCluster) -> None:
    """Two real ``omega serve`` processes: A stores a turn and is SIGKILLed before it
    publishes it (its client gets no answer); B's socket on the table still gets the turn,
    by version; the client's retry through B gets the first answer, and the game goes on
    with every version seen once and the turn stored once."""
    url = pg.new_database()
    dying = ServeProcess(url, program=(sys.executable, str(Path(__file__).with_name("dying_server.py"))))
    b = ServeProcess(url)
    dying.ready()
    b.ready()
    api_a, api_b = Api(dying.url), Api(b.url)
    try:
        t = api_b.create(players=2, size=5)
        tid, tokens = t["id"], [t["invites"]["0"], t["invites"]["1"]]
        watch = Socket(b.ws_url, tid, t["spectator_key"])
        try:
            assert watch.recv()["type"] == "sync"
            with pytest.raises(httpx.TransportError):  # committed, then killed: no answer
                api_a.act(tid, tokens[0], {"type": "turn", "cells": ["a1", "b1"]}, request_id="first")
            assert dying.proc.wait(30) == -signal.SIGKILL
            lost = watch.until(lambda m: m["type"] == "event")  # at B's next heartbeat at most
            assert lost["event"]["kind"] == "turn" and lost["event"]["cells"] == ["a1", "b1"]
            retried = api_b.turn(tid, tokens[0], ["a1", "b1"], request_id="first")
            assert retried["version"] == lost["version"]  # the first answer: nothing played twice
            api_b.turn(tid, tokens[1], ["c1", "d1"])
            watch.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "turn" and m["event"]["seat"] == 1)
            versions = [m["version"] for m in watch.received if m["type"] == "event"]
            assert versions == list(range(versions[0], versions[-1] + 1))
            history = api_b.state(tid, tokens[0])["game"]["history"]
            assert len(history) == 2
        finally:
            watch.close()
    finally:
        api_a.close()
        api_b.close()
        dying.kill()
        b.stop()
