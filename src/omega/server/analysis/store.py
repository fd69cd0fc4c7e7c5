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

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from omega.server.analysis.models import BoardRow, EvaluationRow
from omega.server.infra.db import Database
from omega.server.infra.due import DueRow, keep_due_row

__all__ = ["Stored", "Asked", "add_board", "board", "boards_of", "save_nodes", "ask_elsewhere", "asked", "answer_of_digest",
           "store_answer", "owner_waiting", "drop_unclaimed", "purge_asked"]


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
    """How many boards ``owner`` (the digest of an account's or an address's key) has."""
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


@dataclass(frozen=True)
class Asked:
    """A position asked for a worker to evaluate (``actions``: JSON), and its answer (JSON)."""

    players: int
    size: int
    pie_rule: bool
    actions: str
    owner: str
    answer: str | None


def ask_elsewhere(db: Database, kind: str, digest: str, position: Asked, now: datetime) -> str | None:
    """Store the position and its due work of ``kind`` (one transaction); the answer when
    another request's search found it already (then no work is made due)."""
    dialect_insert = postgresql_insert if db.is_postgres else sqlite_insert
    with db.writing() as conn:
        conn.execute(dialect_insert(EvaluationRow).values(
            digest=digest, players=position.players, size=position.size, pie_rule=position.pie_rule,
            actions=position.actions, owner=position.owner, answer=None, created_at=now)
            .on_conflict_do_nothing(index_elements=["digest"]))
        answer = conn.execute(select(EvaluationRow.answer).where(EvaluationRow.digest == digest)).scalar_one()
        if answer is None:
            keep_due_row(conn, kind, digest, 0, now, position.owner)
    return answer


def asked(db: Database, digest: str) -> Asked | None:
    """The position stored as ``digest``, if any."""
    with db.engine.connect() as conn:
        row = conn.execute(select(EvaluationRow.players, EvaluationRow.size, EvaluationRow.pie_rule,
                                  EvaluationRow.actions, EvaluationRow.owner, EvaluationRow.answer)
                           .where(EvaluationRow.digest == digest)).one_or_none()
        conn.rollback()
    return None if row is None else Asked(*row)


def answer_of_digest(db: Database, digest: str) -> str | None:
    """The answer found for the position ``digest`` (JSON), if any."""
    found = asked(db, digest)
    return None if found is None else found.answer


def store_answer(db: Database, digest: str, answer: str) -> None:
    """Keep the answer found for the position ``digest``."""
    with db.writing() as conn:
        conn.execute(update(EvaluationRow).where(EvaluationRow.digest == digest).values(answer=answer))


def owner_waiting(db: Database, kind: str, owner: str) -> int:
    """``owner``'s work of ``kind`` waiting or being done, site-wide."""
    with db.engine.connect() as conn:
        count = conn.execute(select(func.count()).select_from(DueRow)
                             .where(DueRow.kind == kind, DueRow.owner == owner)).scalar_one()
        conn.rollback()
    return int(count)


def drop_unclaimed(db: Database, kind: str, digest: str) -> None:
    """Drop the ``kind`` work of ``digest`` unless a process claimed it already (a search
    that runs finishes: cancelling it would cost a worker process)."""
    with db.writing() as conn:
        conn.execute(delete(DueRow).where(DueRow.kind == kind, DueRow.table_id == digest,
                                          DueRow.claimed_by.is_(None)))


def purge_asked(db: Database, before: datetime) -> int:
    """Forget the positions asked before ``before`` (their answers too); how many."""
    with db.writing() as conn:
        return int(conn.execute(delete(EvaluationRow).where(EvaluationRow.created_at < before)).rowcount)
