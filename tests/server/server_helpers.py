"""Helpers of the server tests: a throwaway PostgreSQL 15 cluster, live uvicorn servers on
127.0.0.1, ``omega serve`` subprocesses, small HTTP/WebSocket clients, ``/metrics`` read
back, and the migrations' configuration.  What people do on the site (accounts, the lobby,
rated games) is in ``site_helpers``."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import io
import json
import os
import queue
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import traceback
import warnings
from collections.abc import Callable
from importlib.resources import files
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from alembic.config import Config
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import Connection
from websockets.sync.client import ClientConnection, connect

from omega.server.app import create_app
from omega.server.clock import Clock
from omega.server.config import Settings
from omega.server.infra.db import Database, make_engine
from omega.server.infra.limits import Limits
from omega.server.infra.patch import apply as apply_changes
from omega.server.run import SHUTDOWN_GRACE, uvicorn_options
from omega.server.work.thinking import spec_bot

PG_BIN = Path("/usr/lib/postgresql/15/bin")
ROOT = Path(__file__).resolve().parents[2]


def computer_turn(m: dict[str, Any]) -> bool:
    """Whether a table socket's message is a turn the computer played."""
    return bool(m["type"] == "event" and m["event"]["kind"] == "turn" and m["event"]["computer"] is True)


def child_pids(pid: int) -> list[int]:
    """The processes whose parent is ``pid``, read from ``/proc``."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the process ended while we looked
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def bearer(token: str | None) -> dict[str, str]:
    """The headers that present ``token`` (none for no token).

    >>> bearer("s3cret"), bearer(None)
    ({'authorization': 'Bearer s3cret'}, {})
    """
    return {"authorization": f"Bearer {token}"} if token else {}


def scrape(base: str, **headers: str) -> str:
    """The server's ``/metrics`` at ``base``, in Prometheus text format."""
    r = httpx.get(f"{base}/metrics", headers=headers, timeout=30)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain; version=0.0.4")
    return r.text


def value(text: str, name: str, **labels: str) -> float:
    """The sample ``name`` with exactly ``labels`` (0 when there is none).

    >>> value('omega_x_total{route="/a"} 3.0\\n', "omega_x_total", route="/a"), value("", "omega_x_total")
    (3.0, 0.0)
    """
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == name and s.labels == labels:
                return float(s.value)
    return 0.0


def migrations(conn: Connection) -> Config:
    """Alembic's configuration of the server's migrations, run on ``conn`` (to put a test
    database at an older revision, or move it between revisions)."""
    cfg = Config()
    cfg.set_main_option("script_location", str(files("omega.server") / "migrations"))
    cfg.attributes["connection"] = conn
    return cfg


def migrated(url: str) -> None:
    """Bring the database at ``url`` to the newest schema, and leave no connection to it open
    (PostgreSQL copies a template only while nobody is connected to it)."""
    engine = make_engine(url)
    try:
        Database(engine).migrate()
    finally:
        engine.dispose()


def ready_sqlite(template: Path, url: str) -> str:
    """``url`` (a SQLite file's) holding a copy of ``template``, a database that
    :func:`migrated` brought to the newest schema once: quicker than migrating each one."""
    path = Path(url.removeprefix("sqlite:///"))
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(template, path)
    return url


