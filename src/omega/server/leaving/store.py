"""Where an account's personal data is read for its download and removed after its closing,
and the closings themselves.  Blocking, each function inside the caller's transaction.

This is the one module that knows every feature's rows that hold something of a person
(like ``omega.server.models``, which knows every feature's rows): a feature that starts to
keep more of an account adds it here, to the download and to the removal.

>>> from datetime import UTC, datetime, timedelta
>>> from omega.server.accounts.store import AccountStore
>>> from omega.server.infra.db import make_engine
>>> from omega.server.tables.store import Repository
>>> repo = Repository(make_engine("sqlite://")); repo.migrate()
>>> now = datetime(2027, 1, 1, tzinfo=UTC)
>>> ann = AccountStore(repo).create_user("Ann", "ann", "$argon2id$...", now)
>>> with repo.writing() as conn:
...     add_closure(conn, ann.id, now, now + timedelta(days=14), "self")
...     closure_of(conn, ann.id).by
'self'
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Connection

from omega.server.accounts.models import PasswordResetRow, RoleRow, SessionRow, UserRow
from omega.server.analysis.models import BoardRow
from omega.server.infra.db import iso, utc
from omega.server.infra.due import drop_due_row
from omega.server.leaving.models import ClosureRow
from omega.server.notify.models import DeliveryRow, DigestRow, SettingsRow
from omega.server.notify.outbox import OutboxRow
from omega.server.push.models import SubscriptionRow
from omega.server.puzzles.models import PuzzleAttemptRow, PuzzleRatingRow
from omega.server.ratings.models import RatingRow
from omega.server.social.models import ChatRow
from omega.server.tables.models import SeatRow, TableRow
from omega.server.tournaments.models import EntryRow, TournamentRow
from omega.server.vacation.models import VacationRow
from omega.server.watch.models import WatchSettingRow

__all__ = ["Closure", "closure_of", "add_closure", "drop_closure", "mark_removed", "end_sessions", "seats_of",
           "personal_data", "remove_personal_data"]


@dataclass(frozen=True)
class Closure:
    """A closed account: when, by whom, when its data is removed, and whether it was."""

    user_id: int
    closed_at: datetime
    remove_at: datetime
    by: str
    removed_at: datetime | None


def closure_of(conn: Connection, user_id: int, *, lock: bool = False) -> Closure | None:
    """The account's closing (None: it is open); ``lock`` holds its row to the commit (PostgreSQL)."""
    query = select(ClosureRow).where(ClosureRow.user_id == user_id)
    row = conn.execute(query.with_for_update() if lock and conn.dialect.name == "postgresql" else query).one_or_none()
    if row is None:
        return None
    return Closure(int(row.user_id), utc(row.closed_at), utc(row.remove_at), row.by,
                   None if row.removed_at is None else utc(row.removed_at))


def add_closure(conn: Connection, user_id: int, now: datetime, remove_at: datetime, by: str) -> None:
    """Store the account's closing."""
    conn.execute(insert(ClosureRow).values(user_id=user_id, closed_at=now, remove_at=remove_at, by=by, removed_at=None))


def drop_closure(conn: Connection, user_id: int) -> None:
    """The account is open again."""
    conn.execute(delete(ClosureRow).where(ClosureRow.user_id == user_id))


def mark_removed(conn: Connection, user_id: int, now: datetime) -> None:
    """The account's personal data was removed at ``now``."""
    conn.execute(update(ClosureRow).where(ClosureRow.user_id == user_id).values(removed_at=now))


def end_sessions(conn: Connection, user_id: int) -> int:
    """Log the account out everywhere and void its mailed password resets; how many sessions ended."""
    ended = int(conn.execute(delete(SessionRow).where(SessionRow.user_id == user_id)).rowcount)
    conn.execute(delete(PasswordResetRow).where(PasswordResetRow.user_id == user_id))
    return ended


def seats_of(conn: Connection, user_id: int) -> list[tuple[str, int]]:
    """Every ``(table id, seat)`` the account holds, the oldest table first."""
    return [(r.table_id, int(r.idx)) for r in conn.execute(
        select(SeatRow.table_id, SeatRow.idx).join(TableRow, TableRow.id == SeatRow.table_id)
        .where(SeatRow.user_id == user_id).order_by(TableRow.created_at, TableRow.id))]


