"""The tournaments' routes (``docs/server-api.md``, Tournaments): the list, a tournament's
page data, making one, joining, withdrawing, an arena's pause, and the tournament socket
that sends the page the tournament again at each change; and ``setup``, which wires the
service (its due work, its hook on the games' ends).

>>> sorted(r.path for r in router.routes)  # doctest: +NORMALIZE_WHITESPACE
['/api/tournaments', '/api/tournaments', '/api/tournaments/{tournament_id}',
 '/api/tournaments/{tournament_id}/join', '/api/tournaments/{tournament_id}/pause',
 '/api/tournaments/{tournament_id}/withdraw', '/ws/tournaments/{tournament_id}']
"""

# No ``from __future__ import annotations``: FastAPI reads the routes' annotations.
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Request, WebSocket

from omega.i18n import translatable as _
from omega.server.accounts.routes import (
    USER_CHARGED,
    Body,
    LoggedIn,
    admit_page_socket,
    refuse_socket,
    session_user,
)
from omega.server.errors import ApiError
from omega.server.infra.bodies import plausible_id
from omega.server.infra.limits import Buckets, Limits
from omega.server.infra.pagesocket import PageSocket
from omega.server.infra.scheduler import Scheduler
from omega.server.infra.state import from_app
from omega.server.tables.core import TableCore
from omega.server.tournaments.feed import TournamentFeed
from omega.server.tournaments.schemas import parse_new, parse_pause
from omega.server.tournaments.service import Tell, Tournaments
from omega.server.tournaments.store import KIND, TOPIC

__all__ = ["router", "setup", "TournamentParts", "install"]

router = APIRouter()


@dataclass
class TournamentParts:
    """What the app keeps of the tournaments: the service, the pages' sockets, the limits."""

    tournaments: Tournaments
    feed: TournamentFeed
    limits: Limits
    connects: Buckets

    @property
    def topics(self) -> dict[str, Any]:
        """Notification topics -> handlers (``PgListener(topics=...)``)."""
        return {TOPIC: self.feed.changed}


def install(core: TableCore, tell: Tell | None = None) -> Tournaments:
    """The tournaments' hook on the games' ends (``TableCore.on_stored``), for every process
    that stores turns (a server, or a worker whose computer plays on for a resigned seat)."""
    tournaments = Tournaments(core, tell)
    core.on_stored.append(tournaments.stored)
    return tournaments


def setup(app: FastAPI, core: TableCore, scheduler: Scheduler, limits: Limits, tell: Tell | None = None) -> TournamentParts:
    """The tournaments of the app (``app.state.tournaments``): the hook, the ``tournament``
    due work (one claim at a time per tournament, in whichever process has it), the feed."""
    tournaments = install(core, tell)
    feed = TournamentFeed()
    tournaments.on_change = feed.changed
    scheduler.handle(KIND, tournaments.run, capacity=16)
    parts = TournamentParts(tournaments, feed, limits, Buckets(limits.ws_connect_rate, limits.ws_connect_burst))
    app.state.tournaments = parts
    return parts


Service = Annotated[TournamentParts, from_app("tournaments")]


@router.get("/api/tournaments", dependencies=[USER_CHARGED])
async def list_tournaments(request: Request, parts: Service) -> dict[str, Any]:
    return await parts.tournaments.listing(await session_user(request))


@router.post("/api/tournaments", status_code=201, dependencies=[USER_CHARGED])
async def create_tournament(user: LoggedIn, raw: Body, parts: Service) -> dict[str, Any]:
    return await parts.tournaments.create(user, parse_new(raw))


@router.get("/api/tournaments/{tournament_id}", dependencies=[USER_CHARGED])
async def get_tournament(request: Request, tournament_id: str, parts: Service) -> dict[str, Any]:
    return await parts.tournaments.view(_checked_id(tournament_id), await session_user(request))


@router.post("/api/tournaments/{tournament_id}/join", dependencies=[USER_CHARGED])
async def join_tournament(tournament_id: str, user: LoggedIn, parts: Service) -> dict[str, Any]:
    return await parts.tournaments.join(user, _checked_id(tournament_id))


@router.post("/api/tournaments/{tournament_id}/withdraw", dependencies=[USER_CHARGED])
async def withdraw_from_tournament(tournament_id: str, user: LoggedIn, parts: Service) -> dict[str, Any]:
    return await parts.tournaments.withdraw(user, _checked_id(tournament_id))


@router.post("/api/tournaments/{tournament_id}/pause", dependencies=[USER_CHARGED])
async def pause_in_tournament(tournament_id: str, user: LoggedIn, raw: Body, parts: Service) -> dict[str, Any]:
    return await parts.tournaments.pause(user, _checked_id(tournament_id), parse_pause(raw).paused)


def _checked_id(tournament_id: str) -> str:
    if not plausible_id(tournament_id):
        raise ApiError("not_found", _("no such tournament"))
    return tournament_id


@router.websocket("/ws/tournaments/{tournament_id}")
async def tournament_socket(websocket: WebSocket, tournament_id: str, parts: Service) -> None:
    parts = parts
    limits = parts.limits
    clock = websocket.app.state.callers.clock
    full = (ApiError("busy", _("the tournaments are full right now; try again in a minute"))
            if parts.feed.count() >= limits.lobby_sockets else None)
    if not await admit_page_socket(websocket, parts.connects, full):
        return
    user = await session_user(websocket)
    try:
        first = await parts.tournaments.view(_checked_id(tournament_id), user)
    except ApiError as e:
        await refuse_socket(websocket, e)
        return
    watcher = parts.feed.add(tournament_id)

    page = PageSocket(websocket, limits, clock.monotonic)

    async def send(view: dict[str, Any]) -> None:
        await page.send({"type": "tournament", "tournament": view})

    async def pump() -> None:
        while True:
            await watcher.dirty.wait()
            watcher.dirty.clear()
            await send(await parts.tournaments.view(tournament_id, user))

    try:
        await page.run("the tournament", lambda: send(first), pump)
    finally:
        parts.feed.remove(watcher)
