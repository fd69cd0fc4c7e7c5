"""The server processes of a site: each one's ``servers`` row and heartbeat, so that the
others can tell when it died (and take its claims of due work over, ``infra.due``).

>>> from datetime import UTC, datetime
>>> from omega.server.infra.db import make_engine
>>> servers = Servers(make_engine("sqlite://")); servers.migrate()
>>> now = datetime(2026, 1, 1, tzinfo=UTC)
>>> servers.register_server("a", now); servers.register_server("b", now)
>>> servers.dead_servers("a", now, None)
['b']
>>> servers.forget_server("a"); servers.heartbeat("a", now)   # a process taken for dead
False
>>> servers.heartbeat("a", now)
True
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import DateTime, String, delete, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Mapped, mapped_column

from omega.server.infra.db import Base, Database

__all__ = ["ServerRow", "Servers", "forget_server_row"]


class ServerRow(Base):
    """A running server process; a stale heartbeat means it died."""

    __tablename__ = "servers"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    heartbeat_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


def forget_server_row(conn: Connection, server_id: str) -> None:
    """Remove a server's row inside the caller's transaction."""
    conn.execute(delete(ServerRow).where(ServerRow.id == server_id))


class Servers(Database):
    """The ``servers`` rows of the database."""

    def register_server(self, server_id: str, now: datetime) -> None:
        """Record this process as alive."""
        with self.writing() as conn:
            conn.execute(insert(ServerRow).values(id=server_id, started_at=now, heartbeat_at=now))

    def heartbeat(self, server_id: str, now: datetime) -> bool:
        """Say this process is still alive; False if its row was gone (another process took
        it for dead and forgot it), in which case the row is made again: without it, every
        claim this process makes would look free to the others, and its work would be done
        twice from then on."""
        with self.writing() as conn:
            if conn.execute(update(ServerRow).where(ServerRow.id == server_id).values(heartbeat_at=now)).rowcount:
                return True
            conn.execute(insert(ServerRow).values(id=server_id, started_at=now, heartbeat_at=now))
            return False

    def dead_servers(self, me: str, now: datetime, max_age: float | None) -> list[str]:
        """Servers other than ``me`` whose heartbeat is older than ``max_age`` seconds
        (all of them when ``max_age`` is None: a single-process database)."""
        with self.engine.connect() as conn, conn.begin():
            query = select(ServerRow.id).where(ServerRow.id != me)
            if max_age is not None:
                query = query.where(ServerRow.heartbeat_at < now - timedelta(seconds=max_age))
            return list(conn.execute(query).scalars())

    def forget_server(self, server_id: str) -> None:
        """Remove a dead server's row (after what it held was cleared)."""
        with self.writing() as conn:
            forget_server_row(conn, server_id)
