"""The relations' rows: one per follow (follower -> followed) and one per block
(blocker -> blocked), each with when it was made."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Integer
from sqlalchemy.orm import Mapped, mapped_column

from omega.server.infra.db import Base

__all__ = ["FollowRow", "BlockRow"]


class FollowRow(Base):
    """``follower_id`` follows ``followed_id`` (one row per pair: following twice is one)."""

    __tablename__ = "follows"
    follower_id: Mapped[int] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    followed_id: Mapped[int] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True,
                                             index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class BlockRow(Base):
    """``blocker_id`` blocked ``blocked_id``: the two are kept apart whichever way it goes."""

    __tablename__ = "blocks"
    blocker_id: Mapped[int] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    blocked_id: Mapped[int] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True,
                                            index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
