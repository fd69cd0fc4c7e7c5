"""The database: the SQLAlchemy engine (SQLite's pragmas, PostgreSQL through psycopg 3),
the one declarative :class:`Base` of every feature's tables, write transactions, and the
Alembic history that brings a database to the newest schema.

Each feature keeps its ORM models beside its code (``tables/models.py``,
``accounts/models.py``, ...) on this one :class:`Base`; ``omega.server.models`` imports them
all, so that ``Base.metadata`` holds every table.

>>> db = Database(make_engine("sqlite://"))
>>> db.migrate()
>>> with db.writing() as conn:
...     conn.exec_driver_sql("SELECT 1").scalar()
1
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from importlib.resources import files
from pathlib import Path
from typing import Any, TypeVar, overload

from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.orm import DeclarativeBase
from sqlalchemy.pool import StaticPool

__all__ = ["Base", "Database", "make_engine", "default_url", "SQLITE_SYNCHRONOUS", "utc", "iso", "alembic_config",
           "schema_head"]


class Base(DeclarativeBase):
    """Declarative base of the server's tables."""


def default_url() -> str:
    """``OMEGA_DATABASE_URL`` or an SQLite file ``./data/omega.sqlite3``."""
    return os.environ.get("OMEGA_DATABASE_URL") or f"sqlite:///{Path('data') / 'omega.sqlite3'}"


#: SQLite's ``synchronous`` settings the server accepts: FULL (the default) fsyncs the WAL
#: at every commit, so an acknowledged turn survives a power cut; NORMAL only survives a
#: crash of the process (for measuring what FULL costs: docs/architecture.md).
SQLITE_SYNCHRONOUS = ("FULL", "NORMAL")


def make_engine(url: str, sqlite_synchronous: str = "FULL") -> Engine:
    """An engine for ``url``; SQLite gets WAL mode, ``synchronous`` and its directory created.

    ``postgresql://`` URLs use psycopg 3.  A statement's parameters are never shown in an
    error's text (``hide_parameters``): they hold session and reset digests, addresses and
    names, and an error's text reaches the log.
    """
    if sqlite_synchronous not in SQLITE_SYNCHRONOUS:
        raise ValueError(f"sqlite_synchronous must be one of {', '.join(SQLITE_SYNCHRONOUS)}")
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() != "sqlite":
        return create_engine(parsed, pool_size=10, max_overflow=20, pool_pre_ping=True, hide_parameters=True)
    database = parsed.database
    if database and database != ":memory:":
        Path(database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(parsed, connect_args={"timeout": 30, "check_same_thread": False},
                               pool_size=8, max_overflow=8, hide_parameters=True)
    else:
        engine = create_engine(parsed, connect_args={"check_same_thread": False}, poolclass=StaticPool,
                               hide_parameters=True)

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's "begin" hook below say how a transaction starts.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        # FULL: a commit is on disk (the WAL fsynced) before it returns, so an acknowledged
        # turn survives a power cut, not only a killed process (NORMAL's promise).
        cursor.execute(f"PRAGMA synchronous={sqlite_synchronous}")
        cursor.execute("PRAGMA foreign_keys=ON")
        # No checkpoint inside a commit (it made some commits take hundreds of milliseconds):
        # the server checkpoints from its heartbeat instead (Repository.checkpoint).
        cursor.execute("PRAGMA wal_autocheckpoint=0")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        # Writers take the write lock up front: a deferred transaction that later upgrades
        # its read lock can deadlock against another writer and fail with "database is locked".
        immediate = conn.get_execution_options().get("sqlite_immediate", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


T = TypeVar("T")


def utc(moment: datetime) -> datetime:
    """A time read back from the database, in UTC (SQLite gives back naive datetimes; every
    time the server stores is UTC).

    >>> utc(datetime(2026, 1, 1)).tzinfo
    datetime.timezone.utc
    """
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@overload
def iso(moment: datetime) -> str: ...
@overload
def iso(moment: None) -> None: ...
@overload
def iso(moment: datetime | None) -> str | None: ...
def iso(moment: datetime | None) -> str | None:
    """A time read back from the database as the API writes it (UTC, ``Z``, its microseconds
    if any); None stays None.

    >>> iso(datetime(2027, 1, 2, 3, 4, 5)), iso(datetime(2027, 1, 2, 3, 4, 5, 6, tzinfo=UTC)), iso(None)
    ('2027-01-02T03:04:05Z', '2027-01-02T03:04:05.000006Z', None)
    """
    return None if moment is None else utc(moment).isoformat().replace("+00:00", "Z")


class Database:
    """The server's database: all methods are blocking (run them off the event loop)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.is_postgres = engine.dialect.name == "postgresql"
        # SQLite has one writer; threads that queue on this lock wait in order, where threads
        # left to SQLite's busy handler would sleep and retry and waste most of the time.
        self._sqlite_writer = threading.Lock()

    @contextmanager
    def writing(self) -> Iterator[Connection]:
        """A write transaction (committed when the block ends normally), queued on SQLite:
        threads that queue on one lock wait in order, where threads left to SQLite's busy
        handler would sleep and retry and waste most of the time."""
        lock = self._sqlite_writer if not self.is_postgres else contextlib.nullcontext()
        with lock, self.engine.connect().execution_options(sqlite_immediate=True) as conn, conn.begin():
            yield conn

    def write(self, fn: Callable[[Connection], T]) -> T:
        """``fn`` in a write transaction (:meth:`writing`), its result given back: the
        blocking half of a feature's change, run as ``await core.db(repo.write, change)``."""
        with self.writing() as conn:
            return fn(conn)

    def read(self, fn: Callable[[Connection], T]) -> T:
        """``fn`` in a read transaction (one snapshot on PostgreSQL), its result given back."""
        with self.engine.connect() as conn, conn.begin():
            return fn(conn)

    def checkpoint(self) -> None:
        """Copy what the SQLite write-ahead log holds into the database file (PASSIVE: it
        waits for nobody); nothing to do on PostgreSQL."""
        if not self.is_postgres:
            with self.engine.connect() as conn:
                conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
                conn.rollback()

    def ping(self) -> None:
        """Ask the database a trivial question (DBAPIError if it does not answer)."""
        with self.engine.connect() as conn:
            conn.execute(text("SELECT 1"))
            conn.rollback()

    def migrate(self) -> None:
        """Bring the schema to the newest Alembic revision (safe with several processes)."""
        from alembic import command

        cfg = alembic_config()
        with self.writing() as conn:
            if self.is_postgres:
                # Several processes may start at once: one migrates, the others wait here.
                conn.execute(text("SELECT pg_advisory_xact_lock(4242001)"))
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")


def alembic_config() -> Any:
    """The Alembic configuration of the server's migrations (``omega/server/migrations``)."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(files("omega.server") / "migrations"))
    return cfg


def schema_head() -> str:
    """The newest schema revision, the one :meth:`Database.migrate` brings a database to.

    >>> schema_head() == schema_head() != ""
    True
    """
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return str(head)
