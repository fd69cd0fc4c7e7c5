"""Fixtures of the server tests: databases of both kinds (SQLite, throwaway PostgreSQL 15),
live servers and clients; and the site of people with accounts on a fake clock (``site``,
``people``, ``client``), which a module with other needs overrides with its own ``site``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from omega.server.clock import FakeClock

from .mail_helpers import SmtpSink
from .server_helpers import Api, LiveServer, PgCluster, make_server, migrated, ready_sqlite
from .site_helpers import CHEAP, ROOMY, Browser, browser_at


@pytest.fixture(scope="session")
def pg() -> Iterator[PgCluster]:
    cluster = PgCluster()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(params=["sqlite", "postgres"])
def blank_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh empty database of each kind (no schema): for the tests of the migrations."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'data' / 'omega.sqlite3'}"
    cluster: PgCluster = request.getfixturevalue("pg")
    return cluster.new_database()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite database migrated once a session, which :func:`db_url` copies."""
    path = tmp_path_factory.mktemp("template") / "omega.sqlite3"
    migrated(f"sqlite:///{path}")
    return path


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh database of each kind at the newest schema.  It is a copy of one migrated once
    a session (the migrations run before each test cost more than many a test): the servers
    made on it find nothing to migrate.  The migrations have tests of their own
    (``blank_db_url``), and every server started on its own file or database migrates it."""
    if request.param == "sqlite":
        template: Path = request.getfixturevalue("sqlite_template")
        return ready_sqlite(template, f"sqlite:///{tmp_path / 'data' / 'omega.sqlite3'}")
    cluster: PgCluster = request.getfixturevalue("pg")
    return cluster.ready_database()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'data' / 'omega.sqlite3'}"


@pytest.fixture
def server(db_url: str) -> Iterator[LiveServer]:
    """A live server (random bot for computer seats) on each kind of database."""
    with make_server(db_url) as live:
        yield live


@pytest.fixture
def sqlite_server(sqlite_url: str) -> Iterator[LiveServer]:
    with make_server(sqlite_url) as live:
        yield live


@pytest.fixture
def api(server: LiveServer) -> Iterator[Api]:
    client = Api(server.url)
    yield client
    client.close()


@pytest.fixture
def sink() -> Iterator[SmtpSink]:
    """A real SMTP server on loopback (aiosmtpd) that receives the site's mail."""
    with SmtpSink() as smtp:
        yield smtp


@pytest.fixture
def clock() -> FakeClock:
    """The time of the ``site``: tests move it instead of waiting."""
    return FakeClock()


@pytest.fixture
def site(db_url: str, clock: FakeClock) -> Iterator[LiveServer]:
    """A live server on each kind of database, on ``clock``, with cheap password hashes and
    room for dozens of registrations from one address (``ROOMY``)."""
    with make_server(db_url, clock=clock, password_hasher=CHEAP, limits=ROOMY) as live:
        yield live


@pytest.fixture
def people(site: LiveServer) -> Iterator[Callable[..., Browser]]:
    """``people(username)``: a browser of the ``site`` that has just registered
    ``username`` (and is logged in); ``people(username, address)``: one whose requests come
    from ``address``, another loopback address."""
    made: list[Browser] = []

    def new(username: str, address: str | None = None) -> Browser:
        b = Browser(site) if address is None else browser_at(site, address)
        made.append(b)
        r = b.register(username)
        assert r.status_code == 201, r.text
        return b

    yield new
    for b in made:
        b.close()


@pytest.fixture
def client(site: LiveServer) -> Iterator[Api]:
    """A plain HTTP client of the ``site`` (tokens, no cookies)."""
    api = Api(site.url)
    yield api
    api.close()
