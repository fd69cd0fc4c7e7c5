"""Ratings: Plackett-Luce skill estimates (the ``openskill`` package) from rated games' final
rankings, one rating per account and player count (docs/ratings.md says why).

A rating is a skill ``mu`` and an uncertainty ``sigma``.  People see a **display rating**: the
conservative estimate ``mu - 3 sigma`` (openskill's ordinal) on an Elo-like scale,
``1000 + 30 * (mu - 3 sigma)``, so a newcomer shows 1000 and a difference of 30 points is
about what one point of ``mu`` is worth; it is **provisional** for an account's first
:data:`PROVISIONAL_GAMES` games at that player count.

A game is rated once, by :func:`rate_game`, inside the transaction that stores its end
(``TableCore.on_end``): the ratings, each player's change and the game's place in the order
of rating (``rated_games.seq``) are committed with the ``over`` event or not at all.
:func:`recompute` rebuilds every rating from the event log, game by game in that order, and
arrives at the same numbers.

>>> display(MODEL.mu, MODEL.sigma)
1000
>>> before = [Skill(MODEL.mu, MODEL.sigma)] * 2
>>> [round(s.mu, 3) for s in updated(before, [0, 1])]   # seat 0 won
[27.635, 22.365]
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import (
    delete,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection

from omega.server.accounts.models import UserRow
from omega.server.ratings.models import RatedGameRow, RatingChangeRow, RatingRow
from omega.server.tables.core import TableCore
from omega.server.tables.events import Event, GameEnded
from omega.server.tables.models import EventRow, SeatRow, TableRow
from omega.server.tables.state import TableState
from omega.server.tables.store import Repository, Writer
from omega.server.tables.views import final_ranking

__all__ = [
    "MODEL", "PROVISIONAL_GAMES", "DISPLAY_BASE", "DISPLAY_SCALE", "NOT_RATED", "RATED_PLAYERS", "Skill",
    "RatingRow", "RatedGameRow", "RatingChangeRow", "display", "rating_json", "updated", "ranked_seats",
    "rate_game", "rate_on_end", "install", "rated_users", "recompute", "recompute_main", "RatingStore",
]

log = logging.getLogger("omega.server")

#: The model: openskill's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300).
MODEL = PlackettLuce()
#: Games at one player count before a display rating stops being provisional.
PROVISIONAL_GAMES = 10
#: The display scale: ``DISPLAY_BASE + DISPLAY_SCALE * (mu - 3 sigma)``.  30 points per
#: point of mu: between two settled players, a mu difference of d gives the stronger about
#: the win chance an Elo difference of 30 d gives (with openskill's beta of 25/6).
DISPLAY_BASE = 1000
DISPLAY_SCALE = 30
#: Players a rated table has: every count the game allows.
RATED_PLAYERS = range(2, 5)
#: How a game may end without being rated: aborted (a clock ran out before someone's
#: first move) is not a result.
NOT_RATED = frozenset({"aborted"})


@dataclass(frozen=True)
class Skill:
    """A rating: skill and uncertainty."""

    mu: float
    sigma: float


def display(mu: float, sigma: float) -> int:
    """The display rating of ``(mu, sigma)``.

    >>> display(25.0, 25 / 3), display(30.0, 2.0)
    (1000, 1720)
    """
    return round(DISPLAY_BASE + DISPLAY_SCALE * (mu - 3 * sigma))


def rating_json(mu: float, sigma: float, games: int, wins: int = 0) -> dict[str, Any]:
    """A rating as the API shows it.

    >>> rating_json(25.0, 25 / 3, 0)
    {'display': 1000, 'games': 0, 'wins': 0, 'provisional': True}
    """
    return {"display": display(mu, sigma), "games": games, "wins": wins, "provisional": games < PROVISIONAL_GAMES}


def updated(before: list[Skill], ranked: list[int]) -> list[Skill]:
    """The ratings after a game: ``before[i]`` is seat i's, ``ranked`` the seats best first."""
    place = {seat: i + 1 for i, seat in enumerate(ranked)}
    teams = [[MODEL.create_rating([s.mu, s.sigma])] for s in before]
    after = MODEL.rate(teams, ranks=[float(place[i]) for i in range(len(before))])
    return [Skill(float(t[0].mu), float(t[0].sigma)) for t in after]


