"""The social rows of a table: its chat lines and its rematch."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from omega.server.infra.db import Base

__all__ = ["ChatRow", "RematchRow"]


class ChatRow(Base):
    """One chat message of a table: kept beside the table, never in its event log."""

    __tablename__ = "chat"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: The writer's seat (None: a spectator), the name they showed and their account's username.
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    name: Mapped[str] = mapped_column(String(64))
    username: Mapped[str | None] = mapped_column(String(32), nullable=True)
    text: Mapped[str] = mapped_column(Text)
    #: When a moderator removed it (None: shown): hidden for everyone from then on, its text
    #: kept for the report that holds it as evidence (revision 0021).
    hidden_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    __table_args__ = (Index("ix_chat_table_id", "table_id", "id"),)


class RematchRow(Base):
    """The rematch asked for at a finished table (one at a time): who proposed it, who
    accepted, how it ended, and the new table once it started."""

    __tablename__ = "rematches"
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    status: Mapped[str] = mapped_column(String(16))
    proposer: Mapped[int] = mapped_column(Integer)
    #: The seats that accepted (JSON list, the proposer's included).
    accepted: Mapped[str] = mapped_column(Text)
    #: The seat whose decline or departure ended it.
    ended_by: Mapped[int | None] = mapped_column(Integer, nullable=True)
    new_table_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
