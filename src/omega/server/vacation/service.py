"""The vacation service: an account's vacation taken, ended and set, and its clocks paused.

The account's row (``vacations``) is the truth.  A start or an end changes it and, in the
same commit, makes the account's ``vacation`` due work due at once; that work brings every
turn-based table of the account to the row (each table through the one action path,
``TableCore.set_pause``, which reads the row again inside the table's own transaction), and
comes back when the vacation must end (its planned end, or the allowance spent).  So a crash
between the commit and the tables loses nothing: the work is still due.

Automatic vacation is the core's :class:`~omega.server.tables.flags.FlagPolicy`: when a
turn-based flag is near (:data:`~omega.server.vacation.allowance.AUTOMATIC_BEFORE`), the
write that would store the flag asks :meth:`Vacations.ask`, which starts the vacation in the
same transaction and has the clock paused instead, with a ``vacation_started`` notice.

>>> from datetime import UTC
>>> Vacation.fresh(datetime(2026, 5, 1, tzinfo=UTC)).view(datetime(2026, 5, 1, tzinfo=UTC))["left"]
'30 days'
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection

from omega.i18n import translatable as _
from omega.server.errors import ApiError
from omega.server.infra.db import utc
from omega.server.infra.due import Due, keep_due_row
from omega.server.notify.notices import Notice
from omega.server.tables.core import TableCore
from omega.server.tables.flags import FlagPolicy
from omega.server.tables.models import SeatRow, TableRow
from omega.server.tables.state import TableState
from omega.server.tables.store import Writer
from omega.server.tables.timecontrol import TimeControl, stamp_ms
from omega.server.vacation.allowance import (
    ALLOWANCE_DAYS,
    ALLOWANCE_HOURS,
    AUTOMATIC_BEFORE,
    BACK_FOR,
    Balance,
    describe_hours,
)
from omega.server.vacation.models import VacationRow

__all__ = ["VACATION", "REASON", "Vacation", "Vacations", "Tell", "install"]

log = logging.getLogger("omega.server")

#: The due work that brings an account's tables to its vacation (one row per account).
VACATION = "vacation"
#: Why a clock is paused, as the table state shows it (``seats[i].paused``).
REASON = "vacation"
#: Hands a notice to whoever tells players (the notify service), inside the transaction
#: that made it, so that it is sent once the commit holds.
Tell = Callable[[Connection, Notice], None]


def _due_key(user_id: int) -> str:
    return f"user:{user_id}"


@dataclass(frozen=True)
class Vacation:
    """An account's vacation as its row says (see ``models.VacationRow``)."""

    automatic: bool
    balance: Balance
    since: datetime | None = None
    until: datetime | None = None
    started_automatically: bool = False
    changes: int = 0
    back_at: datetime | None = None

    @classmethod
    def fresh(cls, now: datetime) -> Vacation:
        """An account that never had one: the whole allowance, automatic vacation on."""
        return cls(True, Balance(now.year, 0))

    def ends_at(self) -> datetime | None:
        """When the vacation on ends at the latest: its planned end, or its allowance spent."""
        if self.since is None:
            return None
        out = self.balance.runs_out(self.since)
        return out if self.until is None else min(self.until, out)

    def settled(self, now: datetime) -> Vacation:
        """The vacation as it stands at ``now``: one whose end has come is over, charged to
        its end (however late anybody looks)."""
        ends = self.ends_at()
        return self.ended(ends) if ends is not None and now >= ends else self

    def started(self, now: datetime, until: datetime | None, automatically: bool) -> Vacation:
        """On vacation from ``now``."""
        return replace(self, since=now, until=until, started_automatically=automatically, changes=self.changes + 1)

    def ended(self, at: datetime) -> Vacation:
        """Back at ``at``, the time away charged."""
        assert self.since is not None
        return replace(self, balance=self.balance.charge(self.since, at), since=None, until=None,
                       started_automatically=False, changes=self.changes + 1, back_at=at)

    def may_start_by_itself(self, now: datetime) -> bool:
        """Whether a vacation may start by itself now: the setting is on, an hour is left, and
        the player did not come back within :data:`BACK_FOR`."""
        just_back = self.back_at is not None and now < self.back_at + BACK_FOR
        return self.automatic and self.balance.left_hours(now) >= 1 and not just_back

    def view(self, now: datetime) -> dict[str, Any]:
        """The vacation as ``GET /api/account/vacation`` shows it (docs/server-api.md)."""
        left = self.balance.left_hours(now) if self.since is None else self.balance.left_during(self.since, now)
        ends = self.ends_at()
        return {
            "allowance_days": ALLOWANCE_DAYS, "year": now.year, "left_hours": left,
            "used_hours": ALLOWANCE_HOURS - left, "left": describe_hours(left),
            "on_vacation": self.since is not None,
            "since": None if self.since is None else stamp_ms(self.since),
            "until": None if self.until is None else stamp_ms(self.until),
            "ends_at": None if ends is None else stamp_ms(ends),
            "started_automatically": self.started_automatically,
            "automatic": self.automatic, "automatic_before_hours": AUTOMATIC_BEFORE // timedelta(hours=1),
        }