class Changes:
    """A test double says when its state changed (:meth:`changed`); the test waits until a
    condition on that state holds (:meth:`until`), woken by each change, never by a clock."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def changed(self) -> None:
        self._event.set()

    async def until(self, condition: Callable[[], bool]) -> None:
        # The timeout only turns a condition that never holds into a failure, not a hang.
        async with asyncio.timeout(30):
            while not condition():
                self._event.clear()
                await self._event.wait()


async def first_steps() -> None:
    """Return once every task scheduled so far has taken its first step: asyncio runs ready
    callbacks in the order they were scheduled, so a future resolved by a callback scheduled
    now is resolved after those steps."""
    loop = asyncio.get_running_loop()
    stepped = loop.create_future()
    loop.call_soon(stepped.set_result, None)
    await stepped


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PgCluster:
    """A PostgreSQL cluster in a temporary directory, run by the ``postgres`` user."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="omega-pg-"))
        self.data = self.dir / "data"
        as_pg = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if as_pg:
            shutil.chown(self.dir, "postgres")
        subprocess.run([*as_pg, str(PG_BIN / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres",
                        "--no-sync"], check=True, capture_output=True)
        # Each pytest-xdist worker starts its own cluster, all at once: a port found free can
        # be taken by another process before PostgreSQL binds it, so a start that fails is
        # tried again on another port (the log says why each one failed).
        for attempt in range(1, 6):
            self.port = free_port()
            options = (f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off "
                       "-c max_connections=300 -c shared_buffers=32MB")
            started = subprocess.run([*as_pg, str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-o", options, "-l",
                                      str(self.dir / "log"), "-w", "-t", "60", "start"], capture_output=True)
            if started.returncode == 0:
                break
            if attempt == 5:
                started.check_returncode()
        self._as_pg = as_pg
        self._ready: str | None = None

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self, template: str = "template1") -> str:
        """A new database, a copy of ``template`` (PostgreSQL's empty one by default)."""
        import psycopg

        name = "t_" + secrets.token_hex(6)
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres",
                             autocommit=True) as conn:
            # FILE_COPY: a plain copy of the template, much quicker than writing it all to the WAL.
            conn.execute(f"CREATE DATABASE {name} TEMPLATE {template} STRATEGY FILE_COPY")
        return self.url(name)

    def ready_database(self) -> str:
        """A new database at the newest schema: a copy of one this cluster migrated once."""
        if self._ready is None:
            url = self.new_database()
            migrated(url)
            self._ready = url.rsplit("/", 1)[1]
        return self.new_database(self._ready)

    def stop(self) -> None:
        subprocess.run([*self._as_pg, str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w",
                        "stop"], capture_output=True)
        # Removing a few hundred MB of databases takes seconds: let rm finish after the tests.
        subprocess.Popen(["rm", "-rf", str(self.dir)], start_new_session=True)


class LiveServer:
    """A real uvicorn server on a free 127.0.0.1 port, in a thread of the test process."""

    def __init__(self, app: Any, sndbuf: int | None = None, grace: float = SHUTDOWN_GRACE) -> None:
        self.app = app
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if sndbuf is not None:
            # Accepted sockets inherit it (and lose send-buffer autotuning): a client that stops
            # reading fills the kernel's buffers after kilobytes rather than megabytes.
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, sndbuf)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(512)
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        config = uvicorn.Config(app, log_level="warning", lifespan="on",
                                **uvicorn_options(grace=grace))  # type: ignore[arg-type]
        self.server = uvicorn.Server(config)
        #: The server's event loop, once it runs (to show its tasks if it will not stop).
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        async def serve() -> None:
            self.loop = asyncio.get_running_loop()
            await self.server.serve(sockets=[self.sock])

        # What uvicorn.Server.run does, keeping a hand on the loop.
        with asyncio.Runner(loop_factory=self.server.config.get_loop_factory()) as runner:
            runner.run(serve())

    def __enter__(self) -> LiveServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def finish_connections(self, timeout: float = 30) -> None:
        """Wait until the app is done with every connection it handles now: uvicorn's task
        for each request or socket in progress (``server_state.tasks``) has ended.  Once a
        client has closed its socket, this is when the app has forgotten it (its inbox, its
        presence, the count of open sockets), which the closing handshake does not wait for."""
        loop = self.loop
        assert loop is not None, "the server is not running"

        async def ended() -> None:
            running = set(self.server.server_state.tasks)  # read on the server's own loop
            if running:
                await asyncio.wait(running)

        done = asyncio.run_coroutine_threadsafe(asyncio.wait_for(ended(), timeout), loop)
        try:
            done.result(timeout + 5)
        except TimeoutError:
            raise AssertionError(f"the server on port {self.port} still handles connections after "
                                 f"{timeout:g} s") from None

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(30)
        if self.thread.is_alive():
            # Seen once: a server that did not stop, its loops left running to the end of the
            # session.  A warning (pytest lists it even when the test passes) with the server
            # thread's stack and its loop's tasks, so that the next time shows where it waits.
            frame = sys._current_frames().get(self.thread.ident or -1)
            stack = "".join(traceback.format_stack(frame)) if frame is not None else "(no stack)\n"
            tasks = []
            if self.loop is not None:
                with contextlib.suppress(RuntimeError):  # the set may change under us
                    for task in list(asyncio.all_tasks(self.loop)):
                        out = io.StringIO()
                        task.print_stack(file=out)
                        tasks.append(out.getvalue())
            warnings.warn(f"the live server on port {self.port} did not stop within 30 s; its thread:\n{stack}"
                          f"its tasks:\n{''.join(tasks)}", ResourceWarning, stacklevel=2)
        self.sock.close()


