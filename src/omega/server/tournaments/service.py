"""What tournaments do: made, joined, left and paused by players; moved on by their due work
(the start, each round, an arena's pairings, the end); told of each game's end by the table
core, in the transaction that stores it.

One straight path for every change: lock the tournament's row, read it whole, decide with
``omega.pairing``, write the rows (a round's tables with it), commit, then tell the pages.
A round's number is unique per tournament and its tables are stored in the same
transaction, so a crash or two processes racing never start a round twice or lose one.

>>> describe_format("swiss", 2, 5, None)
'Swiss, 5 rounds'
>>> describe_format("arena", 3, None, 45)
'Arena of 3-player tables, 45 minutes'
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from omega.i18n import translatable as _
from omega.pairing import Entrant, Format, Standing, format_named
from omega.server.accounts.roles import may_moderate, roles_of
from omega.server.accounts.store import User
from omega.server.clock import stamp
from omega.server.errors import ApiError
from omega.server.infra.db import utc
from omega.server.infra.due import Due
from omega.server.notify.notices import Notice
from omega.server.ratings.service import ranked_seats
from omega.server.tables.core import TableCore
from omega.server.tables.events import Event
from omega.server.tables.seated import new_table_id, seat_accounts
from omega.server.tables.state import SeatConfig, TableConfig, TableState
from omega.server.tables.store import Writer
from omega.server.tables.timecontrol import TimeControl
from omega.server.tournaments import store
from omega.server.tournaments.models import EntryRow, RoundRow, TournamentGameRow, TournamentRow
from omega.server.tournaments.schemas import STARTS_WITHIN_DAYS, NewTournament

__all__ = ["Tournaments", "ARENA_PAIR_EVERY", "MAX_CREATED", "STATUSES", "describe_format", "Tell", "private_tables"]

log = logging.getLogger("omega.server")

T = TypeVar("T")

#: Seconds between two pairings of an arena's waiting players.
ARENA_PAIR_EVERY = 5.0
#: Tournaments one account may have made that have not ended.
MAX_CREATED = 5
#: A tournament's states, in order.
STATUSES = ("upcoming", "running", "finished", "cancelled")
#: How many finished tournaments the list shows.
LISTED_FINISHED = 20
#: Queues a notice inside the caller's transaction (the notify feature's).
Tell = Callable[[Connection, Notice], None]

_FORMAT_NAMES = {"swiss": "Swiss", "arena": "Arena", "round_robin": "Round robin"}


def describe_format(fmt: str, players: int, rounds: int | None, minutes: int | None) -> str:
    """A tournament's format in a few words."""
    text = _FORMAT_NAMES[fmt] + (f" of {players}-player tables" if players > 2 else "")
    if rounds is not None:
        text += f", {rounds} round{'s' if rounds != 1 else ''}"
    if minutes is not None:
        text += f", {minutes} minutes"
    return text


def private_tables(conn: Connection, table_ids: list[str]) -> set[str]:
    """Which of ``table_ids`` are games of a private tournament: watched from that
    tournament's page by whoever has its link, never listed for everyone (``watch``)."""
    if not table_ids:
        return set()
    return set(conn.execute(select(TournamentGameRow.table_id)
                            .join(TournamentRow, TournamentRow.id == TournamentGameRow.tournament_id)
                            .where(TournamentGameRow.table_id.in_(table_ids), TournamentRow.public.is_(False))
                            ).scalars())


@dataclass
class _Started:
    """What a transaction started: tables to announce (id -> its players)."""

    tables: dict[str, tuple[int, ...]]


