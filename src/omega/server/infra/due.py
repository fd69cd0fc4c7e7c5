"""Work due at a time (a computer's turn, a clock's flag, a site-wide sweep, ...): the
``due`` rows and the queries that make, claim, give back and finish them.

One row per (kind, table); a claim holds while its process lives (``infra.servers``) and,
for kinds with a lease, until then.  The scheduler (``infra.scheduler``) runs the claimed
work; any feature registers its own kinds with it.

>>> from datetime import UTC, datetime
>>> from omega.server.infra.db import make_engine
>>> queue = DueQueue(make_engine("sqlite://")); queue.migrate()
>>> now = datetime(2026, 1, 1, tzinfo=UTC)
>>> queue.register_server("me", now)
>>> queue.keep_due("sweep", "", 0, now)
>>> queue.claim_due("me", now, 10, {"sweep": None})
[Due(kind='sweep', table_id='', version=0)]

Work of a kind claimed with a cap per owner (``claim_due``'s ``per_owner``) is claimed
owners in turn, each owner's oldest first, and never more than the cap of one owner's at
once in one process, however much of it is due:

>>> for table, owner in [("a1", "ann"), ("a2", "ann"), ("a3", "ann"), ("b1", "bob")]:
...     queue.keep_due("computer", table, 1, now, owner=owner)
>>> [d.table_id for d in queue.claim_due("me", now, 10, {"computer": None}, per_owner={"computer": 2})]
['a1', 'b1', 'a2']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    DateTime,
    Index,
    Integer,
    String,
    and_,
    case,
    delete,
    false,
    func,
    literal,
    or_,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Mapped, mapped_column
from sqlalchemy.sql.dml import Delete, Insert
from sqlalchemy.sql.elements import ColumnElement

from omega.server.infra.db import Base, utc
from omega.server.infra.servers import ServerRow, Servers

__all__ = ["DueRow", "Due", "DueQueue", "keep_due_row", "drop_due_row", "keep_due_statement", "drop_due_statement"]


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
    #: Whose work it is (who opened the table: an account, or a guest's address), so that
    #: work of kinds claimed with a cap per owner is claimed owners in turn (revision 0012).
    owner: Mapped[str | None] = mapped_column(String(64), nullable=True)
    __table_args__ = (Index("ix_due_due_at", "due_at"),)


@dataclass(frozen=True)
class Due:
    """One claimed piece of due work."""

    kind: str
    table_id: str
    version: int


def keep_due_row(conn: Connection, kind: str, table_id: str, version: int, due_at: datetime,
                 owner: str | ColumnElement[str | None] | None = None) -> None:
    """Make ``kind`` work due at ``table_id`` at ``due_at``, for ``version``, inside the
    caller's transaction: a row already there for the same version keeps its time and
    claim; another version replaces it, unclaimed.  ``owner``: whose work it is (a value,
    or a scalar subquery that reads it in the same statement)."""
    conn.execute(keep_due_statement(conn.dialect.name, kind, table_id, version, due_at, owner))


def keep_due_statement(dialect: str, kind: Any, table_id: Any, version: Any, due_at: Any, owner: Any = None) -> Insert:
    """:func:`keep_due_row`'s statement for the database ``dialect`` names (each value may
    be a ``bindparam``, for a statement compiled once and run many times)."""
    # One statement, an upsert: two processes starting at once both make the site-wide
    # rows, and a row may be finished (deleted) by its claimant while this runs.  An insert
    # that found the row, then an update of it, lost new work in between on PostgreSQL: the
    # claimant deleted the row after the insert saw it, the update found nothing, and a
    # tournament whose last game ended just then waited forever for its next round.
    dialect_insert = postgresql_insert if dialect == "postgresql" else sqlite_insert
    new = dialect_insert(DueRow).values(kind=kind, table_id=table_id, version=version, due_at=due_at, owner=owner)
    return new.on_conflict_do_update(
        index_elements=["kind", "table_id"],
        set_={"version": new.excluded.version, "due_at": new.excluded.due_at, "claimed_by": None, "claim_expires": None},
        where=DueRow.version != new.excluded.version)


def drop_due_row(conn: Connection, kind: str, table_id: str) -> None:
    """``table_id`` has no ``kind`` work due any more (inside the caller's transaction)."""
    conn.execute(drop_due_statement(kind, table_id))


def drop_due_statement(kind: Any, table_id: Any) -> Delete:
    """:func:`drop_due_row`'s statement (each value may be a ``bindparam``)."""
    return delete(DueRow).where(DueRow.kind == kind, DueRow.table_id == table_id)


class DueQueue(Servers):
    """The due rows of the database (their claims are held by live ``servers``)."""

    def due_version(self, kind: str, table_id: str) -> int | None:
        """The version ``kind`` work is due for at ``table_id`` (None: none is due)."""
        with self.engine.connect() as conn, conn.begin():
            return conn.execute(select(DueRow.version).where(DueRow.kind == kind, DueRow.table_id == table_id)
                                ).scalar_one_or_none()

    def due_count(self, kind: str) -> int:
        """How many pieces of ``kind`` work are waiting or being done."""
        with self.engine.connect() as conn, conn.begin():
            return int(conn.execute(select(func.count()).select_from(DueRow).where(DueRow.kind == kind)).scalar_one())

    def keep_due(self, kind: str, table_id: str, version: int, due_at: datetime, owner: str | None = None) -> None:
        """:func:`keep_due_row` in a transaction of its own."""
        with self.writing() as conn:
            keep_due_row(conn, kind, table_id, version, due_at, owner)

    def claim_due(self, server_id: str, now: datetime, limit: int, leases: dict[str, float | None],
                  per_owner: dict[str, int] | None = None) -> list[Due]:
        """Claim up to ``limit`` rows of the kinds in ``leases`` that are due by ``now`` and
        free: never claimed, claimed by a process that is gone, or past their claim's expiry.
        A claim of kind k expires ``leases[k]`` seconds from now (None: held while this
        process lives).  Each row is claimed by one process only: PostgreSQL skips rows
        another transaction is claiming (``SKIP LOCKED``); SQLite has one writer.

        For a kind k in ``per_owner`` this process holds at most ``per_owner[k]`` rows of
        one owner at once, and owners are served in turn: an owner's n-th row after those
        this process holds comes after every owner's (n-1)-th.  So one owner with hundreds of
        rows due delays another owner's first row by nothing at claiming.  Other kinds come
        first, oldest first (a clock's flag must not wait behind computer turns)."""
        if limit <= 0:
            return []
        caps = {kind: cap for kind, cap in (per_owner or {}).items() if kind in leases}
        alive = select(ServerRow.id).where(ServerRow.id == DueRow.claimed_by).exists()
        free = DueRow.claimed_by.is_(None) | ~alive | (DueRow.claim_expires.is_not(None) & (DueRow.claim_expires < now))
        mine = DueRow.__table__.alias("mine")
        held = (select(func.count()).select_from(mine)
                .where(mine.c.kind == DueRow.kind, mine.c.owner == DueRow.owner, mine.c.claimed_by == server_id)
                .scalar_subquery())
        turn = func.row_number().over(partition_by=(DueRow.kind, DueRow.owner), order_by=(DueRow.due_at, DueRow.table_id))
        capped = DueRow.kind.in_(list(caps)) if caps else false()
        ranked = (select(DueRow.kind, DueRow.table_id,
                         case((capped, turn + held), else_=literal(0)).label("place"))
                  .where(DueRow.kind.in_(list(leases)), DueRow.due_at <= now, free).subquery())
        within = or_(~ranked.c.kind.in_(list(caps)) if caps else literal(True),
                     *[and_(ranked.c.kind == kind, ranked.c.place <= cap) for kind, cap in caps.items()])
        # The row's own conditions again on the locked row, not only in the ranking: when
        # another transaction claimed a row and committed while this query waited for its
        # lock, PostgreSQL re-checks the locked row's latest version against these, but not
        # against the ranking's snapshot, which still sees it free (two claims of one row:
        # a mail sent twice).
        query = (select(DueRow.kind, DueRow.table_id, DueRow.version)
                 .join(ranked, and_(ranked.c.kind == DueRow.kind, ranked.c.table_id == DueRow.table_id))
                 .where(within, DueRow.kind.in_(list(leases)), DueRow.due_at <= now, free)
                 .order_by(ranked.c.place, DueRow.due_at, DueRow.table_id).limit(limit))
        if self.is_postgres:
            # Lock the due rows only: the ranking's window cannot be locked, nor need be.
            query = query.with_for_update(skip_locked=True, of=DueRow)
        claimed = []
        with self.writing() as conn:
            for kind, table_id, version in conn.execute(query).all():
                lease = leases[kind]
                conn.execute(update(DueRow).where(DueRow.kind == kind, DueRow.table_id == table_id).values(
                    claimed_by=server_id, claim_expires=None if lease is None else now + timedelta(seconds=lease)))
                claimed.append(Due(kind, table_id, version))
        return claimed

    def release_due(self, due: Due, server_id: str, due_at: datetime) -> None:
        """Give back a claim: the work is due again at ``due_at`` (a retry, or the next round
        of recurring work), unless someone replaced the row meanwhile."""
        with self.writing() as conn:
            conn.execute(update(DueRow).where(
                DueRow.kind == due.kind, DueRow.table_id == due.table_id, DueRow.claimed_by == server_id,
                DueRow.version == due.version).values(due_at=due_at, claimed_by=None, claim_expires=None))

    def finish_due(self, due: Due, server_id: str) -> None:
        """The claimed work is done (or there was nothing to do): remove its row, unless the
        row was replaced meanwhile (new work for the table)."""
        with self.writing() as conn:
            conn.execute(delete(DueRow).where(
                DueRow.kind == due.kind, DueRow.table_id == due.table_id, DueRow.claimed_by == server_id,
                DueRow.version == due.version))

    def next_due_at(self, kinds: Sequence[str]) -> datetime | None:
        """When the earliest unclaimed work of these kinds is due (None: nothing waits)."""
        with self.engine.connect() as conn, conn.begin():
            first = conn.execute(select(func.min(DueRow.due_at)).where(
                DueRow.kind.in_(list(kinds)), DueRow.claimed_by.is_(None))).scalar_one_or_none()
        return None if first is None else utc(first)