def make_server(url: str, *, bot: str | None = "random", limits: Limits | None = None,
                settings: Settings | None = None, sndbuf: int | None = None, clock: Clock | None = None,
                **options: Any) -> LiveServer:
    factory = spec_bot(bot) if bot is not None else None
    return LiveServer(create_app(url, bot_factory=factory, limits=limits, settings=settings, clock=clock, **options),
                      sndbuf=sndbuf)


class Api:
    """A small synchronous client of the HTTP API."""

    def __init__(self, base: str) -> None:
        self.http = httpx.Client(base_url=base, timeout=30)

    def close(self) -> None:
        self.http.close()

    def create(self, **body: Any) -> dict[str, Any]:
        body.setdefault("players", 2)
        r = self.http.post("/api/tables", json=body)
        assert r.status_code == 201, r.text
        return dict(r.json())

    def get(self, table_id: str, token: str | None) -> httpx.Response:
        return self.http.get(f"/api/tables/{table_id}", headers=bearer(token))

    def state(self, table_id: str, token: str) -> dict[str, Any]:
        r = self.get(table_id, token)
        assert r.status_code == 200, r.text
        return dict(r.json())

    def act(self, table_id: str, token: str | None, action: dict[str, Any], request_id: str | None = None,
            version: int | None = None) -> httpx.Response:
        body = dict(action)
        body["request_id"] = request_id or secrets.token_hex(8)
        if version is not None:
            body["version"] = version
        return self.http.post(f"/api/tables/{table_id}/actions", json=body, headers=bearer(token))

    def turn(self, table_id: str, token: str, cells: list[str], **kw: Any) -> dict[str, Any]:
        r = self.act(table_id, token, {"type": "turn", "cells": cells}, **kw)
        assert r.status_code == 200, r.text
        return dict(r.json())


def error_code(r: httpx.Response) -> str:
    return str(r.json()["error"]["code"])


def subprotocols(token: str | None, protocol: str = "omega.v2") -> list[str]:
    """What a client offers when it opens a table's socket with ``token``."""
    return [protocol, *([f"omega.token.{token}"] if token is not None else [])]


class JsonSocket:
    """A WebSocket client that reads JSON messages with a timeout."""

    def __init__(self, conn: ClientConnection) -> None:
        self.conn = conn

    def recv(self, timeout: float = 20) -> dict[str, Any]:
        """The next message."""
        return dict(json.loads(self.conn.recv(timeout=timeout)))

    def send(self, message: dict[str, Any] | str) -> None:
        self.conn.send(message if isinstance(message, str) else json.dumps(message))

    def until(self, pred: Any, timeout: float = 30) -> dict[str, Any]:
        """The first message satisfying ``pred`` (earlier ones are dropped)."""
        while True:
            msg = self.recv(timeout)
            if pred(msg):
                return msg

    def close(self) -> None:
        self.conn.close()


