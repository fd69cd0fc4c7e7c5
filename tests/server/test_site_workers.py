"""A site whose servers have no computer players (``omega serve --no-workers``) and whose
``omega worker`` processes do that work, all real processes on one PostgreSQL database:
a review asked at one server is made by the worker and followed on a socket of another
server; a hint asked at a server without workers is searched by the worker and answered;
clock timeouts are claimed once, by the servers only, and counted in ``/metrics``."""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from omega import Game
from omega.server.app import create_app
from omega.server.clock import FakeClock
from omega.server.config import Settings
from omega.server.work.hints import HINT

from .clock_server import advance
from .server_helpers import (
    Api,
    LiveServer,
    PgCluster,
    ServeProcess,
    Socket,
    error_code,
    make_server,
    random_turn,
    scrape,
    value,
)
from .site_helpers import ask_review, finished_table
from .worker_process import WorkerProcess

# The tests share one site (module fixture): under `--dist loadscope` one worker runs them all.
pytestmark = [pytest.mark.timeout(240), pytest.mark.slow]

CLOCK_SERVER = Path(__file__).with_name("clock_server.py")
#: A review small enough to take a few seconds with one bot process.
TINY_REVIEW = (40, 0.3)


@dataclass
class Site:
    """Two ``omega serve --no-workers`` and one ``omega worker`` on one database and one
    movable clock (``clock_server.py``)."""

    url: str
    clock_file: Path
    a: ServeProcess
    b: ServeProcess
    worker: WorkerProcess
    worker_metrics: str


@pytest.fixture(scope="module")
def site(pg: PgCluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    url = pg.new_database()
    clock_file = tmp_path_factory.mktemp("clock") / "clock"
    program = (sys.executable, str(CLOCK_SERVER), str(clock_file))
    # The worker goes first: it migrates the database before the servers start.  It looks
    # for due work on its own only every 10 minutes: anything it does within a test, it does
    # because the note of new work woke it.
    worker = WorkerProcess(url, ("--ai-workers", "1", "--metrics-port", "0"), bot="random",
                           dead_after=10**9, sweep_interval=600, review_budget=TINY_REVIEW, clock_file=clock_file)
    servers: list[ServeProcess] = []
    try:
        worker.ready()
        servers = [ServeProcess(url, program=program, args=("--no-workers",)) for _ in range(2)]
        for s in servers:
            s.ready()
        yield Site(url, clock_file, servers[0], servers[1], worker, worker.metrics_url)
    finally:
        for s in servers:
            s.stop()
        worker.stop()


def _review_messages(sock: Socket) -> list[dict[str, Any]]:
    return [m for m in sock.received if m["type"] == "review"]


def test_computer_turns_stored_at_a_server_wake_the_worker(site: Site) -> None:
    api = Api(site.a.url)
    try:
        # The computer moves first: the new table's turn is due from its creation.
        t = api.create(players=2, seats=[{"kind": "computer", "level": 1}, {"kind": "human"}])
        watch = Socket(site.b.ws_url, t["id"], t["token"])
        try:
            first = watch.until(lambda m: m["type"] in ("sync", "event") and m["state"]["game"]["history"],
                                timeout=60)
            state = first["state"]
            assert len(state["game"]["history"]) == 1 and state["game"]["current_seat"] == 1
            # A person's turn, stored at the other server, makes the next computer turn due.
            api.turn(t["id"], t["token"], random_turn(state, random.Random(1)))
            reply = watch.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "turn"
                                and m["event"]["computer"] is True, timeout=60)
            assert len(reply["state"]["game"]["history"]) == 3
        finally:
            watch.close()
    finally:
        api.close()


