"""``omega serve`` as real processes: SIGKILL at any moment loses no acknowledged turn, pending
computer turns are played after a restart, and two processes on one PostgreSQL database push
each other's events."""

from __future__ import annotations

import json
import os
import random
import select
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from omega.server.app import create_app
from omega.server.work.thinking import spec_bot

from .server_helpers import (
    Api,
    LiveServer,
    PgCluster,
    ServeProcess,
    Socket,
    child_pids,
    make_server,
    random_turn,
)

pytestmark = pytest.mark.timeout(180)


@pytest.mark.slow
def test_sigkill_loses_no_acknowledged_turn(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'data' / 'omega.sqlite3'}"
    rng = random.Random(21)
    serve = ServeProcess(db)
    serve.ready()
    api = Api(serve.url)
    t = api.create(players=2, size=6)
    tid, tokens = t["id"], [t["invites"]["0"], t["invites"]["1"]]
    acked: list[list[str]] = []

    def play(n: int) -> None:
        state = api.state(tid, tokens[0])
        for _ in range(n):
            seat = state["game"]["current_seat"]
            answer = api.turn(tid, tokens[seat], random_turn(state, rng))
            state = answer["state"]
            acked.append(state["game"]["history"][-1])

    try:
        # 1. Kill right after an acknowledgement.
        play(5)
        serve.kill()
        serve = ServeProcess(db, port=serve.port)
        serve.ready()
        api.http.close()
        api = Api(serve.url)
        assert api.state(tid, tokens[0])["game"]["history"] == acked

        # 2. Kill while turns are in flight: a client keeps playing until the server dies.
        in_flight: dict[str, Any] = {}
        stop = threading.Event()

        def hammer() -> None:
            client = Api(serve.url)
            try:
                state = client.state(tid, tokens[0])
                n = 0
                while not stop.is_set():
                    seat = state["game"]["current_seat"]
                    cells = random_turn(state, rng)
                    rid = f"flight-{n}"
                    in_flight.update(rid=rid, seat=seat, cells=cells)
                    r = client.act(tid, tokens[seat], {"type": "turn", "cells": cells}, request_id=rid)
                    if r.status_code != 200:
                        return
                    state = r.json()["state"]
                    acked.append(state["game"]["history"][-1])
                    in_flight.clear()
                    n += 1
                    if n == 8:
                        ready_to_kill.set()
            except httpx.HTTPError:
                return  # the server was killed under us
            finally:
                client.close()

        ready_to_kill = threading.Event()
        worker = threading.Thread(target=hammer)
        worker.start()
        assert ready_to_kill.wait(60)
        serve.kill()
        stop.set()
        worker.join(60)
        serve = ServeProcess(db, port=serve.port)
        serve.ready()
        api.http.close()
        api = Api(serve.url)
        history = api.state(tid, tokens[0])["game"]["history"]
        assert history[: len(acked)] == acked  # every acknowledged turn, in order
        assert len(history) - len(acked) <= 1  # at most the one unacknowledged turn in flight
        if in_flight:
            # Retrying the unanswered request is safe: it is played once at most.
            r = api.act(tid, tokens[in_flight["seat"]], {"type": "turn", "cells": in_flight["cells"]},
                        request_id=in_flight["rid"])
            assert r.status_code == 200, r.text
            acked.append(in_flight["cells"])
        history = api.state(tid, tokens[0])["game"]["history"]
        assert history == acked

        # 3. Play goes on to the end.
        state = api.state(tid, tokens[0])
        while state["status"] == "playing":
            seat = state["game"]["current_seat"]
            state = api.turn(tid, tokens[seat], random_turn(state, rng))["state"]
        assert len(state["game"]["stones"]) == 88 and state["game"]["over"]
    finally:
        api.close()
        serve.kill()


