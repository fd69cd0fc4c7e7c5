"""The one action path: identity -> seat -> version -> decide -> persist -> broadcast.

:class:`TableCore` holds this process's cache of tables and is the only place that writes
a table's events.  Every change goes through :meth:`TableCore.write`:

1. serialise: the table's ``asyncio.Lock`` in this process, and a write transaction that
   locks the table row (PostgreSQL) or the database (SQLite) across processes;
2. catch up: events other processes stored since the cache last looked are applied first;
3. decide: a function of the up-to-date state and ``now`` (the injected clock's time) says
   which events the change makes, with the table after them (a
   :class:`~omega.server.tables.decide.Decided`: each event applied once, to a copy), or raises
   :class:`~omega.server.errors.ApiError`;
4. persist: the events, the table row and the table's due work (a computer to move) are
   committed together, the last two read from the decided table;
5. broadcast: only after the commit does the cache take the decided table (nothing is
   applied again) and this process's sockets get the events; other processes hear of them
   through the database, published after the commit (``pubsub.Publisher``), and catch up
   by version should a notification be lost (:meth:`TableCore.catch_up_watched`).

A person's action (:meth:`TableCore.act`) adds, before deciding, the identity's seat, the
request id (a retry gets its first answer) and the version the client saw.  Computer turns
take the same path with the :data:`~omega.server.tables.identity.COMPUTER` identity.

Blocking database work runs in a thread pool (:meth:`TableCore.db`), never on the event loop.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import zlib
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError, IntegrityError

from omega.i18n import translatable as _
from omega.server.clock import Clock, stamp
from omega.server.config import Settings
from omega.server.errors import ApiError
from omega.server.infra.due import Due
from omega.server.infra.metrics import Metrics
from omega.server.infra.pubsub import WORK_TAG, Delivery, Hub, PresenceNote, Publisher
from omega.server.tables.actions import Action, ClaimAction, action_fingerprint
from omega.server.tables.commits import Commits
from omega.server.tables.decide import (
    Decided,
    decide,
    decide_join,
    decide_timeout,
)
from omega.server.tables.events import Event, Joined, LinksRenewed, Renamed, TimedOut
from omega.server.tables.flags import (
    FlagPolicy,
    due_at,
    due_work,
    log_timeout,
    near_decision,
    pause_decision,
    timeout_decision,
)
from omega.server.tables.identity import (
    Authenticator,
    Credentials,
    Identity,
    SeatHolder,
    Spectator,
    TableKeys,
    hash_token,
    new_token,
)
from omega.server.tables.state import (
    COMPUTER_TURN,
    DUE_KINDS,
    PresenceCount,
    TableConfig,
    TableState,
)
from omega.server.tables.store import Repository, Writer, deliveries_after
from omega.server.tables.values import (
    Acted,
    Cached,
    ComputerJob,
    D,
    NewTable,
    StoredWrite,
    Turned,
    WriteProgress,
    Written,
    seat_of,
    viewer_seat,
)

__all__ = ["TableCore", "Decision", "EndHook", "StoredHook", "RatedGate", "RATED_BANNED"]

log = logging.getLogger("omega.server")
T = TypeVar("T")
#: What a write decides: the events for the up-to-date state at ``now``, with the table
#: after them (the writer is there for decisions that read or count other rows in the same
#: transaction).  Decided on the state it is given (``Decided.before``).
Decision = Callable[[TableState, Writer, datetime], D]
#: Told inside the transaction that stores a game's end: the writer, the table as the end
#: left it, and the events being stored (the ratings are updated so, in the same commit).
EndHook = Callable[[Writer, TableState, list[Event]], None]
#: Told inside the transaction of every write that stores events: the writer, the table
#: before and after them, and the events (features that react to a turn hook here: notify).
StoredHook = Callable[[Writer, TableState, TableState, list[Event]], None]
#: Asked inside a transaction that would seat accounts at a rated table (a rated lobby table
#: opened or taken, the quick-play queue and its matches, a rated tournament joined): which
#: of the accounts may not play rated at ``now``.  The moderation feature sets it
#: (``TableCore.rated_gate``); without one every account may.
RatedGate = Callable[[Connection, Sequence[int], datetime], frozenset[int]]
#: What an account barred from rated play is told (``rated_banned``).
RATED_BANNED = _("your account may not play rated games now (a moderator's decision: your account page "
                 "shows until when); casual tables are open to you")


class TableCore:
    """The tables of one server process: the cache, the action path and event fan-out."""

    def __init__(self, repo: Repository, clock: Clock, authenticator: Authenticator,
                 settings: Settings | None = None, metrics: Metrics | None = None) -> None:
        self.repo = repo
        #: This process's figures for ``/metrics``.
        self.metrics = metrics or Metrics()
        self.clock = clock
        self.authenticator = authenticator
        self.settings = settings or Settings()
        self.server_id = secrets.token_hex(8)
        self.hub = Hub()
        self._cache: OrderedDict[str, Cached] = OrderedDict()
        self._loading: dict[str, asyncio.Lock] = {}
        threads = self.settings.db_threads or (16 if repo.is_postgres else 2)
        self._executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="omega-db")
        self.commits = Commits(repo, self.db)
        #: Tells other processes what this one's commits stored, after the commits.
        self.publisher = Publisher(self._send_notes)
        #: Called after a commit stored due work (a computer to move): the scheduler looks.
        self.on_due: Callable[[], None] = lambda: None
        #: Called inside the transaction that ends a game (see :data:`EndHook`); the ratings
        #: feature sets it (``omega.server.ratings.service.install``) in every process that
        #: stores ends: a server, or a worker whose computer plays on for a resigned seat.
        self.on_end: EndHook | None = None
        #: Called inside every transaction that stores events (see :data:`StoredHook`), in
        #: the order added; set at wiring in every process that stores them.
        self.on_stored: list[StoredHook] = []
        #: Asked before a pausable clock's flag falls (see :class:`FlagPolicy`); None: flags
        #: simply fall, and no ``flag_near`` work is kept.
        self.flag_policy: FlagPolicy | None = None
        #: Asked before accounts are seated at a rated table (see :data:`RatedGate`).
        self.rated_gate: RatedGate | None = None

    def barred_from_rated(self, conn: Connection, users: Sequence[int], now: datetime) -> frozenset[int]:
        """Which of ``users`` may not play rated at ``now`` (the :data:`RatedGate`'s answer,
        inside the caller's transaction; none without a gate)."""
        if self.rated_gate is None or not users:
            return frozenset()
        return self.rated_gate(conn, users, now)

    def refuse_rated(self, conn: Connection, users: Sequence[int], now: datetime) -> None:
        """``rated_banned`` if any of ``users`` may not play rated at ``now``."""
        if self.barred_from_rated(conn, users, now):
            raise ApiError("rated_banned", RATED_BANNED)

    async def check_rated(self, users: Sequence[int]) -> None:
        """:meth:`refuse_rated` in a read of its own, at the clock's time."""
        if self.rated_gate is not None:
            await self.db(self.repo.read, lambda conn: self.refuse_rated(conn, users, self.clock.now()))

    async def db(self, fn: Callable[..., T], *args: Any) -> T:
        """Run blocking database work in the database threads."""
        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)
        except DBAPIError as e:
            # A clash of keys is an answer (a retried id, a version taken), not a failure.
            if not isinstance(e, IntegrityError):
                self.metrics.database_error(e)
            raise

    async def note(self, table_id: str, tag: str) -> None:
        """Tell the other server processes something about ``table_id`` that is not an
        event (PostgreSQL NOTIFY ``'server:table:tag'``, heard by their ``PgListener`` as
        ``on_note``), with the publisher's next batch, once what it names is committed:
        returns when the batch is sent; nothing to tell on SQLite, where one process owns the
        database.  ``tag`` is short (no ``:`` or new line): a note names what changed, its
        listeners read the rest."""
        if not self.repo.is_postgres:
            return
        self.publisher.publish([f"{self.server_id}:{table_id}:{tag}"])
        await self.publisher.flush()

    async def _send_notes(self, payloads: list[str]) -> None:
        await self.db(self.repo.publish, payloads)

    def close(self) -> None:
        """Release the database threads and connections."""
        self._executor.shutdown(wait=True)
        self.repo.close()

    @property
    def cached_tables(self) -> int:
        """How many tables this process holds in memory."""
        return len(self._cache)

    # -- the table cache --------------------------------------------------------------------

    async def get(self, table_id: str) -> Cached:
        """The cached table (loaded from its events when needed); ``not_found`` otherwise."""
        if len(table_id) > 32:  # longer than any id: no need to ask the database
            raise ApiError("not_found", _("there is no such table"))
        cached = self._cache.get(table_id)
        if cached is not None:
            self._cache.move_to_end(table_id)
            return cached
        lock = self._loading.setdefault(table_id, asyncio.Lock())
        async with lock:
            cached = self._cache.get(table_id)
            if cached is None:
                stored = await self.db(self.repo.load, table_id)
                if stored is None:
                    self._loading.pop(table_id, None)
                    raise ApiError("not_found", _("there is no table {table_id}", table_id=f"{table_id!r}"))
                state = TableState(stored.config)
                for e in stored.events:
                    state.apply(e)
                state.set_presence(stored.presence)
                cached = Cached(state, stored.keys, stored.owner, stored.creator)
                self._remember(table_id, cached)
        self._loading.pop(table_id, None)
        return cached

    def _remember(self, table_id: str, cached: Cached) -> None:
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

    async def fresh(self, table_id: str) -> Cached:
        """The cached table, caught up with events other processes stored."""
        cached = await self.get(table_id)
        if not self.repo.is_postgres:
            # One process owns an SQLite database (workers need PostgreSQL): every event of
            # a cached table went through this cache, so there is nothing to ask.
            return cached
        version = await self.db(self.repo.version, table_id)
        if version is not None and version > cached.state.version:
            async with cached.lock:
                await self._catch_up(table_id, cached)
        return cached

    async def _catch_up(self, table_id: str, cached: Cached) -> None:
        """Apply events other processes stored, and push them to this process's sockets
        (whoever catches up delivers, so no event is applied without being delivered).
        The caller holds ``cached.lock``."""
        events = await self.db(self.repo.events_after, table_id, cached.state.version)
        if _renews_keys(events):
            # Read after the events: keys at least as new as them, taken before they are applied.
            keys: TableKeys | None = await self.db(self.repo.keys, table_id)
            cached.keys = keys or cached.keys
        out: list[Delivery] = []
        for e in events:
            before = cached.view_before(out)
            cached.state.apply(e)
            out.append(Delivery(e.version, e.public(), cached.state.view(viewer=False), before))
        cached.delivered(out)
        self.hub.deliver(table_id, out)

    def remote_event(self, table_id: str, version: int) -> None:
        """Another process stored an event (PostgreSQL NOTIFY): deliver it to our sockets."""
        if self.hub.has(table_id):
            asyncio.get_running_loop().create_task(self._deliver_remote(table_id))

    async def catch_up_watched(self) -> int:
        """Catch up the tables this process has sockets on whose stored version is ahead of
        the cache: a notification was lost (its process was killed between its commit and
        its publish), and nothing else would tell.  Returns how many were behind.  Run at
        every heartbeat (PostgreSQL; on SQLite every event goes through this process)."""
        watched = [t for t in self.hub.tables() if t in self._cache]
        if not self.repo.is_postgres or not watched:
            return 0
        stored = await self.db(self.repo.versions, watched)
        behind = [t for t, v in stored.items() if t in self._cache and v > self._cache[t].state.version]
        for table_id in behind:
            await self._deliver_remote(table_id)
        return len(behind)

    async def _deliver_remote(self, table_id: str) -> None:
        try:
            cached = await self.get(table_id)
            async with cached.lock:
                await self._catch_up(table_id, cached)
        except Exception:
            log.exception("could not deliver remote events of table %s", table_id)

    # -- presence (live state, not history) ---------------------------------------------------

    def presence_counted(self, table_id: str, count: PresenceCount) -> None:
        """The open-socket counts of a table changed: tell its sockets here if who is
        connected changed (a cached table only: one not in memory is read fresh when loaded).
        A count older than one already taken (two reads that finished out of order) is
        passed over."""
        cached = self._cache.get(table_id)
        if cached is not None and cached.state.set_presence(count):
            self.hub.deliver_presence(table_id, PresenceNote(cached.state.version, cached.state.connected()))

    async def presence_now(self, table_id: str) -> PresenceNote:
        """Who is at the table now, as a presence message says it."""
        cached = await self.get(table_id)
        if self.repo.is_postgres:  # other processes' sockets count too (as for a sync)
            cached.state.set_presence(await self.db(self.repo.presence_count, table_id))
        return PresenceNote(cached.state.version, cached.state.connected())

    def remote_presence(self, table_id: str) -> None:
        """Another process counted sockets of ``table_id`` (PostgreSQL NOTIFY)."""
        if self.hub.has(table_id):
            asyncio.get_running_loop().create_task(self._recount(table_id))

    async def _recount(self, table_id: str) -> None:
        try:
            self.presence_counted(table_id, await self.db(self.repo.presence_count, table_id))
        except Exception:
            log.exception("could not count the sockets of table %s", table_id)

    # -- identity ---------------------------------------------------------------------------

    async def identify(self, table_id: str, credentials: Credentials, *, fresh: bool = True) -> Identity:
        """Who ``credentials`` prove the caller is at ``table_id`` (``fresh`` catches the
        cached table up with other processes first, for reads)."""
        cached = await (self.fresh(table_id) if fresh else self.get(table_id))
        if not fresh:
            # A seat nobody has joined may have had its invite replaced in another process
            # (a joined seat's token never changes): its first action looks at the latest keys.
            who = self._try_identify(credentials, cached.keys)
            if isinstance(who, SeatHolder) and decide_join(cached.state, who.seat, self.clock.now()).events:
                cached = await self.fresh(table_id)
        try:
            return self.authenticator.identify(credentials, cached.keys)
        except ApiError:
            if credentials.token is not None:
                raise
            if credentials.user_id is None:
                if cached.state.config.public:  # a lobby or rated table: anyone may watch
                    return Spectator()
                raise
        # An account found no seat in the cached keys: a seat may have been bound to it
        # since (seats are bound, never unbound), here or in another process.
        cached.keys = replace(cached.keys, seat_users=await self.db(self.repo.seat_users, table_id))
        try:
            return self.authenticator.identify(credentials, cached.keys)
        except ApiError:
            if cached.state.config.public:
                return Spectator()
            raise

    def _try_identify(self, credentials: Credentials, keys: TableKeys) -> Identity | None:
        try:
            return self.authenticator.identify(credentials, keys)
        except ApiError:
            return None

    async def visit(self, table_id: str, who: Identity) -> None:
        """A seat's first visit is recorded as a ``join``."""
        if not isinstance(who, SeatHolder):
            return
        seat = who.seat
        state = (await self.get(table_id)).state
        if not decide_join(state, seat, self.clock.now()).events:
            return
        seen = state.version

        def decision(st: TableState, w: Writer, now: datetime) -> Decided:
            joining = decide_join(st, seat, now)
            _refuse_replaced(joining, seat, seen)
            return joining

        await self.write(table_id, decision)

    # -- the action path ----------------------------------------------------------------------

    async def write(self, table_id: str, decision: Decision[D]) -> Written[D]:
        """Run ``decision`` on the up-to-date table inside a write transaction, store its
        events with the table's due work, and only then take the table it decided and push
        the events to sockets.  Returns what was written."""
        cached = await self.get(table_id)
        loop = asyncio.get_running_loop()
        async with cached.lock:
            state = cached.state
            progress = WriteProgress()

            def transaction(w: Writer | None) -> StoredWrite[D]:
                # Runs inside the transaction (with other tables' writes, on SQLite).
                if w is None:
                    raise ApiError("not_found", _("there is no table {table_id}", table_id=f"{table_id!r}"))
                # The commit's time, read while the table is locked: the writes of one table
                # get their times in the order they are stored, so a move and the flag that
                # races it are decided one after the other on the same clock.
                now = self.clock.now()
                if w.version != state.version:  # another process wrote: catch up first
                    caught = w.events_after(state.version)
                    if _renews_keys(caught):
                        progress.caught_keys = w.keys()
                    for e in caught:
                        before = cached.view_before(progress.applied)
                        state.apply(e)
                        progress.applied.append(Delivery(e.version, e.public(), state.view(viewer=False), before))
                decided = decision(state, w, now)
                assert decided.before is state, "a write's decision is decided on the table it is given"
                if not decided.events:
                    return StoredWrite(decided)
                # Where the table stands after these events (decided, not applied again): the
                # row's derived columns and the work due for it are stored in the same commit.
                after = decided.after
                stored = w.append(decided.events, status=after.status, to_move_seat=after.to_move_seat())
                if self.on_end is not None and after.over and not state.over:
                    self.on_end(w, after, stored)
                for hook in self.on_stored:
                    hook(w, state, after, stored)
                due_before, due = self._due_work(state), self._due_work(after)
                for kind in DUE_KINDS:
                    if kind in due:
                        # A timeout is due when the flag falls; the version fixes that time
                        # (it moves only with the play and pauses), so the same version
                        # keeps its row.
                        if due_before.get(kind) != due[kind]:
                            w.keep_due(kind, due[kind], self._due_at(after, kind) or now)
                    elif kind in due_before:
                        w.drop_due(kind)
                notes = [f"{self.server_id}:{table_id}:{w.version}"]
                if COMPUTER_TURN in due and due_before.get(COMPUTER_TURN) != due[COMPUTER_TURN]:
                    # A computer's turn for whichever process plays them (maybe a worker).
                    notes.append(f"{self.server_id}:{table_id}:{WORK_TAG}")
                return StoredWrite(decided, w.keys() if _renews_keys(stored) else None,
                               tuple(notes) if self.repo.is_postgres else ())

            def committed(result: StoredWrite[D]) -> None:
                # Stored for good: now the cache may move on (and the views are made only for
                # a table some socket of this process watches).
                if result.notes:  # in a database thread: the event loop publishes them
                    loop.call_soon_threadsafe(self.publisher.publish, result.notes)
                if result.keys is not None:
                    cached.keys = result.keys
                    progress.caught_keys = None  # older than this write's own
                decided = result.decided
                if not decided.events:
                    return  # nothing decided (a retry's first answer, a name unchanged)
                if not self.hub.has(table_id):
                    for after in decided.states:
                        state.take(after)
                    cached.recent.clear()  # events went by unseen: the memory has a gap
                    return
                # The cache takes each decided state in turn (each holds its own event's
                # request id), and each event's delivery carries the table as it left it.
                before = cached.view_before(progress.applied)
                for e, after in zip(decided.events, decided.states, strict=True):
                    state.take(after)
                    progress.applied.append(Delivery(e.version, e.public(), state.view(viewer=False), before))
                    before = progress.applied[-1].state

            try:
                result = await self.commits.run(table_id, transaction, committed)
            finally:
                if progress.caught_keys is not None:
                    cached.keys = progress.caught_keys
                cached.delivered(progress.applied)
                self.hub.deliver(table_id, progress.applied)
        stored = result.decided.events
        # Work may be due: a computer to move or a flag, or the end of a game, whose hooks
        # (``on_end``, ``on_stored``) may have kept a feature's work (a tournament's round).
        if stored and (cached.state.due_work() or cached.state.over):
            self.on_due()
        last = progress.applied[-1] if progress.applied else None
        shared = last.state if stored and last is not None and last.version == stored[-1].version else None
        return Written(cached, result.decided, shared)

    async def act(self, table_id: str, who: Identity, action: Action, *, request_id: str | None = None,
                  version: int | None = None) -> Acted | None:
        """An action by ``who``; answers only once it is stored.

        ``request_id`` makes a retry safe (the first answer again, never a second move);
        ``version`` is the table version the action was chosen at: ``stale_version`` if the
        play changed since (a player arriving or renaming does not count).  For the computer
        (no request id) a stale action is dropped: None.
        """
        seat = seat_of(who)
        fingerprint = action_fingerprint(action)
        # The version the caller was identified at (the table is cached by then).
        known = self._cache.get(table_id)
        seen = known.state.version if known is not None else None

        def decision(state: TableState, w: Writer, now: datetime) -> Turned:
            first = state.requests.get(request_id) if request_id is not None else None
            if first is not None:  # a retry: the first answer, never a second move
                first_version, first_seat, first_fp = first
                if first_seat != seat or first_fp != fingerprint:
                    raise ApiError("conflict", _("this request_id was already used for another action"))
                return Turned(state, first_version=first_version)
            if version is not None and not state.play_version <= version <= state.version:
                if seat is None:
                    return Turned(state)  # the computer chose on a position that is gone
                raise ApiError("stale_version", _("the table is at version {version}, not {version2}", version=state.version, version2=version))
            if isinstance(action, ClaimAction):
                # Whether the absent seat's player is gone is asked of every process's sockets.
                state.set_presence(w.presence())
            # A seat's first action joins it in the same transaction: the action is decided
            # on the table its join leaves.
            joining = decide_join(state, seat, now) if seat is not None else Decided(state)
            try:
                acted = decide(joining.after, seat, action, now, request_id=request_id)
            except ApiError as e:
                if e.code != "too_late":
                    raise
                # The flag fell before this came: the timeout is stored instead (without
                # the join and the request id: the action was refused, not played) and the
                # caller hears too_late once it is committed.
                timeout = decide_timeout(state, now)
                return Turned(state, timeout.events, timeout.states, too_late=e, flag=state.flag_at())
            if seat is not None:
                _refuse_replaced(joining, seat, seen)
            decided = joining.followed_by(acted)
            return Turned(state, decided.events, decided.states)

        written = await self.write(table_id, decision)
        turned = written.decided
        if turned.too_late is not None:
            self._timed_out(table_id, turned.flag, written.stored)
            raise turned.too_late
        if turned.first_version is not None:
            return Acted(turned.first_version, written, seat)
        acted = next((e for e in written.stored if not isinstance(e.payload, Joined)), None)
        if acted is None:
            return None  # a computer's stale action, dropped
        return Acted(acted.version, written, seat)

    def _due_work(self, state: TableState) -> dict[str, int]:
        return due_work(self.flag_policy, state.due_work())

    def _due_at(self, state: TableState, kind: str) -> datetime | None:
        return due_at(self.flag_policy, state, kind)

    async def flag(self, due: Due) -> datetime | None:
        """The scheduler's handler of ``timeout`` work (``flags.timeout_decision``): None once
        the timeout (or the policy's pause) is stored, else when to look again (this
        process's clock is behind the one that set the time, or no clock runs any more)."""
        written = await self.write(due.table_id, timeout_decision(self.flag_policy))
        if written.stored:
            self._timed_out(due.table_id, written.decided.flag, written.stored)
            return None
        return written.decided.flag

    async def flag_near(self, due: Due) -> datetime | None:
        """The scheduler's handler of ``flag_near`` work (``flags.near_decision``): when to
        look again if this process's clock is behind the one that set it."""
        return (await self.write(due.table_id, near_decision(self.flag_policy))).decided.flag

    async def set_pause(self, table_id: str, seat: int, reason: str, wanted: Callable[[Writer], bool]) -> bool:
        """Bring the clock of ``seat`` to what ``wanted`` answers inside the write
        (``flags.pause_decision``), through the one action path.  A feature's own rows are
        the truth, read in the table's transaction, so two changes made one after the other
        leave the table as the last one says.  Returns whether an event was stored."""
        return bool((await self.write(table_id, pause_decision(seat, reason, wanted))).stored)

    def _timed_out(self, table_id: str, flag: datetime | None, stored: Sequence[Event]) -> None:
        # Both ways a flag falls (the scheduler's timeout, a move that came too late) store
        # the timeout through one write: counted here once, in the process that stored it.
        if any(isinstance(e.payload, TimedOut) for e in stored):
            self.metrics.timeout_fired()
        log_timeout(table_id, flag, stored)

    async def rename(self, table_id: str, who: Identity, name: str) -> dict[str, Any]:
        """Change the display name of ``who``'s seat."""
        if not isinstance(who, SeatHolder):
            raise ApiError("forbidden", _("spectators have no seat to name"))
        seat = who.seat
        written = await self.write(
            table_id, lambda st, w, now: Decided(st) if st.names[seat] == name else
            Decided(st).then(Event(Renamed(seat, name), at=now)))
        return written.view(seat)

    async def create(self, new: NewTable, owner: str = "") -> dict[str, Any]:
        """Create a table opened by ``owner``; the answer holds every human seat's token and
        the spectator key."""
        humans = [i for i, s in enumerate(new.seats) if s.kind == "human"]
        tokens = {i: new_token() for i in humans}
        spectator = new_token()
        now = self.clock.now()
        keys = TableKeys(tuple(hash_token(tokens[i]) if i in tokens else None for i in range(new.players)),
                         hash_token(spectator),
                         tuple(new.creator_user if i == new.creator_seat else None for i in range(new.players)))
        for attempt in range(5):
            # 48 random bits per id: a clash is rare, and then another id is drawn.
            config = TableConfig(secrets.token_urlsafe(6), new.players, new.size, new.pie_rule, stamp(now), new.seats,
                                 new.time_control, new.hints, open=new.open, rated=new.rated,
                                 pausable=new.pausable)
            state = TableState(config)
            try:
                await self.db(self.repo.create_table, config, keys, [(k, now) for k in state.due_work()], owner,
                              new.creator_seat)
                break
            except IntegrityError:
                if attempt == 4:
                    raise
        cached = Cached(state, keys, owner, new.creator_seat)
        self._remember(config.id, cached)
        # The creator has joined (and named their seat) by creating the table.
        creator = new.creator_seat
        first = [Event(Joined(creator), at=now)]
        if new.name is not None:
            first.append(Event(Renamed(creator, new.name), at=now))
        written = await self.write(config.id, lambda st, w, at: Decided(st).then(*first))
        if state.due_work():
            self.on_due()
            await self.note(config.id, WORK_TAG)
        return {
            "id": config.id, "seat": creator, "token": tokens[creator],
            # An open table's other seats are taken in the lobby, never by link.
            "invites": {str(i): t for i, t in tokens.items() if i == creator or not new.open},
            "spectator_key": spectator,
            "state": written.view(creator),
        }

    # -- reading ------------------------------------------------------------------------------

    async def view(self, table_id: str, who: Identity) -> dict[str, Any]:
        """The table state as ``who`` sees it."""
        return (await self.get(table_id)).state.view(viewer_seat(who))

    async def sync(self, table_id: str, who: Identity) -> tuple[int, dict[str, Any]]:
        """Current version and state (for a WebSocket sync)."""
        cached = await self.fresh(table_id)
        if self.repo.is_postgres:
            # Presence changes of other processes arrive as notifications; a sync (after a
            # lost listener, say) counts afresh.
            cached.state.set_presence(await self.db(self.repo.presence_count, table_id))
        async with cached.lock:
            return cached.state.version, cached.state.view(viewer_seat(who))

    async def events_since(self, table_id: str, since: int) -> list[Delivery] | None:
        """Every event after ``since`` with the state after each, or None if a sync is better
        (``since`` unknown or too far behind)."""
        cached = await self.fresh(table_id)
        current = cached.state.version
        if since > current or since < 0 or current - since > self.settings.max_replay_events:
            return None
        if since == current:
            return []
        recent = cached.recent
        if recent and recent[0].version <= since + 1 and recent[-1].version == current:
            return [d for d in recent if d.version > since]

        def rebuild() -> list[Delivery] | None:
            # In a database thread: hundreds of states of a big board would stall the loop.
            stored = self.repo.load(table_id)
            return None if stored is None else deliveries_after(stored, since)

        return await self.db(rebuild)

    async def computer_job(self, table_id: str) -> ComputerJob | None:
        """What the computer to move at ``table_id`` must think about; None if no computer is."""
        cached = await self.fresh(table_id)
        state = cached.state
        if not state.computer_to_move():
            return None
        seed = zlib.crc32(f"{table_id}:{state.version}".encode())
        return ComputerJob(table_id, state.version, state.computer_level(), seed, state.game.copy(), cached.owner)

    async def computer_due(self, table_id: str, version: int) -> bool:
        """Whether the computer's turn of the job made at ``version`` is still to be played:
        a computer is to move and the play has not moved on since (no turn, swap,
        resignation or end)."""
        state = (await self.fresh(table_id)).state
        return state.computer_to_move() and state.play_version <= version


def _renews_keys(events: list[Event]) -> bool:
    """Whether ``events`` replace some of the table's secrets (the keys must be read again)."""
    return any(isinstance(e.payload, LinksRenewed) for e in events)


def _refuse_replaced(joining: Decided, seat: int, seen: int | None) -> None:
    """A seat that ``joining`` joins, whose invite was replaced after the caller was
    identified (at version ``seen``), is refused, even if the request was let in just before
    the replacement (a seat that has joined keeps its token)."""
    if joining.events and seen is not None and joining.before.renewed_at.get(seat, 0) > seen:
        raise ApiError("forbidden", _("this invite link was replaced by a newer one"))
