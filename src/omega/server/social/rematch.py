"""Rematch: after a game, the same table again with the seats rotated.

A player of a finished table proposes; every other human seat's player must accept; one
decline, or a player leaving (the last socket of their seat closing), cancels it.  When the
last acceptance comes, the new table is stored in the same commit: the same settings, each
seat moved one place on (old seat ``i`` sits at ``(i + 1) % players``, so the colours turn and
the last to move in the old game moves first), computer seats staying computers at their
level in their rotated places, names and accounts carried over.  Every page of the old table
(players and spectators) is then told to move to it.

**Clocks.** The rematch keeps the old table's time control, and is rated only if the old
table was rated *and* timed, so a rated rematch without a clock cannot be made (a rated
table stored before every rated table had a clock gives a casual rematch).  Every player
accepted, so every seat has joined the new table in its first write: its first clock runs
from the start, and a player who accepted and left loses on time instead of holding a
rated game unstarted.

**Links.** Each seat of the new table is proved by the same secret as its seat at the old
table: the old seat token opens the new seat (and the spectator key the new table), and an
account that held the old seat holds the new one.  So nothing secret is sent: each page
builds its own link from the secret it already has (guests by their seat token, accounts by
their session), and nobody gets a seat they did not hold.

**Races.** A proposal is one row per table (``rematches``), changed only inside a
transaction that locks the old table's row (PostgreSQL ``SELECT ... FOR UPDATE``; SQLite has
one writer): two players proposing at once make one proposal, the second counting as an
acceptance.  Every change is told to the table's sockets, here directly and in other
processes through ``NOTIFY 'server:table:r'``.

>>> rotated(("a", "b", "c"))
('c', 'a', 'b')
>>> new_seat(2, 3), new_seat(0, 2)
(0, 1)
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Literal, TypeVar

from sqlalchemy import func, insert, select, text, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from omega.i18n import translatable as _
from omega.server.clock import stamp
from omega.server.errors import ApiError
from omega.server.infra.pubsub import Notice
from omega.server.social.models import RematchRow
from omega.server.tables.core import TableCore
from omega.server.tables.decide import Decided
from omega.server.tables.events import Event, Joined, Renamed
from omega.server.tables.identity import Identity, SeatHolder, Spectator, TableKeys
from omega.server.tables.models import PresenceRow, TableRow
from omega.server.tables.seatnames import default_name
from omega.server.tables.state import TableConfig, TableState
from omega.server.tables.store import insert_table
from omega.server.tables.values import Cached

__all__ = ["Rematches", "Rematch", "REMATCH_TAG", "rotated", "new_seat", "rematch_config"]

log = logging.getLogger("omega.server")
T = TypeVar("T")

#: The tag of a rematch change in a note between server processes.
REMATCH_TAG = "r"

Op = Literal["propose", "accept", "decline"]


def rotated(items: Sequence[T]) -> tuple[T, ...]:
    """``items`` by new seat: the old seat ``i``'s item at ``(i + 1) % n``."""
    return tuple(items[-1:]) + tuple(items[:-1])


def new_seat(old: int, players: int) -> int:
    """Where the player of old seat ``old`` sits at the rematch."""
    return (old + 1) % players


def rematch_config(config: TableConfig, table_id: str, created_at: str) -> TableConfig:
    """The new table's settings: the old ones (players, size, pie rule, clock, rated, and
    whatever else a table's settings hold) with the seats rotated; rated only with a clock
    (see the module's note).  A rematch is never listed in the lobby: its seats are the same
    people's, not free for anyone to take.

    >>> from omega.server.tables.state import SeatConfig
    >>> old = TableConfig("a", 2, 6, True, "x", (SeatConfig("human"), SeatConfig("computer", 3)), open=True)
    >>> new = rematch_config(old, "b", "y"); new.seats, new.size, new.pie_rule, new.open
    ((SeatConfig(kind='computer', level=3), SeatConfig(kind='human', level=None)), 6, True, False)
    >>> from omega.server.tables.timecontrol import TimeControl
    >>> rated = replace(old, rated=True)
    >>> rematch_config(rated, "b", "y").rated, rematch_config(replace(rated, time_control=TimeControl.parse("5+5")),
    ...                                                       "b", "y").time_control.text
    (False, '5+5')
    """
    return replace(config, id=table_id, created_at=created_at, seats=rotated(config.seats), open=False,
                   rated=config.rated and config.time_control.timed)


