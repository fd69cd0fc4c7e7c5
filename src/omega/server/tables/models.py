"""The tables' rows: a table's settings and where its log stands (``tables``), its seats,
its events (the action log, one row per version) and the live count of its open sockets
(``presence``)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from omega.server.infra.db import Base

__all__ = ["TableRow", "SeatRow", "EventRow", "PresenceRow"]


class TableRow(Base):
    """One game table: its settings and where its event log stands."""

    __tablename__ = "tables"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    players: Mapped[int] = mapped_column(Integer)
    size: Mapped[int] = mapped_column(Integer)
    pie_rule: Mapped[bool] = mapped_column(Boolean)
    spectator_hash: Mapped[str] = mapped_column(String(64))
    version: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(16), default="playing")
    # Denormalised from the events, for listing tables without replaying them.
    to_move_seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: Who opened the table (``infra.limits.owner_key``: the account, else the address):
    #: computer turns are shared fairly by it, and its computer games capped.
    owner: Mapped[str | None] = mapped_column(String(64), nullable=True)
    #: When the last event was decided (the table's creation before any).
    updated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: The time control's text (``omega.server.tables.timecontrol``); NULL: untimed.
    time_control: Mapped[str | None] = mapped_column(String(16), nullable=True)
    #: Whether the players may ask for hints (the creator's choice).
    hints: Mapped[bool] = mapped_column(Boolean, default=False)
    #: Listed in the lobby (``TableConfig.open``), and rated (``TableConfig.rated``).
    open: Mapped[bool] = mapped_column(Boolean, default=False)
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    #: The seat whose player created the table (revision ``0009``), the one that may make new
    #: links; NULL for a rematch's table and tables whose log does not say.
    creator_seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: Whether a seat's turn-based clock may be paused (``TableConfig.pausable``, revision 0018).
    pausable: Mapped[bool] = mapped_column(Boolean, default=True)
    #: Anyone may watch it (``TableConfig.watchable``: a tournament's table, revision 0019).
    watchable: Mapped[bool] = mapped_column(Boolean, default=False)
    __table_args__ = (Index("ix_tables_status_updated_at", "status", "updated_at"),
                      Index("ix_tables_open_status", "open", "status"),
                      Index("ix_tables_owner_status", "owner", "status"))








class SeatRow(Base):
    """A seat: human (with the SHA-256 of its secret token) or computer (with a level)."""

    __tablename__ = "seats"
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    idx: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    level: Mapped[int | None] = mapped_column(Integer, nullable=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    #: The account that holds the seat (None: a guest's seat, held by its link only).
    #: An account holds at most one seat of a table.
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    __table_args__ = (Index("uq_seats_user_table", "user_id", "table_id", unique=True),)


class EventRow(Base):
    """One change of a table, numbered by the table's version after it."""

    __tablename__ = "events"
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    data: Mapped[str] = mapped_column(Text)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    request_id: Mapped[str | None] = mapped_column(String(128), nullable=True)
    fingerprint: Mapped[str | None] = mapped_column(String(128), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    __table_args__ = (UniqueConstraint("table_id", "request_id", name="uq_events_request"),)





class PresenceRow(Base):
    """How many sockets a server process holds open for a seat."""

    __tablename__ = "presence"
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    server_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    count: Mapped[int] = mapped_column(Integer)
