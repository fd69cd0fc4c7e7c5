"""The vacation's rows: one per account that ever had one or changed its setting."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Integer
from sqlalchemy.orm import Mapped, mapped_column

from omega.server.infra.db import Base

__all__ = ["VacationRow"]


class VacationRow(Base):
    """An account's vacation: its setting (``automatic``: a vacation may start by itself
    when a turn-based flag is near), the hours charged in ``year``, and the vacation it is
    on (``since`` not NULL; ``until``: when it ends, NULL until the player comes back or the
    allowance runs out).  ``changes`` counts starts and ends: it is the version of the
    account's ``vacation`` due work, so each change replaces the work of the one before."""

    __tablename__ = "vacations"
    user_id: Mapped[int] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    automatic: Mapped[bool] = mapped_column(Boolean)
    year: Mapped[int] = mapped_column(Integer)
    used_hours: Mapped[int] = mapped_column(Integer)
    since: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    started_automatically: Mapped[bool] = mapped_column(Boolean)
    #: When the last vacation ended (no automatic one starts again for a while after).
    back_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    changes: Mapped[int] = mapped_column(Integer)
