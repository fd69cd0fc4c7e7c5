"""The lobby's HTTP and WebSocket side (``docs/server-api.md``, Lobby, quick play and
ratings): open tables, quick play, leaderboards and profiles' ratings, the lobby socket,
and the pages' paths.  :func:`add_lobby` wires it all into the app.

>>> parse_open(b'{"players": 2, "rated": true}')[1]
True
>>> parse_open(b'{"players": 2, "rated": "yes"}')
Traceback (most recent call last):
...
omega.server.errors.ApiError: bad request: rated: Input should be a valid boolean
"""

# No ``from __future__ import annotations``: FastAPI reads the routes' annotations.
import asyncio
import contextlib
import json
import logging
from dataclasses import dataclass
from importlib.resources import files
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request, WebSocket
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from starlette.websockets import WebSocketDisconnect

from omega.names import username_key
from omega.server.accounts.routes import logged_in_writer, same_site, session_id_of, session_user, user_json
from omega.server.accounts.service import Accounts, User
from omega.server.config import TABLE_SIZES
from omega.server.errors import ApiError
from omega.server.infra.limits import Buckets, Limits, client_address, read_body
from omega.server.lobby.quickplay import QuickPlay
from omega.server.lobby.service import LOBBY_TOPIC, MATCH_TOPIC, Lobby, LobbyFeed
from omega.server.ratings.service import RATED_PLAYERS, RatingStore
from omega.server.tables.core import NewTable, TableCore
from omega.server.tables.schemas import CreateTable, parse_create
from omega.server.tables.state import SeatConfig
from omega.server.tables.timecontrol import TimeControl
from omega.server.work.scheduler import Scheduler

__all__ = ["add_lobby", "LobbyParts", "parse_open", "LEADERBOARD_PAGE", "PROFILE_HISTORY", "QUICKPLAY_EVERY"]

log = logging.getLogger("omega.server")

#: Rows of a leaderboard page (default and most).
LEADERBOARD_PAGE = 50
#: Rating changes and recent games a profile shows.
PROFILE_HISTORY = 100
PROFILE_GAMES = 20
#: Seconds between two rounds of quick-play matching (windows grow meanwhile).
QUICKPLAY_EVERY = 2.0


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class TakeBody(_Strict):
    """``POST /api/lobby/tables/{id}/take``: which seat (default: the first free one)."""

    seat: Annotated[int, Field(ge=0, le=3)] | None = None


class QuickPlayBody(_Strict):
    """``POST /api/quickplay``."""

    players: Annotated[int, Field(ge=RATED_PLAYERS.start, le=RATED_PLAYERS.stop - 1)]
    size: Annotated[int, Field(ge=TABLE_SIZES.start, le=TABLE_SIZES.stop - 1)]


_take = TypeAdapter(TakeBody)
_quick = TypeAdapter(QuickPlayBody)


def _parse(adapter: TypeAdapter[Any], raw: bytes) -> Any:
    try:
        return adapter.validate_json(raw or b"{}")
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ApiError("bad_request", f"bad request: {where}: {first['msg']}" if where
                       else f"bad request: {first['msg']}") from None


