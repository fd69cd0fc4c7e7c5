"""Fixtures of the server tests: databases of both kinds (SQLite, throwaway PostgreSQL 15),
live servers and clients."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .server_helpers import Api, LiveServer, PgCluster, make_server


@pytest.fixture(scope="session")
def pg() -> Iterator[PgCluster]:
    cluster = PgCluster()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh empty database of each kind."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'data' / 'omega.sqlite3'}"
    cluster: PgCluster = request.getfixturevalue("pg")
    return cluster.new_database()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'data' / 'omega.sqlite3'}"


@pytest.fixture
def server(db_url: str) -> Iterator[LiveServer]:
    """A live server (random bot for computer seats) on each kind of database."""
    live = make_server(db_url)
    try:
        yield live
    finally:
        live.stop()


@pytest.fixture
def sqlite_server(sqlite_url: str) -> Iterator[LiveServer]:
    live = make_server(sqlite_url)
    try:
        yield live
    finally:
        live.stop()


@pytest.fixture
def api(server: LiveServer) -> Iterator[Api]:
    client = Api(server.url)
    yield client
    client.close()
