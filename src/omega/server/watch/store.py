"""Where the live list is read: the public tables being played now whose every human seat
an account holds, none of which turned listing off, and each account's setting.  Blocking
(run through ``TableCore.db``); the order and the ratings are :mod:`omega.server.watch.service`'s.

>>> from datetime import UTC, datetime
>>> from omega.server.infra.db import make_engine
>>> from omega.server.tables.store import Repository
>>> repo = Repository(make_engine("sqlite://")); repo.migrate()
>>> store = WatchStore(repo)
>>> store.listed(1)
True
>>> live_candidates(repo, Filters(), None)
[]
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import exists, or_, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from omega.names import username_key
from omega.server.accounts.models import UserRow
from omega.server.infra.db import iso
from omega.server.tables.models import SeatRow, TableRow
from omega.server.tables.store import Repository
from omega.server.tables.timecontrol import TimeControl
from omega.server.tournaments.service import private_tables
from omega.server.watch.models import WatchSettingRow
from omega.server.watch.schemas import Filters

__all__ = ["WatchStore", "live_candidates", "CANDIDATES"]

#: Live tables read at most, the latest moved first, before they are ordered by rating.
CANDIDATES = 300


def live_candidates(repo: Repository, filters: Filters, table_id: str | None) -> list[dict[str, Any]]:
    """The listed live tables (only ``table_id`` when given), the latest moved first: being
    played (``playing``, every human seat held by an account, so no lobby table still
    waiting), watchable by anyone (listed in the lobby, rated, or a tournament's), not a
    private tournament's, and no seated account has turned listing off.  Each with its seats
    (``user_id`` for the ratings, dropped before it is shown)."""
    seat = SeatRow.table_id == TableRow.id
    guest_seat = exists().where(seat, SeatRow.kind == "human", SeatRow.user_id.is_(None))
    opted_out = exists().where(seat, WatchSettingRow.user_id == SeatRow.user_id, WatchSettingRow.listed.is_(False))
    query = (select(TableRow.id, TableRow.players, TableRow.size, TableRow.rated, TableRow.time_control,
                    TableRow.to_move_seat, TableRow.updated_at, TableRow.created_at)
             .where(TableRow.status == "playing", or_(TableRow.open, TableRow.rated, TableRow.watchable),
                    ~guest_seat, ~opted_out))
    if table_id is not None:
        query = query.where(TableRow.id == table_id)
    if filters.size is not None:
        query = query.where(TableRow.size == filters.size)
    if filters.players is not None:
        query = query.where(TableRow.players == filters.players)
    if filters.rated is not None:
        query = query.where(TableRow.rated.is_(filters.rated))
    if filters.username is not None:
        query = query.where(exists().where(seat, SeatRow.user_id == UserRow.id,
                                           UserRow.username_key == username_key(filters.username)))
    with repo.engine.connect() as conn:
        rows = conn.execute(query.order_by(TableRow.updated_at.desc(), TableRow.id).limit(CANDIDATES)).all()
        private = private_tables(conn, [r.id for r in rows])
        rows = [r for r in rows if r.id not in private]
        seats: dict[str, list[dict[str, Any]]] = {r.id: [] for r in rows}
        if rows:
            for s in conn.execute(select(SeatRow.table_id, SeatRow.idx, SeatRow.kind, SeatRow.level, SeatRow.user_id,
                                         UserRow.username)
                                  .outerjoin(UserRow, UserRow.id == SeatRow.user_id)
                                  .where(SeatRow.table_id.in_(list(seats))).order_by(SeatRow.table_id, SeatRow.idx)):
                seats[s.table_id].append({"index": s.idx, "kind": s.kind, "level": s.level, "username": s.username,
                                          "user_id": s.user_id})
        conn.rollback()
    return [{
        "id": r.id, "players": r.players, "size": r.size, "rated": bool(r.rated),
        "time_control": {"text": (tc := TimeControl.parse(r.time_control)).text, "kind": tc.kind},
        "to_move_seat": r.to_move_seat, "updated_at": iso(r.updated_at or r.created_at),
        "seats": seats[r.id], "path": f"/t/{r.id}",
    } for r in rows]


class WatchStore:
    """The accounts' listing settings (blocking)."""

    def __init__(self, repo: Repository) -> None:
        self.repo = repo

    def listed(self, user_id: int) -> bool:
        """Whether the account's games are listed (yes until it says otherwise)."""
        with self.repo.engine.connect() as conn:
            found = conn.execute(select(WatchSettingRow.listed).where(WatchSettingRow.user_id == user_id)
                                 ).scalar_one_or_none()
            conn.rollback()
        return True if found is None else bool(found)

    def set_listed(self, user_id: int, listed: bool, now: datetime) -> None:
        """Store the account's setting."""
        with self.repo.writing() as conn:
            dialect_insert = postgresql_insert if conn.dialect.name == "postgresql" else sqlite_insert
            conn.execute(dialect_insert(WatchSettingRow).values(user_id=user_id, listed=listed, updated_at=now)
                         .on_conflict_do_nothing(index_elements=["user_id"]))
            conn.execute(update(WatchSettingRow).where(WatchSettingRow.user_id == user_id)
                         .values(listed=listed, updated_at=now))
