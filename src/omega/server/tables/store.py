"""Where tables live: SQLAlchemy 2 models and the few transactions the server needs.

A table is one ``tables`` row (settings, current version, who is to move), its ``seats``
(hashed tokens) and its ``events`` (the action log, one row per version).  The game itself
is never stored as a position: it is what the events make of an empty board, so a stored
event is the one truth about an acknowledged turn.

Writes to one table are serialised by a row lock (PostgreSQL ``SELECT ... FOR UPDATE``) or
by SQLite's single writer (``BEGIN IMMEDIATE``), and the event's primary key
``(table_id, version)`` refuses a second writer of the same version in any case.

>>> repo = Repository(make_engine("sqlite://"))
>>> repo.migrate()
>>> repo.load("nope") is None
True
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from importlib.resources import files
from pathlib import Path
from typing import Any, Generic, TypeVar

from sqlalchemy import (
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    bindparam,
    create_engine,
    delete,
    event,
    func,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.pool import StaticPool

from omega.server.tables.events import Event, payload_from
from omega.server.tables.identity import TableKeys
from omega.server.tables.state import PresenceCount, SeatConfig, TableConfig
from omega.server.tables.timecontrol import TimeControl

T = TypeVar("T")

__all__ = [
    "Write", "Base", "TableRow", "SeatRow", "UserRow", "SessionRow", "EventRow", "ServerRow", "PresenceRow", "DueRow",
    "ReviewRow", "ChatRow", "RematchRow", "Due", "Repository", "Writer", "StoredTable", "make_engine", "default_url",
    "schema_head", "insert_table",
]


class Base(DeclarativeBase):
    """Declarative base of the server's tables."""


