"""The notify feature's queries, each inside the caller's transaction (a ``Connection``):
preferences, deliveries (one per notice key and channel) and the digest's waiting notices.

>>> from datetime import UTC, datetime
>>> from omega.server.infra.db import Database, make_engine
>>> db = Database(make_engine("sqlite://")); db.migrate()
>>> now = datetime(2026, 1, 1, tzinfo=UTC)
>>> with db.writing() as conn:
...     _ = conn.exec_driver_sql("INSERT INTO users (id, username, username_key, password_hash, created_at) "
...                              "VALUES (1, 'ann', 'ann', 'x', '2026-01-01')")
...     before = preferences(conn, 1)
...     save_preferences(conn, 1, Preferences(frozenset({"your_turn:mail"}), True), now)
...     after = preferences(conn, 1)
>>> before.allows("your_turn", "mail"), after.allows("your_turn", "mail"), after.digest
(True, False, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection

from omega.server.infra.due import DueRow
from omega.server.notify.models import DeliveryRow, DigestRow, SettingsRow
from omega.server.notify.notices import Notice

__all__ = ["Preferences", "Delivery", "preferences", "save_preferences", "turn_off", "add_delivery",
           "read_delivery", "close_delivery", "tried_delivery", "add_digest", "waiting_digest", "drop_digest"]


@dataclass(frozen=True)
class Preferences:
    """An account's choices: the ``kind:channel`` pairs turned off, and the digest."""

    off: frozenset[str] = frozenset()
    digest: bool = False

    def allows(self, kind: str, channel: str) -> bool:
        """Whether notices of ``kind`` go by ``channel``."""
        return f"{kind}:{channel}" not in self.off


@dataclass(frozen=True)
class Delivery:
    """A delivery as its handler reads it."""

    id: int
    channel: str
    notice: Notice
    tries: int
    done: bool


def _insert(conn: Connection):  # type: ignore[no-untyped-def]
    return postgresql_insert if conn.dialect.name == "postgresql" else sqlite_insert


def preferences(conn: Connection, user_id: int) -> Preferences:
    """``user_id``'s preferences (everything on, no digest, until changed)."""
    row = conn.execute(select(SettingsRow.off, SettingsRow.digest).where(SettingsRow.user_id == user_id)).first()
    return Preferences() if row is None else Preferences(frozenset(row.off or ()), bool(row.digest))


def save_preferences(conn: Connection, user_id: int, prefs: Preferences, now: datetime) -> None:
    """Store ``user_id``'s preferences whole."""
    values = {"user_id": user_id, "off": sorted(prefs.off), "digest": prefs.digest, "updated_at": now}
    conn.execute(_insert(conn)(SettingsRow).values(**values).on_conflict_do_update(
        index_elements=["user_id"], set_={"off": values["off"], "digest": prefs.digest, "updated_at": now}))


def turn_off(conn: Connection, user_id: int, kind: str, channel: str, now: datetime) -> Preferences:
    """Turn ``kind`` off for ``channel`` (the unsubscribe link), keeping the rest."""
    if conn.dialect.name == "postgresql":  # two clicks at once must not lose each other's change
        conn.execute(select(SettingsRow.user_id).where(SettingsRow.user_id == user_id).with_for_update())
    prefs = preferences(conn, user_id)
    changed = Preferences(prefs.off | {f"{kind}:{channel}"}, prefs.digest)
    save_preferences(conn, user_id, changed, now)
    return changed


def add_delivery(conn: Connection, notice: Notice, channel: str, now: datetime) -> int | None:
    """Store a delivery of ``notice`` by ``channel``; None when the key was delivered (or
    queued) by that channel before."""
    return conn.execute(_insert(conn)(DeliveryRow).values(
        user_id=notice.user_id, channel=channel, key=notice.key, kind=notice.kind, subject=notice.subject,
        text=notice.text, path=notice.path, created_at=now, tries=0,
    ).on_conflict_do_nothing(index_elements=["channel", "key"]).returning(DeliveryRow.id)).scalar()


def read_delivery(conn: Connection, delivery_id: int) -> Delivery | None:
    """One delivery (None: gone with its account)."""
    row = conn.execute(select(DeliveryRow.__table__).where(DeliveryRow.id == delivery_id)).first()
    if row is None:
        return None
    notice = Notice(row.user_id, row.kind, row.key, row.subject, row.text, row.path)
    return Delivery(row.id, row.channel, notice, row.tries,
                    row.delivered_at is not None or row.given_up_at is not None)


def close_delivery(conn: Connection, delivery_id: int, column: str, now: datetime, due_kind: str,
                   server_id: str) -> None:
    """Mark a delivery delivered (``column`` ``delivered_at``) or given up (``given_up_at``),
    and remove its due row claimed by ``server_id``, in the caller's transaction."""
    conn.execute(update(DeliveryRow).where(DeliveryRow.id == delivery_id)
                 .values({column: now, "tries": DeliveryRow.tries + 1}))
    conn.execute(delete(DueRow).where(DueRow.kind == due_kind, DueRow.table_id == str(delivery_id),
                                      DueRow.claimed_by == server_id))


def tried_delivery(conn: Connection, delivery_id: int, tries: int) -> None:
    """Count a failed try."""
    conn.execute(update(DeliveryRow).where(DeliveryRow.id == delivery_id).values(tries=tries))


def add_digest(conn: Connection, notice: Notice, now: datetime) -> bool:
    """Keep ``notice`` for ``notice.user_id``'s next digest; False if it is there already."""
    return conn.execute(_insert(conn)(DigestRow).values(
        user_id=notice.user_id, key=notice.key, subject=notice.subject, text=notice.text, path=notice.path,
        created_at=now).on_conflict_do_nothing(index_elements=["key"]).returning(DigestRow.id)).scalar() is not None


def waiting_digest(conn: Connection, user_id: int) -> list[tuple[int, Notice]]:
    """The notices waiting for ``user_id``'s digest, oldest first, with their row ids."""
    rows = conn.execute(select(DigestRow.__table__).where(DigestRow.user_id == user_id).order_by(DigestRow.id)).all()
    return [(r.id, Notice(r.user_id, "your_turn", r.key, r.subject, r.text, r.path)) for r in rows]


def drop_digest(conn: Connection, ids: list[int]) -> bool:
    """Remove the digest rows ``ids`` (told, or no longer true); True if the account has
    others waiting still (kept meanwhile)."""
    user = conn.execute(select(DigestRow.user_id).where(DigestRow.id.in_(ids)).limit(1)).scalar()
    conn.execute(delete(DigestRow).where(DigestRow.id.in_(ids)))
    return user is not None and conn.execute(select(DigestRow.id).where(DigestRow.user_id == user).limit(1)
                                             ).first() is not None