def ranked_seats(state: TableState) -> list[int]:
    """The seats of a finished table, best first (the final ranking: resigners and, with
    clocks, players out on time last).

    >>> from omega.server.tables.state import SeatConfig, TableConfig
    >>> from omega.server.tables.events import Resigned
    >>> t = TableState(TableConfig("t", 3, 5, False, "", (SeatConfig("human"),) * 3))
    >>> t.apply(Event(Resigned(1, "Black"), version=1)); ranked_seats(t)[-1]
    1
    """
    return [state.game.player_of(c) for c in final_ranking(state.game, state.resigned)]


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _lock_ratings(conn: Connection, users: list[int], players: int, now: datetime) -> dict[int, Any]:
    """The players' rating rows at ``players``, made if missing, locked (PostgreSQL) in user
    order: two games ending at once that share a player are rated one after the other."""
    dialect_insert = postgresql_insert if conn.dialect.name == "postgresql" else sqlite_insert
    for user in sorted(users):
        conn.execute(dialect_insert(RatingRow).values(
            user_id=user, players=players, mu=MODEL.mu, sigma=MODEL.sigma, games=0, wins=0, updated_at=now,
        ).on_conflict_do_nothing(index_elements=["user_id", "players"]))
    query = (select(RatingRow.user_id, RatingRow.mu, RatingRow.sigma, RatingRow.games, RatingRow.wins)
             .where(RatingRow.user_id.in_(users), RatingRow.players == players).order_by(RatingRow.user_id))
    if conn.dialect.name == "postgresql":
        query = query.with_for_update()
    return {int(r.user_id): r for r in conn.execute(query)}


def rate_game(conn: Connection, table_id: str, users: list[int], ranked: list[int], ended_at: datetime) -> None:
    """Rate a finished game inside the caller's transaction: ``users[i]`` held seat i,
    ``ranked`` lists the seats best first.  Numbered after the rating rows are locked, so
    games that share a player are numbered in the order they were rated."""
    players = len(users)
    rows = _lock_ratings(conn, users, players, ended_at)
    before = [Skill(rows[u].mu, rows[u].sigma) for u in users]
    after = updated(before, ranked)
    seq = conn.execute(insert(RatedGameRow).values(table_id=table_id, players=players, ended_at=ended_at)
                       .returning(RatedGameRow.seq)).scalar_one()
    for seat, user in enumerate(users):
        place = ranked.index(seat) + 1
        games = rows[user].games + 1
        wins = rows[user].wins + (place == 1)
        conn.execute(update(RatingRow).where(RatingRow.user_id == user, RatingRow.players == players).values(
            mu=after[seat].mu, sigma=after[seat].sigma, games=games, wins=wins, updated_at=ended_at))
        conn.execute(insert(RatingChangeRow).values(
            table_id=table_id, user_id=user, seq=seq, players=players, place=place,
            mu_before=before[seat].mu, sigma_before=before[seat].sigma, mu=after[seat].mu, sigma=after[seat].sigma,
            games=games, at=ended_at))


def _seat_users(conn: Connection, table_id: str) -> list[int | None]:
    return [u for u in conn.execute(select(SeatRow.user_id).where(SeatRow.table_id == table_id)
                                    .order_by(SeatRow.idx)).scalars()]


def rated_users(state: TableState, reason: str | None, users: list[int | None]) -> list[int] | None:
    """The seats' accounts (``users``, seat order) if the game that ended for ``reason``
    counts for ratings, else None: a rated table of people only, each seat a different
    account, with a player count that has ratings, not ended by an abort.

    >>> from omega.server.tables.state import SeatConfig, TableConfig
    >>> config = TableConfig("t", 2, 5, False, "", (SeatConfig("human"),) * 2, rated=True)
    >>> rated_users(TableState(config), "board_full", [1, 2]), rated_users(TableState(config), "board_full", [1, None])
    ([1, 2], None)
    """
    c = state.config
    if not c.rated or reason in NOT_RATED or c.players not in RATED_PLAYERS:
        return None
    if any(s.kind != "human" for s in c.seats) or any(u is None for u in users) or len(set(users)) != len(users):
        return None
    return [u for u in users if u is not None]


