"""Where accounts live: users, their sessions and email addresses, the password resets asked
for, the seats they hold, and what their tables and finished games look like in lists.  Blocking, like :class:`~omega.server.tables.store.Repository`
(run it off the event loop); the rules are in :mod:`omega.server.accounts.service`.

>>> from datetime import UTC, datetime, timedelta
>>> from omega.server.infra.db import make_engine
>>> from omega.server.tables.store import Repository
>>> repo = Repository(make_engine("sqlite://")); repo.migrate()
>>> store = AccountStore(repo)
>>> now = datetime(2027, 1, 1, tzinfo=UTC)
>>> ann = store.create_user("Ann", "ann", "$argon2id$...", now)
>>> ann, store.create_user("ANN", "ann", "$argon2id$...", now)
(User(id=1, username='Ann'), None)
>>> store.create_user("\u0410nn", "\u0430nn", "$argon2id$...", now)  # a Cyrillic А: a look-alike
>>> store.username_taken("\u0410nn", "\u0430nn"), store.username_taken("Bo", "bo")
(True, False)
>>> store.new_session(ann.id, "d1", now, now + timedelta(days=1))
>>> store.session_user("d1", now), store.session_user("d1", now + timedelta(days=2))
(User(id=1, username='Ann'), None)
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import and_, delete, func, insert, literal, or_, select, tuple_, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from omega.game import Color
from omega.i18n import message_json
from omega.names import username_skeleton
from omega.server.accounts.models import PasswordResetRow, SessionRow, UserRow
from omega.server.infra.db import iso, utc
from omega.server.infra.due import DueRow
from omega.server.tables.models import EventRow, SeatRow, TableRow
from omega.server.tables.seatnames import default_name
from omega.server.tables.state import TIMEOUT, SeatConfig
from omega.server.tables.store import Repository
from omega.server.tables.timecontrol import TimeControl, stamp_ms

__all__ = ["User", "AccountStore", "Bound", "HistoryCursor", "origin_digest", "Verified", "game_results", "seat_color"]

#: What binding a seat to an account gave: bound now, bound to this account already, held
#: by another account, or refused because this account holds another seat of the table.
Bound = Literal["claimed", "already", "other_account", "one_seat_per_table"]

#: What verifying an address did: ``verified``; ``stale`` (the account asks for another
#: address now, or for none); ``taken`` (another account verified it first).
Verified = Literal["verified", "stale", "taken"]

#: Where a page of the history starts: the (finish time, table id) of the last game before it.
HistoryCursor = tuple[datetime, str]


@dataclass(frozen=True)
class User:
    """A logged-in person: the account's stable id and its username as shown; ``language``:
    the account's language where the look-up read it (a session's, a log-in's), else None
    (not part of who it is: two look-ups of one account are equal).

    >>> User(1, "Ann", "fr") == User(1, "Ann"), User(1, "Ann", "fr")
    (True, User(id=1, username='Ann'))
    """

    id: int
    username: str
    language: str | None = field(default=None, compare=False, repr=False)


def origin_digest(address: str | None) -> str | None:
    """What an account and a session keep of the address they came from: a digest (the
    address's ``infra.limits.address_key``, an IPv6 client's /64), only ever compared for
    equality by the fair-play flags (docs/ratings.md; docs/security.md, privacy).  None for
    no address.

    >>> origin_digest("203.0.113.7") == origin_digest("203.0.113.7") != origin_digest("203.0.113.8")
    True
    >>> len(origin_digest("203.0.113.7") or ""), origin_digest(None), origin_digest("?")
    (32, None, None)
    """
    if address is None or address == "?":  # "?": the connection did not say (limits.client_address)
        return None
    return hashlib.sha256(f"omega origin\0{address}".encode()).hexdigest()[:32]


class AccountStore:
    """The account tables of the server's database (all methods are blocking)."""

    def __init__(self, repo: Repository) -> None:
        self.repo = repo
        self.engine = repo.engine

    # -- users ----------------------------------------------------------------------------

    def create_user(self, username: str, key: str, password_hash: str, now: datetime,
                    address: str | None = None, language: str | None = None) -> User | None:
        """A new account, or None if ``key`` (the username's :func:`~omega.names.username_key`)
        or its :func:`~omega.names.username_skeleton` is taken (both are unique, so of two
        look-alikes registering at once one fails here); ``address``: where it was made from
        (kept as :func:`origin_digest`); ``language``: the account's (``users.language``)."""
        try:
            with self.repo.writing() as conn:
                user_id = conn.execute(insert(UserRow).values(
                    username=username, username_key=key, password_hash=password_hash, created_at=now,
                    origin=origin_digest(address), username_skeleton=username_skeleton(username),
                    language=language,
                ).returning(UserRow.id)).scalar_one()
        except IntegrityError:
            return None
        return User(int(user_id), username, language)

    def username_taken(self, username: str, key: str) -> bool:
        """Whether an account has the username's ``key`` or looks like it (its skeleton)."""
        with self.engine.connect() as conn:
            found = conn.execute(select(UserRow.id).where(or_(
                UserRow.username_key == key, UserRow.username_skeleton == username_skeleton(username),
            )).limit(1)).first()
            conn.rollback()
        return found is not None

    def login_record(self, key: str) -> tuple[User, str] | None:
        """The account whose username has ``key``, and its password hash; None if none has."""
        with self.engine.connect() as conn:
            row = conn.execute(select(UserRow.id, UserRow.username, UserRow.password_hash, UserRow.language)
                               .where(UserRow.username_key == key)).one_or_none()
            conn.rollback()
        return None if row is None else (User(int(row.id), row.username, row.language), row.password_hash)

    def set_language(self, user_id: int, language: str, *, if_none: bool = False) -> None:
        """The account's language from now on (``if_none``: only if it has none yet)."""
        where = [UserRow.id == user_id] + ([UserRow.language.is_(None)] if if_none else [])
        with self.repo.writing() as conn:
            conn.execute(update(UserRow).where(*where).values(language=language))

    def password_hash(self, user_id: int) -> str | None:
        """The account's password hash (None: no such account)."""
        with self.engine.connect() as conn:
            found = conn.execute(select(UserRow.password_hash).where(UserRow.id == user_id)).scalar_one_or_none()
            conn.rollback()
        return found

    def set_password_hash(self, user_id: int, password_hash: str, *, keep_session: str | None = None,
                          end_sessions: bool = False) -> None:
        """Store a new hash of the account's password; with ``end_sessions`` every session of
        the account but ``keep_session`` (a digest) ends in the same transaction."""
        with self.repo.writing() as conn:
            conn.execute(update(UserRow).where(UserRow.id == user_id).values(password_hash=password_hash))
            if end_sessions:
                query = delete(SessionRow).where(SessionRow.user_id == user_id)
                if keep_session is not None:
                    query = query.where(SessionRow.id_hash != keep_session)
                conn.execute(query)
                # A reset mailed before the change would undo it: it opens nothing any more.
                conn.execute(delete(PasswordResetRow).where(PasswordResetRow.user_id == user_id))

    def user_by_key(self, key: str) -> tuple[User, datetime] | None:
        """The account whose username has ``key``, and when it was made."""
        with self.engine.connect() as conn:
            row = conn.execute(select(UserRow.id, UserRow.username, UserRow.created_at)
                               .where(UserRow.username_key == key)).one_or_none()
            conn.rollback()
        return None if row is None else (User(int(row.id), row.username), utc(row.created_at))

    # -- sessions -------------------------------------------------------------------------

    def new_session(self, user_id: int, id_hash: str, now: datetime, expires_at: datetime,
                    replaces: str | None = None, address: str | None = None) -> None:
        """Store a session (by the digest of its id); ``replaces``: the digest of the session
        the browser had, which ends (a log-in always gets a new id); ``address``: where it
        logged in from (kept as :func:`origin_digest`).  The account's expired sessions are
        removed on the way."""
        with self.repo.writing() as conn:
            if replaces is not None:
                conn.execute(delete(SessionRow).where(SessionRow.id_hash == replaces))
            conn.execute(delete(SessionRow).where(SessionRow.user_id == user_id, SessionRow.expires_at <= now))
            conn.execute(insert(SessionRow).values(id_hash=id_hash, user_id=user_id, created_at=now,
                                                   expires_at=expires_at, origin=origin_digest(address)))

    def session_user(self, id_hash: str, now: datetime) -> User | None:
        """The account of an unexpired session, by the digest of its id."""
        with self.engine.connect() as conn:
            row = conn.execute(select(UserRow.id, UserRow.username, UserRow.language)
                               .join(SessionRow, SessionRow.user_id == UserRow.id)
                               .where(SessionRow.id_hash == id_hash, SessionRow.expires_at > now)).one_or_none()
            conn.rollback()
        return None if row is None else User(int(row.id), row.username, row.language)

    def end_session(self, id_hash: str) -> None:
        """Log one session out."""
        with self.repo.writing() as conn:
            conn.execute(delete(SessionRow).where(SessionRow.id_hash == id_hash))

    def end_sessions(self, user_id: int) -> int:
        """Log every session of the account out; how many there were."""
        with self.repo.writing() as conn:
            return int(conn.execute(delete(SessionRow).where(SessionRow.user_id == user_id)).rowcount)

    def purge_sessions(self, now: datetime) -> int:
        """Remove expired sessions (they already count as logged out); how many."""
        with self.repo.writing() as conn:
            return int(conn.execute(delete(SessionRow).where(SessionRow.expires_at <= now)).rowcount)

    # -- email addresses and password resets -----------------------------------------------

    def email_of(self, user_id: int) -> tuple[str | None, str | None]:
        """The account's verified address and the one it asked for (each None: none)."""
        with self.engine.connect() as conn:
            row = conn.execute(select(UserRow.email, UserRow.email_pending).where(UserRow.id == user_id)).one_or_none()
            conn.rollback()
        return (None, None) if row is None else (row.email, row.email_pending)

    def email_holder(self, key: str) -> int | None:
        """The account whose verified address has ``key`` (``addresses.email_key``), if any."""
        with self.engine.connect() as conn:
            found = conn.execute(select(UserRow.id).where(UserRow.email_key == key)).scalar_one_or_none()
            conn.rollback()
        return None if found is None else int(found)

    @staticmethod
    def ask_email(conn: Connection, user_id: int, address: str | None) -> None:
        """Inside the caller's transaction: the account asks for ``address`` (None: for no
        new one); the verified address stays until the new one is verified."""
        conn.execute(update(UserRow).where(UserRow.id == user_id).values(email_pending=address))

    def verify_email(self, user_id: int, address: str, key: str) -> Verified:
        """Make ``address`` (whose :func:`~omega.server.accounts.addresses.email_key` is
        ``key``) the account's verified address, if it is still the one the account asks
        for and no other account verified it first (the unique key decides a race)."""
        try:
            with self.repo.writing() as conn:
                pending = conn.execute(select(UserRow.email_pending).where(UserRow.id == user_id)).scalar_one_or_none()
                if pending != address:
                    return "stale"
                holder = conn.execute(select(UserRow.id).where(UserRow.email_key == key)).scalar_one_or_none()
                if holder is not None and holder != user_id:
                    return "taken"
                conn.execute(update(UserRow).where(UserRow.id == user_id)
                             .values(email=address, email_key=key, email_pending=None))
        except IntegrityError:
            return "taken"
        return "verified"

    def remove_email(self, user_id: int) -> None:
        """The account has no address any more, verified or asked for."""
        with self.repo.writing() as conn:
            conn.execute(update(UserRow).where(UserRow.id == user_id)
                         .values(email=None, email_key=None, email_pending=None))

    def reset_target(self, *, username: str | None = None, email: str | None = None) -> tuple[User, str] | None:
        """The account named by a username's key or a verified address's key, and its
        verified address; None if there is no such account or it has no verified address."""
        where = UserRow.username_key == username if username is not None else UserRow.email_key == email
        with self.engine.connect() as conn:
            row = conn.execute(select(UserRow.id, UserRow.username, UserRow.email, UserRow.language)
                               .where(where, UserRow.email.is_not(None))).one_or_none()
            conn.rollback()
        return None if row is None else (User(int(row.id), row.username, row.language), row.email)

    @staticmethod
    def add_reset(conn: Connection, user_id: int, digest: str, now: datetime, expires_at: datetime) -> None:
        """Inside the caller's transaction: a password reset for the account, by the digest
        of its token.  Earlier ones stay usable until they expire (mails arrive out of order)."""
        conn.execute(insert(PasswordResetRow).values(digest=digest, user_id=user_id, created_at=now,
                                                     expires_at=expires_at))

    def reset_user(self, digest: str, now: datetime) -> User | Literal["expired"] | None:
        """The account a reset's token is for, ``expired`` past its time, None if there is
        no such reset (never made, used, or purged)."""
        with self.engine.connect() as conn:
            row = conn.execute(select(UserRow.id, UserRow.username, PasswordResetRow.expires_at)
                               .join(PasswordResetRow, PasswordResetRow.user_id == UserRow.id)
                               .where(PasswordResetRow.digest == digest)).one_or_none()
            conn.rollback()
        if row is None:
            return None
        return User(int(row.id), row.username) if utc(row.expires_at) > now else "expired"

    def use_reset(self, digest: str, now: datetime, password_hash: str) -> User | None:
        """Use a reset once: the account's new password hash, every session of the account
        ended and every reset of it gone, in one transaction.  None if the reset is no longer
        there or has expired (another request used it first)."""
        with self.repo.writing() as conn:
            row = conn.execute(select(UserRow.id, UserRow.username)
                               .join(PasswordResetRow, PasswordResetRow.user_id == UserRow.id)
                               .where(PasswordResetRow.digest == digest, PasswordResetRow.expires_at > now)
                               ).one_or_none()
            if row is None:
                return None
            conn.execute(update(UserRow).where(UserRow.id == row.id).values(password_hash=password_hash))
            conn.execute(delete(SessionRow).where(SessionRow.user_id == row.id))
            conn.execute(delete(PasswordResetRow).where(PasswordResetRow.user_id == row.id))
        return User(int(row.id), row.username)

    def purge_resets(self, now: datetime) -> int:
        """Remove expired resets; how many."""
        with self.repo.writing() as conn:
            return int(conn.execute(delete(PasswordResetRow).where(PasswordResetRow.expires_at <= now)).rowcount)

    # -- seats ----------------------------------------------------------------------------

    def bind_seat(self, table_id: str, seat: int, user_id: int) -> Bound:
        """Make ``user_id``'s account the holder of a seat, unless another account holds it
        or this one holds another seat of the table.  Seats are bound once, never unbound."""
        try:
            with self.repo.writing() as conn:
                where = (SeatRow.table_id == table_id, SeatRow.idx == seat)
                query = select(SeatRow.user_id).where(*where)
                holder = conn.execute(query.with_for_update() if self.repo.is_postgres else query).scalar_one()
                if holder == user_id:
                    return "already"
                if holder is not None:
                    return "other_account"
                conn.execute(update(SeatRow).where(*where).values(user_id=user_id))
        except IntegrityError:  # the unique index: this account holds another seat here
            return "one_seat_per_table"
        return "claimed"

    # -- lists ----------------------------------------------------------------------------

    def _seated(self, conn: Any, table_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
        rows = conn.execute(select(SeatRow.table_id, SeatRow.idx, SeatRow.kind, SeatRow.level, UserRow.username)
                            .outerjoin(UserRow, UserRow.id == SeatRow.user_id)
                            .where(SeatRow.table_id.in_(table_ids)).order_by(SeatRow.table_id, SeatRow.idx))
        out: dict[str, list[dict[str, Any]]] = {t: [] for t in table_ids}
        configs: dict[str, list[SeatConfig]] = {t: [] for t in table_ids}
        rows = rows.all()
        for r in rows:
            configs[r.table_id].append(SeatConfig(r.kind, r.level))
        for r in rows:
            # A computer's name as its seat shows it (the one home: tables.seatnames.default_name).
            name = default_name(r.idx, SeatConfig(r.kind, r.level), configs[r.table_id]) if r.kind == "computer" else None
            out[r.table_id].append({"index": r.idx, "kind": r.kind, "level": r.level, "user": r.username, "name": name,
                                    "name_text": message_json(name)})
        return out

    def my_tables(self, user_id: int, limit: int) -> list[dict[str, Any]]:
        """The account's unfinished tables: those where its seat is to move first (the clock
        that runs out soonest first), then the most recently changed.  ``flag_at`` is when the
        running clock's flag falls (None: no clock runs), read from the due timeout."""
        mine = and_(SeatRow.user_id == user_id, TableRow.status == "playing")
        my_turn = func.coalesce(TableRow.to_move_seat == SeatRow.idx, literal(False))
        flag = and_(DueRow.table_id == TableRow.id, DueRow.kind == TIMEOUT)
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(TableRow.id, TableRow.players, TableRow.size, TableRow.pie_rule, TableRow.created_at,
                       TableRow.updated_at, TableRow.to_move_seat, TableRow.time_control, SeatRow.idx,
                       DueRow.due_at.label("flag_at"))
                .join(SeatRow, SeatRow.table_id == TableRow.id).outerjoin(DueRow, flag).where(mine)
                .order_by(my_turn.desc(), DueRow.due_at.asc().nulls_last(), TableRow.updated_at.desc(), TableRow.id)
                .limit(limit)).all()
            seated = self._seated(conn, [r.id for r in rows]) if rows else {}
            conn.rollback()
        return [{
            "id": r.id, "players": r.players, "size": r.size, "pie_rule": r.pie_rule,
            "created_at": iso(r.created_at), "updated_at": iso(r.updated_at or r.created_at),
            "seat": r.idx, "your_turn": r.to_move_seat == r.idx, "seats": seated[r.id],
            "time_control": {"text": (tc := TimeControl.parse(r.time_control)).text, "kind": tc.kind},
            "flag_at": stamp_ms(utc(r.flag_at)) if r.flag_at is not None else None,
        } for r in rows]

    def history(self, user_id: int, before: HistoryCursor | None, limit: int) -> tuple[list[dict[str, Any]],
                                                                                       HistoryCursor | None]:
        """The account's finished games, newest first: ``limit`` of them from ``before`` on,
        and the cursor of the next page (None: this is the last)."""
        query = (select(TableRow.id, TableRow.players, TableRow.size, TableRow.pie_rule, TableRow.created_at,
                        TableRow.updated_at, SeatRow.idx)
                 .join(SeatRow, SeatRow.table_id == TableRow.id)
                 .where(SeatRow.user_id == user_id, TableRow.status == "over"))
        if before is not None:
            query = query.where(tuple_(TableRow.updated_at, TableRow.id) < tuple_(literal(before[0]), literal(before[1])))
        with self.engine.connect() as conn:
            rows = conn.execute(query.order_by(TableRow.updated_at.desc(), TableRow.id.desc()).limit(limit + 1)).all()
            page = rows[:limit]
            ids = [r.id for r in page]
            results = _results(conn, ids) if ids else {}
            seated = self._seated(conn, ids) if ids else {}
            conn.rollback()
        games = []
        for r in page:
            reason, ranking, swapped = results.get(r.id, (None, [], False))
            color = _color_of(r.idx, swapped)
            place = ranking.index(color) + 1 if color in ranking else None
            games.append({
                "id": r.id, "players": r.players, "size": r.size, "pie_rule": r.pie_rule,
                "created_at": iso(r.created_at), "finished_at": iso(r.updated_at or r.created_at),
                "seat": r.idx, "color": color, "reason": reason, "ranking": ranking, "place": place,
                "won": place == 1, "seats": seated[r.id],
            })
        last = page[-1] if page else None
        after = (utc(last.updated_at or last.created_at), last.id) if len(rows) > limit and last is not None else None
        return games, after

    def record_of(self, user_id: int) -> tuple[int, int]:
        """How many finished games the account played, and how many it won."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(TableRow.id, SeatRow.idx).join(SeatRow, SeatRow.table_id == TableRow.id)
                                .where(SeatRow.user_id == user_id, TableRow.status == "over")).all()
            results = _results(conn, [r.id for r in rows]) if rows else {}
            conn.rollback()
        won = 0
        for r in rows:
            _, ranking, swapped = results.get(r.id, (None, [], False))
            won += bool(ranking) and ranking[0] == _color_of(r.idx, swapped)
        return len(rows), won


def seat_color(seat: int, swapped: bool) -> str:
    """The colour ``seat`` played at the end (``swapped``: the pie swap was taken).

    >>> seat_color(0, False), seat_color(0, True), seat_color(2, True)
    ('White', 'Black', 'Red')
    """
    # The pie swap (two players only) is the one way a seat changes colour.
    return Color(1 - seat if swapped and seat <= 1 else seat).label


_color_of = seat_color


def game_results(conn: Any, table_ids: list[str]) -> dict[str, tuple[str | None, list[str], bool]]:
    """Per finished table of ``table_ids``: how it ended, its final ranking (colours) and
    whether the colours were swapped (for :func:`seat_color`), read from the log."""
    return _results(conn, table_ids)


def _results(conn: Any, table_ids: list[str]) -> dict[str, tuple[str | None, list[str], bool]]:
    """Per finished table: how it ended, its final ranking (colours) and whether the colours
    were swapped, read from the log's ``over`` and ``swap`` events."""
    out: dict[str, tuple[str | None, list[str], bool]] = {}
    swapped = set(conn.execute(select(EventRow.table_id).where(EventRow.table_id.in_(table_ids),
                                                                EventRow.kind == "swap")).scalars())
    for table_id, data in conn.execute(select(EventRow.table_id, EventRow.data)
                                       .where(EventRow.table_id.in_(table_ids), EventRow.kind == "over")):
        over = json.loads(data)
        out[table_id] = (over.get("reason"), list(over.get("ranking", [])), table_id in swapped)
    return out
