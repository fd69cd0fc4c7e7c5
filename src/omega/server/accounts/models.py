"""The accounts' rows: users and their log-in sessions."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from omega.server.infra.db import Base

__all__ = ["UserRow", "SessionRow"]


class UserRow(Base):
    """An account: its id is stable (seats and, later, ratings refer to it); ``username``
    as its owner wrote it (NFKC), ``username_key`` what makes it unique (``omega.names``),
    ``username_skeleton`` what makes a look-alike of it refused (``omega.names.username_skeleton``;
    NULL only for an account that already looked like an older one when revision 0010 came)."""

    __tablename__ = "users"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    username: Mapped[str] = mapped_column(String(32))
    username_key: Mapped[str] = mapped_column(String(96))
    password_hash: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: A digest of the address it was registered from (``accounts.store.origin_digest``):
    #: accounts made together are flagged when they meet at a rated table (docs/ratings.md).
    origin: Mapped[str | None] = mapped_column(String(32), nullable=True)
    # 255: a skeleton is at most 6 characters per character of a 20-character name (Hangul
    # syllables become their jamo), which tests/test_names.py checks.
    username_skeleton: Mapped[str | None] = mapped_column(String(255), nullable=True)
    __table_args__ = (UniqueConstraint("username_key", name="uq_users_username_key"),
                      # An index, not a constraint: SQLite adds one to a table without a copy.
                      Index("uq_users_username_skeleton", "username_skeleton", unique=True))


class SessionRow(Base):
    """A log-in: the SHA-256 of its random id (the cookie's value is never stored)."""

    __tablename__ = "sessions"
    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    #: A digest of the address it logged in from, as for ``users.origin`` (gone with the session).
    origin: Mapped[str | None] = mapped_column(String(32), nullable=True)
