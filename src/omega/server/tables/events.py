"""What happened at a table: typed events, and the envelope they are stored in.

A table's log is a list of :class:`Event` with consecutive versions.  Each carries one
payload (a small frozen dataclass whose ``kind`` names it in storage and on the wire) and
the time it was decided at.  The stored form is ``kind`` plus a JSON object of the
payload's fields, the same for every version of the server.

>>> e = Event(TurnPlayed(seat=0, color="White", cells=("e5", "a1"), computer=False))
>>> e.kind, e.public()
('turn', {'kind': 'turn', 'seat': 0, 'color': 'White', 'cells': ['e5', 'a1'], 'computer': False})
>>> payload_from("name", {"seat": 1, "name": "Ann"})
Renamed(seat=1, name='Ann')

A field added later has a default (None): it is left out of the stored form while it is
None, and a stored event without it reads back with the default, so logs written before
the field existed load unchanged.

>>> timed = TurnPlayed(seat=0, color="White", cells=("e5", "a1"), computer=False, used_ms=4250)
>>> Event(timed).data["used_ms"], "used_ms" in e.data
(4250, False)
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields, replace
from datetime import datetime
from typing import Any, ClassVar

__all__ = [
    "TurnPlayed", "Swapped", "Joined", "Renamed", "Resigned", "Abandoned", "GameEnded", "PresenceChanged", "TimedOut",
    "HintUsed", "Cancelled", "LinksRenewed", "ClockPaused", "ClockResumed", "Payload", "Event", "PLAY_EVENTS", "payload_from",
]


@dataclass(frozen=True)
class TurnPlayed:
    """A turn: the cells in colour order, by ``seat`` (``computer`` when the computer chose);
    ``used_ms``: the time it took off the seat's clock (None: no clock ran)."""

    kind: ClassVar[str] = "turn"
    seat: int
    color: str
    cells: tuple[str, ...]
    computer: bool
    used_ms: int | None = None


@dataclass(frozen=True)
class Swapped:
    """The pie-rule swap by ``seat`` (``used_ms`` as for a turn: the swapper's clock)."""

    kind: ClassVar[str] = "swap"
    seat: int
    computer: bool
    used_ms: int | None = None


@dataclass(frozen=True)
class Joined:
    """A seat's player opened the table for the first time."""

    kind: ClassVar[str] = "join"
    seat: int


@dataclass(frozen=True)
class Renamed:
    """A seat's display name changed."""

    kind: ClassVar[str] = "name"
    seat: int
    name: str


@dataclass(frozen=True)
class Resigned:
    """A seat gave up; it ranks last and the computer plays on for it.  ``aborted``: at a
    rated table before the game counted (``tables.state.MIN_RATED_TURNS``), so the game is
    aborted, not to be rated (None, left out of the stored form, otherwise)."""

    kind: ClassVar[str] = "resign"
    seat: int
    color: str
    aborted: bool | None = None
    #: The seat whose player claimed this absent seat (``ClaimAction``): the seat did not
    #: resign itself (None, left out of the stored form, when it did).
    claimed_by: int | None = None


@dataclass(frozen=True)
class Abandoned:
    """The server closed the table: nobody had acted on it for a long time (the game ends
    as it stands)."""

    kind: ClassVar[str] = "abandon"


@dataclass(frozen=True)
class TimedOut:
    """The clock of ``seat`` ran out on its turn.  ``aborted``: the seat had never moved, so
    the game is aborted (not played out, not to be rated); otherwise the seat ranks last and
    the computer plays on for it, as after a resignation."""

    kind: ClassVar[str] = "timeout"
    seat: int
    color: str
    aborted: bool


@dataclass(frozen=True)
class GameEnded:
    """Announces the end (the event before it already ended the game): why, and the result."""

    kind: ClassVar[str] = "over"
    reason: str
    ranking: tuple[str, ...]
    winner: str
    scores: dict[str, str]


@dataclass(frozen=True)
class HintUsed:
    """The player of ``seat`` (holding ``color``) asked the computer for a hint on turn
    ``turn`` (the number of the turn being played).  Not a change of the play."""

    kind: ClassVar[str] = "hint"
    seat: int
    color: str
    turn: int


