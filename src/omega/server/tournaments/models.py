"""The tournaments' rows: a tournament, its entries, its rounds and its games.

A round's row and its games' tables are stored in one transaction, and a round's number is
unique per tournament: a round is started once, whatever crashes or how many processes race.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, Float, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from omega.server.infra.db import Base

__all__ = ["TournamentRow", "EntryRow", "RoundRow", "TournamentGameRow", "ByeRow"]


class TournamentRow(Base):
    """One tournament: its format and table settings, when it starts, and where it stands.

    ``status``: ``upcoming`` (players join), ``running``, ``finished`` or ``cancelled``.
    ``version`` counts its changes: it is the version of its ``tournament`` due work, so a
    change made while the work is claimed makes it due again (``infra.due``)."""

    __tablename__ = "tournaments"
    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    format: Mapped[str] = mapped_column(String(16))
    players: Mapped[int] = mapped_column(Integer)
    size: Mapped[int] = mapped_column(Integer)
    pie_rule: Mapped[bool] = mapped_column(Boolean)
    time_control: Mapped[str] = mapped_column(String(16))
    rated: Mapped[bool] = mapped_column(Boolean)
    #: Listed for everyone (made by a moderator); a private one is reached by its link only.
    public: Mapped[bool] = mapped_column(Boolean)
    #: Whether its turn-based games let a player on vacation pause their clock.
    vacation: Mapped[bool] = mapped_column(Boolean)
    creator_id: Mapped[int] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"))
    #: Swiss: the rounds to play (round robin: set at the start, from the entrants).
    rounds: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: Arena: seconds from the start during which players are paired.
    duration_s: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: Seconds between the end of a round's last game and the next round.
    gap_s: Mapped[int] = mapped_column(Integer)
    #: Seconds a round lasts at most: the next round starts then even if games go on (their
    #: players sit it out); None: rounds wait for their last game.
    round_s: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: Games a player may miss (lose without a move of theirs) before being withdrawn.
    max_missed: Mapped[int] = mapped_column(Integer)
    min_players: Mapped[int] = mapped_column(Integer)
    max_players: Mapped[int] = mapped_column(Integer)
    starts_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    status: Mapped[str] = mapped_column(String(16), index=True)
    #: The last round started (0: none yet).
    round: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    version: Mapped[int] = mapped_column(Integer)


class EntryRow(Base):
    """A player's entry: when they joined, their rating then (for the first pairings),
    whether they withdrew or are paused (arena), and how many games they missed."""

    __tablename__ = "tournament_entries"
    tournament_id: Mapped[str] = mapped_column(String(16), ForeignKey("tournaments.id", ondelete="CASCADE"),
                                               primary_key=True)
    user_id: Mapped[int] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    rating: Mapped[float] = mapped_column(Float)
    withdrawn: Mapped[bool] = mapped_column(Boolean)
    paused: Mapped[bool] = mapped_column(Boolean)
    missed: Mapped[int] = mapped_column(Integer)


class RoundRow(Base):
    """A round started: its number is unique in its tournament."""

    __tablename__ = "tournament_rounds"
    tournament_id: Mapped[str] = mapped_column(String(16), ForeignKey("tournaments.id", ondelete="CASCADE"),
                                               primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: When its last game ended (None while one is played).
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class TournamentGameRow(Base):
    """One game of a tournament: its table, its players in seat order and, once it ended,
    each seat's finishing place (JSON lists)."""

    __tablename__ = "tournament_games"
    table_id: Mapped[str] = mapped_column(String(32), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    tournament_id: Mapped[str] = mapped_column(String(16), ForeignKey("tournaments.id", ondelete="CASCADE"),
                                               index=True)
    round: Mapped[int] = mapped_column(Integer)
    seats: Mapped[str] = mapped_column(String(64))
    places: Mapped[str | None] = mapped_column(String(64), nullable=True)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class ByeRow(Base):
    """A player without a table in a round (an odd player out)."""

    __tablename__ = "tournament_byes"
    tournament_id: Mapped[str] = mapped_column(String(16), ForeignKey("tournaments.id", ondelete="CASCADE"),
                                               primary_key=True)
    round: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