@pytest.mark.slow
def test_pending_computer_turn_is_played_after_restart(tmp_path: Path) -> None:
    """A computer turn left pending (its server died before playing it) is played by the next
    ``omega serve`` on that database, with the real level-1 bot."""
    db = f"sqlite:///{tmp_path / 'data' / 'omega.sqlite3'}"
    # A server whose computer players never move leaves the turn pending, as a crash would.
    live = make_server(db, bot=None)
    api = Api(live.url)
    try:
        t = api.create(players=2, seats=[{"kind": "human"}, {"kind": "computer", "level": 1}])
        state = api.turn(t["id"], t["token"], ["e5", "a1"])["state"]
        assert state["game"]["current_seat"] == 1
    finally:
        api.close()
        live.stop()
    serve = ServeProcess(db)
    serve.ready()
    watch = Socket(serve.ws_url, t["id"], t["spectator_key"], base=state)
    try:
        ev = watch.until(lambda m: m["type"] in ("event", "sync") and len(m["state"]["game"]["history"]) == 2,
                         timeout=90)
        cells = ev["state"]["game"]["history"][1]
        assert len(cells) == 2 and not set(cells) & {"e5", "a1"}
        assert ev["state"]["game"]["current_seat"] == 0
        # SIGKILL gives the server no chance to stop its AI workers: they must notice and exit.
        workers = child_pids(serve.proc.pid)
        assert workers
        fds = [os.pidfd_open(pid) for pid in workers]
        serve.kill()
        for fd in fds:
            readable, _, _ = select.select([fd], [], [], 30)
            assert readable, "an AI worker outlived its killed server"
            os.close(fd)
    finally:
        watch.close()
        serve.kill()


@pytest.mark.slow
def test_two_processes_on_one_postgres(pg: PgCluster) -> None:
    url = pg.new_database()
    a, b = ServeProcess(url), ServeProcess(url)
    a.ready()
    b.ready()
    api_a, api_b = Api(a.url), Api(b.url)
    try:
        t = api_a.create(players=2, seats=[{"kind": "human"}, {"kind": "computer", "level": 1}])
        watch = Socket(b.ws_url, t["id"], t["spectator_key"])
        try:
            assert watch.recv()["type"] == "sync"
            # The player's page opens on the other process: B's watcher hears who is there.
            player = Socket(a.ws_url, t["id"], t["token"])
            assert player.recv()["type"] == "sync"
            assert watch.until(lambda m: m["type"] == "presence" and m["seats"][0])["seats"][0] is True
            player.close()
            assert watch.until(lambda m: m["type"] == "presence" and not m["seats"][0])["seats"][0] is False
            api_a.turn(t["id"], t["token"], ["e5", "a1"])
            mine = watch.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "turn")
            assert mine["event"]["cells"] == ["e5", "a1"] and mine["event"]["computer"] is False
            reply = watch.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "turn", timeout=90)
            assert reply["event"]["computer"] is True and reply["event"]["seat"] == 1
            state = api_b.state(t["id"], t["token"])
            assert len(state["game"]["history"]) == 2  # the computer played once, in one process
            versions = [m["version"] for m in watch.received if m["type"] == "event"]
            assert versions == list(range(versions[0], versions[-1] + 1))
        finally:
            watch.close()
    finally:
        api_a.close()
        api_b.close()
        a.stop()
        b.stop()


def test_load_bench_small_run() -> None:
    """``bench/load.py`` end to end on a few tables: every acknowledged turn stored exactly once."""
    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, str(root / "bench" / "load.py"), "--tables", "6", "--turns", "8",
                        "--seconds", "60", "--json"], capture_output=True, text=True, timeout=120, cwd=root)
    assert r.returncode == 0, r.stderr
    result = json.loads(r.stdout)
    assert result["turns"] == 6 * 8 and result["lost_turns"] == 0 and result["duplicated_turns"] == 0
    assert result["latency_ms"]["p50"] > 0 and result["client_failures"] == []


def test_load_bench_plays_timed_games_to_their_end_when_asked() -> None:
    """``--clock`` with ``--everyone-plays``: no player walks away, so no flag falls."""
    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, str(root / "bench" / "load.py"), "--tables", "4", "--clock", "3+2",
                        "--everyone-plays", "--seconds", "60", "--json"],
                       capture_output=True, text=True, timeout=120, cwd=root)
    assert r.returncode == 0, r.stderr
    result = json.loads(r.stdout)
    assert (result["games_over"], result["turns"], result["timeouts"]) == (4, 4 * 30, 0)
    assert result["lost_turns"] == 0 and result["duplicated_turns"] == 0


