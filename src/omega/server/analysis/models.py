"""The analysis boards' rows (revision 0023)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from omega.server.infra.db import Base

__all__ = ["BoardRow", "EvaluationRow"]


class BoardRow(Base):
    """A saved analysis board: the setting, its tree of variations (the flat form of
    ``omega.record.VariationTree.nodes``, as JSON) and who may change it.

    Its id is the share link's secret (anyone holding it reads the board); changes need the
    owner's account (``user_id``) or the board's key (SHA-256 in ``key_hash``, given once to
    whoever made it, so a guest's page keeps it)."""

    __tablename__ = "analysis_boards"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    user_id: Mapped[int | None] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=True,
                                                index=True)
    #: Who the board counts against: the SHA-256 of ``infra.limits.owner_key`` (the account,
    #: else the address; only compared, so no guest's address is kept).
    owner: Mapped[str] = mapped_column(String(64), index=True)
    key_hash: Mapped[str] = mapped_column(String(64))
    players: Mapped[int] = mapped_column(Integer)
    size: Mapped[int] = mapped_column(Integer)
    pie_rule: Mapped[bool] = mapped_column(Boolean)
    nodes: Mapped[str] = mapped_column(Text)
    #: The position the board opens at: how many main-line entries are played.
    start: Mapped[int] = mapped_column(Integer)
    #: The finished game it was opened from, if any (kept as text: the table may go).
    source_table: Mapped[str | None] = mapped_column(String(32), nullable=True)
    #: Counts the saves, so a page saving an older tree than the stored one is told.
    version: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class EvaluationRow(Base):
    """A position asked at a server without computer players, for a worker process to
    evaluate (the ``evaluate`` due work, keyed by ``digest``), and its answer once found:
    also the evaluations' cache shared by every process.  Purged after a day."""

    __tablename__ = "analysis_evaluations"
    #: The position's key (``evaluate.position_key``) hashed to fit the due work's key.
    digest: Mapped[str] = mapped_column(String(32), primary_key=True)
    players: Mapped[int] = mapped_column(Integer)
    size: Mapped[int] = mapped_column(Integer)
    pie_rule: Mapped[bool] = mapped_column(Boolean)
    #: The entries that reach it from the empty board (JSON).
    actions: Mapped[str] = mapped_column(Text)
    #: Whose place in the workers' rotation the search takes (the first to ask).
    owner: Mapped[str] = mapped_column(String(64))
    answer: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
