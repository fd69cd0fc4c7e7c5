"""The site as docs/deploy.md runs it: PostgreSQL, two ``omega serve --no-workers``, two
``omega worker`` and nginx (the doc's site file) in front, all real processes.

First, a table lives on one process: every request and the socket naming one table reach
the same server process (nginx's access log names the upstream of each), while other tables
land on either. Then a person plays in the browser through nginx against a computer while
one worker is killed (SIGKILL) in the middle of the computer's turn and, a turn later, the
server process that owns the table (its requests and the page's socket) is killed too: the
game goes on through the other process to the player's resignation, every turn is stored
once, and the page is never reloaded. Then the client's address and the WebSocket through
the proxy, and what the proxy keeps to itself.

The first test runs before the kill (the module's tests share one site, in this order): it
needs both server processes alive.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from nginx_proxy import DEPLOY_DOC, Nginx, site_config_from_doc
from omega_page import Contexts, create_table, engine_order
from playwright.sync_api import expect
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine
from websockets.sync.client import connect

from omega import Game
from omega.ai.levels import MAX_LEVEL
from omega.cli import build_parser
from omega.server.app import create_app

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the server tests' helpers
from server.server_helpers import PgCluster, ServeProcess, free_port, subprotocols, value
from server.worker_process import WorkerProcess, thinking_at

pytestmark = [pytest.mark.timeout(420), pytest.mark.slow]

#: The computer's level: the strongest thinks about a second a turn, long enough to be killed mid-turn.
LEVEL = MAX_LEVEL
#: A killed worker's turn is played once its heartbeat is 20 s old, then thought about.
TAKEOVER_MS = 120_000


@dataclass
class Site:
    db: str
    servers: list[ServeProcess]
    workers: list[WorkerProcess]
    nginx: Nginx
    upstreams: list[int]

    def engine(self) -> Engine:
        """The test's own connection pool to the site's database (made on first use, so that
        any test can use it whichever tests ran before it in this process)."""
        if self.db not in ENGINES:
            ENGINES[self.db] = create_engine(self.db)
        return ENGINES[self.db]

    def due(self, table_id: str) -> tuple[str | None, int] | None:
        """Who holds the table's computer turn, and its version (None: no turn is due)."""
        with self.engine().connect() as conn:
            row = conn.execute(text("SELECT claimed_by, version FROM due WHERE kind = 'computer' "
                                    "AND table_id = :t"), {"t": table_id}).one_or_none()
        return None if row is None else (row[0], row[1])

    def record(self, table_id: str, token: str) -> Game:
        r = httpx.get(f"{self.nginx.url}/api/tables/{table_id}/record.txt",
                      headers={"authorization": f"Bearer {token}"}, timeout=30)
        assert r.status_code == 200, r.text
        return Game.from_record(r.text)


#: The test's own connections to the database, one engine per database.
ENGINES: dict[str, Engine] = {}


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    pg = PgCluster()
    started: list[ServeProcess | WorkerProcess] = []
    nginx = None
    try:
        db = pg.new_database()
        servers = [ServeProcess(db, args=("--no-workers", "--forwarded-allow-ips", "127.0.0.1")) for _ in range(2)]
        started += servers
        for s in servers:
            s.ready()
        workers = [WorkerProcess(db, ("--ai-workers", "2")) for _ in range(2)]
        started += workers
        for w in workers:
            w.ready()
        upstreams = [s.port for s in servers]
        nginx = Nginx(free_port(), upstreams)
        yield Site(db, servers, workers, nginx, upstreams)
    finally:
        if nginx is not None:
            nginx.stop()
        for p in started:
            p.kill()
        for engine in ENGINES.values():
            engine.dispose()
        ENGINES.clear()
        pg.stop()


#: A line of the doc's ``omega_access`` log format: client, time, method, path, status, bytes,
#: time taken, and the upstream(s) tried (``a, b`` when nginx passed the request on).
ACCESS_LINE = re.compile(r'^(\S+) \[[^\]]*\] "(\S+) (\S+) [^"]*" (\d{3}) \d+ \S+ (.*)$')


@dataclass(frozen=True)
class Served:
    """One line of nginx's access log: who asked what, and which server process answered."""

    client: str
    method: str
    path: str
    status: int
    tried: tuple[str, ...]

    @property
    def upstream(self) -> str:
        """The process that answered: the last one tried."""
        return self.tried[-1]


def served(site: Site, start: int = 0) -> list[Served]:
    """nginx's access log from byte ``start`` on, line by line."""
    with site.nginx.access_log.open("rb") as f:
        f.seek(start)
        lines = f.read().decode().splitlines()
    found = [ACCESS_LINE.match(line) for line in lines]
    assert all(found), lines
    return [Served(m[1], m[2], m[3], int(m[4]), tuple(re.split(r", | : ", m[5]))) for m in found if m]