def parse_open(raw: bytes) -> tuple[CreateTable, bool]:
    """An open table's body: what ``POST /api/tables`` takes (checked by the same rules),
    and ``rated``."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise ApiError("bad_request", "bad request: the body must be a JSON object") from None
    if not isinstance(data, dict):
        raise ApiError("bad_request", "bad request: the body must be a JSON object")
    rated = data.pop("rated", False)
    if not isinstance(rated, bool):
        raise ApiError("bad_request", "bad request: rated: Input should be a valid boolean")
    if "name" in data:
        raise ApiError("bad_request", "bad request: name: an open table's players play under their usernames")
    if rated and data.get("hints"):
        raise ApiError("bad_request", "bad request: hints: never at a rated table (a rating measures the players)")
    return parse_create(json.dumps(data).encode()), rated


@dataclass
class LobbyParts:
    """What the app keeps of the lobby: the parts, and the PostgreSQL topics they hear."""

    lobby: Lobby
    quickplay: QuickPlay
    ratings: RatingStore

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


def _index() -> HTMLResponse:
    page = files("omega") / "web" / "index.html"
    return HTMLResponse(page.read_text(encoding="utf-8") if page.is_file() else "<!doctype html><title>Omega</title>")


def add_lobby(app: FastAPI, core: TableCore, accounts: Accounts, scheduler: Scheduler, limits: Limits) -> LobbyParts:
    """Add the lobby's routes to ``app`` and match quick play as recurring work (games are
    rated as they end by the action path itself: ``TableCore.on_end``)."""
    ratings = RatingStore(core.repo)
    lobby = Lobby(core, ratings)
    quickplay = QuickPlay(core, lobby, ratings)
    parts = LobbyParts(lobby, quickplay, ratings)
    scheduler.every("quickplay", QUICKPLAY_EVERY, quickplay.match_all, lease=60.0)
    app.state.lobby = parts
    creations = Buckets(limits.create_rate, limits.create_burst)
    connects = Buckets(limits.ws_connect_rate, limits.ws_connect_burst)
    router = app  # routes on the app itself, as the account routes are

    async def charged(request: Request) -> None:
        """One request of the per-user budget (per address when not logged in)."""
        user = await session_user(request)
        key = f"user:{user.id}" if user is not None else client_address(request)
        if not accounts.requests.take(key, accounts.clock.monotonic()):
            raise ApiError("rate_limited", "too many requests; slow down")

    async def body(request: Request) -> bytes:
        return await read_body(request, limits.max_message)

    Body = Annotated[bytes, Depends(body)]
    Writer = Annotated[User, Depends(logged_in_writer)]
    Charged = Depends(charged)

    # -- pages -------------------------------------------------------------------------------------
    for path in ("/leaderboard", "/leaderboard/{players}", "/u/{username}"):
        router.add_api_route(path, _index, methods=["GET", "HEAD"], include_in_schema=False)

    # -- open tables -------------------------------------------------------------------------------

    @router.get("/api/lobby", dependencies=[Charged])
    async def listing() -> dict[str, Any]:
        return {"tables": await lobby.listing()}

    @router.post("/api/lobby/tables", status_code=201, dependencies=[Charged])
    async def open_table(request: Request, user: Writer, raw: Body) -> dict[str, Any]:
        req, rated = parse_open(raw)
        if not creations.take(client_address(request), accounts.clock.monotonic()):
            raise ApiError("rate_limited", "too many new tables; slow down")
        assert req.seats is not None
        seats = tuple(SeatConfig(s.kind, getattr(s, "level", None)) for s in req.seats)
        creator = req.creator_seat if req.creator_seat is not None else next(
            i for i, s in enumerate(seats) if s.kind == "human")
        new = NewTable(req.players, req.size, req.pie_rule, seats, creator, rated=rated,
                       time_control=TimeControl.parse(req.time_control), hints=req.hints)
        return await lobby.open_table(user, new, client_address(request))

    @router.post("/api/lobby/tables/{table_id}/take", dependencies=[Charged])
    async def take(table_id: str, user: Writer, raw: Body) -> dict[str, Any]:
        req: TakeBody = _parse(_take, raw)
        return await lobby.take(user, table_id, req.seat)

    @router.post("/api/lobby/tables/{table_id}/cancel", dependencies=[Charged])
    async def cancel(table_id: str, user: Writer) -> dict[str, Any]:
        return await lobby.cancel(user, table_id)

    # -- quick play --------------------------------------------------------------------------------

    @router.get("/api/quickplay", dependencies=[Charged])
    async def quick_status(request: Request) -> dict[str, Any]:
        user = await session_user(request)
        if user is None:
            raise ApiError("auth_required", "log in first")
        return await quickplay.status(user)

    @router.post("/api/quickplay", dependencies=[Charged])
    async def quick_join(user: Writer, raw: Body) -> dict[str, Any]:
        req: QuickPlayBody = _parse(_quick, raw)
        return await quickplay.join(user, req.players, req.size)

    @router.post("/api/quickplay/leave", dependencies=[Charged])
    async def quick_leave(user: Writer) -> dict[str, Any]:
        return await quickplay.leave(user)

    # -- ratings ---------------------------------------------------------------------------------

    def page(request: Request) -> tuple[int, int]:
        texts = (request.query_params.get("limit", str(LEADERBOARD_PAGE)), request.query_params.get("offset", "0"))
        if not all(t.isascii() and t.isdigit() and len(t) <= 6 for t in texts) or not 1 <= int(texts[0]) <= LEADERBOARD_PAGE:
            raise ApiError("bad_request", f"bad request: limit must be 1 to {LEADERBOARD_PAGE}, offset a whole number")
        return int(texts[0]), int(texts[1])

    @router.get("/api/ratings/{players}", dependencies=[Charged])
    async def leaderboard(players: str, paging: Annotated[tuple[int, int], Depends(page)]) -> dict[str, Any]:
        if not (players.isascii() and players.isdigit() and int(players) in RATED_PLAYERS):
            raise ApiError("not_found", f"there is a leaderboard for {RATED_PLAYERS.start} to "
                                        f"{RATED_PLAYERS.stop - 1} players only")
        rows, total = await core.db(ratings.leaderboard, int(players), *paging)
        return {"players": int(players), "total": total, "offset": paging[1], "ratings": rows}

    @router.get("/api/users/{username}/ratings", dependencies=[Charged])
    async def user_ratings(username: str) -> dict[str, Any]:
        profile = await accounts.profile(username)  # not_found for nobody
        found = await core.db(accounts.store.user_by_key, username_key(username))
        assert found is not None
        user_id = found[0].id
        return {
            "username": profile["username"],
            "ratings": await core.db(ratings.of_user, user_id),
            "history": await core.db(ratings.history, user_id, PROFILE_HISTORY),
            "games": await core.db(ratings.recent_games, user_id, PROFILE_GAMES),
        }

    # -- the lobby socket --------------------------------------------------------------------------

    @router.websocket("/ws/lobby")
    async def lobby_socket(websocket: WebSocket) -> None:
        await websocket.accept(subprotocol="omega.v1" if "omega.v1" in websocket.scope.get("subprotocols", []) else None)

        async def refuse(error: ApiError) -> None:
            with contextlib.suppress(Exception):
                await websocket.send_json({"type": "error", "request_id": None, "error": error.as_json()["error"]})
                await websocket.close(code=4000 + error.status)

        address = websocket.client.host if websocket.client else "?"
        if not connects.take(address, accounts.clock.monotonic()):
            await refuse(ApiError("rate_limited", "too many new sockets; wait a moment"))
            return
        if session_id_of(websocket) is not None and not same_site(websocket):
            await refuse(ApiError("cross_site", "this socket must come from the site's own page"))
            return
        if len(lobby.feed.subscribers) >= limits.lobby_sockets:
            await refuse(ApiError("busy", "the lobby is full right now; try again in a minute"))
            return
        user = await session_user(websocket)
        sub = lobby.feed.add(user.id if user is not None else None, limits.ws_send_queue)

        sending = asyncio.Lock()

        async def send(message: dict[str, Any]) -> None:
            async with sending, asyncio.timeout(limits.ws_send_timeout):
                await websocket.send_text(json.dumps(message, separators=(",", ":")))

        async def snapshot() -> None:
            quick = await quickplay.status(user) if user is not None else None
            await send({"type": "lobby", "tables": await lobby.listing(), "you": user_json(user), "quickplay": quick})

        async def pump() -> None:
            while True:
                message = await sub.queue.get()
                if sub.resync or message is None:
                    sub.resync = False
                    await snapshot()
                else:
                    await send(message)

        writer: asyncio.Task[None] | None = None
        try:
            await snapshot()
            writer = asyncio.get_running_loop().create_task(pump())
            bucket = Buckets(limits.ws_rate, limits.ws_burst, max_keys=1)
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    return
                if not bucket.take("", accounts.clock.monotonic()):
                    continue  # a flood costs its sender only
                raw = message.get("text") or ""
                if len(raw) <= limits.max_message and raw.replace(" ", "") == '{"type":"ping"}':
                    await send({"type": "pong"})
                else:
                    await send({"type": "error", "request_id": None, "error": {
                        "code": "bad_request", "message": 'bad request: the lobby socket takes {"type": "ping"} only'}})
        except (WebSocketDisconnect, TimeoutError, OSError):
            pass
        finally:
            lobby.feed.remove(sub)
            if writer is not None:
                writer.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await writer

    return parts
