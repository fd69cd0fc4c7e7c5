"""The ratings' rows: each account's rating per player count, the rated games in the order
they were rated, what each game did to each player's rating, the rated tables whose game did
not count (and why), the fair-play flags a moderator reads, and the games whose change a
moderator reverted."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, Float, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from omega.server.infra.db import Base

__all__ = ["RatingRow", "RatedGameRow", "RatingChangeRow", "UnratedGameRow", "FairPlayFlagRow", "RatingRevertRow"]


class RatingRow(Base):
    """An account's rating at one player count."""

    __tablename__ = "ratings"
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    players: Mapped[int] = mapped_column(Integer, primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    wins: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class RatedGameRow(Base):
    """A rated game, numbered in the order it was rated (the order :func:`recompute` keeps)."""

    __tablename__ = "rated_games"
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"))
    players: Mapped[int] = mapped_column(Integer)
    ended_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    __table_args__ = (UniqueConstraint("table_id", name="uq_rated_games_table"),)


class RatingChangeRow(Base):
    """What one rated game did to one player's rating."""

    __tablename__ = "rating_changes"
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer)
    players: Mapped[int] = mapped_column(Integer)
    place: Mapped[int] = mapped_column(Integer)
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # The pair limit counts an account's rated games of the last day (ratings.service).
    __table_args__ = (Index("ix_rating_changes_user_at", "user_id", "at"),)


class UnratedGameRow(Base):
    """A rated table whose game ended without counting: ``reason`` is one of
    ``ratings.service.UNRATED_REASONS`` (aborted, too short, past the pair limit)."""

    __tablename__ = "unrated_games"
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    reason: Mapped[str] = mapped_column(String(16))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class FairPlayFlagRow(Base):
    """Two accounts of an obviously shared origin met at a rated table: for a moderator to
    look at (the game was rated or not by the ordinary rules).  ``user_id < other_id``;
    ``reason`` one of ``ratings.service.FLAG_REASONS``."""

    __tablename__ = "fair_play_flags"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    other_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    reason: Mapped[str] = mapped_column(String(32))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    __table_args__ = (UniqueConstraint("table_id", "user_id", "other_id", "reason", name="uq_fair_play_flags"),
                      Index("ix_fair_play_flags_at", "at"), Index("ix_fair_play_flags_user", "user_id"),
                      Index("ix_fair_play_flags_other", "other_id"))


class RatingRevertRow(Base):
    """A moderator took back what one rated game did to one player's rating (a farmed
    game): the opposite of its change was applied at ``at``, after the game ``after_table``
    had been rated (the latest then), which :func:`~omega.server.ratings.service.recompute`
    replays at the same place (revision 0021).  ``action_id``: the moderation action."""

    __tablename__ = "rating_reverts"
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    players: Mapped[int] = mapped_column(Integer)
    mu_delta: Mapped[float] = mapped_column(Float)
    sigma_delta: Mapped[float] = mapped_column(Float)
    after_table: Mapped[str | None] = mapped_column(String(32), nullable=True)
    action_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
