"""The lobby's HTTP and WebSocket side (``docs/server-api.md``, Lobby, quick play and
ratings): open tables, quick play, the lobby socket, and the pages' paths.  :func:`setup`
makes the lobby's parts; the ratings' routes are in ``omega.server.ratings.routes``.

>>> parse_open(b'{"players": 2, "rated": true, "time_control": "5+5"}')[1]
True
>>> parse_open(b'{"players": 2, "rated": true}')
Traceback (most recent call last):
...
omega.server.errors.ApiError: a rated table needs a time control (real time such as 5+5, or turn-based such as 1d)
>>> parse_open(b'{"players": 2, "rated": "yes"}')
Traceback (most recent call last):
...
omega.server.errors.ApiError: bad request: rated: Input should be a valid boolean
"""

# No ``from __future__ import annotations``: FastAPI reads the routes' annotations.
import json
import logging
from dataclasses import dataclass, replace
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Request, WebSocket
from pydantic import Field, StringConstraints, TypeAdapter

from omega.i18n import translatable as _
from omega.server.accounts.routes import (
    USER_CHARGED,
    Body,
    LoggedIn,
    admit_page_socket,
    session_user,
    user_json,
)
from omega.server.config import TABLE_SIZES
from omega.server.errors import ApiError
from omega.server.infra.bodies import Strict, parse
from omega.server.infra.limits import Buckets, Limits, client_address, owner_key
from omega.server.infra.pagesocket import PageSocket
from omega.server.infra.scheduler import Scheduler
from omega.server.infra.state import from_app
from omega.server.lobby.quickplay import QuickPlay
from omega.server.lobby.service import LOBBY_TOPIC, MATCH_TOPIC, Lobby, LobbyFeed, LobbyQuery
from omega.server.ratings.service import RATED_PLAYERS, RatingStore
from omega.server.tables.core import TableCore
from omega.server.tables.routes import computers_allowed, new_table
from omega.server.tables.schemas import CreateTable, parse_create
from omega.server.tables.timecontrol import QUICKPLAY_DEFAULT, TimeControl, require_clock

__all__ = ["router", "setup", "LobbyParts", "parse_open", "QUICKPLAY_EVERY"]

log = logging.getLogger("omega.server")

#: Seconds between two rounds of quick-play matching (windows grow meanwhile).
QUICKPLAY_EVERY = 2.0


class TakeBody(Strict):
    """``POST /api/lobby/tables/{id}/take``: which seat (default: the first free one)."""

    seat: Annotated[int, Field(ge=0, le=3)] | None = None


class QuickPlayBody(Strict):
    """``POST /api/quickplay``."""

    players: Annotated[int, Field(ge=RATED_PLAYERS.start, le=RATED_PLAYERS.stop - 1)]
    size: Annotated[int, Field(ge=TABLE_SIZES.start, le=TABLE_SIZES.stop - 1)]
    #: One of the real-time presets (``QuickPlay.join`` checks which); absent: the default.
    time_control: Annotated[str, StringConstraints(max_length=16)] = QUICKPLAY_DEFAULT
    #: Against the computer rather than wait longer than ``quickplay.COMPUTER_AFTER``.
    computer: bool = False


_take = TypeAdapter(TakeBody)
_quick = TypeAdapter(QuickPlayBody)


