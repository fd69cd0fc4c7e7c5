"""Where tables live: the few transactions of the tables (models in ``tables.models``).

A table is one ``tables`` row (settings, current version, who is to move), its ``seats``
(hashed tokens) and its ``events`` (the action log, one row per version).  The game itself
is never stored as a position: it is what the events make of an empty board, so a stored
event is the one truth about an acknowledged turn.

Writes to one table are serialised by a row lock (PostgreSQL ``SELECT ... FOR UPDATE``) or
by SQLite's single writer (``BEGIN IMMEDIATE``), and the event's primary key
``(table_id, version)`` refuses a second writer of the same version in any case.

>>> from omega.server.infra.db import make_engine
>>> repo = Repository(make_engine("sqlite://"))
>>> repo.migrate()
>>> repo.load("nope") is None
True
"""

from __future__ import annotations

import contextlib
import itertools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

from sqlalchemy import DateTime, bindparam, delete, event, func, insert, select, text, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError, StatementError
from sqlalchemy.pool import PoolProxiedConnection

from omega.server.infra.db import utc
from omega.server.infra.due import (
    DueQueue,
    drop_due_row,
    drop_due_statement,
    keep_due_row,
    keep_due_statement,
)
from omega.server.infra.pubsub import Delivery
from omega.server.infra.servers import forget_server_row
from omega.server.tables.events import Event, payload_from
from omega.server.tables.identity import TableKeys
from omega.server.tables.models import EventRow, PresenceRow, SeatRow, TableRow
from omega.server.tables.state import PresenceCount, SeatConfig, TableConfig, TableState
from omega.server.tables.timecontrol import TimeControl

T = TypeVar("T")

__all__ = ["Write", "Repository", "Writer", "StoredTable", "insert_table", "lost_a_lock_race", "LOCK_RACE_SQLSTATES"]


@dataclass(frozen=True)
class Write(Generic[T]):
    """One table's part of a grouped write (:meth:`Repository.write_many`): ``run`` inside
    the transaction (None: no such table), ``then`` once it is committed."""

    table_id: str
    run: Callable[[Writer | None], T]
    then: Callable[[T], None]


#: SQLSTATEs of a write that lost a race for row locks and may simply be tried again:
#: PostgreSQL chose it to break a deadlock (40P01), or a serialisation failure (40001).
LOCK_RACE_SQLSTATES = ("40P01", "40001")


def lost_a_lock_race(error: BaseException) -> bool:
    """Whether ``error`` is a write's loss of a race for row locks (nothing of it stored; the
    same write, tried again, can succeed).

    >>> lost_a_lock_race(ValueError("no")), lost_a_lock_race(DBAPIError("SELECT 1", None, Exception()))
    (False, False)
    """
    return getattr(getattr(error, "orig", None), "sqlstate", None) in LOCK_RACE_SQLSTATES


