"""Quick play: choose the players and the board, press Play, and be matched into a table.

The queue is a database table (``quickplay``: one row per waiting account), so it is the
same for every server process and survives a restart.  Every change of it (joining,
leaving, matching) is one transaction that first takes the queue's lock (a PostgreSQL
advisory lock; SQLite has one writer), so two processes never match one player twice.

**Matching** (:func:`choose`), for each (players, size, time control) separately, waiting players in the
order they came: the player who has waited longest is the anchor; the others within the
anchor's rating window (or whose own window reaches the anchor) are candidates, and the
closest in display rating to the anchor (then the longest waiting) fill the table.  If
the anchor cannot be matched yet, the next in line is tried.  A window is
:data:`WINDOW` display points and grows by :data:`WINDOW_GROWTH` a second of waiting, so the
closest ratings are matched first when several wait, and nobody waits for ever while
enough players do.  Matching runs when someone joins and, for the growing windows, as
recurring work (``Scheduler.every``).

A match creates the table in the same transaction: rated, with the real-time clock the
players chose (one of ``REALTIME_PRESETS``; ``QUICKPLAY_DEFAULT`` when they named none: every
rated game has a clock, so a player who walks away loses on time instead of stalling it),
every seat held by its account (in a random order), the pie rule for two players, named
after the accounts.  The matched
players' pages are told on the lobby socket (``matched``); other processes hear of it by
``NOTIFY`` (``server:match:<table id>``).  A waiting entry older than :data:`MAX_WAIT`
seconds is dropped (a player who closed the page is not matched into a table nobody opens).

**A computer opponent** (opt-in, ``computer``): a player who asked for one and is still
unmatched after :data:`COMPUTER_AFTER` seconds gets a table against the computer instead,
every other seat at the level whose rating is nearest theirs
(``omega.ai.levels.nearest_level``).  That table is casual (a rated table has no computer
seat) and keeps the clock they chose; its computer turns count to the player
(``account_owner``), as at a table they opened.

>>> from datetime import UTC
>>> now = datetime(2027, 1, 1, tzinfo=UTC)
>>> q = [Waiting(1, 1000, now), Waiting(2, 1400, now), Waiting(3, 1050, now)]
>>> choose(q, 2, now)
[[1, 3]]
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    Boolean,
    DateTime,
    ForeignKey,
    Integer,
    String,
    delete,
    false,
    func,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Mapped, mapped_column

from omega.ai.levels import nearest_level
from omega.i18n import translatable as _
from omega.server.accounts.models import UserRow
from omega.server.accounts.store import User
from omega.server.clock import stamp
from omega.server.config import TABLE_SIZES
from omega.server.errors import ApiError
from omega.server.infra.db import Base, utc
from omega.server.infra.limits import account_owner
from omega.server.lobby.service import MATCH_TOPIC, Lobby
from omega.server.ratings.models import RatingRow
from omega.server.ratings.service import MODEL, RATED_PLAYERS, RatingStore, display
from omega.server.tables.core import TableCore
from omega.server.tables.models import TableRow
from omega.server.tables.seated import new_table_id, seat_accounts
from omega.server.tables.state import SeatConfig, TableConfig
from omega.server.tables.store import Writer
from omega.server.tables.timecontrol import QUICKPLAY_DEFAULT, REALTIME_PRESETS, TimeControl, require_clock

__all__ = ["QuickPlay", "QueueRow", "Waiting", "choose", "WINDOW", "WINDOW_GROWTH", "MAX_WAIT", "MATCH_SHOWN",
           "COMPUTER_AFTER", "Apart"]

log = logging.getLogger("omega.server")

#: A waiting player's rating window: this many display points either way at first...
WINDOW = 100
#: ...and this many more for every second waited.
WINDOW_GROWTH = 10
#: Seconds a player waits at most; then the entry is dropped.
MAX_WAIT = 600.0
#: Seconds a match is still reported to its players' pages (``GET /api/quickplay``).
MATCH_SHOWN = 120.0
#: Seconds a player who asked for a computer opponent waits for people first.
COMPUTER_AFTER = 60.0
#: The advisory lock of the queue's transactions (PostgreSQL).
_QUEUE_LOCK = 4242005
#: The pairs of the given accounts that must never be matched (one blocked the other),
#: asked inside the queue's transaction; set at wiring by the feature that knows (relations).
Apart = Callable[[Connection, Sequence[int]], set[frozenset[int]]]


class QueueRow(Base):
    """A player waiting for a quick-play table (``table_id`` None), or just matched."""

    __tablename__ = "quickplay"
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    players: Mapped[int] = mapped_column(Integer)
    size: Mapped[int] = mapped_column(Integer)
    #: The real-time preset the player waits for (``REALTIME_PRESETS``).
    time_control: Mapped[str] = mapped_column(String(16), default=QUICKPLAY_DEFAULT, server_default=QUICKPLAY_DEFAULT)
    #: The display rating at ``players`` when the player joined.
    rating: Mapped[int] = mapped_column(Integer)
    #: When the player joined; once matched, when the match was made.
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    table_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: Whether the player would rather play the computer than wait past ``COMPUTER_AFTER``.
    computer: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


@dataclass(frozen=True)
class Waiting:
    """A waiting player as matching sees them."""

    user_id: int
    rating: int
    since: datetime

    def window(self, now: datetime) -> float:
        """How far from their rating this player accepts an opponent now."""
        return WINDOW + WINDOW_GROWTH * max(0.0, (now - self.since).total_seconds())


def choose(waiting: list[Waiting], players: int, now: datetime,
           apart: Collection[frozenset[int]] = frozenset()) -> list[list[int]]:
    """The matches to make among ``waiting`` (one group: same players and size), each a
    list of user ids, anchor first (see the module's note); no two players of a pair in
    ``apart`` (one blocked the other) are ever at one table.

    >>> from datetime import UTC
    >>> now = datetime(2027, 1, 1, tzinfo=UTC)
    >>> q = [Waiting(1, 1000, now - timedelta(seconds=30)), Waiting(2, 1390, now)]
    >>> choose(q, 2, now)   # 30 s of waiting widened player 1's window to 400
    [[1, 2]]
    >>> choose([*q, Waiting(3, 1395, now)], 2, now, apart={frozenset((1, 2))})
    [[1, 3]]
    """
    line = sorted(waiting, key=lambda w: (w.since, w.user_id))
    used: set[int] = set()
    matches = []
    for anchor in line:
        if anchor.user_id in used:
            continue
        near = [w for w in line if w.user_id not in used and w.user_id != anchor.user_id
                and abs(w.rating - anchor.rating) <= max(anchor.window(now), w.window(now))]
        if len(near) < players - 1:
            continue
        near.sort(key=lambda w: (abs(w.rating - anchor.rating), w.since, w.user_id))
        group = [anchor]
        for w in near:
            if len(group) == players:
                break
            if all(frozenset((w.user_id, g.user_id)) not in apart for g in group):
                group.append(w)
        if len(group) < players:
            continue
        used.update(w.user_id for w in group)
        matches.append([w.user_id for w in group])
    return matches


def _skill(conn: Connection, user_id: int, players: int) -> tuple[float, float]:
    row = conn.execute(select(RatingRow.mu, RatingRow.sigma).where(
        RatingRow.user_id == user_id, RatingRow.players == players)).one_or_none()
    return (MODEL.mu, MODEL.sigma) if row is None else (float(row.mu), float(row.sigma))


class QuickPlay:
    """The quick-play queue of the site."""

    def __init__(self, core: TableCore, lobby: Lobby, ratings: RatingStore) -> None:
        self.core = core
        self.lobby = lobby
        self.ratings = ratings
        #: Who may not be matched together (None: anyone may).
        self.apart: Apart | None = None

    # -- the routes' side -----------------------------------------------------------------------

    async def join(self, user: User, players: int, size: int, time_control: str = QUICKPLAY_DEFAULT,
                   computer: bool = False) -> dict[str, Any]:
        """Wait for a table of ``players`` on a board of side ``size`` with the real-time
        clock ``time_control`` (a new choice replaces the last); matched at once if others wait;
        ``computer``: against the computer if nobody comes within :data:`COMPUTER_AFTER`."""
        if players not in RATED_PLAYERS or size not in TABLE_SIZES:
            raise ApiError("bad_request", _("bad request: players or size out of range"))
        if time_control not in REALTIME_PRESETS:
            raise ApiError("bad_request", _("bad request: time_control must be one of {values}", values=', '.join(REALTIME_PRESETS)))
        now = self.core.clock.now()

        def run(conn: Connection) -> list[tuple[str, dict[int, int]]]:
            self.core.refuse_rated(conn, [user.id], now)  # quick play is rated
            rating = display(*_skill(conn, user.id, players))
            conn.execute(delete(QueueRow).where(QueueRow.user_id == user.id))
            conn.execute(insert(QueueRow).values(user_id=user.id, players=players, size=size, rating=rating,
                                                 time_control=time_control, joined_at=now, computer=computer))
            return self._match(conn, now)

        await self._announce(await self.core.db(self._locked, run))
        return await self.status(user)

    async def leave(self, user: User) -> dict[str, Any]:
        """Stop waiting (a match already made stands: its table is answered)."""
        def run(conn: Connection) -> list[tuple[str, dict[int, int]]]:
            conn.execute(delete(QueueRow).where(QueueRow.user_id == user.id, QueueRow.table_id.is_(None)))
            return []

        await self.core.db(self._locked, run)
        return await self.status(user)

    async def status(self, user: User) -> dict[str, Any]:
        """``{"status": "idle" | "waiting" | "matched", ...}`` for the user: ``matched`` for
        :data:`MATCH_SHOWN` seconds after the match while its table's game is on."""
        now = self.core.clock.now()

        def read() -> Any:
            with self.core.repo.engine.connect() as conn:
                row = conn.execute(select(QueueRow).where(QueueRow.user_id == user.id)).one_or_none()
                ahead = 0
                over = False
                if row is not None and row.table_id is not None:
                    over = conn.execute(select(TableRow.status).where(TableRow.id == row.table_id)
                                        ).scalar_one_or_none() != "playing"
                if row is not None and row.table_id is None:
                    ahead = conn.execute(select(func.count()).select_from(QueueRow).where(
                        QueueRow.players == row.players, QueueRow.size == row.size,
                        QueueRow.time_control == row.time_control,
                        QueueRow.table_id.is_(None), QueueRow.user_id != user.id)).scalar_one()
                conn.rollback()
            return row, ahead, over

        row, others, over = await self.core.db(read)
        if row is None:
            return {"status": "idle"}
        since = utc(row.joined_at)
        if row.table_id is not None:
            # A match is news while its game is on: once it is over (or gone) the lobby is
            # the lobby again, never a way back to the finished table.
            if over or (now - since).total_seconds() > MATCH_SHOWN:
                return {"status": "idle"}
            return {"status": "matched", "table_id": row.table_id, "seat": row.seat}
        if (now - since).total_seconds() > MAX_WAIT:
            return {"status": "idle"}
        return {"status": "waiting", "players": row.players, "size": row.size, "time_control": row.time_control,
                "rating": row.rating, "computer": bool(row.computer),
                "since": stamp(since), "others_waiting": int(others)}

    async def match_all(self) -> int:
        """Recurring work: match whoever can be matched now (windows grow as players wait);
        drop entries that waited too long.  Returns how many tables were made."""
        def waiting() -> int:
            with self.core.repo.engine.connect() as conn:
                n = conn.execute(select(func.count()).select_from(QueueRow)).scalar_one()
                conn.rollback()
            return int(n)

        if not await self.core.db(waiting):
            return 0
        now = self.core.clock.now()

        def run(conn: Connection) -> list[tuple[str, dict[int, int]]]:
            conn.execute(delete(QueueRow).where(QueueRow.table_id.is_(None),
                                                QueueRow.joined_at < now - timedelta(seconds=MAX_WAIT)))
            conn.execute(delete(QueueRow).where(QueueRow.table_id.is_not(None),
                                                QueueRow.joined_at < now - timedelta(seconds=MATCH_SHOWN)))
            return self._match(conn, now)

        made = await self.core.db(self._locked, run)
        await self._announce(made)
        return len(made)

    def remote_match(self, table_id: str) -> None:
        """Another process made a match (PostgreSQL NOTIFY): tell the players' sockets here."""
        asyncio.get_running_loop().create_task(self._tell(table_id))

    async def _tell(self, table_id: str) -> None:
        def read() -> dict[int, int]:
            with self.core.repo.engine.connect() as conn:
                rows = conn.execute(select(QueueRow.user_id, QueueRow.seat).where(QueueRow.table_id == table_id)).all()
                conn.rollback()
            return {int(u): int(s) for u, s in rows if s is not None}

        try:
            self.lobby.on_match(table_id, await self.core.db(read))
        except Exception:
            log.exception("could not tell the players of quick-play table %s", table_id)

    # -- inside the queue's transaction ---------------------------------------------------------

    def _locked(self, run: Any) -> list[tuple[str, dict[int, int]]]:
        with self.core.repo.writing() as conn:
            if self.core.repo.is_postgres:
                conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _QUEUE_LOCK})
            result: list[tuple[str, dict[int, int]]] = run(conn)
            return result

    def _match(self, conn: Connection, now: datetime) -> list[tuple[str, dict[int, int]]]:
        rows = conn.execute(select(QueueRow).where(QueueRow.table_id.is_(None))).all()
        # An account barred from rated play since it joined the queue leaves it unmatched.
        barred = self.core.barred_from_rated(conn, [int(r.user_id) for r in rows], now)
        if barred:
            conn.execute(delete(QueueRow).where(QueueRow.user_id.in_(barred), QueueRow.table_id.is_(None)))
            rows = [r for r in rows if int(r.user_id) not in barred]
        groups: dict[tuple[int, int, str], list[Waiting]] = {}
        for r in rows:
            groups.setdefault((r.players, r.size, r.time_control), []).append(
                Waiting(int(r.user_id), int(r.rating), utc(r.joined_at)))
        apart = self.apart(conn, [int(r.user_id) for r in rows]) if self.apart is not None else set()
        made = []
        for (players, size, control), waiting in sorted(groups.items()):
            for users in choose(waiting, players, now, apart):
                made.append(self._make_table(conn, users, players, size, TimeControl.parse(control), now))
        matched = {u for _table, seats in made for u in seats}
        for r in rows:  # those who would rather play the computer than wait longer
            if (r.computer and int(r.user_id) not in matched
                    and (now - utc(r.joined_at)).total_seconds() >= COMPUTER_AFTER):
                made.append(self._make_table(conn, [int(r.user_id)], r.players, r.size, TimeControl.parse(r.time_control),
                                             now, computer=nearest_level(r.rating)))
        return made

    def _make_table(self, conn: Connection, users: list[int], players: int, size: int, control: TimeControl,
                    now: datetime, computer: int | None = None) -> tuple[str, dict[int, int]]:
        """A table for ``users``, rated; or, with a ``computer`` level, casual for the one
        user and computers of that level in the other seats."""
        order = list(users)
        seats = [SeatConfig("human") for _ in order]
        if computer is not None:
            seats += [SeatConfig("computer", computer) for _ in range(players - len(order))]
        random = secrets.SystemRandom()
        random.shuffle(order)  # who plays White is luck, not who came first
        random.shuffle(seats)
        names = dict(conn.execute(select(UserRow.id, UserRow.username).where(UserRow.id.in_(order))).all())
        require_clock(True, control)  # the queue holds presets only: a rated game always has a clock
        config = TableConfig(new_table_id(), players, size, players == 2, stamp(now), tuple(seats), control,
                             rated=computer is None)
        # Every player asked for this game, so each has joined it by being matched: the
        # first clock starts now, and a player who never opens the table loses the game on
        # time (aborted: no first move) instead of holding it unstarted.
        postgres = self.core.repo.is_postgres
        owner = "quickplay" if computer is None else account_owner(order[0])
        table = seat_accounts(conn, config, order, [names[u] for u in order], owner, now, postgres=postgres)
        humans = [i for i, seat in enumerate(seats) if seat.kind == "human"]
        seat_of = dict(zip(order, humans, strict=True))
        for u, i in seat_of.items():
            conn.execute(update(QueueRow).where(QueueRow.user_id == u).values(table_id=config.id, seat=i,
                                                                             joined_at=now))
        Writer(conn, config.id, table.version, postgres).notify(f"{self.core.server_id}:{MATCH_TOPIC}:{config.id}")
        log.info("quick play: table %s for %d players%s", config.id, players,
                 "" if computer is None else f", against the computer at level {computer}")
        return config.id, seat_of

    async def _announce(self, made: list[tuple[str, dict[int, int]]]) -> None:
        if made:
            self.core.on_due()  # the new tables' clocks run: their flags are due work
        for table_id, seats in made:
            self.lobby.on_match(table_id, seats)
