"""New secret links for a table, made by its creator on any device.

The server keeps only digests of seat tokens and of the spectator key, so it cannot give
the links of a table out a second time.  Its creator (the seat that created it, stored as
``tables.creator_seat``) may instead have new ones made: a new invite token for every human
seat nobody has joined yet (a seat that has joined never changes its token) and, when asked,
a new spectator key.  The old ones stop opening anything at once:

- the new digests are stored in the same commit as a ``links`` event, which every server
  process applies like any event and which makes it read the table's keys again (this
  process at the commit; others as soon as they catch up: at a NOTIFY, a read, or the first
  action of a seat nobody has joined, which always looks at the latest keys);
- sockets already open stay open (a spectator watching keeps watching until the socket
  closes); the old secret opens no new one.

A rematch's table has no creator: its seats hold the secrets of the table before it.

>>> from datetime import UTC, datetime
>>> from omega.server.tables.state import SeatConfig, TableConfig
>>> t = TableState(TableConfig("t", 3, 5, False, "", (SeatConfig("human"),) * 3))
>>> t.joined[0] = True
>>> [e.payload for e in decide_links(t, 0, 0, True, False, datetime(2026, 1, 1, tzinfo=UTC)).events]
[LinksRenewed(seat=0, seats=(1, 2), spectator=False)]
>>> open_seats(t)
[1, 2]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from omega.i18n import translatable as _
from omega.server.errors import ApiError
from omega.server.infra.limits import Buckets, Limits
from omega.server.tables.core import TableCore
from omega.server.tables.decide import Decided
from omega.server.tables.events import Event, LinksRenewed
from omega.server.tables.identity import Identity, SeatHolder, hash_token, new_token
from omega.server.tables.schemas import LinksBody
from omega.server.tables.state import TableState
from omega.server.tables.store import Writer

__all__ = ["Links", "decide_links", "open_seats"]


def open_seats(state: TableState) -> list[int]:
    """The human seats nobody has joined: those whose invite may be made anew."""
    return [i for i, s in enumerate(state.config.seats) if s.kind == "human" and not state.joined[i]]


def decide_links(state: TableState, seat: int | None, creator: int | None, invites: bool, spectator: bool,
                 now: datetime) -> Decided:
    """The ``links`` event of ``seat`` asking for new invites and/or a new spectator key, or
    ApiError: only the creator's seat may, and new invites need a seat still waiting."""
    if creator is None or seat != creator:
        raise ApiError("forbidden", _("only the player who created this table can make new links"))
    if state.config.public:
        # A lobby's seats are taken in the lobby by accounts (a rated game counts only
        # accounts), and anyone may watch it without a key: no link has anything to give.
        raise ApiError("conflict", _("this table's seats are taken in the lobby, and anyone may watch it: it has no links"))
    seats = tuple(open_seats(state)) if invites else ()
    if invites and not seats and not spectator:
        raise ApiError("conflict", _("every seat's player has joined: no invite is waiting"))
    return Decided(state).then(Event(LinksRenewed(seat=seat, seats=seats, spectator=spectator), at=now, seat=seat))


@dataclass(frozen=True)
class _Linked(Decided):
    """The ``links`` event with the new secrets it stores the digests of (only its answer
    ever holds them)."""

    invites: dict[str, str] = field(default_factory=dict)
    spectator_key: str | None = None


class Links:
    """New links for the tables of one process: at most ``Limits.relink_burst`` at once per
    table, refilled at ``Limits.relink_rate``."""

    def __init__(self, core: TableCore, limits: Limits) -> None:
        self.core = core
        self.budgets = Buckets(limits.relink_rate, limits.relink_burst)

    async def status(self, table_id: str) -> dict[str, Any]:
        """``GET /api/tables/{id}/links``: who may make links, and which seats still wait."""
        cached = await self.core.get(table_id)
        return {"creator_seat": cached.creator, "open_seats": open_seats(cached.state)}

    async def renew(self, table_id: str, who: Identity, req: LinksBody) -> dict[str, Any]:
        """``POST /api/tables/{id}/links``: make the links ``req`` asks for."""
        core = self.core
        seat = who.seat if isinstance(who, SeatHolder) else None
        cached = await core.fresh(table_id)
        # Refused at once (before the budget is charged) for anyone but the creator.
        decide_links(cached.state, seat, cached.creator, req.invites, req.spectator, core.clock.now())
        if not self.budgets.take(table_id, core.clock.monotonic()):
            raise ApiError("rate_limited", _("new links were made just now; try again in a minute"))

        def decision(state: TableState, w: Writer, now: datetime) -> _Linked:
            decided = decide_links(state, seat, cached.creator, req.invites, req.spectator, now)
            renewed = decided.events[0].payload
            assert isinstance(renewed, LinksRenewed)
            tokens = {i: new_token() for i in renewed.seats}
            key = new_token() if renewed.spectator else None
            w.replace_keys({i: hash_token(t) for i, t in tokens.items()}, hash_token(key) if key else None)
            return _Linked(state, decided.events, decided.states, {str(i): t for i, t in tokens.items()}, key)

        written = await core.write(table_id, decision)
        linked = written.decided
        return {"version": written.stored[-1].version, "invites": linked.invites,
                "spectator_key": linked.spectator_key, "state": written.view(seat)}
