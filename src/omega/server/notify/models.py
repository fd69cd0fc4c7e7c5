"""The notify feature's rows (revision 0015): one delivery per notice and channel, each
account's preferences, the notices waiting for a digest, and the site's keys (the same
revision makes the outbox, ``outbox.OutboxRow``).

>>> sorted(t.__tablename__ for t in (DeliveryRow, SettingsRow, DigestRow, SiteKeyRow))
['notify_deliveries', 'notify_digest', 'notify_settings', 'site_keys']
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Boolean, DateTime, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from omega.server.infra.db import Base

__all__ = ["DeliveryRow", "SettingsRow", "DigestRow", "SiteKeyRow"]


class DeliveryRow(Base):
    """A notice to deliver by one channel; ``(channel, key)`` is unique, so a notice told
    twice (two processes, a retried hook) is delivered once."""

    __tablename__ = "notify_deliveries"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    channel: Mapped[str] = mapped_column(String(16))
    key: Mapped[str] = mapped_column(String(160))
    kind: Mapped[str] = mapped_column(String(32))
    subject: Mapped[str] = mapped_column(String(255))
    text: Mapped[str] = mapped_column(Text)
    path: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    tries: Mapped[int] = mapped_column(Integer, default=0)
    delivered_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    given_up_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    __table_args__ = (UniqueConstraint("channel", "key", name="uq_notify_deliveries_channel_key"),)


class SettingsRow(Base):
    """An account's notification preferences: the ``kind:channel`` pairs turned off (every
    pair is on until turned off) and whether "your turn" mails come as one digest."""

    __tablename__ = "notify_settings"
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    off: Mapped[list[str]] = mapped_column(JSON, default=list)
    digest: Mapped[bool] = mapped_column(Boolean, default=False)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class DigestRow(Base):
    """A "your turn" notice waiting for its account's next digest mail."""

    __tablename__ = "notify_digest"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(160), unique=True)
    subject: Mapped[str] = mapped_column(String(255))
    text: Mapped[str] = mapped_column(Text)
    path: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    __table_args__ = (Index("ix_notify_digest_user_id", "user_id", "id"),)


class SiteKeyRow(Base):
    """A secret of the site made at its first use and shared by all its processes
    (``infra.keys`` reads and makes them; notify's key signs unsubscribe links)."""

    __tablename__ = "site_keys"
    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(String(128))
