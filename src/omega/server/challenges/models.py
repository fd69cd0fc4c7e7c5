"""The challenges' rows: one per challenge, from its sending to its answer."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from omega.server.infra.db import Base

__all__ = ["ChallengeRow"]


class ChallengeRow(Base):
    """A challenge from ``from_id`` to ``to_id`` (NULL: open to whoever opens its link first),
    with the table's settings: ``players`` (past two the seats are computers at ``level``),
    ``size``, ``pie_rule``, ``rated``, ``time_control`` (NULL: untimed).

    ``status``: ``pending`` until ``expires_at``, then ``accepted`` (``table_id`` made, with
    ``accepted_by`` seated), ``declined``, ``cancelled`` (by its sender) or ``expired`` (its
    ``challenge`` due work)."""

    __tablename__ = "challenges"
    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    from_id: Mapped[int] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"), index=True)
    to_id: Mapped[int | None] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=True,
                                              index=True)
    players: Mapped[int] = mapped_column(Integer)
    size: Mapped[int] = mapped_column(Integer)
    pie_rule: Mapped[bool] = mapped_column(Boolean)
    rated: Mapped[bool] = mapped_column(Boolean)
    time_control: Mapped[str | None] = mapped_column(String(16), nullable=True)
    level: Mapped[int | None] = mapped_column(Integer, nullable=True)
    status: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    answered_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    table_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    accepted_by: Mapped[int | None] = mapped_column(Integer, ForeignKey("users.id", ondelete="SET NULL"),
                                                    nullable=True)