def test_a_review_asked_at_one_server_is_made_by_the_worker_and_followed_at_another(site: Site) -> None:
    api_a, api_b = Api(site.a.url), Api(site.b.url)
    try:
        t = finished_table(api_a)
        at_a = Socket(site.a.ws_url, t["id"], t["token"])
        at_b = Socket(site.b.ws_url, t["id"], t["spectator_key"])
        try:
            assert at_a.recv()["type"] == at_b.recv()["type"] == "sync"
            r = ask_review(api_a, t["id"], t["token"])  # no computer players here: queued for the worker
            assert r.status_code == 202 and r.json() == {"status": "queued"}
            for sock in (at_a, at_b):
                assert sock.until(lambda m: m["type"] == "review" and m["status"] == "done",
                                  timeout=120) == {"type": "review", "status": "done"}
            # Both servers' sockets followed the worker's progress, in order: 7 positions.
            for sock in (at_a, at_b):
                seen = _review_messages(sock)
                assert seen[0] == {"type": "review", "status": "queued"}
                assert [(m["done"], m["total"]) for m in seen if m["status"] == "running"] == [
                    (k, 7) for k in range(8)]
        finally:
            at_a.close()
            at_b.close()
        answers = [ask_review(api, t["id"], t["black"], "GET") for api in (api_a, api_b)]
        assert all(a.status_code == 200 and a.json()["status"] == "done" for a in answers)
        review = answers[0].json()["review"]
        assert answers[1].json()["review"] == review
        assert review["budget"] == {"iterations": TINY_REVIEW[0], "seconds": TINY_REVIEW[1]}
        assert len(review["turns"]) == 6
        # Made by the worker, once; the servers made none.
        assert sum("review of table" in line and t["id"] in line for line in site.worker.log) == 1
        assert not any("review of table" in line for s in (site.a, site.b) for line in s.log)
    finally:
        api_a.close()
        api_b.close()


def test_a_hint_asked_at_a_server_without_workers_is_answered(site: Site) -> None:
    api_a, api_b = Api(site.a.url), Api(site.b.url)
    try:
        assert api_a.http.get("/api/status").json()["computers"] is None  # no computer players here
        t = api_a.create(players=2, hints=True, name="Ann")
        black = t["invites"]["1"]
        other = Socket(site.b.ws_url, t["id"], black)
        try:
            assert other.recv()["type"] == "sync"
            before = api_a.state(t["id"], t["token"])["version"]
            r = api_a.http.post(f"/api/tables/{t['id']}/hint", headers={"authorization": f"Bearer {t['token']}"})
            assert r.status_code == 200, r.text
            cells = r.json()["hint"]
            assert len(cells) == 2 and set(cells) <= set(Game().cells) and cells[0] != cells[1]
            assert r.json()["version"] == before + 1 and r.json()["state"]["seats"][0]["hints_used"] == 1
            # Stored once, by the asking server, and seen at the other one.
            seen = other.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "hint")
            assert seen["event"] == {"kind": "hint", "seat": 0, "color": "White", "turn": 1}
        finally:
            other.close()
        state = api_b.state(t["id"], t["token"])
        assert state["version"] == before + 1 and state["seats"][0]["hints_used"] == 1
        # The player may still play anything, and Black's hint on Black's turn works too.
        api_a.turn(t["id"], t["token"], [c for c in ("a1", "b2", "c3") if c not in cells][:2])
        r = api_b.http.post(f"/api/tables/{t['id']}/hint", headers={"authorization": f"Bearer {black}"})
        assert r.status_code == 200 and r.json()["state"]["seats"][1]["hints_used"] == 1
    finally:
        api_a.close()
        api_b.close()


def test_timeouts_are_claimed_once_by_the_servers_and_counted(site: Site) -> None:
    api = Api(site.a.url)
    try:
        before = [value(scrape(s.url), "omega_clock_timeouts_total") for s in (site.a, site.b)]
        tables = []
        for _ in range(4):
            t = api.create(players=2, time_control="1+0")
            tokens = [t["invites"]["0"], t["invites"]["1"]]
            api.state(t["id"], tokens[1])
            api.turn(t["id"], tokens[0], ["e5", "a1"])
            api.turn(t["id"], tokens[1], ["e4", "a2"])
            tables.append((t["id"], t["spectator_key"]))
        watches = [Socket((site.a if i % 2 else site.b).ws_url, tid, key) for i, (tid, key) in enumerate(tables)]
        try:
            for w in watches:
                assert w.recv()["type"] == "sync"
            advance(site.clock_file, 61)  # every process's clock, the worker's too
            for w in watches:
                over = w.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "over")
                assert over["event"]["reason"] == "timeout"
                assert [m["event"]["kind"] for m in w.received if m["type"] == "event"] == ["timeout", "over"]
        finally:
            for w in watches:
                w.close()
        after = [value(scrape(s.url), "omega_clock_timeouts_total") for s in (site.a, site.b)]
        assert sum(after) - sum(before) == len(tables)  # each once, by one server
        lines = [line for s in (site.a, site.b) for line in s.log if "ran out at table" in line]
        assert sorted(tid for tid, _ in tables) == sorted(
            line.split("at table ")[1].split(";")[0] for line in lines if any(tid in line for tid, _ in tables))
        # The worker handles no timeouts, though it runs on the same clock.
        worker_metrics = httpx.get(f"{site.worker_metrics}/metrics", timeout=30).text
        assert value(worker_metrics, "omega_clock_timeouts_total") == 0
        assert not any("ran out at table" in line for line in site.worker.log)
    finally:
        api.close()


