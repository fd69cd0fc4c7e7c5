"""Leaving: an account's data as a download, and closing an account (docs/privacy.md).

- **Export** (:meth:`Leaving.export`): the account, its preferences, games (each with its
  record), ratings and their history, the chat lines it wrote, its notices, devices and
  tournaments; nothing of another person's but what every player of a game sees.
- **Closing** (:func:`close_account`, the one way; the owner's ``POST /api/account/close``
  and, later, a moderator's action both call it): the account is logged out everywhere at
  once and no session of it starts again (``account_closed``, which says until when it may
  be reopened).  For :data:`GRACE` its owner may reopen it with its password
  (:meth:`Leaving.reopen`); then ``leaving`` due work removes its personal data
  (:func:`omega.server.leaving.store.remove_personal_data`) and shows its seats as
  :data:`DELETED_PLAYER` (a ``name`` event at each of its tables, older names of its seats
  rewritten in the log).  Games, the other players' ratings and tournament results stay;
  the username stays reserved for good (its key and look-alike skeleton stay in ``users``).

Another feature closes an account with ``close_account(conn, user_id, now, by="moderator:Mo")``
inside its own transaction (or with the ``Repository`` for a transaction of its own), then
wakes the scheduler (``Scheduler.wake``) so that the removal is planned at once:

>>> from datetime import UTC, datetime
>>> from omega.server.accounts.store import AccountStore
>>> from omega.server.infra.db import make_engine
>>> from omega.server.tables.store import Repository
>>> repo = Repository(make_engine("sqlite://")); repo.migrate()
>>> now = datetime(2027, 1, 1, tzinfo=UTC)
>>> bob = AccountStore(repo).create_user("Bob", "bob", "$argon2id$...", now)
>>> closed = close_account(repo, bob.id, now, by="moderator:Mo")
>>> closed.by, closed.remove_at - closed.closed_at == GRACE
('moderator:Mo', True)
>>> close_account(repo, bob.id, now, by="self").by   # closed once: the first closing stands
'moderator:Mo'
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.engine import Connection

from omega.i18n import Message
from omega.i18n import translatable as _
from omega.server.accounts.service import Accounts, User
from omega.server.clock import stamp
from omega.server.errors import ApiError
from omega.server.infra.due import Due, drop_due_row, keep_due_row
from omega.server.leaving import store
from omega.server.leaving.models import BY_MAX
from omega.server.leaving.store import Closure
from omega.server.ratings.service import RatingStore
from omega.server.tables.core import TableCore
from omega.server.tables.decide import Decided
from omega.server.tables.events import Event, Renamed
from omega.server.tables.identity import Spectator
from omega.server.tables.models import EventRow
from omega.server.tables.records import Records
from omega.server.tables.state import TableState
from omega.server.tables.store import Repository, Writer
from omega.server.vacation.service import VACATION

__all__ = ["Leaving", "close_account", "GRACE", "KIND", "DELETED_PLAYER", "closed_message", "REMOVED", "WRONG_PASSWORD",
           "EXPORT_HISTORY"]

log = logging.getLogger("omega.server")

#: How long a closed account may be reopened before its personal data is removed.
GRACE = timedelta(days=14)
#: The due work that removes a closed account's data (one row per account, ``user:<id>``).
KIND = "leaving"
#: How a removed account's seats, chat lines and name are shown from then on.
DELETED_PLAYER = "deleted player"
#: Rating changes a download holds at most (every one an account could have had in years).
EXPORT_HISTORY = 100_000
#: The answer to a log-in of an account whose data is removed.
REMOVED = _("this account was closed and its data removed; it cannot be reopened")
#: A closing whose password is wrong.
WRONG_PASSWORD = _("the password is not right; the account stays open")


def closed_message(closure: Closure) -> Message:
    """What a log-in of a closed account is told: since when, and until when it may be reopened.

    >>> from datetime import UTC, datetime
    >>> at = datetime(2027, 1, 1, tzinfo=UTC)
    >>> closed_message(Closure(1, at, at + GRACE, "self", None))
    'this account was closed on 2027-01-01T00:00:00Z; it can be reopened with its password until 2027-01-15T00:00:00Z'
    """
    return _("this account was closed on {closed}; it can be reopened with its password until {until}",
             closed=stamp(closure.closed_at), until=stamp(closure.remove_at))


def _due_key(user_id: int) -> str:
    return f"user:{user_id}"


def _close(conn: Connection, user_id: int, now: datetime, by: str) -> Closure:
    found = store.closure_of(conn, user_id, lock=True)
    if found is not None:
        return found
    closure = Closure(user_id, now, now + GRACE, by, None)
    store.add_closure(conn, user_id, now, closure.remove_at, by)
    store.end_sessions(conn, user_id)
    # The version: the closing's time, so a closing after a reopening replaces the work of the one before.
    keep_due_row(conn, KIND, _due_key(user_id), int(now.timestamp()), closure.remove_at)
    return closure


def close_account(conn_or_repo: Connection | Repository, user_id: int, now: datetime, by: str) -> Closure:
    """Close the account ``user_id`` at ``now`` (``by``: who closed it, ``self`` or the
    other feature's word such as ``moderator:<username>``), inside ``conn``'s transaction or
    one of ``repo``'s own: every session and mailed reset of it ends, and its data's
    removal is due after :data:`GRACE`.  An account closed already keeps its first
    closing, which is returned.  The caller wakes the scheduler after the commit."""
    if len(by) > BY_MAX or not by:
        raise ValueError(f"by must be 1 to {BY_MAX} characters")
    if isinstance(conn_or_repo, Repository):
        with conn_or_repo.writing() as conn:
            return _close(conn, user_id, now, by)
    return _close(conn_or_repo, user_id, now, by)


class Leaving:
    """Downloads and closings of the site's accounts; the accounts' :class:`~omega.server.accounts.service.Closures`."""

    def __init__(self, core: TableCore, accounts: Accounts, ratings: RatingStore) -> None:
        self.core = core
        self.repo = core.repo
        self.accounts = accounts
        self.ratings = ratings
        self.records = Records(core)
        #: Wakes the scheduler after a closing (set by ``routes.setup``).
        self.wake: Callable[[], None] = lambda: None

    def _closure(self, user_id: int) -> Closure | None:
        with self.repo.engine.connect() as conn:
            found = store.closure_of(conn, user_id)
            conn.rollback()
        return found

    # -- the accounts' seam -----------------------------------------------------------------

    async def refuse_session(self, user: User, password_ok: bool) -> None:
        """``account_closed`` for a closed account: with the right password, until when it
        may be reopened (``reopen_until``); whatever the password, once its data is removed
        (there is no password left to be right)."""
        closure = await self.core.db(self._closure, user.id)
        if closure is None:
            return
        if closure.removed_at is not None or self.core.clock.now() >= closure.remove_at:
            raise ApiError("account_closed", REMOVED, reopen_until=None)
        if password_ok:
            raise ApiError("account_closed", closed_message(closure), reopen_until=stamp(closure.remove_at))

    async def hidden(self, user_id: int) -> bool:
        """A closed account's profile is shown to nobody."""
        return await self.core.db(self._closure, user_id) is not None

    # -- closing and reopening --------------------------------------------------------------

    async def close(self, user: User, password: str, address: str, by: str = "self") -> dict[str, Any]:
        """Close the logged-in ``user``'s account, its password asked again (``forbidden``
        if it is not right, and the account stays open)."""
        try:
            await self.accounts.authenticate(user.username, password, address)
        except ApiError as e:
            if e.code != "login_failed":
                raise
            raise ApiError("forbidden", WRONG_PASSWORD) from None
        closure = await self.core.db(close_account, self.repo, user.id, self.core.clock.now(), by)
        self.wake()
        return {"closed_at": stamp(closure.closed_at), "reopen_until": stamp(closure.remove_at)}

    async def reopen(self, username: str, password: str, address: str) -> dict[str, Any]:
        """Reopen a closed account with its username and password before its data is
        removed: the removal is cancelled and it may log in again (``not_closed`` for an
        open account, ``account_closed`` once its data is removed)."""
        user = await self.accounts.authenticate(username, password, address)
        now = self.core.clock.now()

        def run() -> None:
            with self.repo.writing() as conn:
                closure = store.closure_of(conn, user.id, lock=True)
                if closure is None:
                    raise ApiError("not_closed", _("this account is not closed: log in as usual"))
                if closure.removed_at is not None or now >= closure.remove_at:
                    raise ApiError("account_removed", REMOVED)
                store.drop_closure(conn, user.id)
                drop_due_row(conn, KIND, _due_key(user.id))

        await self.core.db(run)
        return {"reopened": True, "username": user.username}

    # -- the download -------------------------------------------------------------------------

    async def export(self, user: User) -> dict[str, Any]:
        """Everything the site keeps of ``user``'s account, as one JSON document."""
        def read() -> tuple[dict[str, Any], list[tuple[str, int]]]:
            with self.repo.engine.connect() as conn:
                data = store.personal_data(conn, user.id)
                seats = store.seats_of(conn, user.id)
                conn.rollback()
            data["ratings"] = self.ratings.of_user(user.id)
            data["rating_history"] = self.ratings.history(user.id, EXPORT_HISTORY)
            return data, seats

        data, seats = await self.core.db(read)
        games = []
        for table_id, seat in seats:
            _, record = await self.records.record(table_id, Spectator())
            games.append({"id": table_id, "seat": seat, "record": record})
        return {"exported_at": stamp(self.core.clock.now()), **data, "games": games}

    # -- the removal (due work) -----------------------------------------------------------------

    async def run(self, due: Due) -> datetime | None:
        """The ``leaving`` work of one account: nothing if it was reopened; later if its
        grace period is not over; else its seats renamed, then its personal data removed."""
        user_id = int(due.table_id.removeprefix("user:"))
        closure = await self.core.db(self._closure, user_id)
        if closure is None or closure.removed_at is not None:
            return None
        if self.core.clock.now() < closure.remove_at:
            return closure.remove_at
        for table_id, seat in await self.core.db(self._seats, user_id):
            await self._rename(table_id, seat)

        def remove() -> bool:
            with self.repo.writing() as conn:
                again = store.closure_of(conn, user_id, lock=True)
                if again is None or again.removed_at is not None:
                    return False  # reopened at the last moment, or removed by another process
                store.remove_personal_data(conn, user_id, DELETED_PLAYER, VACATION)
                store.mark_removed(conn, user_id, self.core.clock.now())
                return True

        if await self.core.db(remove):
            log.info("the personal data of closed account %d was removed", user_id)
        return None

    def _seats(self, user_id: int) -> list[tuple[str, int]]:
        with self.repo.engine.connect() as conn:
            found = store.seats_of(conn, user_id)
            conn.rollback()
        return found

    async def _rename(self, table_id: str, seat: int) -> None:
        """The seat shows :data:`DELETED_PLAYER` at its table: a ``name`` event (every
        process's cached table takes it as any event), and the names the seat had before
        rewritten in the log, so no replay shows them."""
        def decision(state: TableState, w: Writer, now: datetime) -> Decided:
            _scrub_names(w.conn, table_id, seat)
            if state.names[seat] == DELETED_PLAYER:
                return Decided(state)
            return Decided(state).then(Event(Renamed(seat, DELETED_PLAYER), at=now))

        await self.core.write(table_id, decision)


def _scrub_names(conn: Connection, table_id: str, seat: int) -> None:
    """The ``name`` events of ``seat`` at the table say :data:`DELETED_PLAYER`."""
    rows = conn.execute(select(EventRow.version, EventRow.data)
                        .where(EventRow.table_id == table_id, EventRow.kind == Renamed.kind)).all()
    for r in rows:
        data = json.loads(r.data)
        if data.get("seat") == seat and data.get("name") != DELETED_PLAYER:
            conn.execute(update(EventRow).where(EventRow.table_id == table_id, EventRow.version == r.version)
                         .values(data=json.dumps({**data, "name": DELETED_PLAYER})))