class Socket(JsonSocket):
    """A table's WebSocket client.

    It speaks ``omega.v2`` unless told otherwise: it holds the table's state (from the sync,
    or ``base``, the state it resumes from with ``since``), applies each event's changes to
    it as the page does, checking that the versions follow, and adds the state it now holds
    to the event message as ``state`` (what ``omega.v1`` sends), so that tests read states
    the same way over either protocol.
    """

    def __init__(self, ws_url: str, table_id: str, token: str | None, since: int | None = None, *,
                 base: dict[str, Any] | None = None, protocol: str = "omega.v2") -> None:
        if base is not None and since is None:
            since = base["version"]
        # The secret travels as a subprotocol, never in the URL (docs/server-api.md).
        query = f"?since={since}" if since is not None else ""
        super().__init__(connect(f"{ws_url}/ws/tables/{table_id}{query}",
                                 subprotocols=subprotocols(token, protocol),  # type: ignore[arg-type]
                                 open_timeout=30, max_size=2**22).__enter__())
        #: The table as this client holds it (None before a sync when no base was given).
        self.state: dict[str, Any] | None = copy.deepcopy(base)
        self.received: list[dict[str, Any]] = []

    def recv(self, timeout: float = 20) -> dict[str, Any]:
        """The next message (every message is also kept in ``received``)."""
        msg = super().recv(timeout)
        kind = msg.get("type")
        if kind in ("sync", "event") and "state" in msg:
            self.state = copy.deepcopy(msg["state"])
        elif kind == "event":
            held = self.state
            assert held is not None, f"changes for version {msg['version']} and no state to apply them to"
            assert held["version"] == msg["version"] - 1, \
                f"changes for version {msg['version']} on a state at version {held['version']}"
            self.state = apply_changes(held, msg["changes"])
            msg["state"] = copy.deepcopy(self.state)
        elif kind == "presence" and self.state is not None:
            for seat, here in zip(self.state["seats"], msg["seats"], strict=True):
                seat["connected"] = here
        self.received.append(msg)
        return msg


def random_turn(state: dict[str, Any], rng: Any) -> list[str]:
    """Random legal cells for the game in ``state`` (by the server's own view)."""
    from omega import Game

    game = Game(players=state["players"], size=state["size"])
    empty = [c for c in game.cells if c not in state["game"]["stones"]]
    return list(rng.sample(empty, state["players"]))


class ServeProcess:
    """``omega serve`` as a subprocess; ``ready`` waits for uvicorn's start-up line.

    Without a ``port`` the server binds port 0 and ``ready`` reads the port it got from that
    line: a port picked free beforehand can be taken by another process (another test's
    client socket, say) before the server binds it.  ``log_path``: also append its output
    there, line by line.
    """

    def __init__(self, db: str | None, port: int | None = None, env: dict[str, str] | None = None,
                 cwd: Path = ROOT, args: tuple[str, ...] = (),
                 program: tuple[str, ...] = (sys.executable, "-m", "omega.cli"), log_path: Path | None = None) -> None:
        #: The port it listens on (0 until :meth:`ready` when none was given).
        self.port = port or 0
        self.log_path = log_path
        self.proc = subprocess.Popen(
            [*program, "serve", "--host", "127.0.0.1", "--port", str(self.port),
             *(["--db", db] if db is not None else []), *args],
            # Both streams: uvicorn's access log goes to stdout, everything else to stderr.
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env or dict(os.environ), cwd=cwd)
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.log: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    @property
    def url(self) -> str:
        assert self.port, "the port is known once ready() has returned"
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return "ws" + self.url.removeprefix("http")

    def _read(self) -> None:
        assert self.proc.stdout is not None
        with contextlib.ExitStack() as stack:
            mirror = stack.enter_context(self.log_path.open("a", encoding="utf-8")) if self.log_path else None
            for line in self.proc.stdout:
                if mirror is not None:
                    mirror.write(line)
                    mirror.flush()
                self.log.append(line)
                self.lines.put(line)
        self.proc.stdout.close()  # at its end: left to the collector, it warns in another test
        self.lines.put(None)

    def ready(self, timeout: float = 60) -> None:
        """Wait for the start-up line (AssertionError if the server exits first,
        ``queue.Empty`` if ``timeout`` seconds pass without a line)."""
        while True:
            line = self.lines.get(timeout=timeout)
            if line is None:
                raise AssertionError("omega serve exited:\n" + "".join(self.log))
            found = re.search(r"Uvicorn running on http://[^:]+:(\d+)", line)
            if found:
                self.port = int(found.group(1))
                return

    def wait_for_line(self, pred: Any, timeout: float = 30) -> str:
        """The next log line satisfying ``pred`` (call after :meth:`ready`)."""
        while True:
            line = self.lines.get(timeout=timeout)
            if line is None:
                raise AssertionError("omega serve exited:\n" + "".join(self.log))
            if pred(line):
                return line

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        self.proc.wait(30)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.kill()
