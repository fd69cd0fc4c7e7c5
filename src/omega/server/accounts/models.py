"""The accounts' rows: users and their log-in sessions."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from omega.server.infra.db import Base

__all__ = ["UserRow", "SessionRow"]


class UserRow(Base):
    """An account: its id is stable (seats and, later, ratings refer to it); ``username``
    as its owner wrote it (NFKC), ``username_key`` what makes it unique (``omega.names``)."""

    __tablename__ = "users"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    username: Mapped[str] = mapped_column(String(32))
    username_key: Mapped[str] = mapped_column(String(96))
    password_hash: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    __table_args__ = (UniqueConstraint("username_key", name="uq_users_username_key"),)


class SessionRow(Base):
    """A log-in: the SHA-256 of its random id (the cookie's value is never stored)."""

    __tablename__ = "sessions"
    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
