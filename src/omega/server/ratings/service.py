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

Not every game at a rated table counts (docs/ratings.md): one aborted (a resignation or a
flag before each player made ``MIN_RATED_TURNS`` turns), one that ended otherwise before
then (abandoned), or one past :data:`PAIR_DAILY_GAMES` between the same two accounts in a
day, is stored as unrated with its reason (``unrated_games``).  Accounts of an obviously
shared origin meeting at a rated table leave a flag for moderators (``fair_play_flags``).
:func:`recompute` rebuilds every rating from the event log, game by game in that order, and
arrives at the same numbers.

>>> display(MODEL.mu, MODEL.sigma)
1000
>>> before = [Skill(MODEL.mu, MODEL.sigma)] * 2
>>> [round(s.mu, 3) for s in updated(before, [0, 1])]   # seat 0 won
[27.635, 22.365]
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import combinations
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import (
    ColumnElement,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection
from sqlalchemy.orm import aliased

from omega.ai.levels import level_rating
from omega.server.accounts.models import SessionRow, UserRow
from omega.server.accounts.store import game_results, seat_color
from omega.server.infra.db import iso, utc
from omega.server.ratings.models import (
    FairPlayFlagRow,
    RatedGameRow,
    RatingChangeRow,
    RatingRevertRow,
    RatingRow,
    UnratedGameRow,
)
from omega.server.tables.core import TableCore
from omega.server.tables.events import Event, GameEnded
from omega.server.tables.models import SeatRow, TableRow
from omega.server.tables.state import TableState
from omega.server.tables.store import Repository, Writer
from omega.server.tables.views import final_ranking

__all__ = [
    "MODEL", "PROVISIONAL_GAMES", "DISPLAY_BASE", "DISPLAY_SCALE", "NOT_RATED", "RATED_PLAYERS", "Skill",
    "PAIR_DAILY_GAMES", "PAIR_WINDOW", "ORIGIN_WINDOW", "UNRATED_REASONS", "FLAG_REASONS",
    "RatingRow", "RatedGameRow", "RatingChangeRow", "UnratedGameRow", "FairPlayFlagRow", "display", "rating_json",
    "updated", "ranked_seats", "rate_game", "rate_on_end", "install", "rated_users", "unrated_reason", "pair_games",
    "shared_origins", "recompute", "recompute_main", "RatingStore", "RatingRevertRow", "revert_gains", "SIGMA_FLOOR",
    "result_text",
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
#: first move, or at a rated table a resignation or flag before the game counted,
#: ``tables.state.MIN_RATED_TURNS``) is not a result.
NOT_RATED = frozenset({"aborted"})
#: Rated games between the same two accounts that count within :data:`PAIR_WINDOW` (the
#: day before a game's end); later ones there are stored unrated (``pair_limit``).  Enough
#: for a rematch or two with a friend; farming a rating off a second account then takes
#: days, not seconds, and leaves its trail in ``fair_play_flags``.  At 3 and 4 players
#: every two accounts at the table are a pair: the game counts only if each pair may.
PAIR_DAILY_GAMES = 3
PAIR_WINDOW = timedelta(days=1)
#: Accounts registered from one origin (address) this close together were made together.
ORIGIN_WINDOW = timedelta(days=7)
#: Why a game at a rated table did not count (``unrated_games.reason``): aborted (its ``over``
#: event says so), ended otherwise before each player made ``MIN_RATED_TURNS`` turns
#: (abandoned, say), or past the pair limit.
UNRATED_REASONS = ("aborted", "too_short", "pair_limit")
#: Why two accounts were flagged for moderators (``fair_play_flags.reason``): registered
#: from one origin within :data:`ORIGIN_WINDOW`, or both logged in from one origin (a
#: live session each) when their game ended.
FLAG_REASONS = ("made_together", "same_address")
#: The least uncertainty a revert leaves (a rating's sigma stays positive whatever is taken back).
SIGMA_FLOOR = 0.1


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


def unrated_reason(state: TableState, reason: str | None) -> str | None:
    """Why the game at a rated table that ended for ``reason`` does not count by its own
    play (None: it may; the pair limit is asked apart): aborted, or ended otherwise before
    each player made ``MIN_RATED_TURNS`` turns.  A game played out (the board full) counts
    however short: on a small board it may fill first.

    >>> from omega.server.tables.state import SeatConfig, TableConfig
    >>> t = TableState(TableConfig("t", 2, 5, False, "", (SeatConfig("human"),) * 2, rated=True))
    >>> unrated_reason(t, "aborted"), unrated_reason(t, "abandoned"), unrated_reason(t, "board_full")
    ('aborted', 'too_short', None)
    """
    if reason in NOT_RATED:
        return "aborted"
    if reason != "board_full" and state.short_of_minimum():
        return "too_short"
    return None


def _lock_existing(conn: Connection, users: list[int]) -> None:
    """Lock the players' rating rows there are (PostgreSQL), in user order: two games of one
    pair ending at once are counted against the pair limit one after the other (a pair near
    its limit has rated games together, so it has rows)."""
    if conn.dialect.name == "postgresql":
        conn.execute(select(RatingRow.user_id).where(RatingRow.user_id.in_(users))
                     .order_by(RatingRow.user_id, RatingRow.players).with_for_update()).all()


def pair_games(conn: Connection, users: list[int], now: datetime) -> int:
    """The most rated games any two of ``users`` played together (at any player count) in
    the :data:`PAIR_WINDOW` before ``now``."""
    a, b = aliased(RatingChangeRow), aliased(RatingChangeRow)
    counts = conn.execute(
        select(func.count()).select_from(a).join(b, a.table_id == b.table_id)
        .where(a.user_id.in_(users), b.user_id.in_(users), a.user_id < b.user_id, a.at > now - PAIR_WINDOW)
        .group_by(a.user_id, b.user_id)).scalars().all()
    return max((int(c) for c in counts), default=0)


def shared_origins(conn: Connection, users: list[int], now: datetime) -> list[tuple[int, int, str]]:
    """The pairs of ``users`` (lower id first) of an obviously shared origin, with why
    (:data:`FLAG_REASONS`): made from one address within :data:`ORIGIN_WINDOW`, or each
    with a live session (at ``now``) logged in from one address."""
    made = {int(r.id): (r.origin, utc(r.created_at)) for r in conn.execute(
        select(UserRow.id, UserRow.origin, UserRow.created_at).where(UserRow.id.in_(users)))}
    logged: dict[int, set[str]] = {}
    for r in conn.execute(select(SessionRow.user_id, SessionRow.origin).where(
            SessionRow.user_id.in_(users), SessionRow.expires_at > now, SessionRow.origin.is_not(None))):
        logged.setdefault(int(r.user_id), set()).add(r.origin)
    found = []
    for one, other in combinations(sorted(set(users)), 2):
        (origin_1, made_1), (origin_2, made_2) = made[one], made[other]
        if origin_1 is not None and origin_1 == origin_2 and abs(made_1 - made_2) <= ORIGIN_WINDOW:
            found.append((one, other, "made_together"))
        if logged.get(one, set()) & logged.get(other, set()):
            found.append((one, other, "same_address"))
    return found


def rate_on_end(w: Writer, state: TableState, events: list[Event]) -> None:
    """``TableCore.on_end``: at a rated table, flag accounts of a shared origin, then rate
    the game that ``events`` (being stored) end, or store why it does not count."""
    if not state.config.rated:
        return
    over = next((e for e in events if isinstance(e.payload, GameEnded)), None)
    reason = over.payload.reason if over is not None and isinstance(over.payload, GameEnded) else None
    at = events[-1].at
    assert at is not None
    seat_users = _seat_users(w.conn, w.table_id)
    accounts = sorted({u for u in seat_users if u is not None})
    for one, other, why in shared_origins(w.conn, accounts, at):
        w.conn.execute(insert(FairPlayFlagRow).values(table_id=w.table_id, user_id=one, other_id=other, reason=why,
                                                      at=at))
    users = rated_users(state, reason, seat_users)
    unrated = unrated_reason(state, reason)
    if users is not None and unrated is None:
        _lock_existing(w.conn, users)
        if pair_games(w.conn, users, at) >= PAIR_DAILY_GAMES:
            unrated = "pair_limit"
    if unrated is not None:
        w.conn.execute(insert(UnratedGameRow).values(table_id=w.table_id, reason=unrated, at=at))
    elif users is not None:
        rate_game(w.conn, w.table_id, users, ranked_seats(state), at)


def _apply_revert(conn: Connection, user_id: int, players: int, mu_delta: float, sigma_delta: float,
                  now: datetime) -> None:
    """Take ``(mu_delta, sigma_delta)`` back from the player's rating at ``players``."""
    query = select(RatingRow.mu, RatingRow.sigma).where(RatingRow.user_id == user_id, RatingRow.players == players)
    if conn.dialect.name == "postgresql":
        query = query.with_for_update()
    row = conn.execute(query).one_or_none()
    if row is None:
        return
    conn.execute(update(RatingRow).where(RatingRow.user_id == user_id, RatingRow.players == players).values(
        mu=row.mu - mu_delta, sigma=max(SIGMA_FLOOR, row.sigma - sigma_delta), updated_at=now))


def revert_gains(conn: Connection, user_id: int, table_ids: list[str] | None, now: datetime,
                 action_id: int | None = None) -> list[dict[str, Any]]:
    """Take back, inside the caller's transaction, what the rated games ``table_ids`` (None:
    every game the account was flagged at, ``fair_play_flags``) gained the account: each
    change that raised its skill and was not reverted before gets the opposite change
    applied to the rating as it is now, and a ``rating_reverts`` row that says so.  A loss
    is left alone (taking it back would reward a farmer).  Returns what was reverted, by
    game: ``{"table_id", "players", "before", "after"}`` (display ratings of the game's change)."""
    done = select(RatingRevertRow.table_id).where(RatingRevertRow.user_id == user_id)
    query = select(RatingChangeRow).where(RatingChangeRow.user_id == user_id, RatingChangeRow.mu > RatingChangeRow.mu_before,
                                          RatingChangeRow.table_id.not_in(done))
    if table_ids is None:
        query = query.where(RatingChangeRow.table_id.in_(select(FairPlayFlagRow.table_id).where(
            or_(FairPlayFlagRow.user_id == user_id, FairPlayFlagRow.other_id == user_id))))
    else:
        query = query.where(RatingChangeRow.table_id.in_(table_ids))
    changes = conn.execute(query.order_by(RatingChangeRow.seq)).all()
    if not changes:
        return []
    latest = conn.execute(select(RatedGameRow.table_id).order_by(RatedGameRow.seq.desc()).limit(1)).scalar_one_or_none()
    out = []
    for c in changes:
        mu_delta, sigma_delta = c.mu - c.mu_before, c.sigma - c.sigma_before
        _apply_revert(conn, user_id, c.players, mu_delta, sigma_delta, now)
        conn.execute(insert(RatingRevertRow).values(table_id=c.table_id, user_id=user_id, players=c.players,
                                                    mu_delta=mu_delta, sigma_delta=sigma_delta, after_table=latest,
                                                    action_id=action_id, at=now))
        out.append({"table_id": c.table_id, "players": c.players, "before": display(c.mu_before, c.sigma_before),
                    "after": display(c.mu, c.sigma)})
    return out


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
        games.append((table_id, users, ranked_seats(state), utc(ended_at)))
    with repo.writing() as conn:
        # A moderator's reverts are replayed where they were made (after the game that was
        # the latest rated then), each taking back the game's change as rated again.
        reverts: dict[str | None, list[Any]] = {}
        for r in conn.execute(select(RatingRevertRow).order_by(RatingRevertRow.at)):
            reverts.setdefault(r.after_table, []).append(r)
        conn.execute(delete(RatingChangeRow))
        conn.execute(delete(RatingRow))
        conn.execute(delete(RatedGameRow))
        rated = {table_id for table_id, *_ in games}
        for table_id, users, ranked, ended_at in games:
            rate_game(conn, table_id, users, ranked, ended_at)
            _replay_reverts(conn, reverts.pop(table_id, []))
        _replay_reverts(conn, [r for after, rs in reverts.items() if after not in rated for r in rs])
    return len(games)


def _replay_reverts(conn: Connection, reverts: list[Any]) -> None:
    for r in reverts:
        change = conn.execute(select(RatingChangeRow).where(RatingChangeRow.table_id == r.table_id,
                                                            RatingChangeRow.user_id == r.user_id)).one_or_none()
        if change is None:
            continue  # the game is no longer rated: nothing of it to take back
        mu_delta, sigma_delta = change.mu - change.mu_before, change.sigma - change.sigma_before
        _apply_revert(conn, r.user_id, r.players, mu_delta, sigma_delta, utc(r.at))
        conn.execute(update(RatingRevertRow).where(RatingRevertRow.table_id == r.table_id,
                                                   RatingRevertRow.user_id == r.user_id)
                     .values(mu_delta=mu_delta, sigma_delta=sigma_delta))


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
            "at": iso(r.at),
            "before": display(r.mu_before, r.sigma_before), "after": display(r.mu, r.sigma), "games": r.games,
            "provisional": r.games < PROVISIONAL_GAMES,
        } for r in reversed(rows)]

    def recent_games(self, user_id: int, limit: int) -> list[dict[str, Any]]:
        """The account's latest finished games (rated or not), newest first, with the rating
        change of the rated ones and, for a rated table's game that did not count, why
        (``unrated``: one of :data:`UNRATED_REASONS`)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(TableRow.id, TableRow.players, TableRow.size, TableRow.rated, TableRow.updated_at, SeatRow.idx,
                       RatingChangeRow.place, RatingChangeRow.mu_before, RatingChangeRow.sigma_before,
                       RatingChangeRow.mu, RatingChangeRow.sigma, UnratedGameRow.reason.label("unrated"))
                .join(SeatRow, SeatRow.table_id == TableRow.id)
                .outerjoin(RatingChangeRow, (RatingChangeRow.table_id == TableRow.id)
                           & (RatingChangeRow.user_id == user_id))
                .outerjoin(UnratedGameRow, UnratedGameRow.table_id == TableRow.id)
                .where(SeatRow.user_id == user_id, TableRow.status == "over")
                .order_by(TableRow.updated_at.desc(), TableRow.id.desc()).limit(limit)).all()
            ids = [r.id for r in rows]
            results = game_results(conn, ids) if ids else {}
            seats = _seats_of(conn, ids) if ids else {}
            conn.rollback()
        games = []
        for r in rows:
            result = results.get(r.id)
            reason = result[0] if result is not None else None
            # A rated game's place is the one it was rated by; any other's is read from the log.
            place = r.place if r.place is not None else _place(r.idx, result)
            games.append({
                "id": r.id, "players": r.players, "size": r.size, "rated": bool(r.rated), "seat": r.idx,
                "finished_at": iso(r.updated_at),
                "reason": reason,
                "place": None if reason in NOT_RATED else place,
                "result": result_text(place, r.players, reason),
                # Who else sat there: an account's username (None: a guest's or a computer's seat).
                "opponents": [{"index": s.idx, "kind": s.kind, "level": s.level, "username": s.username,
                               "rating": level_rating(s.level) if s.kind == "computer" else None,
                               "place": _place(s.idx, result)} for s in seats[r.id] if s.idx != r.idx],
                "rating": None if r.mu is None else {"before": display(r.mu_before, r.sigma_before),
                                                     "after": display(r.mu, r.sigma)},
                "unrated": r.unrated,
            })
        return games

    def flags(self, limit: int, before: int | None = None) -> list[dict[str, Any]]:
        """The newest fair-play flags (before flag id ``before``), for a moderator: which
        accounts, at which table, why, when."""
        return self._flags(limit, None if before is None else FairPlayFlagRow.id < before)

    def flags_of(self, user_id: int, limit: int) -> list[dict[str, Any]]:
        """The newest fair-play flags that name ``user_id`` (either side), as :meth:`flags`."""
        return self._flags(limit, or_(FairPlayFlagRow.user_id == user_id, FairPlayFlagRow.other_id == user_id))

    def _flags(self, limit: int, where: ColumnElement[bool] | None) -> list[dict[str, Any]]:
        # The one query and form of a flag list (those ``where`` picks): both accounts' names,
        # newest first.
        other = aliased(UserRow)
        query = (select(FairPlayFlagRow.id, FairPlayFlagRow.table_id, FairPlayFlagRow.reason, FairPlayFlagRow.at,
                        UserRow.username, other.username.label("other"))
                 .join(UserRow, UserRow.id == FairPlayFlagRow.user_id).join(other, other.id == FairPlayFlagRow.other_id)
                 .order_by(FairPlayFlagRow.id.desc()).limit(limit))
        if where is not None:
            query = query.where(where)
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
            conn.rollback()
        return [{"id": r.id, "table_id": r.table_id, "users": [r.username, r.other], "reason": r.reason,
                 "at": iso(r.at)} for r in rows]

    def reverts_of(self, user_id: int, limit: int) -> list[dict[str, Any]]:
        """The account's reverted games, newest first: which table, the skill taken back, when."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(RatingRevertRow).where(RatingRevertRow.user_id == user_id)
                                .order_by(RatingRevertRow.at.desc()).limit(limit)).all()
            conn.rollback()
        return [{"table_id": r.table_id, "players": r.players, "mu": -r.mu_delta, "sigma": -r.sigma_delta,
                 "action_id": r.action_id, "at": iso(r.at)} for r in rows]

    def not_counted(self, table_id: str) -> str | None:
        """Why the rated table's game did not count (None: it counted, or is not over)."""
        with self.engine.connect() as conn:
            found = conn.execute(select(UnratedGameRow.reason).where(UnratedGameRow.table_id == table_id)
                                 ).scalar_one_or_none()
            conn.rollback()
        return found