def _read(conn: Connection, user_id: int, now: datetime) -> Vacation:
    """The account's vacation, its row locked until the transaction ends (made first if
    missing: two processes making it at once both get the one row)."""
    fresh = Vacation.fresh(now)
    dialect_insert = postgresql_insert if conn.dialect.name == "postgresql" else sqlite_insert
    conn.execute(dialect_insert(VacationRow).values(
        user_id=user_id, automatic=fresh.automatic, year=fresh.balance.year, used_hours=0, since=None, until=None,
        started_automatically=False, changes=0, back_at=None).on_conflict_do_nothing(index_elements=["user_id"]))
    found = _peek(conn, user_id, lock=True)
    assert found is not None  # made just above
    return found


def _peek(conn: Connection, user_id: int, *, lock: bool = False) -> Vacation | None:
    """The account's vacation as its row says (None: it has none yet)."""
    query = select(VacationRow.__table__).where(VacationRow.user_id == user_id)
    row = conn.execute(query.with_for_update() if lock and conn.dialect.name == "postgresql" else query).one_or_none()
    if row is None:
        return None
    return Vacation(row.automatic, Balance(row.year, row.used_hours), None if row.since is None else utc(row.since),
                    None if row.until is None else utc(row.until), row.started_automatically, row.changes,
                    None if row.back_at is None else utc(row.back_at))


def _write(conn: Connection, user_id: int, v: Vacation, *, due_now: datetime | None = None) -> None:
    """Store ``v``; with ``due_now``, the account's tables are brought to it from then (the
    due work of this change, replacing the one of the change before)."""
    conn.execute(update(VacationRow).where(VacationRow.user_id == user_id).values(
        automatic=v.automatic, year=v.balance.year, used_hours=v.balance.used_hours, since=v.since, until=v.until,
        started_automatically=v.started_automatically, changes=v.changes, back_at=v.back_at))
    if due_now is not None:
        keep_due_row(conn, VACATION, _due_key(user_id), v.changes, due_now)


def _on_vacation(conn: Connection, user_id: int) -> bool:
    since = conn.execute(select(VacationRow.since).where(VacationRow.user_id == user_id)).scalar_one_or_none()
    return since is not None


def _log_notice(conn: Connection, notice: Notice) -> None:
    # Until the notify service is wired, the log says what would be told.
    log.info("notice for user %d: %s", notice.user_id, notice.subject)


def install(core: TableCore, tell: Tell | None = None) -> Vacations:
    """The vacations of ``core``'s process, whose flag policy they become: in every process
    that stores moves (a server; a worker, whose computer's move that starts a person's
    turn-based clock keeps its ``flag_near`` work due, though only servers run that work).

    >>> from omega.server.clock import FakeClock
    >>> from omega.server.infra.db import make_engine
    >>> from omega.server.tables.identity import TokenAuthenticator
    >>> from omega.server.tables.store import Repository
    >>> core = TableCore(Repository(make_engine("sqlite://")), FakeClock(), TokenAuthenticator())
    >>> install(core).policy == core.flag_policy, core.flag_policy.lead
    (True, datetime.timedelta(seconds=10800))
    >>> core.close()
    """
    vacations = Vacations(core, tell)
    core.flag_policy = vacations.policy
    return vacations