def personal_data(conn: Connection, user_id: int) -> dict[str, Any]:
    """What the site keeps of the account besides its games and ratings (which the service
    adds): the account, its preferences, sessions, devices, chat lines, notices, puzzles
    and tournaments.  Only this account's rows: nothing of another person's."""
    user = conn.execute(select(UserRow).where(UserRow.id == user_id)).one()
    notify = conn.execute(select(SettingsRow.off, SettingsRow.digest).where(SettingsRow.user_id == user_id)).one_or_none()
    vacation = conn.execute(select(VacationRow).where(VacationRow.user_id == user_id)).one_or_none()
    listed = conn.execute(select(WatchSettingRow.listed).where(WatchSettingRow.user_id == user_id)).scalar_one_or_none()
    return {
        "account": {"id": user.id, "username": user.username, "created_at": iso(user.created_at),
                    "email": user.email, "email_pending": user.email_pending, "language": user.language,
                    "roles": sorted(conn.execute(select(RoleRow.role).where(RoleRow.user_id == user_id)).scalars())},
        "preferences": {
            "notifications": {"off": sorted(notify.off or []), "digest": bool(notify.digest)} if notify else None,
            "watch": {"listed": True if listed is None else bool(listed)},
            "vacation": None if vacation is None else {
                "automatic": bool(vacation.automatic), "year": vacation.year, "used_hours": vacation.used_hours,
                "since": iso(vacation.since), "until": iso(vacation.until)},
        },
        "sessions": [{"created_at": iso(r.created_at), "expires_at": iso(r.expires_at)} for r in conn.execute(
            select(SessionRow.created_at, SessionRow.expires_at).where(SessionRow.user_id == user_id)
            .order_by(SessionRow.created_at))],
        "push_devices": [{"endpoint": r.endpoint, "created_at": iso(r.created_at)} for r in conn.execute(
            select(SubscriptionRow.endpoint, SubscriptionRow.created_at).where(SubscriptionRow.user_id == user_id)
            .order_by(SubscriptionRow.id))],
        # Chat lines keep their writer's username (social.models.ChatRow), not the account's id.
        "chat": [{"table_id": r.table_id, "created_at": iso(r.created_at), "seat": r.seat, "name": r.name,
                  "text": r.text} for r in conn.execute(
            select(ChatRow.table_id, ChatRow.created_at, ChatRow.seat, ChatRow.name, ChatRow.text)
            .where(ChatRow.username == user.username).order_by(ChatRow.id))],
        "notifications": [{"channel": r.channel, "kind": r.kind, "subject": r.subject, "text": r.text, "path": r.path,
                           "created_at": iso(r.created_at), "delivered_at": iso(r.delivered_at)}
                          for r in conn.execute(select(DeliveryRow).where(DeliveryRow.user_id == user_id)
                                                .order_by(DeliveryRow.id))],
        "notifications_waiting": [{"subject": r.subject, "text": r.text, "path": r.path,
                                   "created_at": iso(r.created_at)}
                                  for r in conn.execute(select(DigestRow).where(DigestRow.user_id == user_id)
                                                        .order_by(DigestRow.id))],
        "analysis_boards": [{"id": r.id, "players": r.players, "size": r.size, "nodes": r.nodes,
                             "created_at": iso(r.created_at)} for r in conn.execute(
            select(BoardRow).where(BoardRow.user_id == user_id).order_by(BoardRow.created_at, BoardRow.id))],
        "puzzles": {
            "rating": next(({"rating": r.rating, "deviation": r.deviation, "attempts": r.attempts, "solved": r.solved}
                            for r in conn.execute(select(PuzzleRatingRow).where(PuzzleRatingRow.user_id == user_id))),
                           None),
            "attempts": [{"puzzle": r.puzzle_id, "turn": r.turn, "solved": bool(r.solved), "created_at": iso(r.created_at),
                          "rating_before": r.rating_before, "rating_after": r.rating_after}
                         for r in conn.execute(select(PuzzleAttemptRow).where(PuzzleAttemptRow.user_id == user_id)
                                               .order_by(PuzzleAttemptRow.id))],
        },
        "tournaments": [{"id": r.id, "name": r.name, "joined_at": iso(r.joined_at), "withdrawn": bool(r.withdrawn)}
                        for r in conn.execute(select(TournamentRow.id, TournamentRow.name, EntryRow.joined_at,
                                                     EntryRow.withdrawn)
                                              .join(EntryRow, EntryRow.tournament_id == TournamentRow.id)
                                              .where(EntryRow.user_id == user_id).order_by(EntryRow.joined_at))],
    }


def remove_personal_data(conn: Connection, user_id: int, shown_as: str, vacation_kind: str) -> None:
    """Remove what the site keeps of a person: the account's email addresses (and the mail
    queued to them), password hash, origin, language, preferences, sessions, roles, devices, notices, analysis boards,
    its own ratings (off the leaderboards), its puzzle rating and attempts, and the text of its chat lines; the account's
    name is shown as ``shown_as`` from now on.  Kept: the account's row (its username's key
    and skeleton keep the name reserved), its seats (the games, shown as ``shown_as`` by the
    tables' own rename) and what other people's results are made of (rating changes,
    tournament entries)."""
    user = conn.execute(select(UserRow.username, UserRow.email, UserRow.email_pending)
                        .where(UserRow.id == user_id)).one()
    addresses = [a for a in (user.email, user.email_pending) if a]
    if addresses:
        conn.execute(delete(OutboxRow).where(OutboxRow.to_address.in_(addresses)))
    conn.execute(update(ChatRow).where(ChatRow.username == user.username)
                 .values(text="", name=shown_as, username=None))
    for row in (SessionRow, PasswordResetRow, RoleRow, SettingsRow, DeliveryRow, DigestRow, SubscriptionRow,
                VacationRow, WatchSettingRow, RatingRow, BoardRow, PuzzleRatingRow, PuzzleAttemptRow):
        conn.execute(delete(row).where(row.user_id == user_id))
    drop_due_row(conn, vacation_kind, f"user:{user_id}")
    conn.execute(update(UserRow).where(UserRow.id == user_id).values(
        username=shown_as, password_hash="", email=None, email_key=None, email_pending=None, origin=None,
        language=None))
