"""The challenges' queries (blocking: callers run them in the core's database threads,
inside their own transaction).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import func, or_, select, text, update
from sqlalchemy.engine import Connection

from omega.server.accounts.models import UserRow
from omega.server.challenges.models import ChallengeRow

__all__ = ["KIND", "TOPIC", "lock", "read", "count_pending", "mine", "names_of", "set_status", "notify"]

#: The due work that expires a challenge (``table_id``: the challenge's id).
KIND = "challenge"
#: The notification topic of a challenge's change between server processes
#: (``server:chal:<id>``; shorter than any table id, so never taken for one).
TOPIC = "chal"


def lock(conn: Connection, challenge_id: str) -> Any:
    """The challenge's row, locked until the transaction ends on PostgreSQL (SQLite's write
    transactions are one at a time already); None if there is none."""
    query = select(ChallengeRow).where(ChallengeRow.id == challenge_id)
    if conn.dialect.name == "postgresql":
        query = query.with_for_update()
    return conn.execute(query).one_or_none()


def read(conn: Connection, challenge_id: str) -> Any:
    """The challenge's row (None if there is none)."""
    return conn.execute(select(ChallengeRow).where(ChallengeRow.id == challenge_id)).one_or_none()


def count_pending(conn: Connection, user_id: int, now: datetime) -> int:
    """How many of ``user_id``'s challenges wait for an answer."""
    return int(conn.execute(select(func.count()).select_from(ChallengeRow).where(
        ChallengeRow.from_id == user_id, ChallengeRow.status == "pending", ChallengeRow.expires_at > now)).scalar_one())


def mine(conn: Connection, user_id: int, since: datetime, limit: int) -> list[Any]:
    """``user_id``'s challenges, sent or received, pending or answered since ``since``,
    newest first."""
    return list(conn.execute(select(ChallengeRow).where(
        or_(ChallengeRow.from_id == user_id, ChallengeRow.to_id == user_id, ChallengeRow.accepted_by == user_id),
        or_(ChallengeRow.status == "pending", ChallengeRow.answered_at >= since))
        .order_by(ChallengeRow.created_at.desc(), ChallengeRow.id).limit(limit)).all())


def names_of(conn: Connection, users: Sequence[int | None]) -> dict[int, str]:
    """The usernames of ``users`` (None left out)."""
    wanted = sorted({u for u in users if u is not None})
    if not wanted:
        return {}
    return {int(i): str(n) for i, n in conn.execute(
        select(UserRow.id, UserRow.username).where(UserRow.id.in_(wanted))).all()}


def set_status(conn: Connection, challenge_id: str, status: str, now: datetime, **values: Any) -> None:
    """The challenge answered (or expired) at ``now``."""
    conn.execute(update(ChallengeRow).where(ChallengeRow.id == challenge_id)
                 .values(status=status, answered_at=now, **values))


def notify(conn: Connection, server_id: str, challenge_id: str) -> None:
    """Tell the other server processes that the challenge changed (PostgreSQL NOTIFY, sent at
    the commit; nothing to tell on SQLite, where one process owns the database)."""
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_notify('omega_events', :p)"), {"p": f"{server_id}:{TOPIC}:{challenge_id}"})