def rate_on_end(w: Writer, state: TableState, events: list[Event]) -> None:
    """``TableCore.on_end``: rate the game that ``events`` (being stored) end, if it is rated."""
    over = next((e for e in events if isinstance(e.payload, GameEnded)), None)
    reason = over.payload.reason if over is not None and isinstance(over.payload, GameEnded) else None
    users = rated_users(state, reason, _seat_users(w.conn, w.table_id)) if state.config.rated else None
    if users is None:
        return
    at = events[-1].at
    assert at is not None
    rate_game(w.conn, w.table_id, users, ranked_seats(state), at)


def install(core: TableCore) -> None:
    """Rate each rated game in the transaction that stores its end (``TableCore.on_end``),
    in whichever process stores it: a server, or a worker whose computer plays on for a
    resigned seat and makes the last turn."""
    core.on_end = rate_on_end


def _end_reason(events: list[Event]) -> str | None:
    for e in reversed(events):
        if isinstance(e.payload, GameEnded):
            return e.payload.reason
    return None


def recompute(repo: Repository) -> int:
    """Rebuild every rating from the event log: each rated game's table is replayed from its
    events (the final ranking, the seats' accounts), then the ratings and changes are
    forgotten and every game is rated again in the order it was first rated, in one
    transaction.  Returns how many games were rated."""
    with repo.engine.connect() as conn:
        order = conn.execute(select(RatedGameRow.table_id, RatedGameRow.ended_at)
                             .order_by(RatedGameRow.seq)).all()
        conn.rollback()
    games: list[tuple[str, list[int], list[int], datetime]] = []
    for table_id, ended_at in order:
        stored = repo.load(table_id)
        if stored is None:
            continue
        state = TableState(stored.config)
        for e in stored.events:
            state.apply(e)
        users = rated_users(state, _end_reason(stored.events), list(stored.keys.seat_users)) if state.over else None
        if users is None:
            log.warning("table %s is no longer a rated game; left out", table_id)
            continue
        games.append((table_id, users, ranked_seats(state), _utc(ended_at)))
    with repo.writing() as conn:
        conn.execute(delete(RatingChangeRow))
        conn.execute(delete(RatingRow))
        conn.execute(delete(RatedGameRow))
        for table_id, users, ranked, ended_at in games:
            rate_game(conn, table_id, users, ranked, ended_at)
    return len(games)


def recompute_main(url: str | None) -> int:
    """``omega ratings --recompute``: migrate the database at ``url`` (default: the server's),
    rebuild every rating, print what was done."""
    from omega.server.infra.db import default_url, make_engine

    repo = Repository(make_engine(url or default_url()))
    try:
        repo.migrate()
        games = recompute(repo)
        with repo.engine.connect() as conn:
            accounts = conn.execute(select(func.count()).select_from(RatingRow)).scalar_one()
            conn.rollback()
    finally:
        repo.engine.dispose()
    print(f"rated {games} games again from the event log; {accounts} ratings")
    return 0