def naming(lines: list[Served], table_id: str) -> list[Served]:
    """The lines whose path names the table (any route under its id)."""
    return [line for line in lines if re.search(rf"/{re.escape(table_id)}(/|$)", line.path)]


def log_size(site: Site) -> int:
    """How long nginx's access log is now, in bytes: a ``start`` for :func:`served`."""
    return site.nginx.access_log.stat().st_size


def _socket_logged(site: Site, table_id: str, client: str, timeout: float = 30) -> None:
    """Wait until nginx has logged the closed socket of the table (it logs a socket when it
    ends, a moment after the client closes it).  nginx writes its log from another process
    and tells nobody: reading the file again is the only way to see the line come."""
    deadline = time.monotonic() + timeout
    while not any(line.path == f"/ws/tables/{table_id}" and line.client == client
                  for line in served(site)):
        assert time.monotonic() < deadline, f"nginx never logged the socket of {table_id}"
        time.sleep(0.05)


def test_a_table_lives_on_one_process(site: Site) -> None:
    """Each table's page, API requests (a read, a rename, a record) and socket all reach one
    server process, chosen by the table's id; other ids land on the other process too, and a
    request naming no table (a new table) goes to either."""
    client = "127.0.0.7"
    owners: dict[str, str] = {}
    with httpx.Client(base_url=site.nginx.url, transport=httpx.HTTPTransport(local_address=client),
                      timeout=30) as http:
        for _ in range(16):  # two processes: a second one is all but sure within a few tables
            r = http.post("/api/tables", json={"players": 2})
            assert r.status_code == 201, r.text
            t = r.json()
            tid, auth = t["id"], {"authorization": f"Bearer {t['token']}"}
            assert http.get(f"/t/{tid}").status_code == 200
            assert http.get(f"/api/tables/{tid}", headers=auth).status_code == 200
            assert http.post(f"/api/tables/{tid}/name", json={"name": "Bo"}, headers=auth).status_code == 200
            ws_url = site.nginx.url.replace("http://", "ws://") + f"/ws/tables/{tid}"
            with connect(ws_url, subprotocols=subprotocols(t["token"]),  # type: ignore[arg-type]
                         source_address=(client, 0), open_timeout=30) as ws:
                assert '"type":"sync"' in str(ws.recv(timeout=30))
            assert http.get(f"/api/tables/{tid}/record.txt", headers=auth).status_code == 200
            _socket_logged(site, tid, client)
            lines = naming(served(site), tid)
            # (nginx logs the socket when it ends, so its line may come after the record's.)
            assert sorted((x.method, x.path) for x in lines) == sorted([
                ("GET", f"/t/{tid}"), ("GET", f"/api/tables/{tid}"), ("POST", f"/api/tables/{tid}/name"),
                ("GET", f"/ws/tables/{tid}"), ("GET", f"/api/tables/{tid}/record.txt")]), lines
            assert len({x.upstream for x in lines}) == 1, lines  # one process for all of them
            assert all(len(x.tried) == 1 for x in lines), lines  # none passed on: both are alive
            owners[tid] = lines[0].upstream
            if len(set(owners.values())) == 2:
                break
    assert set(owners.values()) == {f"127.0.0.1:{port}" for port in site.upstreams}, owners
    # What names no table goes round the processes: the new tables came from both.
    created = [x.upstream for x in served(site) if x.client == client and x.path == "/api/tables"]
    assert len(set(created)) == 2, created


def _kill_a_worker_mid_turn(site: Site, table_id: str) -> bool:
    """Wait until a worker has claimed the computer's turn, SIGKILL it, and tell whether the
    turn was still unplayed when it died (it almost always is: a level-12 turn takes about a
    second)."""
    # The person's turn is stored (the page shows its stones from the server's state), and the
    # computer's turn due with it, at that turn's version: the lines of the computer's earlier
    # turns name lower versions, the line of this one that version or a later one.
    stored = site.due(table_id)
    assert stored is not None, "no computer turn due after the person's turn"
    victim, _ = thinking_at(site.workers, table_id, since_version=stored[1], timeout=120)
    due = (victim.server_id, stored[1])
    victim.kill()
    site.workers.remove(victim)
    return site.due(table_id) == due


def _serving_the_socket(site: Site) -> ServeProcess:
    """The server process that holds the page's one socket (each process's own metrics)."""
    counts = {s.port: value(httpx.get(f"{s.url}/metrics", timeout=30).text, "omega_open_sockets")
              for s in site.servers}
    assert sorted(counts.values()) == [0, 1], counts
    return next(s for s in site.servers if counts[s.port] == 1)


