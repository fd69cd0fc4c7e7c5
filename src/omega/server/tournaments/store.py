"""The tournaments' queries: a tournament read whole (:class:`Snapshot`), and the rows a
round, a game's end and an entry write.  Blocking: callers run them in the core's database
threads, inside one transaction each.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, insert, select, text, update
from sqlalchemy.engine import Connection

from omega.pairing import Bye, Entrant, History, Played
from omega.server.accounts.models import UserRow
from omega.server.infra.db import utc
from omega.server.infra.due import keep_due_row
from omega.server.ratings.models import RatingRow
from omega.server.ratings.service import display
from omega.server.tournaments.models import ByeRow, EntryRow, RoundRow, TournamentGameRow, TournamentRow

__all__ = ["Snapshot", "GameSeen", "KIND", "read", "lock", "rating_of", "ratings_of", "names_of", "insert_game",
           "insert_bye", "bump", "count_created", "keep_start", "notify", "TOPIC"]

#: The kind of the due work that moves a tournament on (starts it, starts rounds, pairs an
#: arena's players, finishes it); one row per tournament, keyed by its id.
KIND = "tournament"
#: The notification topic of a tournament's changes between processes (``server:tour:<id>``;
#: shorter than any table id, so it never passes for one).
TOPIC = "tour"
#: The display rating an account without one is seeded at (a new rating's).
UNRATED = display(25.0, 25.0 / 3)


@dataclass(frozen=True)
class GameSeen:
    """A game of the tournament as read: its table, round, players in seat order, and each
    seat's finishing place once it ended."""

    table_id: str
    round: int
    seats: tuple[int, ...]
    places: tuple[int, ...] | None
    started_at: datetime
    ended_at: datetime | None

    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return self.places is not None


@dataclass(frozen=True)
class Snapshot:
    """A tournament and everything in it, read in one transaction."""

    row: Any
    entries: tuple[Any, ...]
    rounds: tuple[Any, ...]
    games: tuple[GameSeen, ...]
    byes: tuple[tuple[int, int], ...]

    @property
    def active(self) -> list[Any]:
        """The entries still in (not withdrawn), in the order they joined."""
        return [e for e in self.entries if not e.withdrawn]

    def busy(self) -> set[int]:
        """The players of games still being played."""
        return {u for g in self.games if not g.over for u in g.seats}

    def history(self) -> History:
        """The games and byes, as the formats read them."""
        return History(tuple(Played(g.round, g.seats, g.places) for g in self.games),
                       tuple(Bye(r, u) for r, u in self.byes))

    def entrants(self, ratings: dict[int, float], only: set[int] | None = None) -> list[Entrant]:
        """The active entrants (those of ``only``, if given) with ``ratings`` (else the one
        they joined with)."""
        return [Entrant(e.user_id, ratings.get(e.user_id, e.rating)) for e in self.active
                if only is None or e.user_id in only]


def lock(conn: Connection, tournament_id: str) -> Any:
    """The tournament's row, locked until the transaction ends on PostgreSQL (SQLite's
    write transactions are one at a time already); None if there is none."""
    query = select(TournamentRow).where(TournamentRow.id == tournament_id)
    if conn.dialect.name == "postgresql":
        query = query.with_for_update()
    return conn.execute(query).one_or_none()