def result_text(place: int | None, players: int, reason: str | None) -> str:
    """A finished game's result for one player, in the one form lists show: ``won``,
    ``lost`` (last of two), ``2nd of 3``; ``aborted`` (nobody placed); ``finished`` when the
    log does not say.

    >>> [result_text(1, 2, "score"), result_text(2, 2, "resign"), result_text(2, 3, None), result_text(3, 3, None)]
    ['won', 'lost', '2nd of 3', '3rd of 3']
    >>> result_text(1, 2, "aborted"), result_text(None, 4, None)
    ('aborted', 'finished')
    """
    if reason in NOT_RATED:
        return "aborted"
    if place is None:
        return "finished"
    if place == 1:
        return "won"
    if players == 2:
        return "lost"
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(place if place < 20 else place % 10, "th")
    return f"{place}{suffix} of {players}"


def _seats_of(conn: Connection, table_ids: list[str]) -> dict[str, list[Any]]:
    rows = conn.execute(select(SeatRow.table_id, SeatRow.idx, SeatRow.kind, SeatRow.level, UserRow.username)
                        .outerjoin(UserRow, UserRow.id == SeatRow.user_id)
                        .where(SeatRow.table_id.in_(table_ids)).order_by(SeatRow.table_id, SeatRow.idx))
    out: dict[str, list[Any]] = {t: [] for t in table_ids}
    for r in rows:
        out[r.table_id].append(r)
    return out


def _place(seat: int, results: tuple[str | None, list[str], bool] | None) -> int | None:
    if results is None:
        return None
    _, ranking, swapped = results
    color = seat_color(seat, swapped)
    return ranking.index(color) + 1 if color in ranking else None