def test_a_game_through_nginx_survives_a_killed_worker_and_a_killed_server(site: Site, contexts: Contexts) -> None:
    rng = random.Random(15)
    page = contexts.page()
    table = create_table(page, site.nginx.url, players=2, seats=["human", LEVEL], name="Ann")
    tid, token = table.table_id, table.token
    page.evaluate("window.omegaSamePage = true")  # gone if the page is ever reloaded
    expect(page.locator(".conn")).to_have_attribute("data-state", "live")
    mine: list[list[str]] = []
    killed_worker = False
    killed_server_at = 0  # the turn after which a server was killed
    at_kill = after_kill = 0  # nginx's log size at the kill, and once the page is live again

    for turn in range(1, 16):  # side 5, 2 players: 15 turns each at most
        expect(table.prompt).to_contain_text("Your turn", timeout=TAKEOVER_MS)
        if killed_server_at and turn > killed_server_at + 1:
            break  # two turns through the other process after the kill: enough
        mine.append(table.play_turn(engine_order(2, 0), rng))
        if not killed_worker and turn >= 2:
            if _kill_a_worker_mid_turn(site, tid):
                killed_worker = True
            else:  # the turn was played just before the kill: a fresh worker, and again
                site.workers.append(WorkerProcess(site.db, ("--ai-workers", "2")))
                site.workers[-1].ready()
        elif killed_worker and not killed_server_at:
            # The process that owns the table holds the page's socket and answered every
            # request that named the table.
            victim = _serving_the_socket(site)
            before = naming(served(site), tid)
            assert before and {x.upstream for x in before} == {f"127.0.0.1:{victim.port}"}, before
            at_kill = log_size(site)
            victim.kill()
            site.servers.remove(victim)
            killed_server_at = turn
            # The page notices, and reconnects through nginx to the other process by itself.
            expect(page.locator(".conn")).to_have_attribute("data-state", "live", timeout=30_000)
            # By now nginx has logged the dead process's socket (it ended with the process):
            # the page's socket was on the table's process.
            after_kill = log_size(site)
            ended = [x for x in naming(served(site, at_kill), tid) if x.path == f"/ws/tables/{tid}"]
            assert [x.tried for x in ended] == [(f"127.0.0.1:{victim.port}",)], ended
    assert killed_worker and killed_server_at
    # The rest of the game would only repeat what the turns since showed: Ann resigns, from
    # the same page, through the surviving process.
    page.get_by_role("button", name="Resign…").click()
    page.get_by_role("button", name="Yes, resign").click()

    expect(page.locator(".gameover")).to_be_visible(timeout=TAKEOVER_MS)
    game = site.record(tid, token)
    assert game.turns_played == 2 * len(mine)  # every turn, each once: Ann's and the computer's replies
    assert [list(turn) for turn in game.history[0::2]] == mine  # mine, in order, as clicked
    assert table.stones() == {cell: c.label for cell, c in game.stones().items()}
    assert page.evaluate("window.omegaSamePage") is True  # never reloaded
    assert site.due(tid) is None  # no computer turn left behind
    # Since the kill the table lives on the surviving process: its requests and its new
    # socket were answered there (the hash ring moved the dead process's tables to it).
    after = naming(served(site, after_kill), tid)
    assert after and {x.upstream for x in after} == {f"127.0.0.1:{site.servers[0].port}"}, after


def test_client_addresses_and_sockets_through_nginx(site: Site) -> None:
    """The servers see the client's own address through nginx, for requests and for
    sockets; the proxy keeps /metrics and query-string tokens to itself."""
    proxy = site.nginx.url
    with httpx.Client(base_url=proxy, transport=httpx.HTTPTransport(local_address="127.0.0.5"), timeout=30) as http:
        r = http.post("/api/tables", json={"players": 2})
        assert r.status_code == 201, r.text
        t = r.json()
        assert http.get("/metrics").status_code == 404  # never through the proxy
        record = http.get(f"/api/tables/{t['id']}/record.txt", params={"token": t["token"]})
        assert record.status_code == 200
    with site.engine().connect() as conn:
        owner = conn.execute(text("SELECT owner FROM tables WHERE id = :t"), {"t": t["id"]}).scalar_one()
    assert owner == "127.0.0.5"  # the client, not nginx (127.0.0.1)

    ws_url = proxy.replace("http://", "ws://") + f"/ws/tables/{t['id']}"
    with connect(ws_url, subprotocols=subprotocols(t["spectator_key"]),  # type: ignore[arg-type]
                 source_address=("127.0.0.6", 0), open_timeout=30) as ws:
        assert '"type":"sync"' in str(ws.recv(timeout=30))
        # The process holding it logs the socket's address: the client's.
        holding = [s for s in site.servers
                   if value(httpx.get(f"{s.url}/metrics", timeout=30).text, "omega_open_sockets") == 1]
        assert len(holding) == 1
        holding[0].wait_for_line(re.compile(r"127\.0\.0\.6:\d+ - \"WebSocket /ws/tables/").search)
    # No secret in nginx's log: the request line is logged without its query string.
    access = site.nginx.access_log.read_text()
    assert f"/api/tables/{t['id']}/record.txt" in access
    for secret in (t["token"], t["spectator_key"]):
        assert secret not in access


