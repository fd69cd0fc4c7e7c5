"""The relations' queries, plain functions over a SQLAlchemy ``Connection`` (blocking:
callers run them in the core's database threads, inside their own transaction).

>>> from datetime import UTC, datetime
>>> from omega.server.infra.db import make_engine
>>> from omega.server.models import Base
>>> engine = make_engine("sqlite://"); Base.metadata.create_all(engine)
>>> now = datetime(2026, 1, 1, tzinfo=UTC)
>>> with engine.begin() as conn:
...     _ = conn.execute(Base.metadata.tables["users"].insert(), [{"id": i, "username": n, "username_key": n,
...                      "password_hash": "-", "created_at": now} for i, n in [(1, "ann"), (2, "bob"), (3, "cyd")]])
...     add_block(conn, 2, 3, now)
...     sorted(map(sorted, blocked_among(conn, [1, 2, 3]))), blocked_between(conn, 3, 2), blocked_between(conn, 1, 2)
([[2, 3]], True, False)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, delete, func, or_, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection

from omega.names import username_key
from omega.server.accounts.models import UserRow
from omega.server.infra.db import utc
from omega.server.relations.models import BlockRow, FollowRow
from omega.server.tables.models import PresenceRow, SeatRow, TableRow

__all__ = ["Account", "Listed", "account_named", "add_follow", "remove_follow", "add_block", "remove_block",
           "count_follows", "count_blocks", "follows_of", "blocks_of", "is_following", "blocked_between",
           "blocked_among", "at_tables", "playing_at"]


@dataclass(frozen=True)
class Account:
    """An account as a relation names it."""

    id: int
    username: str


@dataclass(frozen=True)
class Listed:
    """One account of a list (followed or blocked), and since when."""

    id: int
    username: str
    since: datetime


def account_named(conn: Connection, username: str) -> Account | None:
    """The account whose username is ``username`` (as the account rule compares names:
    case and width do not count), or None."""
    if not 0 < len(username) <= 64:
        return None
    row = conn.execute(select(UserRow.id, UserRow.username).where(
        UserRow.username_key == username_key(username))).one_or_none()
    return None if row is None else Account(int(row.id), str(row.username))


def _insert(conn: Connection) -> Any:
    # The dialect's INSERT, for its ON CONFLICT DO NOTHING (two requests at once make one row).
    return postgresql_insert if conn.dialect.name == "postgresql" else sqlite_insert


def add_follow(conn: Connection, follower: int, followed: int, now: datetime) -> None:
    """``follower`` follows ``followed`` (again: nothing changes, not even the time)."""
    conn.execute(_insert(conn)(FollowRow).values(follower_id=follower, followed_id=followed, created_at=now)
                 .on_conflict_do_nothing(index_elements=["follower_id", "followed_id"]))


def remove_follow(conn: Connection, follower: int, followed: int) -> None:
    """``follower`` no longer follows ``followed``."""
    conn.execute(delete(FollowRow).where(FollowRow.follower_id == follower, FollowRow.followed_id == followed))


def add_block(conn: Connection, blocker: int, blocked: int, now: datetime) -> None:
    """``blocker`` blocks ``blocked``, and neither follows the other any more."""
    conn.execute(_insert(conn)(BlockRow).values(blocker_id=blocker, blocked_id=blocked, created_at=now)
                 .on_conflict_do_nothing(index_elements=["blocker_id", "blocked_id"]))
    conn.execute(delete(FollowRow).where(or_(
        and_(FollowRow.follower_id == blocker, FollowRow.followed_id == blocked),
        and_(FollowRow.follower_id == blocked, FollowRow.followed_id == blocker))))


def remove_block(conn: Connection, blocker: int, blocked: int) -> None:
    """``blocker`` no longer blocks ``blocked`` (the follows it ended stay ended)."""
    conn.execute(delete(BlockRow).where(BlockRow.blocker_id == blocker, BlockRow.blocked_id == blocked))


def count_follows(conn: Connection, user_id: int) -> int:
    """How many accounts ``user_id`` follows."""
    return int(conn.execute(select(func.count()).select_from(FollowRow)
                            .where(FollowRow.follower_id == user_id)).scalar_one())


def count_blocks(conn: Connection, user_id: int) -> int:
    """How many accounts ``user_id`` blocks."""
    return int(conn.execute(select(func.count()).select_from(BlockRow)
                            .where(BlockRow.blocker_id == user_id)).scalar_one())


def is_following(conn: Connection, follower: int, followed: int) -> bool:
    """Whether ``follower`` follows ``followed``."""
    return conn.execute(select(FollowRow.follower_id).where(
        FollowRow.follower_id == follower, FollowRow.followed_id == followed)).first() is not None


def follows_of(conn: Connection, user_id: int) -> list[Listed]:
    """The accounts ``user_id`` follows, by username."""
    rows = conn.execute(select(UserRow.id, UserRow.username, FollowRow.created_at)
                        .join(UserRow, UserRow.id == FollowRow.followed_id)
                        .where(FollowRow.follower_id == user_id).order_by(UserRow.username_key)).all()
    return [Listed(int(r.id), str(r.username), utc(r.created_at)) for r in rows]


def blocks_of(conn: Connection, user_id: int) -> list[Listed]:
    """The accounts ``user_id`` blocks, by username."""
    rows = conn.execute(select(UserRow.id, UserRow.username, BlockRow.created_at)
                        .join(UserRow, UserRow.id == BlockRow.blocked_id)
                        .where(BlockRow.blocker_id == user_id).order_by(UserRow.username_key)).all()
    return [Listed(int(r.id), str(r.username), utc(r.created_at)) for r in rows]


def blocked_between(conn: Connection, a: int, b: int) -> bool:
    """Whether ``a`` blocked ``b`` or ``b`` blocked ``a``."""
    return conn.execute(select(BlockRow.blocker_id).where(or_(
        and_(BlockRow.blocker_id == a, BlockRow.blocked_id == b),
        and_(BlockRow.blocker_id == b, BlockRow.blocked_id == a)))).first() is not None


def blocked_among(conn: Connection, users: Sequence[int]) -> set[frozenset[int]]:
    """The pairs of ``users`` where one blocked the other (one query, whatever the count)."""
    wanted = sorted(set(users))
    if len(wanted) < 2:
        return set()
    rows = conn.execute(select(BlockRow.blocker_id, BlockRow.blocked_id).where(
        BlockRow.blocker_id.in_(wanted), BlockRow.blocked_id.in_(wanted))).all()
    return {frozenset((int(a), int(b))) for a, b in rows}


def at_tables(conn: Connection, users: Sequence[int]) -> set[int]:
    """Those of ``users`` with a table's page open at a seat they hold now (a socket counted
    in ``presence``, by any server process)."""
    if not users:
        return set()
    rows = conn.execute(select(SeatRow.user_id).distinct().join(PresenceRow, and_(
        PresenceRow.table_id == SeatRow.table_id, PresenceRow.seat == SeatRow.idx))
        .where(SeatRow.user_id.in_(list(users)), PresenceRow.count > 0)).scalars()
    return {int(u) for u in rows if u is not None}


def playing_at(conn: Connection, users: Sequence[int]) -> dict[int, str]:
    """Per account of ``users``: the game it plays now that anyone may watch (the latest to
    move, of those listed, rated or watchable); accounts without one are missing."""
    if not users:
        return {}
    rows = conn.execute(select(SeatRow.user_id, TableRow.id).join(TableRow, TableRow.id == SeatRow.table_id)
                        .where(SeatRow.user_id.in_(list(users)), TableRow.status == "playing",
                               or_(TableRow.open.is_(True), TableRow.rated.is_(True), TableRow.watchable.is_(True)))
                        .order_by(TableRow.updated_at, TableRow.id)).all()
    return {int(u): str(t) for u, t in rows if u is not None}  # the latest one wins
