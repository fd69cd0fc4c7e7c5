"""Who is at the table: open sockets per seat, counted over every server process.

Presence is live state, not history: it is kept out of the event log and does not move the
table's version.  Each process counts its own sockets in ``presence`` rows (one per table,
seat and process); when a seat's total changes between none and some, the table's sockets
get a ``presence`` message (``{"type": "presence", "version", "seats": [true, false]}``),
other processes hear of it through the database (PostgreSQL NOTIFY, after the commit) and
tell theirs.
When a process stops, or is found dead by the sweep, its rows are withdrawn.
"""

from __future__ import annotations

from omega.server.tables.core import TableCore
from omega.server.tables.state import PresenceCount
from omega.server.tables.store import Writer

__all__ = ["Presence"]

#: A delta that clears a process's count for a seat whatever it was.
_ALL = -(10**9)


class Presence:
    """Counts this process's sockets per seat and tells the table's sockets who is there."""

    def __init__(self, core: TableCore) -> None:
        self.core = core

    async def opened(self, table_id: str, seat: int) -> None:
        """A seat's socket opened on this process."""
        await self._change(table_id, seat, self.core.server_id, +1)

    async def closed(self, table_id: str, seat: int) -> None:
        """A seat's socket closed on this process."""
        await self._change(table_id, seat, self.core.server_id, -1)

    async def withdraw(self, server_id: str) -> None:
        """Clear every count of ``server_id`` (this process at shutdown, or a dead one)."""
        for table_id, seat in await self.core.db(self.core.repo.presence_of, server_id):
            await self._change(table_id, seat, server_id, _ALL)

    async def _change(self, table_id: str, seat: int, server_id: str, delta: int) -> None:
        # Through the action path's commits.  SQLite: when hundreds of sockets open at once
        # (a restart, a start of a tournament) their counts share transactions with each other
        # and with the moves, instead of each paying a commit of its own ahead of the moves.
        # PostgreSQL: each in a transaction of its own beside the batches, since a count's
        # statements each take a trip to the database, which in a batch would hold the
        # moves behind them (with the database a millisecond away, seconds at a restart).
        def count(w: Writer | None) -> PresenceCount:
            return PresenceCount(0, {}) if w is None else w.count_sockets(seat, server_id, delta)

        # Two counts of one table may come back in either order (PostgreSQL commits in
        # several threads): their stamps say which is newer.
        counted = await self.core.commits.run(table_id, count, lambda _: None, grouped=False)
        self.core.presence_counted(table_id, counted)
        if self.core.repo.is_postgres:
            # After the commit, with the publisher's next batch (a NOTIFY in the commit would
            # make it wait on every other notifying commit): the other processes read the
            # count again.  A note lost with this process is made good by the sweep, which
            # withdraws a dead process's counts and tells everyone.
            self.core.publisher.publish([f"{server_id}:{table_id}:p"])