class TableRow(Base):
    """One game table: its settings and where its event log stands."""

    __tablename__ = "tables"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    players: Mapped[int] = mapped_column(Integer)
    size: Mapped[int] = mapped_column(Integer)
    pie_rule: Mapped[bool] = mapped_column(Boolean)
    spectator_hash: Mapped[str] = mapped_column(String(64))
    version: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(16), default="playing")
    # Denormalised from the events, for listing tables without replaying them.
    to_move_seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: Who opened the table (the client's address): computer turns are queued fairly by it.
    owner: Mapped[str | None] = mapped_column(String(64), nullable=True)
    #: When the last event was decided (the table's creation before any).
    updated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: The time control's text (``omega.server.tables.timecontrol``); NULL: untimed.
    time_control: Mapped[str | None] = mapped_column(String(16), nullable=True)
    #: Whether the players may ask for hints (the creator's choice).
    hints: Mapped[bool] = mapped_column(Boolean, default=False)
    #: Listed in the lobby (``TableConfig.open``), and rated (``TableConfig.rated``).
    open: Mapped[bool] = mapped_column(Boolean, default=False)
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    #: The seat whose player created the table (revision ``0009``), the one that may make new
    #: links; NULL for a rematch's table and tables whose log does not say.
    creator_seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    __table_args__ = (Index("ix_tables_status_updated_at", "status", "updated_at"),
                      Index("ix_tables_open_status", "open", "status"))


class UserRow(Base):
    """An account: its id is stable (seats and, later, ratings refer to it); ``username``
    as its owner wrote it (NFKC), ``username_key`` what makes it unique (``omega.names``)."""

    __tablename__ = "users"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    username: Mapped[str] = mapped_column(String(32))
    username_key: Mapped[str] = mapped_column(String(96))
    password_hash: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    __table_args__ = (UniqueConstraint("username_key", name="uq_users_username_key"),)


class SessionRow(Base):
    """A log-in: the SHA-256 of its random id (the cookie's value is never stored)."""

    __tablename__ = "sessions"
    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class SeatRow(Base):
    """A seat: human (with the SHA-256 of its secret token) or computer (with a level)."""

    __tablename__ = "seats"
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    idx: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    level: Mapped[int | None] = mapped_column(Integer, nullable=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    #: The account that holds the seat (None: a guest's seat, held by its link only).
    #: An account holds at most one seat of a table.
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    __table_args__ = (Index("uq_seats_user_table", "user_id", "table_id", unique=True),)


class EventRow(Base):
    """One change of a table, numbered by the table's version after it."""

    __tablename__ = "events"
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    data: Mapped[str] = mapped_column(Text)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    request_id: Mapped[str | None] = mapped_column(String(128), nullable=True)
    fingerprint: Mapped[str | None] = mapped_column(String(128), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    __table_args__ = (UniqueConstraint("table_id", "request_id", name="uq_events_request"),)


class ServerRow(Base):
    """A running server process; a stale heartbeat means it died."""

    __tablename__ = "servers"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    heartbeat_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class PresenceRow(Base):
    """How many sockets a server process holds open for a seat."""

    __tablename__ = "presence"
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    server_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    count: Mapped[int] = mapped_column(Integer)


class DueRow(Base):
    """Work due at a time: a computer's turn at a table, the site-wide sweep, ...

    One row per (kind, table); ``table_id`` is ``""`` for work that belongs to no table.
    A process that takes the work claims the row (``claimed_by``); the claim holds while
    that process lives (its ``servers`` row) and, when ``claim_expires`` is set, until then.
    """

    __tablename__ = "due"
    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    table_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    version: Mapped[int] = mapped_column(Integer)
    due_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    claimed_by: Mapped[str | None] = mapped_column(String(64), nullable=True)
    claim_expires: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    __table_args__ = (Index("ix_due_due_at", "due_at"),)


class ReviewRow(Base):
    """The review of a finished game (``omega.ai.review``'s JSON form), made once."""

    __tablename__ = "reviews"
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    #: The table version the review was made at.
    version: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    data: Mapped[str] = mapped_column(Text)


class ChatRow(Base):
    """One chat message of a table: kept beside the table, never in its event log."""

    __tablename__ = "chat"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: The writer's seat (None: a spectator), the name they showed and their account's username.
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    name: Mapped[str] = mapped_column(String(64))
    username: Mapped[str | None] = mapped_column(String(32), nullable=True)
    text: Mapped[str] = mapped_column(Text)
    __table_args__ = (Index("ix_chat_table_id", "table_id", "id"),)


class RematchRow(Base):
    """The rematch asked for at a finished table (one at a time): who proposed it, who
    accepted, how it ended, and the new table once it started."""

    __tablename__ = "rematches"
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    status: Mapped[str] = mapped_column(String(16))
    proposer: Mapped[int] = mapped_column(Integer)
    #: The seats that accepted (JSON list, the proposer's included).
    accepted: Mapped[str] = mapped_column(Text)
    #: The seat whose decline or departure ended it.
    ended_by: Mapped[int | None] = mapped_column(Integer, nullable=True)
    new_table_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


@dataclass(frozen=True)
class Write(Generic[T]):
    """One table's part of a grouped write (:meth:`Repository.write_many`): ``run`` inside
    the transaction (None: no such table), ``then`` once it is committed."""

    table_id: str
    run: Callable[[Writer | None], T]
    then: Callable[[T], None]


@dataclass(frozen=True)
class Due:
    """One claimed piece of due work."""

    kind: str
    table_id: str
    version: int


def default_url() -> str:
    """``OMEGA_DATABASE_URL`` or an SQLite file ``./data/omega.sqlite3``."""
    return os.environ.get("OMEGA_DATABASE_URL") or f"sqlite:///{Path('data') / 'omega.sqlite3'}"


#: SQLite's ``synchronous`` settings the server accepts: FULL (the default) fsyncs the WAL
#: at every commit, so an acknowledged turn survives a power cut; NORMAL only survives a
#: crash of the process (for measuring what FULL costs: docs/architecture.md).
SQLITE_SYNCHRONOUS = ("FULL", "NORMAL")


def make_engine(url: str, sqlite_synchronous: str = "FULL") -> Engine:
    """An engine for ``url``; SQLite gets WAL mode, ``synchronous`` and its directory created.

    ``postgresql://`` URLs use psycopg 3.
    """
    if sqlite_synchronous not in SQLITE_SYNCHRONOUS:
        raise ValueError(f"sqlite_synchronous must be one of {', '.join(SQLITE_SYNCHRONOUS)}")
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() != "sqlite":
        return create_engine(parsed, pool_size=10, max_overflow=20, pool_pre_ping=True)
    database = parsed.database
    if database and database != ":memory:":
        Path(database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(parsed, connect_args={"timeout": 30, "check_same_thread": False},
                               pool_size=8, max_overflow=8)
    else:
        engine = create_engine(parsed, connect_args={"check_same_thread": False}, poolclass=StaticPool)

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


def _utc(moment: datetime) -> datetime:
    # SQLite gives back naive datetimes; every time the server stores is UTC.
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _event_from_row(row: Any) -> Event:
    return Event(payload_from(row.kind, json.loads(row.data)), version=row.version, at=_utc(row.created_at),
                 seat=row.seat, request_id=row.request_id, fingerprint=row.fingerprint)


@dataclass
class StoredTable:
    """A table as loaded from the database."""

    config: TableConfig
    keys: TableKeys
    events: list[Event]
    #: Open sockets per seat, over all processes (live state, not history).
    presence: PresenceCount
    #: Who opened the table ("" when unknown: tables opened before it was recorded).
    owner: str = ""
    #: The seat that created the table (None: a rematch's table, or not known).
    creator: int | None = None


class _DriverSql:
    """The action path's hottest statements in the database driver's own SQL, run on the
    transaction's own DBAPI connection.  Through SQLAlchemy a turn's three statements cost
    about seven times what they cost the driver (56 against 8 microseconds on SQLite); every
    other statement goes through SQLAlchemy.  A driver error comes out as SQLAlchemy's
    (``IntegrityError`` for a clash of keys), as from any other statement."""

    def __init__(self, dialect: Any) -> None:
        self.dialect = dialect
        mark = "?" if dialect.paramstyle == "qmark" else "%s"
        postgres = dialect.name == "postgresql"
        self.error: type[Exception] = dialect.loaded_dbapi.Error
        #: The driver's form of a time (SQLite stores text; psycopg takes the datetime).
        self.stamp: Callable[[datetime], Any] = (
            DateTime(timezone=True).dialect_impl(dialect).bind_processor(dialect) or (lambda at: at))
        # The row lock makes other processes' writes to the table wait (PostgreSQL); SQLite's
        # one writer already holds the whole database.
        self.version = f"SELECT version FROM tables WHERE id = {mark}" + (" FOR UPDATE" if postgres else "")
        self.insert_event = ("INSERT INTO events (table_id, version, kind, data, seat, request_id, fingerprint,"
                             f" created_at) VALUES ({', '.join([mark] * 8)})")
        self.move_on = (f"UPDATE tables SET version = {mark}, status = {mark}, to_move_seat = {mark},"
                        f" updated_at = {mark} WHERE id = {mark}")

    def run(self, conn: Connection, sql: str, params: Sequence[Any] = (), *, many: bool = False) -> Any:
        """Run ``sql`` in ``conn``'s transaction; the cursor, to fetch from."""
        cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
        try:
            if many:
                cursor.executemany(sql, params)
            else:
                cursor.execute(sql, params)
        except self.error as e:
            gone = self.dialect.is_disconnect(e, conn.connection, cursor)
            if gone:
                conn.invalidate(e)
            raise DBAPIError.instance(sql, params, e, self.error, connection_invalidated=gone,
                                      dialect=self.dialect) from e
        return cursor


_DRIVER_SQL: dict[str, _DriverSql] = {}


def _driver_sql(conn: Connection) -> _DriverSql:
    """The driver statements of ``conn``'s database (made once per kind of database)."""
    name = conn.dialect.name
    found = _DRIVER_SQL.get(name)
    if found is None:
        found = _DRIVER_SQL[name] = _DriverSql(conn.dialect)
    return found


class Writer:
    """The open write transaction of one table (see :meth:`Repository.write_many`)."""

    def __init__(self, conn: Connection, table_id: str, version: int, notify: bool) -> None:
        self.conn = conn
        self.table_id = table_id
        self.version = version
        self._notify = notify

    def events_after(self, version: int) -> list[Event]:
        """Stored events after ``version`` (to catch a cached table up)."""
        rows = self.conn.execute(
            select(EventRow).where(EventRow.table_id == self.table_id, EventRow.version > version)
            .order_by(EventRow.version)
        )
        return [_event_from_row(r) for r in rows]

    def append(self, events: Sequence[Event], *, status: str, to_move_seat: int | None) -> list[Event]:
        """Store ``events`` (each with its time ``at``) as the next versions and move the
        table row on."""
        sql = _driver_sql(self.conn)
        numbered = []
        rows = []
        for e in events:
            at = e.at
            assert at is not None, "an event is stored with the time it was decided at"
            self.version += 1
            e = e.with_version(self.version)
            numbered.append(e)
            rows.append((self.table_id, e.version, e.kind, json.dumps(e.data), e.seat, e.request_id, e.fingerprint,
                         sql.stamp(at)))
        sql.run(self.conn, sql.insert_event, rows, many=True)
        sql.run(self.conn, sql.move_on, (self.version, status, to_move_seat, rows[-1][-1], self.table_id))
        return numbered

    def keep_due(self, kind: str, version: int, due_at: datetime) -> None:
        """Make ``kind`` work due for this table at ``due_at``, for ``version``.  A row already
        there for the same version keeps its time and claim (the work is already known);
        another version replaces it, unclaimed."""
        _keep_due(self.conn, kind, self.table_id, version, due_at)

    def drop_due(self, kind: str) -> None:
        """This table has no ``kind`` work due any more."""
        self.conn.execute(delete(DueRow).where(DueRow.kind == kind, DueRow.table_id == self.table_id))

    def keys(self) -> TableKeys:
        """The table's key digests as this transaction sees them."""
        keys = _table_keys(self.conn, self.table_id)
        assert keys is not None  # the writer holds the table's row
        return keys

    def replace_keys(self, seat_hashes: dict[int, str], spectator_hash: str | None) -> None:
        """Store new digests for ``seat_hashes``' seats and, unless None, the spectator key."""
        for seat, digest in seat_hashes.items():
            self.conn.execute(update(SeatRow).where(SeatRow.table_id == self.table_id, SeatRow.idx == seat)
                              .values(token_hash=digest))
        if spectator_hash is not None:
            self.conn.execute(update(TableRow).where(TableRow.id == self.table_id)
                              .values(spectator_hash=spectator_hash))

    def notify(self, payload: str) -> None:
        """Tell other server processes (PostgreSQL NOTIFY, sent when the transaction commits)."""
        if self._notify:
            self.conn.execute(text("SELECT pg_notify('omega_events', :p)"), {"p": payload})

    def count_sockets(self, seat: int, server_id: str, delta: int) -> PresenceCount:
        """Count a socket of ``server_id`` opening (+1) or closing (-1) for a seat (a large
        negative ``delta`` clears its count); returns the open sockets per seat over all
        processes.  Other processes are told when the transaction commits."""
        _presence_add(self.conn, self.table_id, seat, server_id, delta)
        self.notify(f"{server_id}:{self.table_id}:p")
        return _presence_count(self.conn, self.table_id)  # the writer holds the table's row


def insert_table(conn: Connection, config: TableConfig, keys: TableKeys, due: Sequence[tuple[str, datetime]] = (),
                 owner: str = "", creator: int | None = None) -> None:
    """:meth:`Repository.create_table` inside a transaction the caller holds (a new table
    stored together with other rows: a rematch's with its start, the quick-play queue's
    match); ``creator``: the seat that created it (None for a rematch's table)."""
    created = datetime.fromisoformat(config.created_at)
    conn.execute(insert(TableRow).values(
        id=config.id, created_at=created, players=config.players,
        size=config.size, pie_rule=config.pie_rule, spectator_hash=keys.spectator_hash, version=0,
        status="waiting" if config.open else "playing", to_move_seat=None if config.open else 0, owner=owner,
        updated_at=created, open=config.open, rated=config.rated,
        time_control=config.time_control.text if config.time_control.timed else None, hints=config.hints,
        creator_seat=creator,
    ))
    for i, (seat, h) in enumerate(zip(config.seats, keys.seat_hashes, strict=True)):
        conn.execute(insert(SeatRow).values(
            table_id=config.id, idx=i, kind=seat.kind, level=seat.level, token_hash=h,
            user_id=keys.seat_users[i] if i < len(keys.seat_users) else None))
    for kind, due_at in due:
        _keep_due(conn, kind, config.id, 0, due_at)


def _table_keys(conn: Connection, table_id: str) -> TableKeys | None:
    spectator = conn.execute(select(TableRow.spectator_hash).where(TableRow.id == table_id)).scalar_one_or_none()
    if spectator is None:
        return None
    seats = conn.execute(select(SeatRow.token_hash, SeatRow.user_id).where(SeatRow.table_id == table_id)
                         .order_by(SeatRow.idx)).all()
    return TableKeys(tuple(s.token_hash for s in seats), spectator, tuple(s.user_id for s in seats))


_PRESENCE_ROW = (PresenceRow.table_id == bindparam("p_tid"), PresenceRow.seat == bindparam("p_seat"),
                 PresenceRow.server_id == bindparam("p_server"))
_PRESENCE_COUNT = select(PresenceRow.count).where(*_PRESENCE_ROW)
_PRESENCE_INSERT = insert(PresenceRow)
_PRESENCE_DELETE = delete(PresenceRow).where(*_PRESENCE_ROW)
_PRESENCE_UPDATE = update(PresenceRow).where(*_PRESENCE_ROW).values(count=bindparam("p_count"))
_PRESENCE_TOTALS = select(PresenceRow.seat, func.sum(PresenceRow.count)).where(
    PresenceRow.table_id == bindparam("p_tid")).group_by(PresenceRow.seat)


def _presence_add(conn: Connection, table_id: str, seat: int, server_id: str, delta: int) -> None:
    # Statements built once: a burst of sockets opening (a restart) runs this hundreds of times.
    row = {"p_tid": table_id, "p_seat": seat, "p_server": server_id}
    count = conn.execute(_PRESENCE_COUNT, row).scalar_one_or_none()
    if count is None:
        if delta > 0:
            conn.execute(_PRESENCE_INSERT, {"table_id": table_id, "seat": seat, "server_id": server_id, "count": delta})
    elif count + delta <= 0:
        conn.execute(_PRESENCE_DELETE, row)
    else:
        conn.execute(_PRESENCE_UPDATE, {**row, "p_count": count + delta})


#: Stamps of this process's presence counts (:class:`PresenceCount`).
_PRESENCE_STAMPS = itertools.count(1)


def _presence_seats(conn: Connection, table_id: str) -> dict[int, int]:
    return {int(seat): int(total) for seat, total in conn.execute(_PRESENCE_TOTALS, {"p_tid": table_id})}


def _presence_count(conn: Connection, table_id: str) -> PresenceCount:
    """The table's presence count, stamped; the caller holds the table's row (PostgreSQL:
    FOR UPDATE or FOR SHARE; SQLite: a write, and SQLite has one writer), so that the
    stamps order the counts."""
    return PresenceCount(next(_PRESENCE_STAMPS), _presence_seats(conn, table_id))


def _keep_due(conn: Connection, kind: str, table_id: str, version: int, due_at: datetime) -> None:
    # Insert unless there (two processes starting at once both make the site-wide rows:
    # ON CONFLICT DO NOTHING, not a read then an insert), then move a row of another version.
    dialect_insert = postgresql_insert if conn.dialect.name == "postgresql" else sqlite_insert
    conn.execute(dialect_insert(DueRow).values(kind=kind, table_id=table_id, version=version, due_at=due_at)
                 .on_conflict_do_nothing(index_elements=["kind", "table_id"]))
    conn.execute(update(DueRow).where(DueRow.kind == kind, DueRow.table_id == table_id, DueRow.version != version)
                 .values(version=version, due_at=due_at, claimed_by=None, claim_expires=None))


class Repository:
    """The server's storage: all methods are blocking (run them off the event loop)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.is_postgres = engine.dialect.name == "postgresql"
        # SQLite has one writer; threads that queue on this lock wait in order, where threads
        # left to SQLite's busy handler would sleep and retry and waste most of the time.
        self._sqlite_writer = threading.Lock()

    @contextmanager
    def _writing(self) -> Iterator[Connection]:
        """A connection in a write transaction (committed when the block ends normally)."""
        lock = self._sqlite_writer if not self.is_postgres else contextlib.nullcontext()
        with lock, self.engine.connect().execution_options(sqlite_immediate=True) as conn, conn.begin():
            yield conn

    def writing(self) -> contextlib.AbstractContextManager[Connection]:
        """A write transaction (committed when the block ends normally), queued like the
        table writes on SQLite: for the modules that keep tables of their own (accounts)."""
        return self._writing()

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

        cfg = _alembic_config()
        with self._writing() as conn:
            if self.is_postgres:
                # Several processes may start at once: one migrates, the others wait here.
                conn.execute(text("SELECT pg_advisory_xact_lock(4242001)"))
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")

    # -- tables ---------------------------------------------------------------------------

    def create_table(self, config: TableConfig, keys: TableKeys, due: Sequence[tuple[str, datetime]] = (),
                     owner: str = "", creator: int | None = None) -> None:
        """Store a new table at version 0, opened by ``owner`` and created by the player of
        seat ``creator``, with the work due for it from the start (``(kind, due_at)`` pairs,
        for version 0)."""
        with self._writing() as conn:
            insert_table(conn, config, keys, due, owner, creator)

    def load(self, table_id: str) -> StoredTable | None:
        """A table with all its events, or None."""
        with self.engine.connect() as conn, conn.begin():
            # PostgreSQL: FOR SHARE, held to the end, waits for a write to the table in
            # progress, so the presence count read below is stamped in the order of the
            # writes.  SQLite reads a snapshot beside its one writer, whose counts arrive in
            # the order of its commits: stamped 0, the load's count gives way to each of them.
            query = select(TableRow).where(TableRow.id == table_id)
            row = conn.execute(query.with_for_update(read=True) if self.is_postgres else query).one_or_none()
            if row is None:
                return None
            seats = conn.execute(select(SeatRow).where(SeatRow.table_id == table_id).order_by(SeatRow.idx)).all()
            events = conn.execute(
                select(EventRow).where(EventRow.table_id == table_id).order_by(EventRow.version)).all()
            presence = (_presence_count(conn, table_id) if self.is_postgres
                        else PresenceCount(0, _presence_seats(conn, table_id)))
        created = row.created_at if row.created_at.tzinfo else row.created_at.replace(tzinfo=UTC)
        config = TableConfig(
            id=row.id, players=row.players, size=row.size, pie_rule=row.pie_rule,
            created_at=created.isoformat().replace("+00:00", "Z"),
            seats=tuple(SeatConfig(s.kind, s.level) for s in seats),
            time_control=TimeControl.parse(row.time_control), hints=bool(row.hints), open=bool(row.open),
            rated=bool(row.rated),
        )
        keys = TableKeys(tuple(s.token_hash for s in seats), row.spectator_hash, tuple(s.user_id for s in seats))
        return StoredTable(config, keys, [_event_from_row(e) for e in events], presence, row.owner or "",
                           row.creator_seat)

    def keys(self, table_id: str) -> TableKeys | None:
        """The table's key digests as stored now (None: no such table)."""
        with self.engine.connect() as conn, conn.begin():
            return _table_keys(conn, table_id)

    def seat_users(self, table_id: str) -> tuple[int | None, ...]:
        """The account holding each seat of ``table_id`` (None: a guest's seat)."""
        with self.engine.connect() as conn:
            users = conn.execute(select(SeatRow.user_id).where(SeatRow.table_id == table_id)
                                 .order_by(SeatRow.idx)).scalars().all()
            conn.rollback()
        return tuple(users)

    def version(self, table_id: str) -> int | None:
        """The table's current version (None if there is no such table)."""
        with self.engine.connect() as conn:
            v = conn.execute(select(TableRow.version).where(TableRow.id == table_id)).scalar_one_or_none()
            conn.rollback()
        return v

    def events_after(self, table_id: str, version: int) -> list[Event]:
        """The table's events after ``version``, in order."""
        with self.engine.connect() as conn, conn.begin():
            rows = conn.execute(select(EventRow).where(EventRow.table_id == table_id, EventRow.version > version)
                                .order_by(EventRow.version))
            return [_event_from_row(r) for r in rows]

    def _writer(self, conn: Connection, table_id: str) -> Writer | None:
        sql = _driver_sql(conn)
        row = sql.run(conn, sql.version, (table_id,)).fetchone()
        return None if row is None else Writer(conn, table_id, int(row[0]), self.is_postgres)

    def write_many(self, work: Sequence[Write[Any]]) -> list[Any]:
        """Several tables' writes in one transaction: one commit (one fsync) for all.

        Each runs in a savepoint of its own, so one that raises is undone alone and gets its
        exception back in the result list (in ``work``'s order); the others are stored.
        After the commit, each successful write's ``then`` runs with its result, in this
        thread and in order, before anyone is answered.  If the commit itself fails, every
        write fails with that exception (raised from here).
        """
        results: list[Any] = []
        with self._writing() as conn:
            sql = _driver_sql(conn)
            alone = len(work) == 1  # its exception rolls the whole transaction back anyway
            for item in work:
                # Plain SAVEPOINT statements: SQLAlchemy's nested transactions cost more CPU
                # than the writes themselves.
                if not alone:
                    sql.run(conn, "SAVEPOINT one_write")
                try:
                    result = item.run(self._writer(conn, item.table_id))
                except Exception as e:  # this write is refused or failed: the others go on
                    if alone:
                        raise
                    sql.run(conn, "ROLLBACK TO SAVEPOINT one_write")
                    sql.run(conn, "RELEASE SAVEPOINT one_write")
                    results.append(e)
                else:
                    if not alone:
                        sql.run(conn, "RELEASE SAVEPOINT one_write")
                    results.append(result)
        for item, result in zip(work, results, strict=True):
            if not isinstance(result, Exception):
                item.then(result)
        return results

    # -- servers, presence and computer turns ---------------------------------------------

    def register_server(self, server_id: str, now: datetime) -> None:
        """Record this process as alive."""
        with self._writing() as conn:
            conn.execute(insert(ServerRow).values(id=server_id, started_at=now, heartbeat_at=now))

    def heartbeat(self, server_id: str, now: datetime) -> None:
        """Say this process is still alive."""
        with self._writing() as conn:
            conn.execute(update(ServerRow).where(ServerRow.id == server_id).values(heartbeat_at=now))

    def dead_servers(self, me: str, now: datetime, max_age: float | None) -> list[str]:
        """Servers other than ``me`` whose heartbeat is older than ``max_age`` seconds
        (all of them when ``max_age`` is None: a single-process database)."""
        with self.engine.connect() as conn, conn.begin():
            query = select(ServerRow.id).where(ServerRow.id != me)
            if max_age is not None:
                query = query.where(ServerRow.heartbeat_at < now - timedelta(seconds=max_age))
            return list(conn.execute(query).scalars())

    def presence_count(self, table_id: str) -> PresenceCount:
        """Open sockets per seat of ``table_id`` over all processes (seats with none left
        out), read after any write to the table in progress (its row held FOR SHARE)."""
        with self.engine.connect() as conn, conn.begin():
            if self.is_postgres:
                conn.execute(select(TableRow.id).where(TableRow.id == table_id).with_for_update(read=True))
            return _presence_count(conn, table_id)

    def presence_of(self, server_id: str) -> list[tuple[str, int]]:
        """(table, seat) pairs where ``server_id`` counted open sockets."""
        with self.engine.connect() as conn, conn.begin():
            rows = conn.execute(select(PresenceRow.table_id, PresenceRow.seat)
                                .where(PresenceRow.server_id == server_id))
            return [(r[0], r[1]) for r in rows]

    def forget_server(self, server_id: str) -> None:
        """Remove a dead server's row (after its presence was cleared)."""
        with self._writing() as conn:
            conn.execute(delete(PresenceRow).where(PresenceRow.server_id == server_id))
            conn.execute(delete(ServerRow).where(ServerRow.id == server_id))

    def idle_tables(self, before: datetime, limit: int) -> list[str]:
        """Unfinished tables whose last change was before ``before``, oldest first."""
        with self.engine.connect() as conn, conn.begin():
            return list(conn.execute(select(TableRow.id).where(
                TableRow.status.in_(("playing", "waiting")), TableRow.updated_at < before).order_by(TableRow.updated_at)
                .limit(limit)).scalars())

    # -- reviews ------------------------------------------------------------------------------

    def review(self, table_id: str) -> str | None:
        """The stored review of the table's game (JSON text), if it has one."""
        with self.engine.connect() as conn, conn.begin():
            return conn.execute(select(ReviewRow.data).where(ReviewRow.table_id == table_id)).scalar_one_or_none()

    def store_review(self, table_id: str, version: int, data: str, now: datetime) -> None:
        """Store the review of the table's game; a review already there stays (one per game)."""
        dialect_insert = postgresql_insert if self.is_postgres else sqlite_insert
        with self._writing() as conn:
            conn.execute(dialect_insert(ReviewRow).values(table_id=table_id, version=version, data=data, created_at=now)
                         .on_conflict_do_nothing(index_elements=["table_id"]))

    def due_version(self, kind: str, table_id: str) -> int | None:
        """The version ``kind`` work is due for at ``table_id`` (None: none is due)."""
        with self.engine.connect() as conn, conn.begin():
            return conn.execute(select(DueRow.version).where(DueRow.kind == kind, DueRow.table_id == table_id)
                                ).scalar_one_or_none()

    # -- due work -------------------------------------------------------------------------

    def due_count(self, kind: str) -> int:
        """How many pieces of ``kind`` work are waiting or being done."""
        with self.engine.connect() as conn, conn.begin():
            return int(conn.execute(select(func.count()).select_from(DueRow).where(DueRow.kind == kind)).scalar_one())

    def keep_due(self, kind: str, table_id: str, version: int, due_at: datetime) -> None:
        """:meth:`Writer.keep_due` outside a table's write (work that belongs to no table)."""
        with self._writing() as conn:
            _keep_due(conn, kind, table_id, version, due_at)

    def claim_due(self, server_id: str, now: datetime, limit: int, leases: dict[str, float | None]) -> list[Due]:
        """Claim up to ``limit`` rows of the kinds in ``leases`` that are due by ``now`` and
        free: never claimed, claimed by a process that is gone, or past their claim's expiry.
        A claim of kind k expires ``leases[k]`` seconds from now (None: held while this
        process lives).  Each row is claimed by one process only: PostgreSQL skips rows
        another transaction is claiming (``SKIP LOCKED``); SQLite has one writer."""
        if limit <= 0:
            return []
        alive = select(ServerRow.id).where(ServerRow.id == DueRow.claimed_by).exists()
        free = DueRow.claimed_by.is_(None) | ~alive | (DueRow.claim_expires.is_not(None) & (DueRow.claim_expires < now))
        query = (select(DueRow.kind, DueRow.table_id, DueRow.version)
                 .where(DueRow.kind.in_(list(leases)), DueRow.due_at <= now, free)
                 .order_by(DueRow.due_at).limit(limit))
        if self.is_postgres:
            query = query.with_for_update(skip_locked=True)
        claimed = []
        with self._writing() as conn:
            for kind, table_id, version in conn.execute(query).all():
                lease = leases[kind]
                conn.execute(update(DueRow).where(DueRow.kind == kind, DueRow.table_id == table_id).values(
                    claimed_by=server_id, claim_expires=None if lease is None else now + timedelta(seconds=lease)))
                claimed.append(Due(kind, table_id, version))
        return claimed

    def release_due(self, due: Due, server_id: str, due_at: datetime) -> None:
        """Give back a claim: the work is due again at ``due_at`` (a retry, or the next round
        of recurring work), unless someone replaced the row meanwhile."""
        with self._writing() as conn:
            conn.execute(update(DueRow).where(
                DueRow.kind == due.kind, DueRow.table_id == due.table_id, DueRow.claimed_by == server_id,
                DueRow.version == due.version).values(due_at=due_at, claimed_by=None, claim_expires=None))

    def finish_due(self, due: Due, server_id: str) -> None:
        """The claimed work is done (or there was nothing to do): remove its row, unless the
        row was replaced meanwhile (new work for the table)."""
        with self._writing() as conn:
            conn.execute(delete(DueRow).where(
                DueRow.kind == due.kind, DueRow.table_id == due.table_id, DueRow.claimed_by == server_id,
                DueRow.version == due.version))

    def next_due_at(self, kinds: Sequence[str]) -> datetime | None:
        """When the earliest unclaimed work of these kinds is due (None: nothing waits)."""
        with self.engine.connect() as conn, conn.begin():
            first = conn.execute(select(func.min(DueRow.due_at)).where(
                DueRow.kind.in_(list(kinds)), DueRow.claimed_by.is_(None))).scalar_one_or_none()
        return None if first is None else _utc(first)


def _alembic_config() -> Any:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(files("omega.server") / "migrations"))
    return cfg


def schema_head() -> str:
    """The newest schema revision, the one :meth:`Repository.migrate` brings a database to.

    >>> schema_head() == schema_head() != ""
    True
    """
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(_alembic_config()).get_current_head()
    assert head is not None
    return str(head)