# -- one process -------------------------------------------------------------------------------


def test_a_timeout_is_counted_in_the_metrics_of_the_process_that_stored_it(sqlite_url: str) -> None:
    clock = FakeClock()
    live = make_server(sqlite_url, clock=clock, settings=Settings(sweep_interval=0.05))
    api = Api(live.url)
    try:
        assert value(scrape(live.url), "omega_clock_timeouts_total") == 0
        t = api.create(players=2, time_control="1+0")
        tokens = [t["invites"]["0"], t["invites"]["1"]]
        api.state(t["id"], tokens[1])
        state = api.turn(t["id"], tokens[0], ["e5", "a1"])["state"]
        watch = Socket(live.ws_url, t["id"], t["spectator_key"])
        try:
            watch.until(lambda m: m["type"] == "sync")
            flag = datetime.fromisoformat(state["clock"]["flag_at"])
            clock.advance((flag - clock.now()).total_seconds() + 0.001)
            watch.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "over")
        finally:
            watch.close()
        assert value(scrape(live.url), "omega_clock_timeouts_total") == 1
        # A move that comes after the flag is refused; the timeout is not counted again.
        r = api.act(t["id"], tokens[1], {"type": "turn", "cells": ["e3", "a3"]})
        assert r.status_code == 409 and error_code(r) == "game_over"
        assert value(scrape(live.url), "omega_clock_timeouts_total") == 1
    finally:
        api.close()
        live.stop()


def test_a_move_too_late_stores_the_timeout_and_counts_it(sqlite_url: str) -> None:
    clock = FakeClock()
    # No scheduler round comes before the move (the sweep every hour): the move finds the flag.
    live = make_server(sqlite_url, clock=clock, settings=Settings(sweep_interval=3600))
    api = Api(live.url)
    try:
        t = api.create(players=2, time_control="1+0")
        tokens = [t["invites"]["0"], t["invites"]["1"]]
        api.state(t["id"], tokens[1])
        api.turn(t["id"], tokens[0], ["e5", "a1"])
        clock.advance(61)
        r = api.act(t["id"], tokens[1], {"type": "turn", "cells": ["e4", "a2"]})
        # The move finds the flag fallen (too_late, and it stores the timeout), unless the
        # scheduler, woken by the move before, stored it first (game_over): on a busy machine
        # either may come first, and either way the timeout is stored and counted once.
        assert r.status_code == 409 and error_code(r) in ("too_late", "game_over"), r.text
        assert api.state(t["id"], tokens[1])["end_reason"] == "aborted"  # Black never moved
        assert value(scrape(live.url), "omega_clock_timeouts_total") == 1
    finally:
        api.close()
        live.stop()


def test_without_computer_players_sqlite_refuses_hints_and_reviews(sqlite_url: str) -> None:
    live = make_server(sqlite_url, bot=None)  # nobody else could search: no worker on SQLite
    api = Api(live.url)
    try:
        t = api.create(players=2, hints=True)
        before = api.state(t["id"], t["token"])
        r = api.http.post(f"/api/tables/{t['id']}/hint", headers={"authorization": f"Bearer {t['token']}"})
        assert r.status_code == 503 and error_code(r) == "unavailable"
        assert api.state(t["id"], t["token"]) == before
        done = finished_table(api, 1)
        r = ask_review(api, done["id"], done["token"])
        assert r.status_code == 503 and error_code(r) == "unavailable"
        assert ask_review(api, done["id"], done["token"], "GET").json() == {"status": "none"}
    finally:
        api.close()
        live.stop()


def test_a_hint_nobody_searches_answers_busy_and_changes_nothing(pg: PgCluster) -> None:
    url = pg.new_database()
    live = LiveServer(create_app(url, bot_factory=None))  # as --no-workers, and no worker runs
    live.app.state.hints.wait = 0.5
    api = Api(live.url)
    try:
        t = api.create(players=2, hints=True)
        before = api.state(t["id"], t["token"])
        r = api.http.post(f"/api/tables/{t['id']}/hint", headers={"authorization": f"Bearer {t['token']}"})
        assert r.status_code == 503 and error_code(r) == "busy" and "too long" in r.json()["error"]["message"]
        assert api.state(t["id"], t["token"]) == before  # no hint event: nobody got a hint
        # The asked hint waits as due work for a worker (and is dropped once the play moves on).
        assert live.app.state.core.repo.due_version(HINT, t["id"]) is not None
    finally:
        api.close()
        live.stop()
