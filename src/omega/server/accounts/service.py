"""Accounts: registering, logging in and out, sessions, claiming seats, and the lists of a
user's tables and games.  The rules live here; HTTP (cookies, the CSRF check, routes) is
:mod:`omega.server.accounts.routes`, storage :mod:`omega.server.accounts.store`.

- A username follows :func:`omega.names.check_username` and is unique by
  :func:`omega.names.username_key` and by :func:`omega.names.username_skeleton` (no look-alike
  of a taken one); a password follows :func:`~omega.server.accounts.passwords.check_password`
  and is stored as an argon2id hash (:class:`~omega.server.accounts.passwords.Passwords`).
- A session is a random id (32 bytes) that only the browser keeps (in a cookie); the
  database keeps its SHA-256 and its expiry (``Settings.session_lifetime`` after the log-in).
- A failed log-in says only ``login_failed``, whether the username exists or not, and takes
  as long either way (an unknown username is checked against a dummy hash).
- Log-in attempts are limited per client address and per username tried; registrations per
  address and per username asked for (``limits.Limits``).
- A seat is bound to an account by showing its seat token while logged in (:meth:`Accounts.claim`):
  bound once, never unbound; an account holds at most one seat of a table.
- An account may be closed (the ``leaving`` feature): the app sets :attr:`Accounts.closures`,
  which refuses every new session of a closed account (``account_closed``) and hides its
  profile; this module knows nothing more of closing.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from omega.i18n import LANGUAGES, N_, Message
from omega.i18n import translatable as _
from omega.names import check_username, username_key
from omega.server.accounts.passwords import Passwords, check_password
from omega.server.accounts.roles import ROLES, roles_of
from omega.server.accounts.store import AccountStore, HistoryCursor, User
from omega.server.config import Settings
from omega.server.errors import ApiError
from omega.server.infra.limits import Buckets, Limits
from omega.server.tables.core import TableCore
from omega.server.tables.identity import Credentials, SeatHolder, hash_token

__all__ = [
    "Accounts", "User", "Session", "CLAIM_MAX", "HISTORY_PAGE", "HISTORY_PAGE_MAX", "MY_TABLES_MAX",
    "LOGIN_FAILED", "NAME_TAKEN", "new_session_id", "parse_cursor", "cursor_text", "Closures",
]

#: Seat links one claim may carry (a browser remembers at most 50 tables).
CLAIM_MAX = 50
#: Finished games per page of the history (default and most).
HISTORY_PAGE = 20
HISTORY_PAGE_MAX = 50
#: Unfinished tables listed at most.
MY_TABLES_MAX = 100
#: The one answer to a failed log-in, whatever failed.
LOGIN_FAILED = _("wrong username or password")
#: The one answer to a username that is taken or looks like one that is (``name``: as asked).
NAME_TAKEN = N_("the username {name} is not available (taken, or too like one taken); choose another")


def new_session_id() -> str:
    """A new session id: 32 random bytes, URL-safe (43 characters).

    >>> len(new_session_id())
    43
    """
    return secrets.token_urlsafe(32)


def cursor_text(cursor: HistoryCursor) -> str:
    """A history cursor as the API writes it.

    >>> from datetime import UTC, datetime
    >>> cursor_text((datetime(2027, 1, 2, 3, 4, 5, 6, tzinfo=UTC), "aB-_x1y2"))
    '2027-01-02T03:04:05.000006Z~aB-_x1y2'
    """
    return cursor[0].isoformat(timespec="microseconds").replace("+00:00", "Z") + "~" + cursor[1]


def parse_cursor(text: str) -> HistoryCursor:
    """The cursor of :func:`cursor_text`; ``bad_request`` for anything else.

    >>> parse_cursor(cursor_text(parse_cursor("2027-01-02T03:04:05.000006Z~aB-_x1y2")))[1]
    'aB-_x1y2'
    """
    moment, sep, table_id = text.partition("~")
    try:
        at = datetime.fromisoformat(moment.replace("Z", "+00:00"))
    except ValueError:
        at = None
    if not sep or at is None or at.tzinfo is None or not 0 < len(table_id) <= 32 or len(text) > 80:
        raise ApiError("bad_request", _("bad request: before must be a cursor from a previous page"))
    return at, table_id


class Closures(Protocol):
    """What the accounts ask of closed accounts (the ``leaving`` feature, set at wiring as
    :attr:`Accounts.closures`)."""

    async def refuse_session(self, user: User, password_ok: bool) -> None:
        """Raise ``account_closed`` if ``user``'s account is closed: before any session of
        it starts (``password_ok``: True), and at a log-in with a wrong password (False:
        only an account whose data is removed says so then)."""
        ...

    async def hidden(self, user_id: int) -> bool:
        """Whether the account is closed, so its profile is shown to nobody."""
        ...


@dataclass(frozen=True)
class Session:
    """A new log-in: the account, and the session id for the browser's cookie."""

    user: User
    session_id: str


