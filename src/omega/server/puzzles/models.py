"""The puzzles' rows: each puzzle with its rating, each account's puzzle rating, and each
account's rated attempts (one a puzzle).  Revision 0024."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from omega.server.infra.db import Base

__all__ = ["RatedAttempts", "PuzzleRow", "PuzzleRatingRow", "PuzzleAttemptRow"]


class RatedAttempts:
    """The columns a puzzle and an account's puzzle rating share: a Glicko-2 rating
    (:class:`omega.puzzles.rating.Rating`, both moved by each rated attempt), how many rated
    attempts moved it and how many of those were solved.

    >>> [c.name for c in PuzzleRatingRow.__table__.columns]
    ['user_id', 'rating', 'deviation', 'volatility', 'attempts', 'solved', 'updated_at']
    """

    rating: Mapped[float] = mapped_column(Float)
    deviation: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    attempts: Mapped[int] = mapped_column(Integer)
    solved: Mapped[int] = mapped_column(Integer)


class PuzzleRow(RatedAttempts, Base):
    """A puzzle: its line of the puzzle file (``data``, JSON; :mod:`omega.puzzles.format`)
    and its Glicko-2 rating, moved by every rated attempt."""

    __tablename__ = "puzzles"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    players: Mapped[int] = mapped_column(Integer)
    size: Mapped[int] = mapped_column(Integer)
    data: Mapped[str] = mapped_column(Text)
    __table_args__ = (Index("ix_puzzles_rating", "rating"),)


class PuzzleRatingRow(RatedAttempts, Base):
    """An account's puzzle rating (Glicko-2)."""

    __tablename__ = "puzzle_ratings"
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    # After the shared columns (a mixin's come after the class's own), as revision 0024 made it.
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), sort_order=1)


class PuzzleAttemptRow(Base):
    """An account's rated attempt at a puzzle (its first: later ones are not rated), the
    turn it played and what the attempt did to both ratings."""

    __tablename__ = "puzzle_attempts"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    puzzle_id: Mapped[str] = mapped_column(ForeignKey("puzzles.id", ondelete="CASCADE"))
    solved: Mapped[bool] = mapped_column(Boolean)
    turn: Mapped[str] = mapped_column(String(64))
    rating_before: Mapped[float] = mapped_column(Float)
    rating_after: Mapped[float] = mapped_column(Float)
    puzzle_before: Mapped[float] = mapped_column(Float)
    puzzle_after: Mapped[float] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    __table_args__ = (UniqueConstraint("user_id", "puzzle_id", name="uq_puzzle_attempts_user_puzzle"),)
