"""The leaving feature's rows: one per closed account (revision 0022)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from omega.server.infra.db import Base

__all__ = ["ClosureRow", "BY_MAX"]

#: The longest "who closed it" (``self``, ``moderator:<username>``).
BY_MAX = 64


class ClosureRow(Base):
    """A closed account: when, by whom (``self``, or the moderator's feature's word for it),
    when its personal data is removed (``remove_at``; until then it may be reopened, which
    deletes this row), and when it was (``removed_at``: the row then stays for good, the
    account's username reserved with it)."""

    __tablename__ = "account_closures"
    user_id: Mapped[int] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    closed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    remove_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    by: Mapped[str] = mapped_column(String(BY_MAX))
    removed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
