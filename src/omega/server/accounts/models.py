"""The accounts' rows: users (with their email addresses), their log-in sessions and the
password resets asked for."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from omega.server.infra.db import Base

__all__ = ["UserRow", "SessionRow", "PasswordResetRow", "RoleRow", "EMAIL_MAX"]

#: The longest email address (RFC 5321's path limit, less the angle brackets).
EMAIL_MAX = 254


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
    #: The account's verified email address, as ``accounts.addresses.normalize_email`` writes
    #: it (None: none), and what makes it unique (no two accounts verify one address).
    email: Mapped[str | None] = mapped_column(String(EMAIL_MAX), nullable=True)
    email_key: Mapped[str | None] = mapped_column(String(EMAIL_MAX), nullable=True)
    #: The address asked for and not verified yet: the verified one stays in use until then.
    #: Several accounts may ask for one address; the first to verify it has it.
    email_pending: Mapped[str | None] = mapped_column(String(EMAIL_MAX), nullable=True)
    #: The account's language (``omega.i18n.LANGUAGES``; revision 0025): notices, their mails
    #: and pushes, and the account's own mails are written in it (None: none known, English).
    language: Mapped[str | None] = mapped_column(String(8), nullable=True)
    __table_args__ = (UniqueConstraint("username_key", name="uq_users_username_key"),
                      # Indexes, not constraints: SQLite adds one to a table without a copy.
                      Index("uq_users_username_skeleton", "username_skeleton", unique=True),
                      Index("uq_users_email_key", "email_key", unique=True))


class SessionRow(Base):
    """A log-in: the SHA-256 of its random id (the cookie's value is never stored)."""

    __tablename__ = "sessions"
    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    #: A digest of the address it logged in from, as for ``users.origin`` (gone with the session).
    origin: Mapped[str | None] = mapped_column(String(32), nullable=True)


class PasswordResetRow(Base):
    """A password reset asked for by mail: the SHA-256 of the token the mail carries (the
    token itself is never stored), whose account, and until when it may be used (once)."""

    __tablename__ = "password_resets"
    digest: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class RoleRow(Base):
    """A role an account holds (``omega.server.accounts.roles``: ``admin``, ``moderator``),
    granted by ``omega admin grant`` (revision 0019)."""

    __tablename__ = "user_roles"
    user_id: Mapped[int] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    role: Mapped[str] = mapped_column(String(16), primary_key=True)
    granted_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
