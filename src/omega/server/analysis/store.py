"""Where the analysis boards are kept: plain functions over the site's database (blocking:
callers run them through ``TableCore.db``).

>>> from datetime import UTC, datetime
>>> from omega.server.infra.db import Database, make_engine
>>> from omega.server.models import Base
>>> db = Database(make_engine("sqlite://")); Base.metadata.create_all(db.engine)
>>> now = datetime(2026, 12, 5, tzinfo=UTC)
>>> add_board(db, Stored("b1", None, "127.0.0.1", "k" * 64, 2, 5, False, "[]", 0, None, 1), now)
>>> board(db, "b1").size, boards_of(db, "127.0.0.1"), save_nodes(db, "b1", '[[0, ["e5", "a1"]]]', 1, now)
(5, 1, 2)
>>> save_nodes(db, "b1", "[]", 1, now) is None   # an older version: nothing saved
True
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, insert, select, update

from omega.server.analysis.models import BoardRow
from omega.server.infra.db import Database

__all__ = ["Stored", "add_board", "board", "boards_of", "save_nodes"]


@dataclass(frozen=True)
class Stored:
    """An analysis board as its row holds it (``nodes``: the tree's flat form as JSON)."""

    id: str
    user_id: int | None
    owner: str
    key_hash: str
    players: int
    size: int
    pie_rule: bool
    nodes: str
    start: int
    source_table: str | None
    version: int


_COLUMNS = (BoardRow.id, BoardRow.user_id, BoardRow.owner, BoardRow.key_hash, BoardRow.players, BoardRow.size,
            BoardRow.pie_rule, BoardRow.nodes, BoardRow.start, BoardRow.source_table, BoardRow.version)


def add_board(db: Database, stored: Stored, now: datetime) -> None:
    """Store a new board."""
    with db.writing() as conn:
        conn.execute(insert(BoardRow).values(
            id=stored.id, user_id=stored.user_id, owner=stored.owner, key_hash=stored.key_hash,
            players=stored.players, size=stored.size, pie_rule=stored.pie_rule, nodes=stored.nodes,
            start=stored.start, source_table=stored.source_table, version=stored.version,
            created_at=now, updated_at=now))


def board(db: Database, board_id: str) -> Stored | None:
    """The board ``board_id``, if there is one."""
    with db.engine.connect() as conn:
        row = conn.execute(select(*_COLUMNS).where(BoardRow.id == board_id)).one_or_none()
        conn.rollback()
    return None if row is None else Stored(*row)


def boards_of(db: Database, owner: str) -> int:
    """How many boards ``owner`` (an account's or an address's key) has."""
    with db.engine.connect() as conn:
        count = conn.execute(select(func.count()).select_from(BoardRow).where(BoardRow.owner == owner)).scalar_one()
        conn.rollback()
    return int(count)


def save_nodes(db: Database, board_id: str, nodes: str, version: int, now: datetime) -> int | None:
    """Replace the board's tree if it is still at ``version``: its new version, or None
    (another save came first, or the board is gone), and nothing changed."""
    with db.writing() as conn:
        done = conn.execute(update(BoardRow).where(BoardRow.id == board_id, BoardRow.version == version)
                            .values(nodes=nodes, version=version + 1, updated_at=now))
    return version + 1 if done.rowcount == 1 else None