def read(conn: Connection, tournament_id: str, *, locked: bool = False) -> Snapshot | None:
    """The tournament ``tournament_id`` whole (its row locked with ``locked``)."""
    row = lock(conn, tournament_id) if locked else conn.execute(
        select(TournamentRow).where(TournamentRow.id == tournament_id)).one_or_none()
    if row is None:
        return None
    entries = conn.execute(select(EntryRow).where(EntryRow.tournament_id == tournament_id)
                           .order_by(EntryRow.joined_at, EntryRow.user_id)).all()
    rounds = conn.execute(select(RoundRow).where(RoundRow.tournament_id == tournament_id)
                          .order_by(RoundRow.number)).all()
    games = tuple(
        GameSeen(g.table_id, g.round, tuple(json.loads(g.seats)),
                 None if g.places is None else tuple(json.loads(g.places)), utc(g.started_at),
                 None if g.ended_at is None else utc(g.ended_at))
        for g in conn.execute(select(TournamentGameRow).where(TournamentGameRow.tournament_id == tournament_id)
                              .order_by(TournamentGameRow.round, TournamentGameRow.started_at,
                                        TournamentGameRow.table_id)).all())
    byes = tuple((int(b.round), int(b.user_id)) for b in conn.execute(
        select(ByeRow).where(ByeRow.tournament_id == tournament_id).order_by(ByeRow.round, ByeRow.user_id)).all())
    return Snapshot(row, tuple(entries), tuple(rounds), games, byes)


def ratings_of(conn: Connection, users: Sequence[int], players: int) -> dict[int, float]:
    """Each account's display rating at ``players`` players (for seeding and pairing);
    accounts without one are missing."""
    if not users:
        return {}
    rows = conn.execute(select(RatingRow.user_id, RatingRow.mu, RatingRow.sigma)
                        .where(RatingRow.user_id.in_(list(users)), RatingRow.players == players)).all()
    return {int(u): float(display(mu, sigma)) for u, mu, sigma in rows}


def rating_of(conn: Connection, user_id: int, players: int) -> float:
    """One account's display rating at ``players`` players (a new rating's if none)."""
    return ratings_of(conn, [user_id], players).get(user_id, float(UNRATED))


def names_of(conn: Connection, users: Sequence[int]) -> dict[int, str]:
    """The usernames of ``users``."""
    if not users:
        return {}
    return {int(i): str(n) for i, n in conn.execute(
        select(UserRow.id, UserRow.username).where(UserRow.id.in_(list(users)))).all()}


def insert_game(conn: Connection, tournament_id: str, round_number: int, table_id: str, seats: Sequence[int],
                now: datetime) -> None:
    """A game of round ``round_number`` at ``table_id``."""
    conn.execute(insert(TournamentGameRow).values(table_id=table_id, tournament_id=tournament_id, round=round_number,
                                                  seats=json.dumps(list(seats)), places=None, started_at=now))


def insert_bye(conn: Connection, tournament_id: str, round_number: int, user_id: int) -> None:
    """``user_id`` has no table in round ``round_number``."""
    conn.execute(insert(ByeRow).values(tournament_id=tournament_id, round=round_number, user_id=user_id))


def bump(conn: Connection, tournament_id: str, due_at: datetime) -> int:
    """Count a change of the tournament and make its due work due at ``due_at`` (a new
    version: a claim being worked on is replaced, so the change is looked at again)."""
    conn.execute(update(TournamentRow).where(TournamentRow.id == tournament_id)
                 .values(version=TournamentRow.version + 1))
    version = int(conn.execute(select(TournamentRow.version).where(TournamentRow.id == tournament_id)).scalar_one())
    keep_due_row(conn, KIND, tournament_id, version, due_at)
    return version


def keep_start(conn: Connection, tournament_id: str, starts_at: datetime) -> None:
    """A new tournament's due work: its start."""
    keep_due_row(conn, KIND, tournament_id, 0, starts_at)


def notify(conn: Connection, server_id: str, tournament_id: str) -> None:
    """Tell the other server processes that the tournament changed (PostgreSQL NOTIFY, sent
    at the commit; nothing to tell on SQLite, where one process owns the database)."""
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_notify('omega_events', :p)"), {"p": f"{server_id}:{TOPIC}:{tournament_id}"})


def count_created(conn: Connection, user_id: int) -> int:
    """How many tournaments ``user_id`` made that have not ended."""
    return int(conn.execute(select(func.count()).select_from(TournamentRow).where(
        TournamentRow.creator_id == user_id, TournamentRow.status.in_(("upcoming", "running")))).scalar_one())
