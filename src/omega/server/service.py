"""The action loop: authenticate, check the seat to move and the version, decide with the
table (``Game``), store the events, then push them to sockets and wake the computer.

One :class:`TableService` runs per server process.  It caches each table's
:class:`~omega.server.tables.TableState` and serialises the actions of one table with an
``asyncio.Lock``; across processes the database serialises them (row lock / single writer)
and the cache catches up from the event log inside the write transaction, so a cached
table is never trusted over the database.

Blocking database work runs in a thread pool, never on the event loop.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import zlib
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from sqlalchemy.exc import IntegrityError

from omega.game import Action, Game
from omega.record import to_json
from omega.server.pubsub import Delivery, Hub, PgListener
from omega.server.schemas import CreateTable
from omega.server.storage import Repository, Writer
from omega.server.tables import (
    ActionT,
    ApiError,
    Event,
    SeatConfig,
    SwapAction,
    TableConfig,
    TableState,
    TurnAction,
    action_fingerprint,
    game_view,
)

__all__ = ["TableService", "hash_token", "Settings"]

log = logging.getLogger("omega.server")
T = TypeVar("T")


def hash_token(token: str) -> str:
    """Tokens are stored only as SHA-256 digests.

    >>> len(hash_token("abc"))
    64
    """
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class Settings:
    """Tunable limits and timings of a server process."""

    #: Events a reconnecting socket may be sent one by one before it gets a sync instead.
    max_replay_events: int = 500
    #: Seconds between sweeps (heartbeat, dead processes, pending computer turns).
    sweep_interval: float = 2.0
    #: A process whose heartbeat is older than this is dead (PostgreSQL only; with SQLite
    #: one process owns the file, so every other process row is dead at start-up).
    dead_after: float = 20.0
    #: Tables kept in memory.
    cache_size: int = 5000
    #: Database threads (None: 16 for PostgreSQL; 2 for SQLite, whose writes are serial
    #: anyway and where more threads only fight over the GIL while holding the write lock).
    db_threads: int | None = None


@dataclass
class _Cached:
    state: TableState
    seat_hashes: list[str | None]
    spectator_hash: str
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class TableService:
    """Tables of one server process: actions, reads, presence, and event fan-out."""

    def __init__(self, repo: Repository, settings: Settings | None = None) -> None:
        self.repo = repo
        self.settings = settings or Settings()
        self.server_id = secrets.token_hex(8)
        self.hub = Hub()
        self._cache: OrderedDict[str, _Cached] = OrderedDict()
        self._loading: dict[str, asyncio.Lock] = {}
        threads = self.settings.db_threads or (16 if repo.is_postgres else 2)
        self._executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="omega-db")
        self._listener: PgListener | None = None
        self._sweeper: asyncio.Task[None] | None = None
        #: Called with a table id whenever a computer may be to move there.
        self.on_computer_turn: Callable[[str], None] = lambda _id: None

    # -- life cycle -------------------------------------------------------------------------

    async def start(self) -> None:
        """Migrate, register this process, clean up after dead ones, start listening."""
        await self._db(self.repo.migrate)
        await self._db(self.repo.register_server, self.server_id)
        if self.repo.is_postgres:
            url = self.repo.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
            self._listener = PgListener(url, self.server_id, self._remote_event, self.hub.resync_all)
            self._listener.start()
            await asyncio.wait_for(self._listener.ready.wait(), 30)
        await self.sweep(first=True)
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep_forever())

    async def stop(self) -> None:
        """Stop background work, withdraw this process's presence, release the database."""
        if self._sweeper is not None:
            self._sweeper.cancel()
        try:
            # Sockets are closed by now: say so at once rather than when others find us dead.
            for table_id, seat in await self._db(self.repo.presence_of, self.server_id):
                await self._presence(table_id, seat, self.server_id, -(10**9))
            await self._db(self.repo.forget_server, self.server_id)
        except Exception:
            log.exception("could not withdraw presence at shutdown")
        if self._listener is not None:
            await self._listener.stop()
        self._executor.shutdown(wait=True)
        self.repo.engine.dispose()

    async def _db(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(self.settings.sweep_interval)
            try:
                await self.sweep()
            except Exception:
                log.exception("sweep failed")

    async def sweep(self, first: bool = False) -> None:
        """Heartbeat; clear presence left by dead processes; wake pending computer turns."""
        await self._db(self.repo.heartbeat, self.server_id)
        max_age = self.settings.dead_after if self.repo.is_postgres else None
        if first or self.repo.is_postgres:
            for dead in await self._db(self.repo.dead_servers, self.server_id, max_age):
                for table_id, seat in await self._db(self.repo.presence_of, dead):
                    await self._presence(table_id, seat, dead, -(10**9))
                await self._db(self.repo.forget_server, dead)
        for table_id in await self._db(self.repo.pending_computer_tables):
            self.on_computer_turn(table_id)

    # -- the table cache --------------------------------------------------------------------

    async def _get(self, table_id: str) -> _Cached:
        if len(table_id) > 32:  # longer than any id: no need to ask the database
            raise ApiError("not_found", "there is no such table")
        cached = self._cache.get(table_id)
        if cached is not None:
            self._cache.move_to_end(table_id)
            return cached
        lock = self._loading.setdefault(table_id, asyncio.Lock())
        async with lock:
            cached = self._cache.get(table_id)
            if cached is None:
                stored = await self._db(self.repo.load, table_id)
                if stored is None:
                    self._loading.pop(table_id, None)
                    raise ApiError("not_found", f"there is no table {table_id!r}")
                state = TableState(stored.config)
                for e in stored.events:
                    state.apply(e)
                cached = _Cached(state, stored.seat_hashes, stored.spectator_hash)
                self._remember(table_id, cached)
        self._loading.pop(table_id, None)
        return cached

    def _remember(self, table_id: str, cached: _Cached) -> None:
        self._cache[table_id] = cached
        excess = len(self._cache) - self.settings.cache_size
        if excess <= 0:
            return
        # Forget the least recently used tables that no socket watches and no write holds;
        # a forgotten table is simply loaded again from its events when needed.
        for old_id in list(self._cache):
            if excess <= 0:
                break
            old = self._cache[old_id]
            if old_id != table_id and not self.hub.has(old_id) and not old.lock.locked():
                del self._cache[old_id]
                excess -= 1

    async def _fresh(self, table_id: str) -> _Cached:
        """The cached table, caught up with events other processes stored."""
        cached = await self._get(table_id)
        version = await self._db(self.repo.version, table_id)
        if version is not None and version > cached.state.version:
            async with cached.lock:
                await self._catch_up(table_id, cached)
        return cached

    async def _catch_up(self, table_id: str, cached: _Cached) -> None:
        """Apply events other processes stored, and push them to this process's sockets
        (whoever catches up delivers, so no event is applied without being delivered).
        The caller holds ``cached.lock``."""
        events = await self._db(self.repo.events_after, table_id, cached.state.version)
        out = []
        for e in events:
            cached.state.apply(e)
            out.append(Delivery(e.version, e.public(), cached.state.view(viewer=False)))
        self.hub.deliver(table_id, out)

    def _remote_event(self, table_id: str, version: int) -> None:
        if self.hub.has(table_id):
            asyncio.get_running_loop().create_task(self._deliver_remote(table_id))

    async def _deliver_remote(self, table_id: str) -> None:
        try:
            cached = await self._get(table_id)
            async with cached.lock:
                await self._catch_up(table_id, cached)
            if cached.state.computer_to_move():
                self.on_computer_turn(table_id)
        except Exception:
            log.exception("could not deliver remote events of table %s", table_id)

    # -- authentication -----------------------------------------------------------------------

    @staticmethod
    def _who(cached: _Cached, token: str | None) -> int | None:
        """The seat a token holds (None for the spectator key); ApiError otherwise."""
        if not token:
            raise ApiError("auth_required", "this needs a seat token or the spectator key")
        digest = hash_token(token)
        for i, h in enumerate(cached.seat_hashes):
            if h is not None and secrets.compare_digest(h, digest):
                return i
        if secrets.compare_digest(cached.spectator_hash, digest):
            return None
        raise ApiError("forbidden", "this token belongs to no seat of this table")

    async def authenticate(self, table_id: str, token: str | None, fresh: bool = True,
                           join: bool = True) -> int | None:
        """The viewer's seat (None: spectator); records a seat's first visit as a ``join``.

        ``fresh`` catches the cached table up with other processes first (for reads; writes
        catch up inside their transaction anyway)."""
        cached = await (self._fresh(table_id) if fresh else self._get(table_id))
        seat = self._who(cached, token)
        if join and seat is not None and not cached.state.joined[seat]:
            await self._write(table_id, lambda st, w: [] if st.joined[seat] else [Event("join", {"seat": seat})])
        return seat

    # -- writing ----------------------------------------------------------------------------------

    async def _write(
        self, table_id: str, decide: Callable[[TableState, Writer], list[Event]],
    ) -> tuple[_Cached, list[Event]]:
        """Run ``decide`` on the up-to-date table inside a write transaction, store its events,
        and only then push them to sockets.  Returns the table and the stored events."""
        cached = await self._get(table_id)
        async with cached.lock:
            state = cached.state
            # Events applied to the cache, to be pushed to sockets whatever decide says: a
            # refused action may still have caught the cache up with other processes' events.
            applied: list[Delivery] = []

            def transaction() -> list[Event]:
                with self.repo.write(table_id) as w:
                    if w is None:
                        raise ApiError("not_found", f"there is no table {table_id!r}")
                    if w.version != state.version:  # another process wrote: catch up first
                        for e in w.events_after(state.version):
                            state.apply(e)
                            applied.append(Delivery(e.version, e.public(), state.view(viewer=False)))
                    events = decide(state, w)
                    if not events:
                        return []
                    # Where the table stands after these events, for the row's denormalised columns.
                    trial = state.copy()
                    for i, e in enumerate(events, start=1):
                        trial.apply(e.with_version(state.version + i))
                    stored = w.append(events, status=trial.status, to_move_seat=trial.to_move_seat(),
                                      ai_pending=trial.computer_to_move())
                    w.notify(f"{self.server_id}:{table_id}:{w.version}")
                # Committed: now the cache may move on.
                for e in stored:
                    state.apply(e)
                    applied.append(Delivery(e.version, e.public(), state.view(viewer=False)))
                return stored

            try:
                stored = await self._db(transaction)
            finally:
                self.hub.deliver(table_id, applied)
        if cached.state.computer_to_move() and (stored or applied):
            self.on_computer_turn(table_id)
        return cached, stored

    async def create(self, req: CreateTable) -> dict[str, Any]:
        """Create a table; the answer holds every human seat's token and the spectator key."""
        assert req.seats is not None
        seats = tuple(SeatConfig(s.kind, getattr(s, "level", None)) for s in req.seats)
        humans = [i for i, s in enumerate(seats) if s.kind == "human"]
        creator = req.creator_seat if req.creator_seat is not None else humans[0]
        tokens = {i: secrets.token_urlsafe(24) for i in humans}
        spectator = secrets.token_urlsafe(24)
        created = datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
        hashes = [hash_token(tokens[i]) if i in tokens else None for i in range(req.players)]
        for attempt in range(5):
            # 48 random bits per id: a clash is rare, and then another id is drawn.
            config = TableConfig(secrets.token_urlsafe(6), req.players, req.size, req.pie_rule, created, seats)
            state = TableState(config)
            try:
                await self._db(self.repo.create_table, config, hashes, hash_token(spectator),
                               state.computer_to_move())
                break
            except IntegrityError:
                if attempt == 4:
                    raise
        cached = _Cached(state, hashes, hash_token(spectator))
        self._remember(config.id, cached)
        # The creator has joined (and named their seat) by creating the table.
        first = [Event("join", {"seat": creator})]
        if req.name is not None:
            first.append(Event("name", {"seat": creator, "name": req.name}))
        await self._write(config.id, lambda st, w: first)
        return {
            "id": config.id, "seat": creator, "token": tokens[creator],
            "invites": {str(i): t for i, t in tokens.items()}, "spectator_key": spectator,
            "state": cached.state.view(creator),
        }

    async def act(self, table_id: str, token: str | None, action: ActionT, request_id: str,
                  version: int | None) -> dict[str, Any]:
        """A seat's turn, swap or resignation; answers only once it is stored."""
        # A first action joins the seat in the same transaction, after the version check.
        seat = await self.authenticate(table_id, token, fresh=False, join=False)
        if seat is None:
            raise ApiError("forbidden", "spectators cannot act")
        fingerprint = action_fingerprint(action)
        answer: dict[str, int] = {}

        def decide(state: TableState, w: Writer) -> list[Event]:
            first = state.requests.get(request_id)
            if first is not None:  # a retry: the first answer, never a second move
                first_version, first_seat, first_fp = first
                if first_seat != seat or first_fp != fingerprint:
                    raise ApiError("conflict", "this request_id was already used for another action")
                answer["version"] = first_version
                return []
            # Stale only if the play changed after the version the client saw: a player
            # arriving or renaming does not make a turn chosen on the same position stale.
            if version is not None and not state.play_version <= version <= state.version:
                raise ApiError("stale_version", f"the table is at version {state.version}, not {version}")
            events = state.decide(seat, action)
            events[0] = Event(events[0].kind, events[0].data, seat=seat, request_id=request_id,
                              fingerprint=fingerprint)
            if not state.joined[seat]:
                events.insert(0, Event("join", {"seat": seat}))
            return events

        cached, stored = await self._write(table_id, decide)
        for e in stored:
            if e.request_id == request_id:
                answer["version"] = e.version
        return {"version": answer["version"], "state": cached.state.view(seat)}

    async def act_computer(self, table_id: str, version: int, action: Action) -> bool:
        """Play the computer's action chosen at ``version``; False if the table moved on."""
        table_action: ActionT = SwapAction() if action == "swap" else TurnAction(cells=tuple(action))

        def decide(state: TableState, w: Writer) -> list[Event]:
            if state.version != version or not state.computer_to_move():
                return []
            return state.decide(None, table_action)

        _, stored = await self._write(table_id, decide)
        return bool(stored)

    async def rename(self, table_id: str, token: str | None, name: str) -> dict[str, Any]:
        """Change the display name of the token's seat."""
        seat = await self.authenticate(table_id, token, fresh=False)
        if seat is None:
            raise ApiError("forbidden", "spectators have no seat to name")
        cached, _ = await self._write(
            table_id, lambda st, w: [] if st.names[seat] == name else [Event("name", {"seat": seat, "name": name})])
        return cached.state.view(seat)

    async def presence(self, table_id: str, seat: int, delta: int) -> None:
        """A seat's socket opened (+1) or closed (-1) on this process."""
        await self._presence(table_id, seat, self.server_id, delta)

    async def _presence(self, table_id: str, seat: int, server_id: str, delta: int) -> None:
        def decide(state: TableState, w: Writer) -> list[Event]:
            total = w.presence_add(seat, server_id, delta)
            if total == state.connections[seat]:
                return []
            return [Event("presence", {"seat": seat, "connected": total > 0, "connections": total})]

        await self._write(table_id, decide)

    # -- reading ------------------------------------------------------------------------------------

    async def state(self, table_id: str, token: str | None) -> dict[str, Any]:
        """The table state for a seat token or the spectator key."""
        seat = await self.authenticate(table_id, token)
        return (await self._get(table_id)).state.view(seat)

    async def sync(self, table_id: str, seat: int | None) -> tuple[int, dict[str, Any]]:
        """Current version and state (for a WebSocket sync)."""
        cached = await self._fresh(table_id)
        async with cached.lock:
            return cached.state.version, cached.state.view(seat)

    async def events_since(self, table_id: str, since: int) -> list[Delivery] | None:
        """Every event after ``since`` with the state after each, or None if a sync is better
        (``since`` unknown or too far behind)."""
        cached = await self._fresh(table_id)
        current = cached.state.version
        if since > current or since < 0 or current - since > self.settings.max_replay_events:
            return None
        if since == current:
            return []

        def rebuild() -> list[Delivery] | None:
            # In a database thread: hundreds of states of a big board would stall the loop.
            stored = self.repo.load(table_id)
            if stored is None:
                return None
            replay = TableState(stored.config)
            out = []
            for e in stored.events:
                replay.apply(e)
                if e.version > since:
                    out.append(Delivery(e.version, e.public(), replay.view(viewer=False)))
            return out

        return await self._db(rebuild)

    async def record(self, table_id: str, token: str | None) -> tuple[str, dict[str, Any]]:
        """The text and JSON records of the table's game."""
        seat = await self.authenticate(table_id, token)
        del seat
        state = (await self._get(table_id)).state
        tags = state.record_tags()
        data = to_json(state.game, tags)
        data["table"] = {"id": state.config.id, "status": state.status,
                         "ranking": state.view(viewer=False)["game"]["ranking"],
                         "resigned": [state.game.color_of(s).label for s in state.resigned]}
        return state.game.record(tags), data

    async def replay(self, table_id: str, token: str | None, at: int) -> dict[str, Any]:
        """The game view after the first ``at`` history entries."""
        await self.authenticate(table_id, token)
        state = (await self._get(table_id)).state
        history = state.game.history
        if not 0 <= at <= len(history):
            raise ApiError("bad_request", f"bad request: at must be from 0 to {len(history)}")
        game = Game(players=state.config.players, size=state.config.size, pie_rule=state.config.pie_rule)
        for action in history[:at]:
            game.apply(action)
        final = at == len(history)
        view = game_view(game, state.resigned if final else (), state.over if final else None)
        view["at"] = at
        view["length"] = len(history)
        return view

    async def computer_job(self, table_id: str) -> tuple[int, int, int, Game] | None:
        """(version, level, seed, game) when a computer is to move at ``table_id``, else None."""
        cached = await self._fresh(table_id)
        state = cached.state
        if not state.computer_to_move():
            return None
        seed = zlib.crc32(f"{table_id}:{state.version}".encode())
        return state.version, state.computer_level(), seed, state.game.copy()
