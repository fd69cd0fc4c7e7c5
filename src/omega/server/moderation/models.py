"""The moderation's rows: reports (with a copy of their evidence) and the log of moderators'
actions, which is also where a mute or a rated ban lives while it lasts.

Both keep the names of the accounts they concern as text beside their ids: an account that
is deleted leaves its id NULL (``ON DELETE SET NULL``) and the row as it was.  A report
refers to its table and message by id only (no foreign key): the table, its chat or the
accounts may go, the evidence copied into the report stays.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from omega.server.infra.db import Base

__all__ = ["ReportRow", "ActionRow"]


class ReportRow(Base):
    """A player's report of another: who, why (``moderation.schemas.REASONS``), their words,
    where (``table_id``, ``message_id``), the evidence as it was then (JSON: the messages, the
    game's record), and how it was closed (``status``: ``open``, ``actioned``, ``dismissed``)."""

    __tablename__ = "reports"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    reporter_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), nullable=True)
    reporter_name: Mapped[str] = mapped_column(String(32))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), nullable=True)
    username: Mapped[str] = mapped_column(String(32))
    reason: Mapped[str] = mapped_column(String(16))
    text: Mapped[str | None] = mapped_column(Text, nullable=True)
    table_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    message_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    evidence: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    closed_by: Mapped[str | None] = mapped_column(String(32), nullable=True)
    #: The moderator's words on closing it, and the action it was closed with (None: dismissed).
    resolution: Mapped[str | None] = mapped_column(Text, nullable=True)
    action_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    __table_args__ = (Index("ix_reports_status_id", "status", "id"), Index("ix_reports_reporter", "reporter_id", "status"),
                      Index("ix_reports_user", "user_id"))


class ActionRow(Base):
    """One moderator's action on one account (``moderation.schemas.ACTIONS``, and the role
    changes): who, whom, why, when, until when (a mute, a rated ban; None: no end), when it
    was lifted, the message or report it was about, and what it did (``detail``, JSON)."""

    __tablename__ = "moderation_actions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    moderator_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), nullable=True)
    moderator_name: Mapped[str] = mapped_column(String(32))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), nullable=True)
    username: Mapped[str] = mapped_column(String(32))
    action: Mapped[str] = mapped_column(String(16))
    reason: Mapped[str] = mapped_column(Text)
    detail: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    lifted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    message_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    report_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    __table_args__ = (Index("ix_moderation_actions_user", "user_id", "action"),)
