"""The Web Push rows: the site's one VAPID key pair, and the devices subscribed per account."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from omega.server.infra.db import Base

__all__ = ["VapidKeyRow", "SubscriptionRow", "ENDPOINT_MAX"]

#: Longest push endpoint URL kept.  The push services' own are 150 to 400 characters (FCM,
#: Mozilla, Apple, Windows); four times that leaves room without letting a row grow large.
ENDPOINT_MAX = 1024


class VapidKeyRow(Base):
    """The site's VAPID key pair (``id`` is always 1: one pair per site, made at first start).
    ``private_key``: the P-256 scalar, ``public_key``: the uncompressed point, both unpadded
    base64url (the public one is the page's ``applicationServerKey``)."""

    __tablename__ = "push_keys"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    private_key: Mapped[str] = mapped_column(String(64))
    public_key: Mapped[str] = mapped_column(String(96))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class SubscriptionRow(Base):
    """A device that asked for pushes: the browser's ``PushSubscription`` (the push service's
    ``endpoint`` URL and the keys a message to it is encrypted with).  An endpoint is one
    browser profile, so it is unique site-wide: subscribed again by another account, it moves
    to that account (the person now using the device)."""

    __tablename__ = "push_subscriptions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    endpoint: Mapped[str] = mapped_column(String(ENDPOINT_MAX), unique=True)
    p256dh: Mapped[str] = mapped_column(String(96))
    auth: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
