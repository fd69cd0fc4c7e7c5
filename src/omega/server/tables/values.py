"""The values that go into the action path and come out of it: a table in the cache
(:class:`Cached`), what a write did (:class:`Written`) and an action's answer
(:class:`Acted`), a table to create (:class:`NewTable`), a computer's job
(:class:`ComputerJob`), and which seat an identity acts or looks from.

>>> from omega.server.tables.identity import SeatHolder, Spectator
>>> seat_of(SeatHolder(1)), viewer_seat(SeatHolder(1)), viewer_seat(Spectator())
(1, 1, None)
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar

from omega.game import Game
from omega.i18n import translatable as _
from omega.server.errors import ApiError
from omega.server.infra.pubsub import Delivery
from omega.server.tables.decide import Decided
from omega.server.tables.events import Event
from omega.server.tables.identity import ComputerPlayer, Identity, SeatHolder, TableKeys
from omega.server.tables.state import SeatConfig, TableState
from omega.server.tables.timecontrol import UNTIMED, TimeControl
from omega.server.tables.views import with_viewer

__all__ = ["RECENT_EVENTS", "D", "Cached", "Written", "Acted", "ComputerJob", "NewTable", "seat_of", "viewer_seat",
           "Turned", "WriteProgress", "StoredWrite"]

#: Events each cached table keeps for sockets that reconnect with ``since``.
RECENT_EVENTS = 64

#: A write's decision: a :class:`~omega.server.tables.decide.Decided`, or a kind of it that also
#: carries what its caller is to hear besides the events (a retry's first answer, say).
D = TypeVar("D", bound=Decided)


@dataclass
class Cached:
    """A table in this process's memory: its state, its keys, and the lock of its writes."""

    state: TableState
    keys: TableKeys
    #: Who opened the table (computer turns are queued fairly by it).
    owner: str = ""
    #: The seat that created the table, the one that may make new links (None: nobody).
    creator: int | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    #: The last events sent to sockets, consecutive versions (a reconnecting socket is
    #: served from here instead of rebuilding the table from the database).
    recent: deque[Delivery] = field(default_factory=lambda: deque(maxlen=RECENT_EVENTS))

    def view_before(self, pending: list[Delivery]) -> dict[str, Any]:
        """The table's view (no viewer) at its current version, the one the next event's
        changes are counted from: the last of ``pending`` (deliveries made, not yet sent) or
        of the events sent, when it is that version; else made now."""
        last = pending[-1] if pending else self.recent[-1] if self.recent else None
        if last is not None and last.version == self.state.version:
            return last.state
        return self.state.view(viewer=False)

    def delivered(self, items: list[Delivery]) -> None:
        """Remember events just sent (forgetting older ones if these do not follow)."""
        for item in items:
            if self.recent and self.recent[-1].version + 1 != item.version:
                self.recent.clear()
            self.recent.append(item)


@dataclass(frozen=True)
class Written(Generic[D]):
    """What a write did: the table, its decision (whose events are what was stored: none,
    nothing was) and the view of the table after them that their delivery to this process's
    sockets made (None: no socket here watches, or nothing was stored)."""

    cached: Cached
    decided: D
    shared: dict[str, Any] | None = None

    @property
    def stored(self) -> tuple[Event, ...]:
        """The events stored, with their versions."""
        return self.decided.events

    def view(self, seat: int | None) -> dict[str, Any]:
        """The table after the write as the viewer at ``seat`` sees it (``docs/server-api.md``):
        the delivery's view with the viewer's part added, so that a turn's view is made once
        for its sockets and its answer; made now when no delivery made it."""
        if self.shared is None:
            return self.cached.state.view(seat)
        return with_viewer(self.shared, seat)


@dataclass(frozen=True)
class Acted:
    """The answer to an action: the version it was stored at, and the table after it (as
    the actor sees it), made only when asked for: a WebSocket ack needs the version only."""

    version: int
    written: Written[Any]
    seat: int | None

    @property
    def state(self) -> dict[str, Any]:
        """The table state of ``docs/server-api.md``, for the actor."""
        return self.written.view(self.seat)



@dataclass(frozen=True)
class ComputerJob:
    """What a computer needs to choose its action: the game at ``version`` and its level."""

    table_id: str
    version: int
    level: int
    seed: int
    game: Game
    #: Who opened the table: turns of different owners take turns for the workers.
    owner: str = ""


@dataclass(frozen=True)
class NewTable:
    """A table to create: its seats, who creates it and the name they chose."""

    players: int
    size: int
    pie_rule: bool
    seats: tuple[SeatConfig, ...]
    creator_seat: int
    name: str | None = None
    #: The creator's account, which then holds the creator's seat (None: a guest).
    creator_user: int | None = None
    time_control: TimeControl = UNTIMED
    hints: bool = False
    #: Listed in the lobby, where accounts take the other seats (no invite links then).
    open: bool = False
    #: The result changes the players' ratings.
    rated: bool = False
    #: Whether a seat's turn-based clock may be paused (a player's vacation).
    pausable: bool = True


def seat_of(who: Identity) -> int | None:
    """The seat an identity acts for (None: the computer, for the seat to move);
    ``forbidden`` for a spectator."""
    if isinstance(who, SeatHolder):
        return who.seat
    if isinstance(who, ComputerPlayer):
        return None
    raise ApiError("forbidden", _("spectators cannot act"))


def viewer_seat(who: Identity) -> int | None:
    """The seat a viewer sees the table from (None: a spectator's view)."""
    return who.seat if isinstance(who, SeatHolder) else None


# -- the action path's own values (TableCore.act and TableCore.write) --------------------------


@dataclass(frozen=True)
class Turned(Decided):
    """An action's decision: its events, or why it stored none or others."""

    #: A retry: the version the request was first answered at (nothing is stored again).
    first_version: int | None = None
    #: The flag fell before the action came: it is refused with this, once the timeout
    #: (these events) is stored; ``flag`` is when the flag fell.
    too_late: ApiError | None = None
    flag: datetime | None = None


@dataclass
class WriteProgress:
    """What a write has done to the cache before its decision's outcome is known (kept
    whatever the decision says, so a refused action still delivers what it caught up with)."""

    #: Events applied to the cache, to be pushed to sockets: caught up with (committed by
    #: other processes), then, once committed, the write's own.
    applied: list[Delivery] = field(default_factory=list)
    #: The keys after a caught-up ``links`` event (unless this write's own replace them).
    caught_keys: TableKeys | None = None


@dataclass(frozen=True)
class StoredWrite(Generic[D]):
    """What a write's transaction stored: its decision, and the keys after its own ``links``
    event (in force once committed)."""

    decided: D
    keys: TableKeys | None = None
    #: What to tell the other processes once it is committed (PostgreSQL).
    notes: tuple[str, ...] = ()
