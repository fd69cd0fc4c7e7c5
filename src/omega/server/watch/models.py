"""The watch feature's rows: each account's choice whether its games are listed."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Integer
from sqlalchemy.orm import Mapped, mapped_column

from omega.server.infra.db import Base

__all__ = ["WatchSettingRow"]


class WatchSettingRow(Base):
    """An account's "let others watch my games from the list and my profile" (``listed``;
    an account without a row is listed).  Revision 0022."""

    __tablename__ = "watch_settings"
    user_id: Mapped[int] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    listed: Mapped[bool] = mapped_column(Boolean)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
