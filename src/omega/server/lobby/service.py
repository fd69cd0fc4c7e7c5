"""The lobby: open tables that wait for players, and the live list of them.

An **open table** is created by a logged-in player and listed in the lobby until every seat
is taken (then its game starts) or its creator cancels it.  Another logged-in player takes a
free seat with one click: :meth:`Lobby.take` goes through the table's one action path
(``TableCore.write``), so the seat check and the binding of the seat to the account happen
in the same serialised write that stores the ``join``: twenty players racing for the last
seat get one ``join`` and nineteen ``conflict`` answers.  No move is made before the last
seat is taken (``TableState.waiting``).

The list is pushed to every lobby socket (:class:`LobbyFeed`).  A change (a table opened, a
seat taken, a table started or cancelled) marks the table dirty; one task per process reads
the dirty tables' summaries from the database and sends them.  Other processes hear of the
change through PostgreSQL ``NOTIFY`` (``server:lobby:<table id>``) and do the same, so the
content always comes from the database and a lost notification costs only latency.

>>> seat_summary(1, "Black", "Ann", None)
{'index': 1, 'color': 'Black', 'user': 'Ann', 'rating': None}
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.engine import Connection

from omega.game import Color
from omega.server.accounts.models import UserRow
from omega.server.accounts.store import User
from omega.server.errors import ApiError
from omega.server.ratings.service import RatingStore
from omega.server.tables.core import TableCore
from omega.server.tables.decide import Decided, decide_cancel
from omega.server.tables.events import Event, Joined, Renamed
from omega.server.tables.models import SeatRow, TableRow
from omega.server.tables.state import TableState
from omega.server.tables.store import Writer
from omega.server.tables.values import NewTable

__all__ = ["Lobby", "LobbyFeed", "LobbySubscriber", "LOBBY_TOPIC", "MATCH_TOPIC", "LISTED_MAX", "seat_summary"]

log = logging.getLogger("omega.server")

#: The notification topics (``server:<topic>:<table id>``) of lobby changes and of
#: quick-play matches; no table id is this short, so they never pass for a table's.
LOBBY_TOPIC = "lobby"
MATCH_TOPIC = "match"
#: Open tables listed at most (the oldest first: they have waited longest).
LISTED_MAX = 100


def seat_summary(index: int, color: str, user: str | None, rating: dict[str, Any] | None) -> dict[str, Any]:
    """One seat of a listed table: its colour, who holds it (None: free) and their rating."""
    return {"index": index, "color": color, "user": user, "rating": rating}


def _iso(moment: datetime) -> str:
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).isoformat().replace("+00:00", "Z")


class LobbySubscriber:
    """One lobby socket's inbox: bounded; a socket that falls behind gets a fresh list
    instead of the changes it missed (``resync``)."""

    def __init__(self, user_id: int | None, maxsize: int) -> None:
        self.user_id = user_id
        self.queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue(maxsize)
        self.resync = False

    def offer(self, message: dict[str, Any] | None) -> None:
        """Queue a message without waiting; when full, ask for a fresh list instead."""
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:
            self.resync = True
            while not self.queue.empty():
                self.queue.get_nowait()
            self.queue.put_nowait(None)


class LobbyFeed:
    """This process's lobby sockets, and the task that tells them what changed."""

    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby
        self.subscribers: set[LobbySubscriber] = set()
        self._dirty: set[str] = set()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def add(self, user_id: int | None, maxsize: int) -> LobbySubscriber:
        """A new socket's inbox."""
        sub = LobbySubscriber(user_id, maxsize)
        self.subscribers.add(sub)
        return sub

    def remove(self, sub: LobbySubscriber) -> None:
        """Forget a closed socket."""
        self.subscribers.discard(sub)

    def changed(self, table_id: str) -> None:
        """A listed table changed (here or in another process): its summary is sent soon."""
        if not self.subscribers:
            return
        self._dirty.add(table_id)
        self._start()
        self._wake.set()

    def matched(self, table_id: str, seats: dict[int, int]) -> None:
        """A quick-play match: the matched users' sockets here are told their table."""
        for sub in self.subscribers:
            if sub.user_id is not None and sub.user_id in seats:
                sub.offer({"type": "matched", "table_id": table_id, "seat": seats[sub.user_id]})

    def resync_all(self) -> None:
        """Every socket gets a fresh list (after a lost notification link)."""
        for sub in self.subscribers:
            sub.resync = True
            sub.offer(None)

    def _start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._pump())

    async def stop(self) -> None:
        """Stop the task (at shutdown)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _pump(self) -> None:
        # One reader at a time: a summary read after a change is never overtaken by one
        # read before it, so the last message about a table is its latest state.
        while True:
            await self._wake.wait()
            self._wake.clear()
            dirty, self._dirty = self._dirty, set()
            try:
                summaries = await self.lobby.summaries(sorted(dirty))
            except Exception:
                log.exception("could not read the lobby's changed tables")
                self.resync_all()
                continue
            for table_id in sorted(dirty):
                summary = summaries.get(table_id)
                message = ({"type": "table", "table": summary[1]} if summary is not None and summary[0] == "waiting"
                           else {"type": "removed", "id": table_id,
                                 "status": summary[0] if summary is not None else "gone"})
                for sub in self.subscribers:
                    sub.offer(message)


class Lobby:
    """Open tables: created, listed, taken seat by seat, cancelled."""

    def __init__(self, core: TableCore, ratings: RatingStore) -> None:
        self.core = core
        self.ratings = ratings
        self.feed = LobbyFeed(self)
        #: Told of a quick-play match made here: (table id, {user id: seat}).
        self.on_match: Callable[[str, dict[int, int]], None] = self.feed.matched

    # -- notifications ------------------------------------------------------------------------

    def _notify(self, w: Writer, table_id: str) -> None:
        w.notify(f"{self.core.server_id}:{LOBBY_TOPIC}:{table_id}")

    def remote_change(self, table_id: str) -> None:
        """Another process changed a listed table (PostgreSQL NOTIFY)."""
        self.feed.changed(table_id)

    # -- opening, taking, cancelling ---------------------------------------------------------------

    async def open_table(self, user: User, new: NewTable, owner: str) -> dict[str, Any]:
        """A new open table, the creator's seat held by ``user``; listed until it starts."""
        if new.rated and any(s.kind != "human" for s in new.seats):
            raise ApiError("bad_request", "bad request: a rated table has no computer seats")
        if all(s.kind == "computer" for i, s in enumerate(new.seats) if i != new.creator_seat):
            raise ApiError("bad_request", "bad request: an open table needs at least one free seat for a person")
        created = await self.core.create(replace(new, name=user.username, creator_user=user.id, open=True), owner=owner)
        await self._notify_outside(created["id"])
        self.feed.changed(created["id"])
        return created

    async def _notify_outside(self, table_id: str) -> None:
        # The table's creation commits through the core; the lobby's notification for other
        # processes follows in a small write of its own (it only wakes them up).
        if not self.core.repo.is_postgres:
            return

        def run(w: Writer | None) -> None:
            if w is not None:
                self._notify(w, table_id)

        await self.core.commits.run(table_id, run, lambda _: None)

    async def take(self, user: User, table_id: str, seat: int | None) -> dict[str, Any]:
        """Seat ``user`` at a free seat (``seat``, or the first free one) of an open table."""
        def decision(state: TableState, w: Writer, now: datetime) -> Decided:
            c = state.config
            if not c.open:
                raise ApiError("forbidden", "this table is not open in the lobby; join it by its invite link")
            if state.cancelled:
                raise ApiError("conflict", "this table was cancelled")
            if not state.waiting:
                raise ApiError("conflict", "every seat is taken: the game has started")
            if _seat_of(w.conn, table_id, user.id) is not None:
                raise ApiError("conflict", "you already have a seat at this table")
            free = [i for i, s in enumerate(c.seats) if s.kind == "human" and not state.joined[i]]
            chosen = free[0] if seat is None else seat
            if chosen not in free:
                raise ApiError("conflict", f"seat {chosen + 1} is not free; {len(free)} free seat(s) left"
                               if 0 <= chosen < c.players else f"there is no seat {chosen + 1} at this table")
            bound = w.conn.execute(update(SeatRow).where(
                SeatRow.table_id == table_id, SeatRow.idx == chosen, SeatRow.user_id.is_(None)).values(user_id=user.id))
            if bound.rowcount != 1:  # held by an account already: the log and the seats disagree
                raise ApiError("conflict", f"seat {chosen + 1} is not free")
            self._notify(w, table_id)
            return Decided(state).then(Event(Joined(chosen), at=now), Event(Renamed(chosen, user.username), at=now))

        written = await self.core.write(table_id, decision)
        self.feed.changed(table_id)
        joined = written.stored[0].payload  # the seat taken is the one its join names
        assert isinstance(joined, Joined)
        return {"id": table_id, "seat": joined.seat, "state": written.view(joined.seat)}

    async def cancel(self, user: User, table_id: str) -> dict[str, Any]:
        """The creator calls off an open table that still waits for players."""
        def decision(state: TableState, w: Writer, now: datetime) -> Decided:
            if not state.config.open:
                raise ApiError("forbidden", "only an open table of the lobby can be cancelled")
            host = state.host
            if host is None or _seat_of(w.conn, table_id, user.id) != host:
                raise ApiError("forbidden", "only the table's creator can cancel it")
            events = decide_cancel(state, now)
            self._notify(w, table_id)
            return events

        written = await self.core.write(table_id, decision)
        self.feed.changed(table_id)
        return {"id": table_id, "state": written.view(None)}

    # -- reading ------------------------------------------------------------------------------

    async def listing(self) -> list[dict[str, Any]]:
        """The open tables that wait for players, the oldest first."""
        return list((await self.core.db(self._read, None)).values())

    async def summaries(self, table_ids: list[str]) -> dict[str, tuple[str, dict[str, Any]]]:
        """Per table: its status and (if it waits) its lobby summary."""
        if not table_ids:
            return {}
        return await self.core.db(self._statuses, table_ids)

    def _statuses(self, table_ids: list[str]) -> dict[str, tuple[str, dict[str, Any]]]:
        with self.core.repo.engine.connect() as conn:
            statuses = dict(conn.execute(select(TableRow.id, TableRow.status).where(TableRow.id.in_(table_ids))).all())
            conn.rollback()
        waiting = [t for t, s in statuses.items() if s == "waiting"]
        listed = self._read(waiting) if waiting else {}
        return {t: (s, listed.get(t, {})) for t, s in statuses.items()}

    def _read(self, table_ids: list[str] | None) -> dict[str, dict[str, Any]]:
        query = select(TableRow).where(TableRow.open.is_(True), TableRow.status == "waiting")
        if table_ids is not None:
            query = query.where(TableRow.id.in_(table_ids))
        with self.core.repo.engine.connect() as conn:
            rows = conn.execute(query.order_by(TableRow.created_at, TableRow.id).limit(LISTED_MAX)).all()
            ids = [r.id for r in rows]
            seats = conn.execute(select(SeatRow.table_id, SeatRow.idx, SeatRow.kind, SeatRow.level, SeatRow.user_id,
                                        UserRow.username).outerjoin(UserRow, UserRow.id == SeatRow.user_id)
                                 .where(SeatRow.table_id.in_(ids)).order_by(SeatRow.table_id, SeatRow.idx)).all()
            conn.rollback()
        by_table: dict[str, list[Any]] = {t: [] for t in ids}
        for s in seats:
            by_table[s.table_id].append(s)
        # One read of ratings per player count (ratings are kept per player count).
        counts = {r.id: r.players for r in rows}
        wanted: dict[int, set[int]] = {}
        for s in seats:
            if s.user_id is not None:
                wanted.setdefault(counts[s.table_id], set()).add(s.user_id)
        known = {n: self.ratings.of_users(sorted(users), n) for n, users in wanted.items()}
        out: dict[str, dict[str, Any]] = {}
        for r in rows:
            ratings = known.get(r.players, {})
            listed = []
            for s in by_table[r.id]:
                color = Color(s.idx).label
                if s.kind == "computer":
                    listed.append({**seat_summary(s.idx, color, None, None), "computer": s.level})
                else:
                    rating = ratings.get(s.user_id) if s.user_id is not None else None
                    if s.user_id is not None and rating is None:
                        rating = self.ratings.unrated()
                    listed.append(seat_summary(s.idx, color, s.username, rating))
            out[r.id] = {
                "id": r.id, "players": r.players, "size": r.size, "pie_rule": r.pie_rule, "rated": bool(r.rated),
                "time_control": r.time_control,  # None: untimed "created_at": _iso(r.created_at),
                "host": r.creator_seat,
                "free": sum(1 for s in by_table[r.id] if s.kind == "human" and s.user_id is None),
                "seats": listed,
            }
        return out


def _seat_of(conn: Connection, table_id: str, user_id: int) -> int | None:
    """The seat ``user_id``'s account holds at the table, read inside the write."""
    found = conn.execute(select(SeatRow.idx).where(SeatRow.table_id == table_id, SeatRow.user_id == user_id)
                         ).scalar_one_or_none()
    return None if found is None else int(found)