@dataclass(frozen=True)
class Rematch:
    """Where a table's rematch stands."""

    status: Literal["proposed", "declined", "cancelled", "started"]
    proposer: int
    accepted: tuple[int, ...]
    ended_by: int | None = None
    new_table_id: str | None = None

    def view(self, config: TableConfig, who: Identity) -> dict[str, Any]:
        """The ``rematch`` socket message for ``who`` (docs/server-api.md, Rematch).

        >>> from omega.server.tables.state import SeatConfig
        >>> c = TableConfig("a", 2, 5, False, "", (SeatConfig("human"), SeatConfig("human")))
        >>> Rematch("started", 0, (0, 1), new_table_id="b").view(c, SeatHolder(1))["rematch"]["table"]
        {'id': 'b', 'seat': 0}
        """
        humans = [i for i, s in enumerate(config.seats) if s.kind == "human"]
        table = None
        if self.status == "started" and self.new_table_id is not None:
            seat = new_seat(who.seat, config.players) if isinstance(who, SeatHolder) else None
            table = {"id": self.new_table_id, "seat": seat}
        return {"type": "rematch", "rematch": {
            "status": self.status, "proposer": self.proposer, "accepted": sorted(self.accepted),
            "waiting": [i for i in humans if i not in self.accepted] if self.status == "proposed" else [],
            "ended_by": self.ended_by, "table": table,
        }}


def _rematch_of(row: Any) -> Rematch | None:
    if row is None:
        return None
    return Rematch(row.status, row.proposer, tuple(json.loads(row.accepted)), row.ended_by, row.new_table_id)


@dataclass(frozen=True)
class _Start:
    """A new table stored by the commit that started the rematch."""

    config: TableConfig
    names: tuple[str, ...]