@dataclass(frozen=True)
class Cancelled:
    """The table's creator called it off while it waited for players (no move was made)."""

    kind: ClassVar[str] = "cancel"


@dataclass(frozen=True)
class LinksRenewed:
    """The table's creator (``seat``) made new secret links: new invite tokens for
    ``seats`` (human seats nobody had joined) and, if ``spectator``, a new spectator key.
    The old ones open nothing any more.  The event holds no secret and no digest: it tells
    every server process to read the table's keys again.  Not a change of the play."""

    kind: ClassVar[str] = "links"
    seat: int
    seats: tuple[int, ...]
    spectator: bool


@dataclass(frozen=True)
class ClockPaused:
    """The clock of ``seat`` stopped: it does not run, and its flag cannot fall, until a
    ``resume``.  ``reason`` says who paused it, for the page (the core knows no feature:
    ``vacation`` is the vacation feature's).  Turn-based tables that allow it only."""

    kind: ClassVar[str] = "pause"
    seat: int
    reason: str


@dataclass(frozen=True)
class ClockResumed:
    """The clock of ``seat`` runs again, with the time it had when it was paused."""

    kind: ClassVar[str] = "resume"
    seat: int


@dataclass(frozen=True)
class PresenceChanged:
    """How many sockets a seat had open.  Only in logs written before presence became live
    state (``omega.server.tables.presence``); read, never written."""

    kind: ClassVar[str] = "presence"
    seat: int
    connected: bool
    connections: int


Payload = (TurnPlayed | Swapped | Joined | Renamed | Resigned | Abandoned | GameEnded | PresenceChanged | TimedOut
           | HintUsed | Cancelled | LinksRenewed | ClockPaused | ClockResumed)

_BY_KIND: dict[str, type[Payload]] = {
    cls.kind: cls for cls in (TurnPlayed, Swapped, Joined, Renamed, Resigned, Abandoned, GameEnded, PresenceChanged,
                              TimedOut, HintUsed, Cancelled, LinksRenewed, ClockPaused, ClockResumed)
}

#: The events that change the play; the others (join, name, presence) only the seats' look
#: (``pause`` and ``resume`` move the clocks, not the play: a move chosen before one stands).
PLAY_EVENTS = frozenset({TurnPlayed.kind, Swapped.kind, Resigned.kind, Abandoned.kind, GameEnded.kind,
                         TimedOut.kind, Cancelled.kind})


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def payload_from(kind: str, data: dict[str, Any]) -> Payload:
    """The payload stored as ``kind`` and ``data``; ValueError for an unknown kind or fields."""
    cls = _BY_KIND.get(kind)
    if cls is None:
        raise ValueError(f"unknown event kind {kind!r}")
    names = {f.name for f in fields(cls)}
    required = {f.name for f in fields(cls) if f.default is MISSING}
    if not required <= set(data) <= names:
        raise ValueError(f"event {kind!r} has fields {sorted(data)}, expected {sorted(names)}")
    values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
    return cls(**values)


@dataclass(frozen=True)
class Event:
    """One change of a table; ``version`` is 0 until the event is stored.

    ``at`` is when the server decided it (from its clock), stored with the event so that a
    replay of the log sees the same times.
    """

    payload: Payload
    version: int = 0
    at: datetime | None = None
    seat: int | None = None
    request_id: str | None = None
    fingerprint: str | None = None

    @property
    def kind(self) -> str:
        """The payload's kind: ``turn``, ``swap``, ``join``, ``name``, ``resign``, ``timeout``, ``over``, ``hint``,
        ``links``, ``pause``, ``resume``, ``presence``."""
        return self.payload.kind

    @property
    def data(self) -> dict[str, Any]:
        """The payload's fields as stored (JSON-ready)."""
        # A later field left at its default None is not written (see the module's text).
        return {f.name: _plain(getattr(self.payload, f.name)) for f in fields(self.payload)
                if not (f.default is None and getattr(self.payload, f.name) is None)}

    def with_version(self, version: int) -> Event:
        """The same event numbered ``version``."""
        return replace(self, version=version)

    def public(self) -> dict[str, Any]:
        """The event as the WebSocket sends it: ``{"kind": ..., details}``."""
        return {"kind": self.kind, **self.data}
