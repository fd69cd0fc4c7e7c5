"""``omega worker``: computer turns played apart from the servers, on PostgreSQL, by real
processes; a worker killed in the middle of a turn loses nothing."""

from __future__ import annotations

import os
import random
import select
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, text

from omega.server.app import create_app
from omega.server.config import Settings

from .server_helpers import (
    ROOT,
    Api,
    LiveServer,
    PgCluster,
    ServeProcess,
    Socket,
    child_pids,
    computer_turn,
    free_port,
    random_turn,
    value,
)
from .worker_process import WorkerProcess

pytestmark = pytest.mark.timeout(180)

VS_COMPUTER = [{"kind": "human"}, {"kind": "computer", "level": 1}]


@pytest.fixture
def pg_url(pg: PgCluster) -> str:
    return pg.new_database()


def test_workers_and_servers_without_workers_refuse_sqlite(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'omega.sqlite3'}"
    for command in (["serve", "--no-workers", "--port", str(free_port())], ["worker"]):
        r = subprocess.run([sys.executable, "-m", "omega.cli", *command, "--db", db], capture_output=True,
                           text=True, timeout=60, cwd=ROOT)
        assert r.returncode == 2, r.stderr
        assert "needs PostgreSQL" in r.stderr.splitlines()[-1]
    assert not (tmp_path / "omega.sqlite3").exists()  # refused before touching anything


@pytest.mark.slow
def test_a_worker_plays_the_computer_turns_of_servers_without_workers(pg_url: str) -> None:
    """The real commands: ``omega serve --no-workers`` serves the table and never plays;
    ``omega worker`` (real level-1 bot) plays, and its turn reaches the server's socket."""
    serve = ServeProcess(pg_url, args=("--no-workers",))
    worker = WorkerProcess(pg_url, ("--ai-workers", "1", "--metrics-port", "0"))
    try:
        serve.ready()
        worker.ready()
        api = Api(serve.url)  # the port is known once the server is ready
        t = api.create(players=2, seats=VS_COMPUTER)
        watch = Socket(serve.ws_url, t["id"], t["spectator_key"])
        try:
            assert watch.recv()["type"] == "sync"
            api.turn(t["id"], t["token"], ["e5", "a1"])
            reply = watch.until(computer_turn, timeout=90)
            assert reply["event"]["seat"] == 1 and reply["state"]["game"]["current_seat"] == 0
        finally:
            watch.close()
        assert api.http.get("/api/status").json()["computers"] is None  # no computer players here
        worker_metrics = httpx.get(f"{worker.metrics_url}/metrics", timeout=30).text
        assert value(worker_metrics, "omega_computer_think_seconds_count", level="1") == 1
        server_metrics = api.http.get("/metrics").text
        assert value(server_metrics, "omega_computer_think_seconds_count", level="1") == 0
        assert value(server_metrics, "omega_computer_turns_due") == 0
        assert worker.stop() == 0  # SIGTERM: a clean stop
        assert any(f"worker {worker.server_id} stopping" in line for line in worker.log)
        api.close()
    finally:
        worker.kill()
        serve.stop()


def _claims(url: str) -> list[tuple[str, str, str | None]]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return [(r[0], r[1], r[2]) for r in conn.execute(text("SELECT kind, table_id, claimed_by FROM due"))]
    finally:
        engine.dispose()


@pytest.fixture
def quick_server(pg_url: str) -> Iterator[LiveServer]:
    """A server without computer players (as ``--no-workers``) that finds a dead process
    after 3 s instead of 20."""
    settings = Settings(sweep_interval=0.5, dead_after=3.0)
    live = LiveServer(create_app(pg_url, bot_factory=None, settings=settings))
    yield live
    live.stop()


@pytest.mark.slow
def test_a_worker_killed_in_the_middle_of_a_turn_loses_nothing(pg_url: str, quick_server: LiveServer) -> None:
    quick = {"dead_after": 3.0, "sweep_interval": 0.5}
    # Worker A thinks for ever: it claims the turn and never finishes it.
    a = WorkerProcess(pg_url, ("--ai-workers", "1"), bot="mcts:iterations=1000000000", **quick)  # type: ignore[arg-type]
    b: WorkerProcess | None = None
    api = Api(quick_server.url)
    try:
        a_id = a.ready()
        t = api.create(players=2, seats=VS_COMPUTER)
        tid = t["id"]
        watch = Socket(quick_server.ws_url, tid, t["spectator_key"])
        try:
            assert watch.recv()["type"] == "sync"
            api.turn(tid, t["token"], ["e5", "a1"])
            # A says so once its bot processes have the turn (they start with the first turn).
            a.thinking(tid)
            assert ("computer", tid, a_id) in _claims(pg_url)  # A holds the claim while it thinks
            thinking = child_pids(a.proc.pid)
            # Worker B is there before A dies, and leaves A's claim alone while A lives.
            b = WorkerProcess(pg_url, ("--ai-workers", "1"), bot="random", **quick)  # type: ignore[arg-type]
            b.ready()
            a.kill()
            bots = [os.pidfd_open(pid) for pid in thinking]
            reply = watch.until(computer_turn, timeout=60)
            assert reply["event"]["seat"] == 1
            for fd in bots:  # A's bot processes noticed and went
                assert select.select([fd], [], [], 30)[0], "a bot process outlived its killed worker"
                os.close(fd)
        finally:
            watch.close()
        state = api.state(tid, t["token"])
        history = state["game"]["history"]
        assert len(history) == 2 and history[0] == ["e5", "a1"]  # the turn played once, none lost
        assert state["game"]["current_seat"] == 0
        assert [c for c in _claims(pg_url) if c[1] == tid] == []  # no work left at the table
        # The next computer turn is B's too.
        watch = Socket(quick_server.ws_url, tid, t["spectator_key"], base=state)
        try:
            api.turn(tid, t["token"], random_turn(state, random.Random(2)))
            again = watch.until(computer_turn, timeout=60)
            assert len(again["state"]["game"]["history"]) == 4, "B did not play again"
        finally:
            watch.close()
    finally:
        api.close()
        a.kill()
        if b is not None:
            b.kill()