class Rematches:
    """The rematches of every table, for one server process."""

    def __init__(self, core: TableCore) -> None:
        self.core = core
        # One change of a table's rematch at a time in this process, from its commit to its
        # delivery: two answers racing would otherwise reach the sockets in either order, and
        # a page would be left showing the older one.
        self._busy: dict[str, tuple[asyncio.Lock, list[int]]] = {}

    # -- reading ------------------------------------------------------------------------------

    async def current(self, table_id: str) -> Rematch | None:
        """The table's rematch, if one was ever proposed."""
        def read() -> Rematch | None:
            with self.core.repo.engine.connect() as conn:
                row = conn.execute(select(RematchRow).where(RematchRow.table_id == table_id)).one_or_none()
                conn.rollback()
            return _rematch_of(row)

        return await self.core.db(read)

    async def message_for(self, table_id: str, who: Identity) -> dict[str, Any] | None:
        """The message a socket that opens gets (None: no rematch was ever proposed)."""
        if not (await self.core.get(table_id)).state.over:
            return None  # proposed only once the game is over: nothing to read before
        rematch = await self.current(table_id)
        if rematch is None:
            return None
        return rematch.view((await self.core.get(table_id)).state.config, who)

    async def greet(self, table_id: str, who: Identity, send: Callable[[dict[str, Any]], Awaitable[None]]) -> None:
        """Send a socket that opens where the table's rematch stands (nothing if none was
        proposed), in this process's turn for the table: a change cannot be delivered between
        the reading and the sending, which would leave the page with the older state."""
        async with self._turn(table_id):
            message = await self.message_for(table_id, who)
            if message is not None:
                await send(message)

    # -- changing -----------------------------------------------------------------------------

    async def answer(self, table_id: str, who: Identity, op: Op) -> tuple[Rematch, bool]:
        """A player proposes, accepts or declines: where the rematch stands after it, and
        whether it changed (a proposal that meets one already made, or an acceptance sent
        twice, changes nothing).  Refused with ``forbidden`` (a spectator, a computer seat) or
        ``conflict`` (the game is not over; nothing to accept or decline)."""
        if not isinstance(who, SeatHolder):
            raise ApiError("forbidden", _("only the players can answer a rematch") if isinstance(who, Spectator)
                           else _("the computer does not ask for rematches"))
        cached = await self.core.fresh(table_id)
        state = cached.state
        if state.config.seats[who.seat].kind != "human":
            raise ApiError("forbidden", _("this seat is played by the computer"))
        if not state.over:
            raise ApiError("conflict", _("a rematch can be proposed once the game is over"))
        seat = who.seat
        humans = frozenset(i for i, s in enumerate(state.config.seats) if s.kind == "human")
        asker = cached.keys.seat_users[seat] if seat < len(cached.keys.seat_users) else None
        if op != "decline" and asker is not None and _rated_rematch(state.config):
            await self.core.check_rated([asker])  # a rated rematch is a rated table

        def change(before: Rematch | None) -> Rematch | None:
            if op == "propose" and (before is None or before.status in ("declined", "cancelled")):
                return Rematch("proposed", seat, (seat,))
            if before is None or before.status != "proposed":
                if op == "propose":  # it started already: the asker is told where it stands
                    return None
                raise ApiError("conflict", _("no rematch is proposed at this table"))
            if op == "decline":
                return replace(before, status="declined", ended_by=seat)
            if seat in before.accepted:  # a second proposal, or an acceptance sent twice
                return None
            return replace(before, accepted=(*before.accepted, seat))

        rematch, changed = await self._change(table_id, cached, change, humans)
        assert rematch is not None  # a first proposal always changes something
        return rematch, changed

    async def left(self, table_id: str, seat: int) -> None:
        """The last socket of ``seat`` may have closed: a proposal waiting for that seat's
        player (or proposed by them) is cancelled."""
        cached = await self.core.get(table_id)
        if not cached.state.over or cached.state.config.seats[seat].kind != "human":
            return
        current = await self.current(table_id)
        if current is None or current.status != "proposed":
            return  # most closing sockets: nothing to cancel, no write
        humans = frozenset(i for i, s in enumerate(cached.state.config.seats) if s.kind == "human")

        def change(before: Rematch | None) -> Rematch | None:
            if before is None or before.status != "proposed":
                return None
            return replace(before, status="cancelled", ended_by=seat)

        await self._change(table_id, cached, change, humans, gone=seat)

    async def _change(self, table_id: str, cached: Cached, change: Any, humans: frozenset[int],
                      gone: int | None = None) -> tuple[Rematch | None, bool]:
        async with self._turn(table_id):
            return await self._change_now(table_id, cached, change, humans, gone)

    @asynccontextmanager
    async def _turn(self, table_id: str) -> AsyncIterator[None]:
        lock, users = self._busy.setdefault(table_id, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:
                yield
        finally:
            users[0] -= 1
            if not users[0]:  # nobody waits: forget the table's lock
                del self._busy[table_id]

    async def _change_now(self, table_id: str, cached: Cached, change: Any, humans: frozenset[int],
                          gone: int | None) -> tuple[Rematch | None, bool]:
        repo = self.core.repo
        server_id = self.core.server_id
        now = self.core.clock.now()
        config = cached.state.config
        names = tuple(cached.state.names)

        def transaction() -> tuple[Rematch | None, Rematch | None, _Start | None]:
            with repo.writing() as conn:
                if repo.is_postgres:  # one change of this table's rematch at a time, over all processes
                    conn.execute(select(TableRow.id).where(TableRow.id == table_id).with_for_update())
                before = _rematch_of(conn.execute(
                    select(RematchRow).where(RematchRow.table_id == table_id)).one_or_none())
                if gone is not None and _connected(conn, table_id, gone):
                    return before, None, None  # another socket of that seat is still open
                after = change(before)
                if after is None:
                    return before, None, None
                start = None
                if after.status == "proposed" and humans <= set(after.accepted):
                    if _rated_rematch(config):  # barred from rated play since proposing or accepting
                        self.core.refuse_rated(conn, [u for u in cached.keys.seat_users if u is not None], now)
                    start = self._start(conn, config, cached.keys, names, cached.owner, now)
                    after = replace(after, status="started", new_table_id=start.config.id)
                values = {"status": after.status, "proposer": after.proposer,
                          "accepted": json.dumps(sorted(after.accepted)), "ended_by": after.ended_by,
                          "new_table_id": after.new_table_id, "updated_at": now}
                if before is None:
                    conn.execute(insert(RematchRow).values(table_id=table_id, **values))
                else:
                    conn.execute(update(RematchRow).where(RematchRow.table_id == table_id).values(**values))
                if repo.is_postgres:
                    conn.execute(text("SELECT pg_notify('omega_events', :p)"),
                                 {"p": f"{server_id}:{table_id}:{REMATCH_TAG}"})
                return before, after, start

        for attempt in range(5):
            try:
                before, after, start = await self.core.db(transaction)
                break
            except IntegrityError:  # the new table's random id was taken: draw another
                if attempt == 4:
                    raise
        if after is None:
            return before, False
        if start is not None:
            await self._started(start)
        self._deliver(table_id, config, after)
        return after, True

    def _start(self, conn: Connection, config: TableConfig, keys: TableKeys, names: tuple[str, ...],
               owner: str, now: datetime) -> _Start:
        """Store the new table (inside the rematch's transaction)."""
        new = rematch_config(config, secrets.token_urlsafe(6), stamp(now))
        users = keys.seat_users or (None,) * config.players
        new_keys = TableKeys(rotated(keys.seat_hashes), keys.spectator_hash, rotated(users))
        insert_table(conn, new, new_keys, [(kind, now) for kind in TableState(new).due_work()], owner)
        return _Start(new, names)

    async def _started(self, start: _Start) -> None:
        """The new table is stored: every player has joined it (each accepted), and keeps the
        name they chose."""
        old_seats = rotated(range(start.config.players))  # new seat j -> its old seat
        renames: list[Renamed] = []
        joins: list[Joined] = []
        for j, seat in enumerate(start.config.seats):
            old = old_seats[j]
            if seat.kind == "human":
                joins.append(Joined(j))
                if start.names[old] != default_name(old, seat, start.config.seats):
                    renames.append(Renamed(j, start.names[old]))
        try:
            # One write through the action path: it stores the first clock's flag with them.
            await self.core.write(start.config.id, lambda st, w, at: Decided(st).then(*[
                *[Event(p, at=at) for p in joins if not st.joined[p.seat]], *[Event(p, at=at) for p in renames]]))
        except Exception:  # the table stands without them: each seat joins at its first visit
            log.exception("could not seat the players at rematch %s", start.config.id)
        if TableState(start.config).due_work():
            self.core.on_due()

    def _deliver(self, table_id: str, config: TableConfig, rematch: Rematch) -> None:
        def render(who: Identity) -> str:
            return json.dumps(rematch.view(config, who), separators=(",", ":"))

        self.core.hub.deliver_notice(table_id, Notice(render))

    async def remote(self, table_id: str) -> None:
        """Another process changed the table's rematch: tell this process's sockets."""
        if not self.core.hub.has(table_id):
            return
        rematch = await self.current(table_id)
        if rematch is not None:
            self._deliver(table_id, (await self.core.get(table_id)).state.config, rematch)


def _rated_rematch(config: TableConfig) -> bool:
    return rematch_config(config, "", "").rated


def _connected(conn: Connection, table_id: str, seat: int) -> bool:
    """Whether some process still has a socket of the seat open."""
    total = conn.execute(select(func.coalesce(func.sum(PresenceRow.count), 0)).where(
        PresenceRow.table_id == table_id, PresenceRow.seat == seat)).scalar_one()
    return int(total) > 0
