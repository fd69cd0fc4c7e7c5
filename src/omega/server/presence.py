"""Who is at the table: open sockets per seat, counted over every server process.

Each process counts its own sockets in ``presence`` rows (one per table, seat and process);
a change of a seat's total is an ordinary ``presence`` event through the action path, so
every viewer sees players come and go in version order.  When a process stops, or is
found dead by the sweep, its rows are withdrawn.
"""

from __future__ import annotations

from datetime import datetime

from omega.server.core import TableCore
from omega.server.events import Event, PresenceChanged
from omega.server.storage import Writer
from omega.server.table import TableState

__all__ = ["Presence"]

#: A delta that clears a process's count for a seat whatever it was.
_ALL = -(10**9)


class Presence:
    """Counts this process's sockets per seat and tells the table when a seat's total changes."""

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
        def decision(state: TableState, w: Writer, now: datetime) -> list[Event]:
            total = w.presence_add(seat, server_id, delta)
            if total == state.connections[seat]:
                return []
            return [Event(PresenceChanged(seat=seat, connected=total > 0, connections=total), at=now)]

        await self.core.write(table_id, decision)