class RatingStore:
    """Reads of ratings: one account's, a leaderboard, a rating's history (blocking)."""

    def __init__(self, repo: Repository) -> None:
        self.engine = repo.engine

    def of_users(self, users: list[int], players: int) -> dict[int, dict[str, Any]]:
        """The display ratings of ``users`` at ``players`` (missing: never rated there)."""
        if not users:
            return {}
        with self.engine.connect() as conn:
            rows = conn.execute(select(RatingRow).where(RatingRow.user_id.in_(users), RatingRow.players == players)).all()
            conn.rollback()
        return {int(r.user_id): rating_json(r.mu, r.sigma, r.games, r.wins) for r in rows}

    @staticmethod
    def unrated() -> dict[str, Any]:
        """The rating of an account that has not played at a player count yet."""
        return rating_json(MODEL.mu, MODEL.sigma, 0)

    def of_user(self, user_id: int) -> dict[str, dict[str, Any]]:
        """An account's ratings by player count (as text keys, as JSON has them)."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(RatingRow).where(RatingRow.user_id == user_id)).all()
            conn.rollback()
        return {str(r.players): rating_json(r.mu, r.sigma, r.games, r.wins) for r in rows}

    def leaderboard(self, players: int, limit: int, offset: int) -> tuple[list[dict[str, Any]], int]:
        """The accounts rated at ``players``, best display rating first; and how many there are."""
        score = RatingRow.mu - 3 * RatingRow.sigma
        with self.engine.connect() as conn:
            total = conn.execute(select(func.count()).select_from(RatingRow)
                                 .where(RatingRow.players == players)).scalar_one()
            rows = conn.execute(
                select(UserRow.username, RatingRow.mu, RatingRow.sigma, RatingRow.games, RatingRow.wins)
                .join(UserRow, UserRow.id == RatingRow.user_id).where(RatingRow.players == players)
                .order_by(score.desc(), RatingRow.games.desc(), UserRow.username_key).limit(limit).offset(offset)).all()
            conn.rollback()
        return [{"rank": offset + i + 1, "username": r.username, **rating_json(r.mu, r.sigma, r.games, r.wins)}
                for i, r in enumerate(rows)], int(total)

    def history(self, user_id: int, limit: int) -> list[dict[str, Any]]:
        """The account's latest rating changes (all player counts), oldest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(RatingChangeRow).where(RatingChangeRow.user_id == user_id)
                                .order_by(RatingChangeRow.seq.desc()).limit(limit)).all()
            conn.rollback()
        return [{
            "table_id": r.table_id, "players": r.players, "place": r.place,
            "at": _utc(r.at).isoformat().replace("+00:00", "Z"),
            "before": display(r.mu_before, r.sigma_before), "after": display(r.mu, r.sigma), "games": r.games,
            "provisional": r.games < PROVISIONAL_GAMES,
        } for r in reversed(rows)]

    def recent_games(self, user_id: int, limit: int) -> list[dict[str, Any]]:
        """The account's latest finished games (rated or not), newest first, with the rating
        change of the rated ones."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(TableRow.id, TableRow.players, TableRow.size, TableRow.rated, TableRow.updated_at, SeatRow.idx,
                       RatingChangeRow.place, RatingChangeRow.mu_before, RatingChangeRow.sigma_before,
                       RatingChangeRow.mu, RatingChangeRow.sigma)
                .join(SeatRow, SeatRow.table_id == TableRow.id)
                .outerjoin(RatingChangeRow, (RatingChangeRow.table_id == TableRow.id)
                           & (RatingChangeRow.user_id == user_id))
                .where(SeatRow.user_id == user_id, TableRow.status == "over")
                .order_by(TableRow.updated_at.desc(), TableRow.id.desc()).limit(limit)).all()
            ids = [r.id for r in rows]
            overs = {t: d for t, d in conn.execute(select(EventRow.table_id, EventRow.data).where(
                EventRow.table_id.in_(ids), EventRow.kind == GameEnded.kind))} if ids else {}
            conn.rollback()
        return [{
            "id": r.id, "players": r.players, "size": r.size, "rated": bool(r.rated), "seat": r.idx,
            "finished_at": _utc(r.updated_at).isoformat().replace("+00:00", "Z") if r.updated_at else None,
            "reason": _reason_of(overs.get(r.id)),
            "place": r.place,
            "rating": None if r.mu is None else {"before": display(r.mu_before, r.sigma_before),
                                                 "after": display(r.mu, r.sigma)},
        } for r in rows]


def _reason_of(data: str | None) -> str | None:
    return None if data is None else json.loads(data).get("reason")
