"""Where Web Push lives in the database: the site's VAPID key pair (made once, by whichever
process needs it first) and each account's devices.  Blocking, like the other stores (run
it through ``TableCore.db``).

>>> from datetime import UTC, datetime
>>> from omega.server.accounts.store import AccountStore
>>> from omega.server.infra.db import make_engine
>>> from omega.server.tables.store import Repository
>>> repo = Repository(make_engine("sqlite://")); repo.migrate()
>>> now = datetime(2027, 1, 1, tzinfo=UTC)
>>> ann = AccountStore(repo).create_user("Ann", "ann", "$argon2id$...", now)
>>> store = PushStore(repo)
>>> store.site_keys(now) == store.site_keys(now)
True
>>> phone = Subscription("https://push.example.com/s/1", "BA", "AA")
>>> store.subscribe(ann.id, phone, now, cap=1), store.subscribe(ann.id, phone, now, cap=1)
(1, 1)
>>> store.subscribe(ann.id, Subscription("https://push.example.com/s/2", "BA", "AA"), now, cap=1) is None
True
>>> [d.endpoint for d in store.devices(ann.id)], store.unsubscribe(ann.id, phone.endpoint)
(['https://push.example.com/s/1'], True)
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy import delete, func, insert, select, text, update
from sqlalchemy.exc import IntegrityError

from omega.server.infra.db import Database, utc
from omega.server.push.models import SubscriptionRow, VapidKeyRow
from omega.server.push.schemas import Subscription

__all__ = ["VapidKeys", "Device", "PushStore", "new_keys"]

#: The advisory lock (with the account's id) that serialises one account's subscriptions on
#: PostgreSQL, so two devices subscribing at once cannot both take the last place.
_SUBSCRIBE_LOCK = 4242017


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


@dataclass(frozen=True)
class VapidKeys:
    """The site's VAPID key pair, unpadded base64url: the P-256 scalar and the public point."""

    private_key: str
    public_key: str


def new_keys() -> VapidKeys:
    """A fresh P-256 key pair.

    >>> keys = new_keys()
    >>> len(keys.private_key), len(keys.public_key)
    (43, 87)
    """
    key = ec.generate_private_key(ec.SECP256R1())
    point = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return VapidKeys(_b64(key.private_numbers().private_value.to_bytes(32, "big")), _b64(point))


@dataclass(frozen=True)
class Device:
    """A subscribed device: its row's id, the subscription, and when it subscribed."""

    id: int
    endpoint: str
    p256dh: str
    auth: str
    created_at: datetime

    @property
    def service(self) -> str:
        """The push service's host (what the account page may show of a device)."""
        return urlsplit(self.endpoint).hostname or "?"


class PushStore:
    """The Web Push tables of the server's database (all methods are blocking)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def _keys(self) -> VapidKeys | None:
        with self.db.engine.connect() as conn:
            row = conn.execute(select(VapidKeyRow.private_key, VapidKeyRow.public_key)
                               .where(VapidKeyRow.id == 1)).one_or_none()
            conn.rollback()
        return None if row is None else VapidKeys(row.private_key, row.public_key)

    def site_keys(self, now: datetime) -> VapidKeys:
        """The site's key pair, made and stored now if there is none yet.  Processes starting
        together may each make one: the first insert wins, the others read the winner's."""
        found = self._keys()
        if found is not None:
            return found
        made = new_keys()
        try:
            with self.db.writing() as conn:
                conn.execute(insert(VapidKeyRow).values(id=1, private_key=made.private_key,
                                                        public_key=made.public_key, created_at=now))
        except IntegrityError:
            pass  # another process stored its pair first: that one is the site's
        found = self._keys()
        assert found is not None
        return found

    def subscribe(self, user_id: int, sub: Subscription, now: datetime, cap: int) -> int | None:
        """Keep ``sub`` for the account (its keys renewed if the endpoint is known; taken from
        another account if it was that one's); how many devices the account has then, or None
        when it has ``cap`` already and this is a new one."""
        for attempt in (1, 2):
            try:
                return self._subscribe(user_id, sub, now, cap)
            except IntegrityError:
                # Another account stored the same endpoint in between: once more sees it.
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _subscribe(self, user_id: int, sub: Subscription, now: datetime, cap: int) -> int | None:
        with self.db.writing() as conn:
            if self.db.is_postgres:
                conn.execute(text("SELECT pg_advisory_xact_lock(:lock, :user)"),
                             {"lock": _SUBSCRIBE_LOCK, "user": user_id})
            holder = conn.execute(select(SubscriptionRow.user_id)
                                  .where(SubscriptionRow.endpoint == sub.endpoint)).scalar_one_or_none()
            count = int(conn.execute(select(func.count()).select_from(SubscriptionRow)
                                     .where(SubscriptionRow.user_id == user_id)).scalar_one())
            keys = {"p256dh": sub.p256dh, "auth": sub.auth}
            if holder == user_id:
                conn.execute(update(SubscriptionRow).where(SubscriptionRow.endpoint == sub.endpoint).values(**keys))
                return count
            if count >= cap:
                return None
            if holder is not None:
                conn.execute(update(SubscriptionRow).where(SubscriptionRow.endpoint == sub.endpoint)
                             .values(user_id=user_id, created_at=now, **keys))
            else:
                conn.execute(insert(SubscriptionRow).values(user_id=user_id, endpoint=sub.endpoint,
                                                            created_at=now, **keys))
            return count + 1

    def unsubscribe(self, user_id: int, endpoint: str) -> bool:
        """Forget the account's device of ``endpoint``; whether it had one."""
        with self.db.writing() as conn:
            return bool(conn.execute(delete(SubscriptionRow).where(
                SubscriptionRow.user_id == user_id, SubscriptionRow.endpoint == endpoint)).rowcount)

    def remove(self, device: Device) -> None:
        """Forget a device its push service no longer knows (404, 410).  By id and endpoint:
        a row that moved to another account's newer subscription in between is another's."""
        with self.db.writing() as conn:
            conn.execute(delete(SubscriptionRow).where(SubscriptionRow.id == device.id,
                                                       SubscriptionRow.endpoint == device.endpoint))

    def devices(self, user_id: int) -> list[Device]:
        """The account's devices, oldest first."""
        with self.db.engine.connect() as conn:
            rows = conn.execute(select(SubscriptionRow.id, SubscriptionRow.endpoint, SubscriptionRow.p256dh,
                                       SubscriptionRow.auth, SubscriptionRow.created_at)
                                .where(SubscriptionRow.user_id == user_id).order_by(SubscriptionRow.id)).all()
            conn.rollback()
        return [Device(r.id, r.endpoint, r.p256dh, r.auth, utc(r.created_at)) for r in rows]