class Accounts:
    """The accounts of the site, on the server's database and clock."""

    def __init__(self, core: TableCore, passwords: Passwords, limits: Limits, settings: Settings) -> None:
        self.core = core
        self.clock = core.clock
        self.store = AccountStore(core.repo)
        self.passwords = passwords
        self.settings = settings
        self.login_by_address = Buckets(limits.login_rate, limits.login_burst)
        self.login_by_name = Buckets(limits.login_user_rate, limits.login_user_burst)
        self.register_by_address = Buckets(limits.register_rate, limits.register_burst)
        self.register_by_name = Buckets(limits.register_user_rate, limits.register_user_burst)
        #: Requests to the account routes that read lists or claim seats, per user (or address).
        self.requests = Buckets(limits.http_rate, limits.http_burst)
        #: Closed accounts (set at wiring by the ``leaving`` feature; None: none can close).
        self.closures: Closures | None = None

    def _charge(self, by_address: Buckets, by_name: Buckets, address: str, key: str) -> None:
        now = self.clock.monotonic()
        # The address first: a flood from one place does not drain a username's budget.
        if not by_address.take(address, now) or not by_name.take(key, now):
            raise ApiError("rate_limited", _("too many attempts; wait a minute and try again"))

    async def _new_session(self, user: User, replaces: str | None, address: str) -> Session:
        if self.closures is not None:
            await self.closures.refuse_session(user, True)
        session_id = new_session_id()
        now = self.clock.now()
        await self.core.db(self.store.new_session, user.id, hash_token(session_id), now,
                           now + timedelta(seconds=self.settings.session_lifetime),
                           hash_token(replaces) if replaces else None, address)
        return Session(user, session_id)

    async def start_session(self, user: User, replaces: str | None, address: str) -> Session:
        """A new session of ``user`` (after a password reset: the browser is logged in anew);
        ``replaces``: the session the browser had, which ends."""
        return await self._new_session(user, replaces, address)

    # -- registering and logging in ---------------------------------------------------------

    async def register(self, username: str, password: str, address: str, replaces: str | None = None,
                       language: str | None = None) -> Session:
        """A new account, logged in (``replaces``: the session the browser had, which ends;
        ``language``: the registering request's, which notices and mails will speak)."""
        try:
            name = check_username(username)
            check_password(password)
        except ValueError as e:
            raise ApiError("bad_request", _("bad request: {e}", e=e)) from None
        key = username_key(name)
        self._charge(self.register_by_address, self.register_by_name, address, key)
        # Usernames are public (seats, profiles): saying one is taken reveals nothing new. A
        # look-alike of a taken one (omega.names.username_skeleton) gets the same answer: it
        # is not available either, and the message need not point at whom it looks like.
        if await self.core.db(self.store.username_taken, name, key):
            raise ApiError("name_taken", Message(NAME_TAKEN, {"name": repr(name)}))
        user = await self.core.db(self.store.create_user, name, key, await self.passwords.hash(password),
                                  self.clock.now(), address, language if language in LANGUAGES else None)
        if user is None:  # someone registered it, or a look-alike, in the meantime
            raise ApiError("name_taken", Message(NAME_TAKEN, {"name": repr(name)}))
        return await self._new_session(user, replaces, address)

    async def authenticate(self, username: str, password: str, address: str) -> User:
        """The account ``username`` names, if ``password`` is its own (``login_failed`` if
        not, the same answer for a username nobody has), charged to the log-in budgets of
        the address and the username.  Starts no session: a log-in, or a closed account's
        reopening (``leaving``), does what follows."""
        key = username_key(username)
        self._charge(self.login_by_address, self.login_by_name, address, key)
        record = await self.core.db(self.store.login_record, key)
        checked = await self.passwords.verify(record[1] if record is not None else None, password)
        if record is not None and not checked.ok and self.closures is not None:
            await self.closures.refuse_session(record[0], False)
        if record is None or not checked.ok:
            raise ApiError("login_failed", LOGIN_FAILED)
        user = record[0]
        if checked.rehashed is not None:  # the hashing parameters changed since this hash was made
            await self.core.db(self.store.set_password_hash, user.id, checked.rehashed)
        return user

    async def login(self, username: str, password: str, address: str, replaces: str | None = None,
                    language: str | None = None) -> Session:
        """A new session for the account, if the password is its own (``login_failed`` if
        not, the same answer for a username nobody has; ``account_closed`` for a closed one).
        An account with no language yet (made before accounts had one) takes ``language``,
        the log-in request's."""
        user = await self.authenticate(username, password, address)
        session = await self._new_session(user, replaces, address)
        if user.language is None and language in LANGUAGES:
            await self.core.db(lambda: self.store.set_language(user.id, str(language), if_none=True))
        return session

    async def set_language(self, user: User, language: str) -> str:
        """The account's language from now on (the page's Language setting): what its
        notices, their mails and pushes, and its mails are written in.  ``bad_request`` for
        a language the site does not speak, and nothing changes."""
        if language not in LANGUAGES:
            raise ApiError("bad_request", _("bad request: language: {language} is not one the site speaks ({languages})",
                                            language=repr(language), languages=", ".join(LANGUAGES)))
        await self.core.db(self.store.set_language, user.id, language)
        return language

    async def user_of(self, session_id: str) -> User | None:
        """The account of a live session (None: unknown or expired)."""
        return await self.core.db(self.store.session_user, hash_token(session_id), self.clock.now())

    async def logout(self, session_id: str) -> None:
        """End one session."""
        await self.core.db(self.store.end_session, hash_token(session_id))

    async def logout_everywhere(self, user: User) -> int:
        """End every session of the account; how many there were."""
        return await self.core.db(self.store.end_sessions, user.id)

    async def change_password(self, user: User, current: str, new: str, address: str, session_id: str) -> None:
        """A new password, given the current one; every other session of the account ends."""
        try:
            check_password(new)
        except ValueError as e:
            raise ApiError("bad_request", _("bad request: new_password: {e}", e=e)) from None
        self._charge(self.login_by_address, self.login_by_name, address, username_key(user.username))
        stored = await self.core.db(self.store.password_hash, user.id)
        if stored is None or not (await self.passwords.verify(stored, current)).ok:
            raise ApiError("forbidden", _("the current password is not right"))
        new_hash = await self.passwords.hash(new)
        keep = hash_token(session_id)
        await self.core.db(lambda: self.store.set_password_hash(user.id, new_hash, keep_session=keep, end_sessions=True))

    async def purge(self) -> int:
        """Remove expired sessions and password resets (recurring work); how many."""
        now = self.clock.now()
        return await self.core.db(self.store.purge_sessions, now) + await self.core.db(self.store.purge_resets, now)

    # -- seats --------------------------------------------------------------------------------

    async def claim(self, user: User, seats: list[tuple[str, str]]) -> list[dict[str, Any]]:
        """Bind to the account every seat whose link is given as ``(table id, seat token)``;
        one answer per pair, in order: ``claimed``, ``already`` (this account held it), or
        ``refused`` with the error that says why."""
        out: list[dict[str, Any]] = []
        for table_id, token in seats[:CLAIM_MAX]:
            answer: dict[str, Any] = {"table_id": table_id, "seat": None}
            try:
                who = await self.core.identify(table_id, Credentials(token), fresh=False)
                if not isinstance(who, SeatHolder):
                    raise ApiError("forbidden", _("a spectator link holds no seat"))
                answer["seat"] = who.seat
                bound = await self.core.db(self.store.bind_seat, table_id, who.seat, user.id)
                if bound == "other_account":
                    raise ApiError("forbidden", _("this seat belongs to another account"))
                if bound == "one_seat_per_table":
                    raise ApiError("conflict", _("your account already holds another seat of this table"))
                answer["status"] = bound
            except ApiError as e:
                answer["status"] = "refused"
                answer["error"] = e.as_json()["error"]
            out.append(answer)
        return out

    # -- lists ----------------------------------------------------------------------------------

    async def my_tables(self, user: User) -> list[dict[str, Any]]:
        """The account's unfinished tables, those where it is to move first."""
        return await self.core.db(self.store.my_tables, user.id, MY_TABLES_MAX)

    async def history(self, user: User, before: HistoryCursor | None, limit: int) -> dict[str, Any]:
        """A page of the account's finished games, newest first, and the next page's cursor."""
        games, after = await self.core.db(self.store.history, user.id, before, limit)
        return {"games": games, "next": cursor_text(after) if after is not None else None}

    async def find(self, username: str) -> tuple[User, datetime] | None:
        """The account named ``username`` (by its key: any case) and since when it exists;
        None: nobody has that name."""
        if len(username) > 64:
            return None
        return await self.core.db(self.store.user_by_key, username_key(username))

    async def roles(self, user: User) -> list[str]:
        """The roles ``user`` holds (``accounts.roles.ROLES``), highest first."""
        def read() -> frozenset[str]:
            with self.core.repo.engine.connect() as conn:
                held = roles_of(conn, user.id)
                conn.rollback()
            return held

        held = await self.core.db(read)
        return [r for r in ROLES if r in held]

    async def profile(self, username: str) -> dict[str, Any]:
        """What anyone may see of an account: its name, since when, games played and won."""
        found = await self.core.db(self.store.user_by_key, username_key(username)) if len(username) <= 64 else None
        if found is None or (self.closures is not None and await self.closures.hidden(found[0].id)):
            raise ApiError("not_found", _("there is no such player"))
        user, created = found
        played, won = await self.core.db(self.store.record_of, user.id)
        return {"username": user.username, "created_at": created.isoformat().replace("+00:00", "Z"),
                "games_played": played, "games_won": won}