class Vacations:
    """The accounts' vacations (``app.state.vacations``)."""

    def __init__(self, core: TableCore, tell: Tell | None = None) -> None:
        self.core = core
        self.tell = tell or _log_notice
        self._policy = FlagPolicy(AUTOMATIC_BEFORE, self.ask)

    @property
    def policy(self) -> FlagPolicy:
        """Automatic vacation, as the core asks it before a turn-based flag falls."""
        return self._policy

    def _change(self, user_id: int, change: Callable[[Connection, Vacation, datetime], Vacation | None]) -> Vacation:
        now = self.core.clock.now()
        with self.core.repo.writing() as conn:
            stored = _read(conn, user_id, now)
            v = stored.settled(now)
            v = change(conn, v, now) or v
            if v != stored:
                # A start or an end (a settled one too): the tables are brought to it now.
                _write(conn, user_id, v, due_now=now if v.since != stored.since else None)
        return v

    async def status(self, user_id: int) -> dict[str, Any]:
        """The account's vacation now (a read, unless a vacation whose end has come is to be
        settled first)."""
        now = self.core.clock.now()
        v = await self.core.db(self._peek, user_id)
        if v is None:
            return Vacation.fresh(now).view(now)
        if v.settled(now) != v:
            v = await self.core.db(self._change, user_id, lambda conn, v, now: None)
        return v.view(now)

    def _peek(self, user_id: int) -> Vacation | None:
        with self.core.repo.engine.connect() as conn:
            return _peek(conn, user_id)

    async def start(self, user_id: int, until: datetime | None) -> dict[str, Any]:
        """Go on vacation now, until ``until`` (None: until coming back, or the allowance is
        spent); the account's turn-based clocks pause."""
        def begin(conn: Connection, v: Vacation, now: datetime) -> Vacation:
            if v.since is not None:
                raise ApiError("on_vacation", _("you are on vacation already (since {since})", since=stamp_ms(v.since)))
            if v.balance.left_hours(now) < 1:
                raise ApiError("no_vacation_left", _("no vacation left: the {allowance_days} days of {year} are used (they renew on 1 January)", allowance_days=ALLOWANCE_DAYS, year=now.year))
            out = v.balance.runs_out(now)
            if until is not None and until <= now:
                raise ApiError("bad_request", _("bad request: until must be later than now"))
            if until is not None and until > out:
                raise ApiError("vacation_too_long", _("you have {left_hours} of vacation left: it would run out at {out}", left_hours=describe_hours(v.balance.left_hours(now)), out=stamp_ms(out)))
            return v.started(now, until, automatically=False)

        v = await self.core.db(self._change, user_id, begin)
        await self.settle(user_id)
        return v.view(self.core.clock.now())

    async def end(self, user_id: int) -> dict[str, Any]:
        """Come back: the time away is charged and the clocks run again with the time they had."""
        def back(conn: Connection, v: Vacation, now: datetime) -> Vacation:
            if v.since is None:
                raise ApiError("not_on_vacation", _("you are not on vacation"))
            return v.ended(now)

        v = await self.core.db(self._change, user_id, back)
        await self.settle(user_id)
        return v.view(self.core.clock.now())

    async def set_automatic(self, user_id: int, automatic: bool) -> dict[str, Any]:
        """Turn automatic vacation on or off."""
        v = await self.core.db(self._change, user_id, lambda conn, v, now: replace(v, automatic=automatic))
        return v.view(self.core.clock.now())

    def ask(self, w: Writer, state: TableState, seat: int, now: datetime) -> str | None:
        """The flag policy (inside the table's write): a player already on vacation has the
        clock paused (a game begun since); one with the setting on and hours left goes on
        vacation now, told by a ``vacation_started`` notice; anyone else's flag falls."""
        users = w.keys().seat_users
        user_id = users[seat] if seat < len(users) else None
        if user_id is None:
            return None  # a guest's seat: no account, no allowance
        stored = _read(w.conn, user_id, now)
        v = stored.settled(now)
        if v.since is not None:
            return REASON
        if not v.may_start_by_itself(now):
            return None
        v = v.started(now, None, automatically=True)
        _write(w.conn, user_id, v, due_now=now)
        table = state.config.id
        self.tell(w.conn, Notice(
            user_id, "vacation_started", f"vacation_started:{user_id}:{v.changes}", _("Your vacation started"),
            _("Your clock at table {table} was about to run out, so your vacation started by itself: your "
              "turn-based clocks are paused until you come back (on the account page), with {left} of vacation "
              "left.", table=table, left=describe_hours(v.balance.left_hours(now))), f"/#table={table}"))
        return REASON

    async def run(self, due: Due) -> datetime | None:
        """The ``vacation`` due work: end the vacation if its time has come, and bring the
        account's tables to it; again when it must end (None: it is over)."""
        user_id = int(due.table_id.removeprefix("user:"))
        return await self.settle(user_id)

    async def settle(self, user_id: int) -> datetime | None:
        """End the account's vacation if its time has come, then pause or resume the clocks
        of its turn-based tables to match; returns when the vacation ends (None: not on one)."""
        v = await self.core.db(self._change, user_id, lambda conn, v, now: None)
        for table_id, seat in await self.core.db(self._tables, user_id):
            try:
                await self.core.set_pause(table_id, seat, REASON, lambda w: _on_vacation(w.conn, user_id))
            except ApiError as e:  # a table gone meanwhile: the others are still brought
                log.warning("could not bring table %s to the vacation of user %d: %s", table_id, user_id, e)
        return v.ends_at()

    def _tables(self, user_id: int) -> list[tuple[str, int]]:
        """The account's unfinished tables whose clock may be paused, with its seat."""
        with self.core.repo.engine.connect() as conn:
            rows = conn.execute(select(TableRow.id, SeatRow.idx, TableRow.time_control)
                                .join(SeatRow, SeatRow.table_id == TableRow.id)
                                .where(SeatRow.user_id == user_id, TableRow.status.in_(("playing", "waiting")),
                                       TableRow.pausable.is_(True), TableRow.time_control.is_not(None))
                                .order_by(TableRow.id)).all()
        return [(r.id, r.idx) for r in rows if TimeControl.parse(r.time_control).kind == "turn_based"]