class Tournaments:
    """The tournaments of the site, for one server process."""

    def __init__(self, core: TableCore, tell: Tell | None = None) -> None:
        self.core = core
        self.tell = tell
        #: Called after a commit that changed a tournament (this process's pages are told).
        self.on_change: Callable[[str], None] = lambda tournament_id: None

    # -- players' requests --------------------------------------------------------------

    async def create(self, user: User, new: NewTournament) -> dict[str, Any]:
        """Make a tournament (``public`` needs a moderator), its creator not yet joined."""
        now = self.core.clock.now()
        starts = new.starts_time
        if starts < now - timedelta(minutes=1):
            raise ApiError("bad_request", _("bad request: starts_at: the start is in the past"))
        if starts > now + timedelta(days=STARTS_WITHIN_DAYS):
            raise ApiError("bad_request", _("bad request: starts_at: at most {starts_within_days} days ahead", starts_within_days=STARTS_WITHIN_DAYS))

        def run(conn: Connection) -> str:
            if new.public and not may_moderate(roles_of(conn, user.id)):
                raise ApiError("forbidden", _("only a moderator makes public tournaments; yours can be private (joined by its link)"))
            if store.count_created(conn, user.id) >= MAX_CREATED:
                raise ApiError("too_many_tournaments",
                               _("you already have {max_created} tournaments that have not ended", max_created=MAX_CREATED))
            tournament_id = secrets.token_urlsafe(9)
            conn.execute(insert(TournamentRow).values(
                id=tournament_id, name=new.name, format=new.format, players=new.players, size=new.size,
                pie_rule=new.pie_rule, time_control=new.time_control, rated=new.rated, public=new.public,
                vacation=new.vacation, creator_id=user.id, rounds=new.rounds,
                duration_s=None if new.minutes is None else new.minutes * 60, gap_s=new.gap_seconds or 0,
                round_s=None if new.round_minutes is None else new.round_minutes * 60, max_missed=new.max_missed,
                min_players=new.min_players or new.players, max_players=new.max_players, starts_at=starts,
                created_at=now, status="upcoming", round=0, version=0))
            store.keep_start(conn, tournament_id, starts)
            return tournament_id

        tournament_id = await self.core.db(self.core.repo.write, run)
        log.info("tournament %s made by user %d (%s)", tournament_id, user.id, new.format)
        self.core.on_due()
        return await self.view(tournament_id, user)

    async def join(self, user: User, tournament_id: str) -> dict[str, Any]:
        """Enter the tournament (again, after a withdrawal, while it may be joined)."""
        def run(conn: Connection) -> None:
            t = self._locked(conn, tournament_id)
            late = t.status == "running" and t.format in ("arena", "swiss")
            if t.status != "upcoming" and not late:
                raise ApiError("conflict", _("this tournament can no longer be joined"))
            if late and t.format == "swiss" and t.rounds is not None and t.round >= t.rounds:
                raise ApiError("conflict", _("this tournament can no longer be joined: its last round has started"))
            entry = conn.execute(select(EntryRow).where(EntryRow.tournament_id == tournament_id,
                                                        EntryRow.user_id == user.id)).one_or_none()
            if entry is not None and not entry.withdrawn:
                return
            if t.rated:  # its games are rated tables
                self.core.refuse_rated(conn, [user.id], self.core.clock.now())
            if entry is not None:
                if entry.missed >= t.max_missed:
                    raise ApiError("conflict", _("you were withdrawn for missing games; you cannot rejoin"))
                conn.execute(update(EntryRow).where(EntryRow.tournament_id == tournament_id,
                                                    EntryRow.user_id == user.id).values(withdrawn=False, paused=False))
                return
            count = len([e for e in conn.execute(select(EntryRow.withdrawn).where(
                EntryRow.tournament_id == tournament_id)).scalars() if not e])
            if count >= t.max_players:
                raise ApiError("conflict", _("this tournament is full ({max_players} players)", max_players=t.max_players))
            conn.execute(insert(EntryRow).values(
                tournament_id=tournament_id, user_id=user.id, joined_at=self.core.clock.now(),
                rating=store.rating_of(conn, user.id, t.players), withdrawn=False, paused=False, missed=0))
            if t.status == "running":  # an arena pairs its newcomer at once
                store.bump(conn, tournament_id, self.core.clock.now())

        await self._change(tournament_id, run)
        return await self.view(tournament_id, user)

    async def withdraw(self, user: User, tournament_id: str) -> dict[str, Any]:
        """Leave the tournament: before its start the entry goes; once running the player is
        paired no more (a game being played goes on, and counts)."""
        def run(conn: Connection) -> None:
            t = self._locked(conn, tournament_id)
            where = (EntryRow.tournament_id == tournament_id, EntryRow.user_id == user.id)
            if conn.execute(select(EntryRow.user_id).where(*where)).one_or_none() is None:
                raise ApiError("conflict", _("you have not joined this tournament"))
            if t.status == "upcoming":
                conn.execute(delete(EntryRow).where(*where))
            elif t.status == "running":
                conn.execute(update(EntryRow).where(*where).values(withdrawn=True))
                store.bump(conn, tournament_id, self.core.clock.now())  # a round may wait for nobody now
            else:
                raise ApiError("conflict", _("this tournament is over"))

        await self._change(tournament_id, run)
        return await self.view(tournament_id, user)

    async def pause(self, user: User, tournament_id: str, paused: bool) -> dict[str, Any]:
        """An arena's pause: a paused player is not paired again until they come back."""
        def run(conn: Connection) -> None:
            t = self._locked(conn, tournament_id)
            if t.format != "arena":
                raise ApiError("conflict", _("only an arena has a pause"))
            if t.status not in ("upcoming", "running"):
                raise ApiError("conflict", _("this tournament is over"))
            done = conn.execute(update(EntryRow).where(
                EntryRow.tournament_id == tournament_id, EntryRow.user_id == user.id,
                EntryRow.withdrawn.is_(False)).values(paused=paused))
            if not done.rowcount:
                raise ApiError("conflict", _("you have not joined this tournament"))
            if not paused and t.status == "running":
                store.bump(conn, tournament_id, self.core.clock.now())

        await self._change(tournament_id, run)
        return await self.view(tournament_id, user)

    # -- reading --------------------------------------------------------------------------

    async def view(self, tournament_id: str, viewer: User | None) -> dict[str, Any]:
        """The tournament as its page shows it: settings, standings, rounds and games, and
        where the viewer stands."""
        def read(conn: Connection) -> dict[str, Any]:
            snap = store.read(conn, tournament_id)
            if snap is None:
                raise ApiError("not_found", _("no such tournament"))
            return self._view(conn, snap, viewer)

        return await self.core.db(self.core.repo.read, read)

    async def listing(self, viewer: User | None) -> dict[str, Any]:
        """Public tournaments (upcoming, running, the last finished), and the viewer's own."""
        def read(conn: Connection) -> dict[str, Any]:
            mine: set[str] = set()
            if viewer is not None:
                mine = set(conn.execute(select(EntryRow.tournament_id).where(EntryRow.user_id == viewer.id)).scalars())
                mine |= set(conn.execute(select(TournamentRow.id).where(
                    TournamentRow.creator_id == viewer.id)).scalars())
            rows = conn.execute(select(TournamentRow).where(
                (TournamentRow.public.is_(True)) | (TournamentRow.id.in_(mine or {""})))
                .order_by(TournamentRow.starts_at.desc())).all()
            out: dict[str, list[dict[str, Any]]] = {s: [] for s in ("upcoming", "running", "finished")}
            for r in rows:
                key = "finished" if r.status in ("finished", "cancelled") else r.status
                if key == "finished" and len(out[key]) >= LISTED_FINISHED:
                    continue
                out[key].append(self._summary(conn, r, r.id in mine))
            out["upcoming"].reverse()  # the soonest first
            return {"tournaments": out}

        return await self.core.db(self.core.repo.read, read)

    # -- due work and the games' ends ------------------------------------------------------

    async def run(self, due: Due) -> datetime | None:
        """The scheduler's handler of ``tournament`` work: move the tournament on; when to
        look again (None: when a game ends or a player acts)."""
        tournament_id = due.table_id
        started = _Started({})

        def run(conn: Connection) -> datetime | None:
            again = self._advance(conn, tournament_id, started)
            store.notify(conn, self.core.server_id, tournament_id)
            return again

        again: datetime | None = await self.core.db(self.core.repo.write, run)
        self.on_change(tournament_id)
        if started.tables:
            self.core.on_due()  # the new tables' clocks run: their flags are due work
        return again

    def stored(self, w: Writer, before: TableState, after: TableState, events: list[Event]) -> None:
        """``TableCore.on_stored``: when a tournament's game ends, store each seat's place,
        count a game missed (lost on time without a move), and make the tournament's work due
        now, all in the transaction that stores the end."""
        if not after.over or before.over or not after.config.watchable:
            # Only a watchable table can be a tournament's (this service makes every one of its
            # tables watchable): the others' ends cost no statement inside their batch.
            return
        game = w.conn.execute(select(TournamentGameRow).where(TournamentGameRow.table_id == w.table_id)).one_or_none()
        if game is None:
            return
        at = events[-1].at or self.core.clock.now()
        order = ranked_seats(after)
        left = after.aborted_seat if after.aborted else None
        if left is not None:  # whose flag or resignation aborted the game lost it
            order = [s for s in order if s != left] + [left]
        places = [0] * after.config.players
        for place, seat in enumerate(order):
            places[seat] = place
        w.conn.execute(update(TournamentGameRow).where(TournamentGameRow.table_id == w.table_id)
                       .values(places=json.dumps(places), ended_at=at))
        seats = json.loads(game.seats)
        limit = w.conn.execute(select(TournamentRow.max_missed).where(
            TournamentRow.id == game.tournament_id)).scalar_one()
        flagged = set(after.timed_out) | ({left} if left is not None and left not in after.resigned else set())
        for seat in sorted(flagged):
            if not after.moved[seat]:  # lost on time without a move of their own: missed
                where = (EntryRow.tournament_id == game.tournament_id, EntryRow.user_id == seats[seat])
                w.conn.execute(update(EntryRow).where(*where).values(missed=EntryRow.missed + 1))
                w.conn.execute(update(EntryRow).where(*where, EntryRow.missed >= limit).values(withdrawn=True))
        store.bump(w.conn, game.tournament_id, at)

    # -- the decisions ------------------------------------------------------------------------

    def _advance(self, conn: Connection, tournament_id: str, started: _Started) -> datetime | None:
        now = self.core.clock.now()
        snap = store.read(conn, tournament_id, locked=True)
        if snap is None:
            return None
        t = snap.row
        if t.status in ("finished", "cancelled"):
            return None
        if t.status == "upcoming" and now < utc(t.starts_at):
            return utc(t.starts_at)
        snap = self._without_barred(conn, snap, now)
        if t.status == "upcoming":
            if len(snap.active) < t.min_players:
                self._set(conn, t.id, status="cancelled", finished_at=now)
                log.info("tournament %s cancelled: %d of %d players", t.id, len(snap.active), t.min_players)
                return None
            fmt = _format(t)
            rounds = t.rounds if t.format != "round_robin" else fmt.rounds_for(len(snap.active))
            self._set(conn, t.id, status="running", started_at=now, rounds=rounds)
            snap = store.read(conn, tournament_id)
            assert snap is not None
            t = snap.row
        fmt = _format(t)
        if t.format == "arena":
            return self._advance_arena(conn, snap, fmt, now, started)
        return self._advance_rounds(conn, snap, fmt, now, started)

    def _without_barred(self, conn: Connection, snap: store.Snapshot, now: datetime) -> store.Snapshot:
        """A rated tournament withdraws the players barred from rated play since they joined
        (a moderator's rated ban: ``TableCore.barred_from_rated``) before it seats anyone; the
        snapshot as it is then."""
        if not snap.row.rated:
            return snap
        barred = self.core.barred_from_rated(conn, [e.user_id for e in snap.active], now)
        if not barred:
            return snap
        conn.execute(update(EntryRow).where(EntryRow.tournament_id == snap.row.id, EntryRow.user_id.in_(barred))
                     .values(withdrawn=True))
        log.info("tournament %s: %d player(s) barred from rated play withdrawn", snap.row.id, len(barred))
        again = store.read(conn, snap.row.id)
        assert again is not None
        return again

    def _advance_arena(self, conn: Connection, snap: store.Snapshot, fmt: Format, now: datetime,
                       started: _Started) -> datetime | None:
        t = snap.row
        ends_at = utc(t.started_at) + timedelta(seconds=t.duration_s)
        busy = snap.busy()
        if now >= ends_at:
            if not busy:
                self._finish(conn, t.id, now)
                return None
            return None  # the last games' ends bring the tournament back here
        waiting = {e.user_id for e in snap.active if not e.paused and e.user_id not in busy}
        if len(waiting) >= t.players:
            ratings = store.ratings_of(conn, [e.user_id for e in snap.active], t.players)
            paired = fmt.pair(snap.entrants(ratings), snap.history(), t.round + 1, waiting=waiting)
            if paired.tables:
                self._start_round(conn, snap, t.round + 1, paired.tables, (), now, started)
        return min(now + timedelta(seconds=ARENA_PAIR_EVERY), ends_at)

    def _advance_rounds(self, conn: Connection, snap: store.Snapshot, fmt: Format, now: datetime,
                        started: _Started) -> datetime | None:
        t = snap.row
        current = snap.rounds[-1] if snap.rounds else None
        playing = [g for g in snap.games if current is not None and g.round == current.number and not g.over]
        deadline = (utc(current.started_at) + timedelta(seconds=t.round_s)
                    if current is not None and t.round_s is not None else None)
        if playing and (deadline is None or now < deadline):
            return deadline  # the games' ends (or the deadline) bring the tournament back
        ended_at = None
        if current is not None and not playing:
            ended_at = utc(current.ended_at) if current.ended_at is not None else now
            if current.ended_at is None:
                conn.execute(update(RoundRow).where(RoundRow.tournament_id == t.id, RoundRow.number == current.number)
                             .values(ended_at=now))
        busy = snap.busy()
        if t.round >= (t.rounds or 0):
            if not busy:
                self._finish(conn, t.id, now)
                return None
            return None
        if ended_at is not None and now < ended_at + timedelta(seconds=t.gap_s):
            return ended_at + timedelta(seconds=t.gap_s)
        # Players of games still on past the round's deadline sit the next round out.
        free = {e.user_id for e in snap.active} - busy
        ratings = store.ratings_of(conn, [e.user_id for e in snap.active], t.players)
        paired = fmt.pair(snap.entrants(ratings, only=free), snap.history(), t.round + 1)
        self._start_round(conn, snap, t.round + 1, paired.tables, paired.byes, now, started)
        return None if t.round_s is None else now + timedelta(seconds=t.round_s)

    def _start_round(self, conn: Connection, snap: store.Snapshot, number: int, tables: tuple[tuple[int, ...], ...],
                     byes: tuple[int, ...], now: datetime, started: _Started) -> None:
        t = snap.row
        # The round's number is the key: a second start of it fails here, before any table.
        conn.execute(insert(RoundRow).values(tournament_id=t.id, number=number, started_at=now,
                                             ended_at=None if tables else now))
        names = store.names_of(conn, [u for table in tables for u in table])
        control = TimeControl.parse(t.time_control)
        for users in tables:
            config = TableConfig(new_table_id(), t.players, t.size, bool(t.pie_rule) and t.players == 2, stamp(now),
                                 tuple(SeatConfig("human") for _ in users), control, rated=bool(t.rated),
                                 pausable=bool(t.vacation), watchable=True)  # (which stored() relies on)
            seat_accounts(conn, config, users, [names[u] for u in users], "tournament", now,
                          postgres=conn.dialect.name == "postgresql")
            store.insert_game(conn, t.id, number, config.id, users, now)
            started.tables[config.id] = users
            if self.tell is not None:
                for u in users:
                    self.tell(conn, Notice(
                        user_id=u, kind="tournament_start", key=f"tournament:{t.id}:{number}",
                        subject=_("{tournament}: round {round} has started", tournament=t.name, round=number)
                        if t.format != "arena" else _("{tournament}: your next game", tournament=t.name),
                        text=_("Your game of {tournament} is ready: {players}.", tournament=t.name,
                               players=" vs ".join(names[p] for p in users)),
                        path=f"/t/{config.id}"))
        for u in byes:
            store.insert_bye(conn, t.id, number, u)
        self._set(conn, t.id, round=number)
        log.info("tournament %s: round %d, %d tables, %d byes", t.id, number, len(tables), len(byes))

    def _finish(self, conn: Connection, tournament_id: str, now: datetime) -> None:
        self._set(conn, tournament_id, status="finished", finished_at=now)
        log.info("tournament %s finished", tournament_id)

    @staticmethod
    def _set(conn: Connection, tournament_id: str, **values: Any) -> None:
        conn.execute(update(TournamentRow).where(TournamentRow.id == tournament_id).values(**values))

    # -- views ----------------------------------------------------------------------------------

    def _summary(self, conn: Connection, r: Any, mine: bool) -> dict[str, Any]:
        players = len([w for w in conn.execute(select(EntryRow.withdrawn).where(
            EntryRow.tournament_id == r.id)).scalars() if not w])
        return {
            "id": r.id, "name": r.name, "format": r.format, "players": r.players, "size": r.size,
            "time_control": r.time_control, "rated": bool(r.rated), "public": bool(r.public),
            "status": r.status, "starts_at": stamp(utc(r.starts_at)), "entrants": players, "mine": mine,
            "round": r.round, "rounds": r.rounds,
            "describe": describe_format(r.format, r.players, r.rounds,
                                        None if r.duration_s is None else r.duration_s // 60),
        }

    def _view(self, conn: Connection, snap: store.Snapshot, viewer: User | None) -> dict[str, Any]:
        t = snap.row
        users = [e.user_id for e in snap.entries]
        names = store.names_of(conn, [*users, t.creator_id])
        fmt = _format(t)
        ratings = store.ratings_of(conn, users, t.players)
        standings = fmt.standings(_all_entrants(snap, ratings), snap.history())
        entry = {e.user_id: e for e in snap.entries}
        rows = []
        for s in standings:
            e = entry[s.entrant]
            rows.append({"rank": s.rank, "user": names.get(s.entrant, "?"), "user_id": s.entrant,
                         "points": s.points, "tiebreaks": list(s.tiebreaks), "games": s.games,
                         "rating": round(ratings.get(s.entrant, e.rating)), "withdrawn": bool(e.withdrawn),
                         "paused": bool(e.paused), "extra": _extra(s)})
        games = [{"table": g.table_id, "round": g.round, "players": [names.get(u, "?") for u in g.seats],
                  "places": list(g.places) if g.places is not None else None} for g in snap.games]
        me = None
        if viewer is not None and viewer.id in entry:
            e = entry[viewer.id]
            current = next((g.table_id for g in reversed(snap.games) if not g.over and viewer.id in g.seats), None)
            me = {"joined": not e.withdrawn, "withdrawn": bool(e.withdrawn), "paused": bool(e.paused),
                  "missed": e.missed, "table": current}
        ends_at = (utc(t.started_at) + timedelta(seconds=t.duration_s)
                   if t.started_at is not None and t.duration_s is not None else None)
        return {
            **self._summary(conn, t, viewer is not None and (viewer.id in entry or viewer.id == t.creator_id)),
            "creator": names.get(t.creator_id, "?"), "pie_rule": bool(t.pie_rule), "vacation": bool(t.vacation),
            "minutes": None if t.duration_s is None else t.duration_s // 60,
            "round_minutes": None if t.round_s is None else t.round_s // 60, "gap_seconds": t.gap_s,
            "max_missed": t.max_missed, "min_players": t.min_players, "max_players": t.max_players,
            "started_at": None if t.started_at is None else stamp(utc(t.started_at)),
            "ends_at": None if ends_at is None else stamp(ends_at),
            "finished_at": None if t.finished_at is None else stamp(utc(t.finished_at)),
            "tiebreaks": list(fmt.tiebreak_names), "standings": rows, "games": games,
            "byes": [{"round": r, "user": names.get(u, "?")} for r, u in snap.byes],
            "me": me, "may_join": self._may_join(t, me),
        }

    @staticmethod
    def _may_join(t: Any, me: dict[str, Any] | None) -> bool:
        if me is not None and me["joined"]:
            return False
        if t.status == "upcoming":
            return True
        return bool(t.status == "running"
                    and (t.format == "arena" or (t.format == "swiss" and t.round < (t.rounds or 0))))

    # -- transactions -------------------------------------------------------------------------

    async def _change(self, tournament_id: str, fn: Callable[[Connection], None]) -> None:
        def run(conn: Connection) -> None:
            fn(conn)
            store.notify(conn, self.core.server_id, tournament_id)

        try:
            await self.core.db(self.core.repo.write, run)
        except IntegrityError:
            raise ApiError("conflict", _("that changed meanwhile; try again")) from None
        self.on_change(tournament_id)
        self.core.on_due()

    @staticmethod
    def _locked(conn: Connection, tournament_id: str) -> Any:
        t = store.lock(conn, tournament_id)
        if t is None:
            raise ApiError("not_found", _("no such tournament"))
        return t


def _format(t: Any) -> Format:
    """The tournament's format (a Swiss with its rounds; a round robin's follow from its
    entrants, an arena has none)."""
    return format_named(t.format, t.players, t.rounds if t.format == "swiss" else None)


def _all_entrants(snap: store.Snapshot, ratings: dict[int, float]) -> list[Entrant]:
    """Every entrant, withdrawn ones too: their games count for the others' tie-breaks."""
    return [Entrant(e.user_id, ratings.get(e.user_id, e.rating)) for e in snap.entries]


def _extra(s: Standing) -> dict[str, Any]:
    """The format's own columns of a standing (an arena's streak, seat counts), as JSON."""
    out = {}
    for name in ("wins", "seats", "streak", "fire"):
        if hasattr(s, name):
            value = getattr(s, name)
            out[name] = list(value) if isinstance(value, tuple) else value
    return out