def _event_from_row(row: Any) -> Event:
    return Event(payload_from(row.kind, json.loads(row.data)), version=row.version, at=utc(row.created_at),
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


#: Where a connection keeps its cursor for the driver's statements (``Connection.info``).
_CURSOR = "omega.driver_cursor"
#: PostgreSQL: the statements a batch of writes holds back to send together, in one trip
#: (``Connection.info``), and how many statements have run on the connection.
_HELD = "omega.held_back"
_RAN = "omega.statements"


class _Redo(Exception):
    """A batch's writes must be done again, a savepoint each: a write that failed had already
    sent statements (only a savepoint undoes it alone), or a held-back statement failed."""


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
        self.postgres = postgres
        self.insert_event = ("INSERT INTO events (table_id, version, kind, data, seat, request_id, fingerprint,"
                             f" created_at) VALUES ({', '.join([mark] * 8)})")
        self.move_on = (f"UPDATE tables SET version = {mark}, status = {mark}, to_move_seat = {mark},"
                        f" updated_at = {mark} WHERE id = {mark}")
        # Several statements in one trip to the server where the driver allows it (psycopg,
        # with no parameters): each trip costs more CPU than what PostgreSQL does for it.
        together = (lambda *sqls: ("; ".join(sqls),)) if postgres else (lambda *sqls: sqls)
        self.savepoint = together("SAVEPOINT one_write")
        #: The next write's savepoint, the previous one's kept (COMMIT keeps the last one's).
        self.next_savepoint = together("RELEASE SAVEPOINT one_write", "SAVEPOINT one_write")
        self.undo_savepoint = together("ROLLBACK TO SAVEPOINT one_write", "RELEASE SAVEPOINT one_write")
        self._appends: dict[int, str] = {}
        #: PostgreSQL: the rows of a batch's tables locked at once, in the order of their ids.
        self.lock_all = "SELECT id, version FROM tables WHERE id = ANY(%s) ORDER BY id FOR UPDATE"
        #: A table's due work made and dropped (``infra.due``'s statements, compiled once:
        #: held back with a batch's turns on PostgreSQL, where a timed game changes it at
        #: every turn).
        owner = select(TableRow.owner).where(TableRow.id == bindparam("owner_of")).scalar_subquery()
        self.keep_due = keep_due_statement(dialect.name, bindparam("kind"), bindparam("table_id"), bindparam("version"),
                                           bindparam("due_at", type_=DateTime(timezone=True)), owner).compile(dialect=dialect)
        self.drop_due = drop_due_statement(bindparam("kind"), bindparam("table_id")).compile(dialect=dialect)
        self.keep_due_sql, self.drop_due_sql = str(self.keep_due), str(self.drop_due)

    def append(self, events: int) -> str:
        """PostgreSQL: one statement that stores ``events`` events and moves the table row on
        (parameters: each event's eight columns, then :attr:`move_on`'s five)."""
        found = self._appends.get(events)
        if found is None:
            rows = ", ".join(["(" + ", ".join(["%s"] * 8) + ")"] * events)
            found = self._appends[events] = (f"WITH stored AS ({self.insert_event.split(' VALUES ')[0]} VALUES {rows})"
                                             f" {self.move_on}")
        return found

    def run_all(self, conn: Connection, sqls: Sequence[str]) -> None:
        """Run each of ``sqls`` (statements without parameters) in ``conn``'s transaction."""
        for sql in sqls:
            self.run(conn, sql)

    def run(self, conn: Connection, sql: str, params: Sequence[Any] | Mapping[str, Any] = (), *,
            many: bool = False) -> Any:
        """Run ``sql`` in ``conn``'s transaction (after what is held back); the cursor, to
        fetch from (until the next statement: each connection keeps one cursor for these)."""
        _before_statement(conn)
        cursor = _cursor(conn)
        try:
            if many:
                cursor.executemany(sql, params)
            else:
                cursor.execute(sql, params)
        except self.error as e:
            raise self.failed(conn, cursor, sql, params, e) from e
        return cursor

    def hold(self, conn: Connection, sql: str, params: Sequence[Any] | Mapping[str, Any]) -> None:
        """Run ``sql`` with the statements held back if a batch holds them, else now."""
        held = conn.info.get(_HELD)
        if held is None:
            self.run(conn, sql, params)
        else:
            held.append((sql, params))

    def failed(self, conn: Connection, cursor: Any, sql: str, params: Any, error: Exception) -> StatementError:
        """The driver's ``error`` as SQLAlchemy's (its connection dropped if it is gone)."""
        gone = self.dialect.is_disconnect(error, conn.connection, cursor)
        if gone:
            conn.invalidate(error)
        return DBAPIError.instance(sql, params, error, self.error, connection_invalidated=gone, dialect=self.dialect)


def _cursor(conn: Connection) -> Any:
    cursor = conn.info.get(_CURSOR)  # dropped with its connection, if that is ever replaced
    if cursor is None:
        cursor = conn.info[_CURSOR] = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
    return cursor


def send_held(conn: Connection) -> None:
    """Send the statements a batch holds back on ``conn``, all in one trip (psycopg's
    pipeline); done before any other statement runs on it, so that they run in order."""
    held = conn.info.get(_HELD)
    if not held:
        return
    sql = _driver_sql(conn)
    cursor = _cursor(conn)
    sending = list(held)
    held.clear()
    conn.info[_RAN] = conn.info.get(_RAN, 0) + len(sending)
    try:
        with conn.connection.driver_connection.pipeline():  # type: ignore[union-attr]
            for statement, params in sending:
                cursor.execute(statement, params)
    except sql.error as e:
        raise sql.failed(conn, cursor, "(held back statements)", None, e) from e


def _before_statement(conn: Connection, *_: Any) -> None:
    """Before any statement on ``conn`` (the driver's, and SQLAlchemy's through its
    ``before_cursor_execute`` on a PostgreSQL engine): what a batch held back goes first, and
    the statement is counted."""
    send_held(conn)
    conn.info[_RAN] = conn.info.get(_RAN, 0) + 1


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
        move_on = (self.version, status, to_move_seat, rows[-1][-1], self.table_id)
        if sql.postgres:  # the events and the row in one statement, held back with the batch's
            sql.hold(self.conn, sql.append(len(rows)), [*itertools.chain.from_iterable(rows), *move_on])
        else:
            sql.run(self.conn, sql.insert_event, rows, many=True)
            sql.run(self.conn, sql.move_on, move_on)
        return numbered

    def keep_due(self, kind: str, version: int, due_at: datetime) -> None:
        """Make ``kind`` work due for this table at ``due_at``, for ``version``.  A row already
        there for the same version keeps its time and claim (the work is already known);
        another version replaces it, unclaimed.  The row carries the table's owner, read in
        the same statement (computer turns are claimed owners in turn)."""
        sql = _driver_sql(self.conn)
        if sql.postgres:
            sql.hold(self.conn, sql.keep_due_sql, sql.keep_due.construct_params(
                {"kind": kind, "table_id": self.table_id, "version": version, "due_at": due_at,
                 "owner_of": self.table_id}))
        else:
            owner = select(TableRow.owner).where(TableRow.id == self.table_id).scalar_subquery()
            keep_due_row(self.conn, kind, self.table_id, version, due_at, owner)

    def drop_due(self, kind: str) -> None:
        """This table has no ``kind`` work due any more."""
        sql = _driver_sql(self.conn)
        if sql.postgres:
            sql.hold(self.conn, sql.drop_due_sql, sql.drop_due.construct_params({"kind": kind, "table_id": self.table_id}))
        else:
            drop_due_row(self.conn, kind, self.table_id)

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
        processes.  The caller tells the other processes once it is committed
        (``Presence``, with the publisher's next batch)."""
        _presence_add(self.conn, self.table_id, seat, server_id, delta)
        return _presence_count(self.conn, self.table_id)  # the writer holds the table's row

    def presence(self) -> PresenceCount:
        """The open sockets per seat over all processes, as this transaction sees them (a
        claim on an absent seat asks every process, not this one's memory)."""
        return _presence_count(self.conn, self.table_id)


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
        creator_seat=creator, pausable=config.pausable, watchable=config.watchable,
    ))
    for i, (seat, h) in enumerate(zip(config.seats, keys.seat_hashes, strict=True)):
        conn.execute(insert(SeatRow).values(
            table_id=config.id, idx=i, kind=seat.kind, level=seat.level, token_hash=h,
            user_id=keys.seat_users[i] if i < len(keys.seat_users) else None))
    for kind, due_at in due:
        keep_due_row(conn, kind, config.id, 0, due_at, owner)


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





