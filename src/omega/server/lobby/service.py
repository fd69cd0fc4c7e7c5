"""The lobby: open tables that wait for players, and the live list of them.

An **open table** is created by a logged-in player and listed in the lobby until every seat
is taken (then its game starts) or its creator cancels it.  Another logged-in player takes a
free seat with one click: :meth:`Lobby.take` goes through the table's one action path
(``TableCore.write``), so the seat check and the binding of the seat to the account happen
in the same serialised write that stores the ``join``: twenty players racing for the last
seat get one ``join`` and nineteen ``conflict`` answers.  No move is made before the last
seat is taken (``TableState.waiting``).

**No one fills the lobby.**  An account may have ``Limits.lobby_open_per_account`` tables
waiting at once, an address (all its accounts) ``Limits.lobby_open_per_address``; past them
a new one is refused with ``too_many_open_tables``.  The listing is *fair across creators*:
every creator's newest table comes first (the newest of those first), then every creator's
second newest, and so on, so a table opened by anyone is on the first page as long as fewer
creators than a page holds have tables waiting, however many tables the others have.  It is
paged (``offset``, ``limit`` and the ``total``) and filtered (:class:`LobbyQuery`).

The list is pushed to every lobby socket (:class:`LobbyFeed`).  A change (a table opened, a
seat taken, a table started or cancelled) marks the table dirty; one task per process reads
the dirty tables' summaries from the database and sends them.  Other processes hear of the
change through PostgreSQL ``NOTIFY`` (``server:lobby:<table id>``) and do the same, so the
content always comes from the database and a lost notification costs only latency.

>>> seat_summary(1, "Black", "Ann", None)
{'index': 1, 'color': 'Black', 'user': 'Ann', 'rating': None}
>>> fair_order([("a1", "ann"), ("a2", "ann"), ("a3", "ann"), ("b1", "bob"), ("c1", "cyd")])
['a1', 'b1', 'c1', 'a2', 'a3']
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import and_, func, insert, select, update
from sqlalchemy.engine import Connection

from omega.game import Color
from omega.i18n import Message, message_json
from omega.i18n import translatable as _
from omega.server.accounts.models import UserRow
from omega.server.accounts.store import User
from omega.server.config import TABLE_PLAYERS, TABLE_SIZES
from omega.server.errors import ApiError
from omega.server.infra.db import iso
from omega.server.infra.limits import Limits
from omega.server.infra.tasks import stop_task
from omega.server.lobby.models import OpeningRow
from omega.server.ratings.service import RatingStore
from omega.server.tables.core import TableCore
from omega.server.tables.decide import Decided, decide_cancel
from omega.server.tables.events import Event, Joined, Renamed
from omega.server.tables.models import SeatRow, TableRow
from omega.server.tables.seatnames import default_name
from omega.server.tables.state import SeatConfig, TableState
from omega.server.tables.store import Writer
from omega.server.tables.timecontrol import TimeControl
from omega.server.tables.values import NewTable

__all__ = ["Lobby", "LobbyFeed", "LobbySubscriber", "LobbyQuery", "LOBBY_TOPIC", "MATCH_TOPIC", "LISTED_MAX",
           "LOBBY_PAGE", "CLOCK_KINDS", "RATING_BOUNDS", "seat_summary", "fair_order"]

log = logging.getLogger("omega.server")

#: The notification topics (``server:<topic>:<table id>``) of lobby changes and of
#: quick-play matches; no table id is this short, so they never pass for a table's.
LOBBY_TOPIC = "lobby"
MATCH_TOPIC = "match"
#: Open tables one page of the listing holds at most (``limit``), and by default (the
#: lobby socket's list is such a first page).
LISTED_MAX = 100
LOBBY_PAGE = 20
#: The kinds of clock the listing's ``time_control`` filter names (besides one control,
#: ``5+5``); the same words as ``TimeControl.kind``.
CLOCK_KINDS = ("untimed", "realtime", "turn_based")
#: Display ratings the ``rating_min`` and ``rating_max`` filters may name.
RATING_BOUNDS = range(0, 10_001)
#: The listing's query parameters, in the order a refusal names them.
_PARAMETERS = ("players", "size", "rated", "time_control", "rating_min", "rating_max", "offset", "limit")


def seat_summary(index: int, color: str, user: str | None, rating: dict[str, Any] | None) -> dict[str, Any]:
    """One seat of a listed table: its colour, who holds it (None: free) and their rating."""
    return {"index": index, "color": color, "user": user, "rating": rating}


def fair_order(tables: Sequence[tuple[str, Hashable]]) -> list[str]:
    """The ids of ``(id, creator)`` pairs, given newest first, in the listing's order: each
    creator's newest table (newest first), then each creator's second newest, and so on.
    No creator, however many tables they have, pushes another's newest from the top."""
    rank: dict[Hashable, int] = {}
    ranked = []
    for i, (table_id, creator) in enumerate(tables):
        n = rank.get(creator, 0)
        rank[creator] = n + 1
        ranked.append((n, i, table_id))
    return [table_id for _, _, table_id in sorted(ranked)]