def parse_open(raw: bytes) -> tuple[CreateTable, bool]:
    """An open table's body: what ``POST /api/tables`` takes (checked by the same rules),
    and ``rated``."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise ApiError("bad_request", _("bad request: the body must be a JSON object")) from None
    if not isinstance(data, dict):
        raise ApiError("bad_request", _("bad request: the body must be a JSON object"))
    rated = data.pop("rated", False)
    if not isinstance(rated, bool):
        raise ApiError("bad_request", _("bad request: rated: Input should be a valid boolean"))
    if "name" in data:
        raise ApiError("bad_request", _("bad request: name: an open table's players play under their usernames"))
    if rated and data.get("hints"):
        raise ApiError("bad_request", _("bad request: hints: never at a rated table (a rating measures the players)"))
    req = parse_create(json.dumps(data).encode())
    require_clock(rated, TimeControl.parse(req.time_control))
    return req, rated


@dataclass
class LobbyParts:
    """What the app keeps of the lobby: the parts, and the PostgreSQL topics they hear."""

    lobby: Lobby
    quickplay: QuickPlay
    ratings: RatingStore
    limits: Limits
    #: New open tables per client address, and new lobby sockets per address.
    creations: Buckets
    connects: Buckets

    @property
    def feed(self) -> LobbyFeed:
        """The lobby sockets of this process."""
        return self.lobby.feed

    @property
    def topics(self) -> dict[str, Any]:
        """Notification topics -> handlers (``PgListener(topics=...)``)."""
        return {LOBBY_TOPIC: self.lobby.remote_change, MATCH_TOPIC: self.quickplay.remote_match}

    async def stop(self) -> None:
        """At shutdown."""
        await self.lobby.feed.stop()


def setup(app: FastAPI, core: TableCore, ratings: RatingStore, scheduler: Scheduler, limits: Limits) -> LobbyParts:
    """The lobby of the app (``app.state.lobby``), and quick play's matching as recurring
    work (games are rated as they end by the action path itself: ``TableCore.on_end``)."""
    lobby = Lobby(core, ratings, limits)
    quickplay = QuickPlay(core, lobby, ratings)
    parts = LobbyParts(lobby, quickplay, ratings, limits, Buckets(limits.create_rate, limits.create_burst),
                       Buckets(limits.ws_connect_rate, limits.ws_connect_burst))
    scheduler.every("quickplay", QUICKPLAY_EVERY, quickplay.match_all, lease=60.0)
    app.state.lobby = parts
    return parts


Service = Annotated[LobbyParts, from_app("lobby")]


#: The lobby's routes and socket.
router = APIRouter()

# -- open tables -----------------------------------------------------------------------------------


@router.get("/api/lobby", dependencies=[USER_CHARGED])
async def listing(request: Request, parts: Service) -> dict[str, Any]:
    # Filters and the page are query parameters, each checked (LobbyQuery.parse).
    return await parts.lobby.listing(LobbyQuery.parse(request.query_params.multi_items()))


@router.post("/api/lobby/tables", status_code=201, dependencies=[USER_CHARGED])
async def open_table(request: Request, user: LoggedIn, raw: Body, parts: Service) -> dict[str, Any]:
    req, rated = parse_open(raw)
    parts = parts
    if not parts.creations.take(client_address(request), request.app.state.callers.clock.monotonic()):
        raise ApiError("rate_limited", _("too many new tables; slow down"))
    new = replace(new_table(req), name=None, rated=rated)
    owner = owner_key(request, user.id)
    if any(s.kind == "computer" for s in new.seats):
        await computers_allowed(parts.lobby.core, request.app.state.limits, owner, new)
    return await parts.lobby.open_table(user, new, owner, client_address(request))


@router.post("/api/lobby/tables/{table_id}/take", dependencies=[USER_CHARGED])
async def take(table_id: str, user: LoggedIn, raw: Body, parts: Service) -> dict[str, Any]:
    req: TakeBody = parse(_take, raw or b"{}")
    return await parts.lobby.take(user, table_id, req.seat)


@router.post("/api/lobby/tables/{table_id}/cancel", dependencies=[USER_CHARGED])
async def cancel(table_id: str, user: LoggedIn, parts: Service) -> dict[str, Any]:
    return await parts.lobby.cancel(user, table_id)

# -- quick play ------------------------------------------------------------------------------------


@router.get("/api/quickplay", dependencies=[USER_CHARGED])
async def quick_status(request: Request, parts: Service) -> dict[str, Any]:
    user = await session_user(request)
    if user is None:
        raise ApiError("auth_required", _("log in first"))
    return await parts.quickplay.status(user)


@router.post("/api/quickplay", dependencies=[USER_CHARGED])
async def quick_join(user: LoggedIn, raw: Body, parts: Service) -> dict[str, Any]:
    req: QuickPlayBody = parse(_quick, raw or b"{}")
    return await parts.quickplay.join(user, req.players, req.size, req.time_control, req.computer)


@router.post("/api/quickplay/leave", dependencies=[USER_CHARGED])
async def quick_leave(user: LoggedIn, parts: Service) -> dict[str, Any]:
    return await parts.quickplay.leave(user)

# -- the lobby socket ------------------------------------------------------------------------------


@router.websocket("/ws/lobby")
async def lobby_socket(websocket: WebSocket, parts: Service) -> None:
    parts = parts
    lobby, quickplay, limits = parts.lobby, parts.quickplay, parts.limits
    clock = websocket.app.state.callers.clock
    full = (ApiError("busy", _("the lobby is full right now; try again in a minute"))
            if len(lobby.feed.subscribers) >= limits.lobby_sockets else None)
    if not await admit_page_socket(websocket, parts.connects, full):
        return
    user = await session_user(websocket)
    sub = lobby.feed.add(user.id if user is not None else None, limits.ws_send_queue)

    page = PageSocket(websocket, limits, clock.monotonic)

    async def snapshot() -> None:
        quick = await quickplay.status(user) if user is not None else None
        first = await lobby.listing()  # the first page, unfiltered: the page asks by HTTP for others
        await page.send({"type": "lobby", "tables": first["tables"], "total": first["total"], "limit": first["limit"],
                         "you": user_json(user), "quickplay": quick})

    async def pump() -> None:
        while True:
            message = await sub.queue.get()
            if sub.resync or message is None:
                sub.resync = False
                await snapshot()
            else:
                await page.send(message)

    try:
        await page.run("the lobby", snapshot, pump)
    finally:
        lobby.feed.remove(sub)