def test_default_database_is_sqlite_under_data_in_wal_mode(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "OMEGA_DATABASE_URL"}
    src = str(Path(__file__).resolve().parents[2] / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    serve = ServeProcess(None, env=env, cwd=tmp_path)
    try:
        serve.ready()
        api = Api(serve.url)
        api.create(players=2)
        api.close()
    finally:
        serve.stop()
    db = tmp_path / "data" / "omega.sqlite3"
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("SELECT count(*) FROM tables").fetchone()[0] == 1
    # OMEGA_DATABASE_URL is the default when --db is not given.
    other = tmp_path / "elsewhere" / "x.sqlite3"
    env["OMEGA_DATABASE_URL"] = f"sqlite:///{other}"
    serve = ServeProcess(None, env=env, cwd=tmp_path)
    try:
        serve.ready()
    finally:
        serve.stop()
    assert other.exists()


def test_logs_never_show_token_values(tmp_path: Path) -> None:
    """uvicorn logs WebSocket URLs (and, with --access-log, every request line) with their
    query strings: the server's log must show ``token=***``, never a token."""
    serve = ServeProcess(f"sqlite:///{tmp_path / 'omega.sqlite3'}", args=("--access-log",))
    serve.ready()
    api = Api(serve.url)
    try:
        t = api.create(players=2)
        secrets_ = [t["token"], t["invites"]["1"], t["spectator_key"]]
        for token in secrets_:
            sock = Socket(serve.ws_url, t["id"], token)
            assert sock.recv()["type"] == "sync"
            sock.close()
        bad = Socket(serve.ws_url, t["id"], "not-a-real-token-but-still-secret")
        assert bad.recv()["error"]["code"] == "forbidden"
        bad.close()
        r = api.http.get(f"/api/tables/{t['id']}/record.txt", params={"token": t["token"]})
        assert r.status_code == 200
        # The last request gets a line of its own: once it is there, the others are too.
        serve.wait_for_line(lambda line: "record.txt" in line)
        log = "".join(serve.log)
        assert log.count("WebSocket /ws/tables/") >= 4 and "token=***" in log, log
        for token in [*secrets_, "not-a-real-token-but-still-secret"]:
            assert token not in log, log
    finally:
        api.close()
        serve.stop()


def _spinning_workers(within: float = 10.0) -> list[int]:
    """AI worker processes of this test process that are still computing after ``within``
    seconds (state R or D).  A killed worker is gone, and the pool's fresh replacement goes
    idle (S) once started; a bot that escaped its deadline never does."""
    deadline = time.monotonic() + within
    while True:
        out = []
        for pid in child_pids(os.getpid()):
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if b"spawn_main" in cmdline and state in ("R", "D"):
                out.append(pid)
        if not out or time.monotonic() > deadline:
            return out
        threading.Event().wait(0.05)  # poll: a replacement worker may still be importing


@pytest.mark.slow
def test_a_bot_past_its_deadline_is_killed_and_the_turn_still_played(sqlite_url: str) -> None:
    """A real MCTS bot with no time cap and a billion iterations (it would think for hours):
    after each 1 s deadline its worker is killed; the stand-in level is tried (this bot ignores levels,
    so it misses again), then a random turn is played.  The table goes on."""
    endless = spec_bot("mcts:iterations=1000000000")
    live = LiveServer(create_app(sqlite_url, bot_factory=endless, ai_workers=1, computer_deadline=1.0))
    api = Api(live.url)
    computers = live.app.state.computers
    try:
        t = api.create(players=2, seats=[{"kind": "human"}, {"kind": "computer", "level": 5}])
        watch = Socket(live.ws_url, t["id"], t["spectator_key"])
        try:
            assert watch.recv()["type"] == "sync"
            start = time.monotonic()
            state = api.turn(t["id"], t["token"], ["e5", "a1"])["state"]
            ev = watch.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "turn"
                             and m["event"]["computer"], timeout=30)
            elapsed = time.monotonic() - start
            assert ev["event"]["seat"] == 1 and ev["state"]["game"]["current_seat"] == 0
            assert computers.deadline_misses == 2 and 2.0 <= elapsed < 20, elapsed
            assert _spinning_workers() == []  # both thinking workers were killed
            # The next computer turn goes the same way: the worker slot recovered.
            state = api.state(t["id"], t["token"])
            api.turn(t["id"], t["token"], random_turn(state, random.Random(3)))
            watch.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "turn"
                        and m["event"]["computer"] and len(m["state"]["game"]["history"]) == 4, timeout=30)
            assert computers.deadline_misses == 4
        finally:
            watch.close()
    finally:
        api.close()
        live.stop()