class Repository(DueQueue):
    """The tables' storage, on the database with its due work and server processes: all
    methods are blocking (run them off the event loop)."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        if self.is_postgres and not event.contains(engine, "before_cursor_execute", _before_statement):
            event.listen(engine, "before_cursor_execute", _before_statement)
        #: The connection that publishes notes (made at the first batch: see :meth:`publish`).
        self._notifier: PoolProxiedConnection | None = None

    # -- tables ---------------------------------------------------------------------------

    def create_table(self, config: TableConfig, keys: TableKeys, due: Sequence[tuple[str, datetime]] = (),
                     owner: str = "", creator: int | None = None) -> None:
        """Store a new table at version 0, opened by ``owner`` and created by the player of
        seat ``creator``, with the work due for it from the start (``(kind, due_at)`` pairs,
        for version 0)."""
        with self.writing() as conn:
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
        created = utc(row.created_at)
        config = TableConfig(
            id=row.id, players=row.players, size=row.size, pie_rule=row.pie_rule,
            created_at=created.isoformat().replace("+00:00", "Z"),
            seats=tuple(SeatConfig(s.kind, s.level) for s in seats),
            time_control=TimeControl.parse(row.time_control), hints=bool(row.hints), open=bool(row.open),
            rated=bool(row.rated), pausable=bool(row.pausable), watchable=bool(row.watchable),
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

    def computer_seats_of(self, owner: str) -> list[tuple[int, int]]:
        """``(size, level)`` of every computer seat at the unfinished tables ``owner`` opened
        (what ``config.computer_load`` weighs)."""
        with self.engine.connect() as conn, conn.begin():
            rows = conn.execute(select(TableRow.size, SeatRow.level).join(SeatRow, SeatRow.table_id == TableRow.id)
                                .where(TableRow.owner == owner, TableRow.status.in_(("waiting", "playing")),
                                       SeatRow.kind == "computer"))
            return [(size, level or 0) for size, level in rows]

    def version(self, table_id: str) -> int | None:
        """The table's current version (None if there is no such table)."""
        with self.engine.connect() as conn:
            v = conn.execute(select(TableRow.version).where(TableRow.id == table_id)).scalar_one_or_none()
            conn.rollback()
        return v

    def versions(self, table_ids: Sequence[str]) -> dict[str, int]:
        """The current version of each of ``table_ids`` that exists."""
        out: dict[str, int] = {}
        with self.engine.connect() as conn, conn.begin():
            for i in range(0, len(table_ids), 1000):
                rows = conn.execute(select(TableRow.id, TableRow.version).where(TableRow.id.in_(table_ids[i:i + 1000])))
                out.update((r[0], int(r[1])) for r in rows)
        return out

    def publish(self, payloads: Sequence[str]) -> None:
        """NOTIFY the payloads on the events channel (``pubsub.CHANNEL``) in one statement, on
        a connection kept for it (PostgreSQL only; one caller at a time: the core's publisher
        sends one batch at a time).  Its transactions commit without waiting for the disk
        (``synchronous_commit`` off): a notification lost in a crash costs a wake-up, never
        an event, and the commit holds PostgreSQL's notification lock only briefly."""
        conn = self._notifier
        if conn is None:
            conn = self.engine.raw_connection()
            driver = conn.driver_connection
            assert driver is not None
            driver.autocommit = True
            driver.execute("SET synchronous_commit = off")
            self._notifier = conn
        try:
            conn.driver_connection.execute(  # type: ignore[union-attr]
                "SELECT pg_notify('omega_events', p) FROM unnest(%s::text[]) AS p", (list(payloads),))
        except Exception:
            self._notifier = None
            conn.invalidate()  # a broken or unknown state: the next batch opens another
            raise

    def close(self) -> None:
        """Close the publishing connection and every pooled one."""
        if self._notifier is not None:
            self._notifier.invalidate()
            self._notifier = None
        self.engine.dispose()

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

        One that raises is undone alone and gets its exception back in the result list (in
        ``work``'s order); the others are stored.  After the commit, each successful write's
        ``then`` runs with its result, in this thread and in order, before anyone is
        answered.  If the commit itself fails, every write fails with that exception (raised
        from here); a lone write's own exception is raised too.
        """
        results: list[Any] | None = None
        if self.is_postgres and len(work) > 1:  # (alone, one by one is as quick)
            with contextlib.suppress(_Redo):
                results = self._write_held_back(work)
        if results is None:
            results = self._write_one_by_one(work)
        for item, result in zip(work, results, strict=True):
            if not isinstance(result, Exception):
                item.then(result)
        return results

    def _write_held_back(self, work: Sequence[Write[Any]]) -> list[Any]:
        """PostgreSQL, in a few trips whatever the batch's size: every table's row locked at
        once, then the writes, whose events go with the others' in one trip at the end
        (held back, unless some other statement must run first).  A write that fails before
        it sent anything is simply left out; otherwise :class:`_Redo`."""
        results: list[Any] = []
        with self.writing() as conn:
            sql = _driver_sql(conn)
            rows = sql.run(conn, sql.lock_all, (sorted({item.table_id for item in work}),)).fetchall()
            versions = {row[0]: int(row[1]) for row in rows}
            held: list[tuple[str, Any]] = []
            conn.info[_HELD] = held
            try:
                for item in work:
                    ran, mark = conn.info.get(_RAN, 0), len(held)
                    version = versions.get(item.table_id)
                    w = None if version is None else Writer(conn, item.table_id, version, True)
                    try:
                        results.append(item.run(w))
                    except Exception as e:  # refused or failed: the others go on
                        if conn.info.get(_RAN, 0) != ran:
                            raise _Redo from e
                        del held[mark:]
                        results.append(e)
                    else:
                        if w is not None:
                            versions[item.table_id] = w.version
                try:
                    send_held(conn)
                except StatementError as e:  # which write's? One by one tells
                    raise _Redo from e
            finally:
                conn.info.pop(_HELD, None)
        return results

    def _write_one_by_one(self, work: Sequence[Write[Any]]) -> list[Any]:
        """The writes in one transaction, a savepoint each."""
        results: list[Any] = []
        with self.writing() as conn:
            sql = _driver_sql(conn)
            alone = len(work) == 1  # its exception rolls the whole transaction back anyway
            kept = False  # the previous write's savepoint, released with the next one's start
            for item in work:
                # Plain SAVEPOINT statements: SQLAlchemy's nested transactions cost more CPU
                # than the writes themselves.
                if not alone:
                    sql.run_all(conn, sql.next_savepoint if kept else sql.savepoint)
                try:
                    result = item.run(self._writer(conn, item.table_id))
                except Exception as e:  # this write is refused or failed: the others go on
                    if alone:
                        raise
                    sql.run_all(conn, sql.undo_savepoint)
                    kept = False
                    results.append(e)
                else:
                    kept = not alone
                    results.append(result)
        return results

    # -- servers, presence and computer turns ---------------------------------------------

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
        """Remove a dead server's row and its presence rows (after its presence was cleared)."""
        with self.writing() as conn:
            conn.execute(delete(PresenceRow).where(PresenceRow.server_id == server_id))
            forget_server_row(conn, server_id)

    def idle_tables(self, before: datetime, limit: int) -> list[str]:
        """Unfinished tables whose last change was before ``before``, oldest first."""
        with self.engine.connect() as conn, conn.begin():
            return list(conn.execute(select(TableRow.id).where(
                TableRow.status.in_(("playing", "waiting")), TableRow.updated_at < before).order_by(TableRow.updated_at)
                .limit(limit)).scalars())


def deliveries_after(stored: StoredTable, since: int) -> list[Delivery]:
    """Every event of ``stored`` after version ``since``, each with the public view after it
    and the one before it (what a socket that holds version ``since`` is sent to catch up)."""
    replay = TableState(stored.config)
    out: list[Delivery] = []
    before: dict[str, Any] = {}
    for e in stored.events:
        if e.version == since + 1:
            before = replay.view(viewer=False)  # what the client holds
        replay.apply(e)
        if e.version > since:
            out.append(Delivery(e.version, e.public(), replay.view(viewer=False), before))
            before = out[-1].state
    return out