def test_the_site_file_is_docs_deploy_md(site: Site) -> None:
    """What runs is the doc's block, line for line, but for ports and the log's path."""
    running = (site.nginx.prefix / "sites-enabled" / "omega").read_text().splitlines()
    doc = site_config_from_doc().splitlines()
    local = re.compile(r"    (server 127\.0\.0\.1:\d+ .*;|listen [\d.:]+;|access_log \S+ omega_access;)")
    assert [line for line in running if not local.fullmatch(line)] == [line for line in doc if not local.fullmatch(line)]
    # Both upstreams (any process; a table's process) list every server.
    assert len([line for line in running if line.startswith("    server 127.0.0.1:")]) == 2 * len(site.upstreams)


def _route_paths(routes: list[Any]) -> set[str]:
    """Every path the app serves, HTTP and WebSocket, those of included routers too."""
    paths: set[str] = set()
    for route in routes:
        if isinstance(getattr(route, "path", None), str):
            paths.add(route.path)
        if hasattr(route, "original_router"):  # FastAPI keeps an included router as it was
            paths |= _route_paths(route.original_router.routes)
    return paths


def _table_of(path: str) -> str:
    """What the site file's first ``map`` makes of a path (its regexes in order, the first that
    matches wins, as nginx takes them): the table id, or "" for a path naming no table."""
    block = re.search(r"^map \$uri \$omega_table \{\n(.*?)^\}", site_config_from_doc(), flags=re.DOTALL | re.MULTILINE)
    assert block, "docs/deploy.md's site file maps $uri to $omega_table"
    for line in block[1].splitlines():
        source, value = line.split()
        if source.startswith("~"):
            found = re.search(source[1:].replace("(?<", "(?P<"), path)  # PCRE's named groups in Python's words
            if found:
                return value.rstrip(";").replace("$omega_id", found["omega_id"])
    return ""


def test_every_path_under_a_table_id_is_routed_to_the_table_process(tmp_path: Path) -> None:
    """Each route of the app with a table id in its path (a new one included) goes by that id,
    and none other does: nginx's map and the app's routes cannot drift apart."""
    paths = _route_paths(create_app(f"sqlite:///{tmp_path / 'routes.sqlite3'}").routes)
    under_a_table = {p for p in paths if "{table_id}" in p}
    assert {"/t/{table_id}", "/ws/tables/{table_id}", "/api/tables/{table_id}/actions"} <= under_a_table
    for path in under_a_table:
        assert _table_of(path.replace("{table_id}", "Ab3_-x9Z")) == "Ab3_-x9Z", path
    for path in paths - under_a_table:
        assert _table_of(path.replace("{", "").replace("}", "")) == "", path
    assert _table_of("/api/tables") == ""  # a new table has no process yet


def test_the_systemd_units_are_valid_and_start_commands_omega_accepts(tmp_path: Path) -> None:
    units = re.findall(r"```ini\n# /etc/systemd/system/(omega-\w+)@\.service\n(.*?)```",
                       DEPLOY_DOC.read_text(encoding="utf-8"), flags=re.DOTALL)
    assert {name for name, _ in units} == {"omega-serve", "omega-worker"}
    omega = Path(sys.executable).with_name("omega")
    for name, unit in units:
        start = re.search(r"^ExecStart=/opt/omega/\.venv/bin/omega (.*)$", unit, flags=re.MULTILINE)
        assert start, unit
        args = build_parser().parse_args(start.group(1).replace("%i", "1").split())
        assert args.command in ("serve", "worker")
        if args.command == "serve":
            assert args.no_workers and args.forwarded_allow_ips == "127.0.0.1"
        assert "EnvironmentFile=/etc/omega/omega.env" in unit  # the database URL, password included
        # systemd's own check of an instance of the template (with this machine's omega).
        path = tmp_path / f"{name}@1.service"
        path.write_text(unit.replace("/opt/omega/.venv/bin/omega", str(omega)))
        check = subprocess.run([shutil.which("systemd-analyze") or "systemd-analyze", "verify", "--man=no",
                                str(path)], capture_output=True, text=True, timeout=60)
        assert check.returncode == 0 and str(path) not in check.stdout + check.stderr, check.stderr