def _whole(name: str, text: str, allowed: range) -> int:
    # ASCII digits only: ``int`` would take "²" or " 5", and a number of any length.
    if not (text.isascii() and text.isdigit() and len(text) <= 7 and int(text) in allowed):
        raise ApiError("bad_request", _("bad request: {name} must be a whole number from {start} to {value}", name=name, start=allowed.start, value=allowed.stop - 1))
    return int(text)


@dataclass(frozen=True)
class LobbyQuery:
    """What ``GET /api/lobby`` asks for: filters (None: any) and a page.

    ``time_control`` is a kind of clock (:data:`CLOCK_KINDS`) or one control's text
    (``5+5``, ``1d+2d``); ``rating_min`` and ``rating_max`` bound the host's display rating
    at the table's player count (a newcomer's is 1000).

    >>> LobbyQuery.parse([("players", "2"), ("rated", "true"), ("time_control", "5+05")])
    LobbyQuery(players=2, size=None, rated=True, time_control='5+5', rating_min=None, rating_max=None, offset=0, limit=20)
    >>> LobbyQuery.parse([("size", "11")])
    Traceback (most recent call last):
    ...
    omega.server.errors.ApiError: bad request: size must be a whole number from 5 to 10
    """

    players: int | None = None
    size: int | None = None
    rated: bool | None = None
    time_control: str | None = None
    rating_min: int | None = None
    rating_max: int | None = None
    offset: int = 0
    limit: int = LOBBY_PAGE

    @classmethod
    def parse(cls, params: Sequence[tuple[str, str]]) -> LobbyQuery:
        """The query of the URL's parameters (each at most once); ``bad_request`` naming the
        first problem, so nothing is listed under a filter the caller did not mean."""
        given: dict[str, str] = {}
        for name, value in params:
            if name not in _PARAMETERS:
                raise ApiError("bad_request", _("bad request: the lobby has no parameter {name} (it takes {values})", name=f"{name[:40]!r}", values=', '.join(_PARAMETERS)))
            if name in given:
                raise ApiError("bad_request", _("bad request: {name} given twice", name=name))
            given[name] = value
        found: dict[str, Any] = {}
        for name, allowed in (("players", TABLE_PLAYERS), ("size", TABLE_SIZES), ("rating_min", RATING_BOUNDS),
                              ("rating_max", RATING_BOUNDS), ("offset", range(0, 1_000_001)),
                              ("limit", range(1, LISTED_MAX + 1))):
            if name in given:
                found[name] = _whole(name, given[name], allowed)
        if "rated" in given:
            if given["rated"] not in ("true", "false"):
                raise ApiError("bad_request", _("bad request: rated must be true or false"))
            found["rated"] = given["rated"] == "true"
        if "time_control" in given:
            text = given["time_control"]
            if text not in CLOCK_KINDS:
                try:
                    control = TimeControl.parse(text) if text.strip() else None
                except ValueError as e:
                    control, why = None, f" ({e})"
                else:
                    why = ""
                if control is None or not control.timed:
                    raise ApiError("bad_request", _("bad request: time_control must be {values} or a time control such as 5+5 or 1d{why}", values=', '.join(CLOCK_KINDS), why=why))
                text = control.text
            found["time_control"] = text
        query = cls(**found)
        if query.rating_min is not None and query.rating_max is not None and query.rating_min > query.rating_max:
            raise ApiError("bad_request", _("bad request: rating_min must not be above rating_max"))
        return query

    def clock_matches(self, text: str | None) -> bool:
        """Whether a table's ``time_control`` column (None: untimed) passes the filter.

        >>> q = LobbyQuery(time_control="turn_based")
        >>> q.clock_matches("1d+2d"), q.clock_matches("5+5"), q.clock_matches(None)
        (True, False, False)
        """
        wanted = self.time_control
        if wanted is None:
            return True
        kind = TimeControl.parse(text).kind if text is not None else "untimed"
        return kind == wanted if wanted in CLOCK_KINDS else text == wanted


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

    def tell(self, messages: dict[int, dict[str, Any]]) -> None:
        """Per account, a message for its sockets here (another feature's news: a challenge)."""
        for sub in self.subscribers:
            if sub.user_id is not None and sub.user_id in messages:
                sub.offer(messages[sub.user_id])

    def users(self) -> set[int]:
        """The accounts with a lobby socket open here."""
        return {sub.user_id for sub in self.subscribers if sub.user_id is not None}

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
        await stop_task(self._task)

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

    def __init__(self, core: TableCore, ratings: RatingStore, limits: Limits | None = None) -> None:
        self.core = core
        self.ratings = ratings
        self.limits = limits or Limits()
        self.feed = LobbyFeed(self)
        # Counting an account's and an address's open tables and opening one more are one
        # step in this process, so a burst of requests cannot all pass the count at once.
        # N processes may each count at the same moment: a cap can be passed by N - 1.
        self._opening = asyncio.Lock()
        #: Told of a quick-play match made here: (table id, {user id: seat}).
        self.on_match: Callable[[str, dict[int, int]], None] = self.feed.matched

    # -- notifications ------------------------------------------------------------------------

    def _notify(self, w: Writer, table_id: str) -> None:
        w.notify(f"{self.core.server_id}:{LOBBY_TOPIC}:{table_id}")

    def remote_change(self, table_id: str) -> None:
        """Another process changed a listed table (PostgreSQL NOTIFY)."""
        self.feed.changed(table_id)

    # -- opening, taking, cancelling ---------------------------------------------------------------

    async def open_table(self, user: User, new: NewTable, owner: str, address: str) -> dict[str, Any]:
        """A new open table, the creator's seat held by ``user`` (asking from ``address``);
        listed until it starts.  ``too_many_open_tables`` when the account or the address has
        as many tables waiting as it may."""
        if new.rated and any(s.kind != "human" for s in new.seats):
            raise ApiError("bad_request", _("bad request: a rated table has no computer seats"))
        if all(s.kind == "computer" for i, s in enumerate(new.seats) if i != new.creator_seat):
            raise ApiError("bad_request", _("bad request: an open table needs at least one free seat for a person"))
        if new.rated:
            await self.core.check_rated([user.id])
        async with self._opening:
            mine, here = await self.core.db(self._open_counts, user.id, address)
            if mine >= self.limits.lobby_open_per_account:
                raise ApiError("too_many_open_tables", _too_many(mine, True))
            if here >= self.limits.lobby_open_per_address:
                raise ApiError("too_many_open_tables", _too_many(here, False))
            created = await self.core.create(replace(new, name=user.username, creator_user=user.id, open=True),
                                             owner=owner)
            await self._record_opening(created["id"], address)
        self.feed.changed(created["id"])
        return created

    def _open_counts(self, user_id: int, address: str) -> tuple[int, int]:
        """How many lobby tables wait for players that ``user_id`` opened, and that were
        opened from ``address`` (by any account)."""
        waiting = and_(TableRow.open.is_(True), TableRow.status == "waiting")
        with self.core.repo.engine.connect() as conn:
            mine = conn.execute(select(func.count()).select_from(TableRow).join(
                SeatRow, and_(SeatRow.table_id == TableRow.id, SeatRow.idx == TableRow.creator_seat))
                .where(waiting, SeatRow.user_id == user_id)).scalar_one()
            here = conn.execute(select(func.count()).select_from(OpeningRow).join(
                TableRow, TableRow.id == OpeningRow.table_id).where(waiting, OpeningRow.address == address)).scalar_one()
            conn.rollback()
        return int(mine), int(here)

    async def _record_opening(self, table_id: str, address: str) -> None:
        # The table's creation commits through the core; the lobby's own row (the address
        # its cap counts) and the notification for other processes follow in a small write.
        def run(w: Writer | None) -> None:
            if w is not None:
                w.conn.execute(insert(OpeningRow).values(table_id=table_id, address=address[:64]))
                if self.core.repo.is_postgres:
                    self._notify(w, table_id)

        await self.core.commits.run(table_id, run, lambda _: None)

    async def take(self, user: User, table_id: str, seat: int | None) -> dict[str, Any]:
        """Seat ``user`` at a free seat (``seat``, or the first free one) of an open table."""
        def decision(state: TableState, w: Writer, now: datetime) -> Decided:
            c = state.config
            if not c.open:
                raise ApiError("forbidden", _("this table is not open in the lobby; join it by its invite link"))
            if state.cancelled:
                raise ApiError("conflict", _("this table was cancelled"))
            if not state.waiting:
                raise ApiError("conflict", _("every seat is taken: the game has started"))
            if _seat_of(w.conn, table_id, user.id) is not None:
                raise ApiError("conflict", _("you already have a seat at this table"))
            if c.rated:
                self.core.refuse_rated(w.conn, [user.id], now)
            free = [i for i, s in enumerate(c.seats) if s.kind == "human" and not state.joined[i]]
            chosen = free[0] if seat is None else seat
            if chosen not in free:
                raise ApiError("conflict", _("seat {seat} is not free; free seats left: {free}", seat=chosen + 1, free=len(free))
                               if 0 <= chosen < c.players else _("there is no seat {seat} at this table", seat=chosen + 1))
            bound = w.conn.execute(update(SeatRow).where(
                SeatRow.table_id == table_id, SeatRow.idx == chosen, SeatRow.user_id.is_(None)).values(user_id=user.id))
            if bound.rowcount != 1:  # held by an account already: the log and the seats disagree
                raise ApiError("conflict", _("seat {value} is not free", value=chosen + 1))
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
                raise ApiError("forbidden", _("only an open table of the lobby can be cancelled"))
            host = state.host
            if host is None or _seat_of(w.conn, table_id, user.id) != host:
                raise ApiError("forbidden", _("only the table's creator can cancel it"))
            events = decide_cancel(state, now)
            self._notify(w, table_id)
            return events

        written = await self.core.write(table_id, decision)
        self.feed.changed(table_id)
        return {"id": table_id, "state": written.view(None)}

    # -- reading ------------------------------------------------------------------------------

    async def listing(self, query: LobbyQuery | None = None) -> dict[str, Any]:
        """A page of the open tables that wait for players and pass ``query``'s filters, in
        the fair order (:func:`fair_order`, newest first), and how many pass in all:
        ``{"tables", "total", "offset", "limit"}``."""
        q = query or LobbyQuery()
        ids, total = await self.core.db(self._page, q)
        listed = await self.core.db(self._read, ids) if ids else {}
        return {"tables": [listed[t] for t in ids if t in listed], "total": total, "offset": q.offset,
                "limit": q.limit}

    def _page(self, q: LobbyQuery) -> tuple[list[str], int]:
        """The ids of the page ``q`` asks for, and how many tables pass its filters.

        Every waiting table's few columns are read: a table's place depends on its creator's
        other tables, and the caps bound how many each account and address has waiting."""
        query = (select(TableRow.id, TableRow.players, TableRow.time_control, SeatRow.user_id)
                 .outerjoin(SeatRow, and_(SeatRow.table_id == TableRow.id, SeatRow.idx == TableRow.creator_seat))
                 .where(TableRow.open.is_(True), TableRow.status == "waiting"))
        if q.players is not None:
            query = query.where(TableRow.players == q.players)
        if q.size is not None:
            query = query.where(TableRow.size == q.size)
        if q.rated is not None:
            query = query.where(TableRow.rated == q.rated)
        with self.core.repo.engine.connect() as conn:
            rows = conn.execute(query.order_by(TableRow.created_at.desc(), TableRow.id.desc())).all()
            conn.rollback()
        rows = [r for r in rows if q.clock_matches(r.time_control)]
        if q.rating_min is not None or q.rating_max is not None:
            low = q.rating_min if q.rating_min is not None else RATING_BOUNDS.start
            high = q.rating_max if q.rating_max is not None else RATING_BOUNDS.stop - 1
            hosts: dict[int, set[int]] = {}
            for r in rows:
                if r.user_id is not None:
                    hosts.setdefault(r.players, set()).add(r.user_id)
            known = {n: self.ratings.of_users(sorted(users), n) for n, users in hosts.items()}
            newcomer = self.ratings.unrated()["display"]

            def shown(r: Any) -> int:
                rating = known.get(r.players, {}).get(r.user_id) if r.user_id is not None else None
                return int(rating["display"]) if rating is not None else int(newcomer)

            rows = [r for r in rows if low <= shown(r) <= high]
        # A table whose creator's seat names no account (none the lobby opens) is its own creator.
        order = fair_order([(r.id, r.user_id if r.user_id is not None else f"table:{r.id}") for r in rows])
        return order[q.offset:q.offset + q.limit], len(order)

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

    def _read(self, table_ids: list[str]) -> dict[str, dict[str, Any]]:
        """The summaries of those of ``table_ids`` that wait for players (the callers bound
        how many: a page, or the tables changed since the feed last read)."""
        query = select(TableRow).where(TableRow.open.is_(True), TableRow.status == "waiting",
                                       TableRow.id.in_(table_ids))
        with self.core.repo.engine.connect() as conn:
            rows = conn.execute(query.order_by(TableRow.created_at, TableRow.id)).all()
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
            configs = [SeatConfig(s.kind, s.level) for s in by_table[r.id]]
            for s in by_table[r.id]:
                color = Color(s.idx).label
                if s.kind == "computer":
                    name = default_name(s.idx, SeatConfig(s.kind, s.level), configs)
                    listed.append({**seat_summary(s.idx, color, None, None), "computer": s.level,
                                   "name": name, "name_text": message_json(name)})
                else:
                    rating = ratings.get(s.user_id) if s.user_id is not None else None
                    if s.user_id is not None and rating is None:
                        rating = self.ratings.unrated()
                    listed.append(seat_summary(s.idx, color, s.username, rating))
            out[r.id] = {
                "id": r.id, "players": r.players, "size": r.size, "pie_rule": r.pie_rule, "rated": bool(r.rated),
                "time_control": r.time_control,  # None: untimed
                "created_at": iso(r.created_at),
                "host": r.creator_seat,
                "free": sum(1 for s in by_table[r.id] if s.kind == "human" and s.user_id is None),
                "seats": listed,
            }
        return out


def _too_many(count: int, account: bool) -> Message:
    """The message of ``too_many_open_tables`` (the one home of its words), for an account's
    tables or an address's.

    >>> _too_many(5, True)
    'your account has 5 open tables waiting for players, the most one account may have: cancel one, or wait until one starts'
    """
    if account:
        return _("your account has {count} open tables waiting for players, the most one account may have: "
                 "cancel one, or wait until one starts", count=count)
    return _("your address has {count} open tables waiting for players, the most one address may have: "
             "cancel one, or wait until one starts", count=count)


def _seat_of(conn: Connection, table_id: str, user_id: int) -> int | None:
    """The seat ``user_id``'s account holds at the table, read inside the write."""
    found = conn.execute(select(SeatRow.idx).where(SeatRow.table_id == table_id, SeatRow.user_id == user_id)
                         ).scalar_one_or_none()
    return None if found is None else int(found)
