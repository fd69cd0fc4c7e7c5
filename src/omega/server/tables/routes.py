"""The tables' HTTP and WebSocket routes (``docs/server-api.md``): creating a table, reading
it, acting, renaming a seat, records, replays, new links, and ``/ws/tables/{id}``.

Transport only: bodies are validated (``schemas``), the caller is identified once (the
dependencies of ``deps``), and the request goes to the table core; no rule is decided here.
:func:`setup` makes the parts these routes use and keeps them in ``app.state``.

>>> sorted(r.path for r in router.routes if r.path.startswith("/api/tables/"))[:2]
['/api/tables/{table_id}', '/api/tables/{table_id}/actions']
"""

# No ``from __future__ import annotations``: FastAPI reads the routes' annotations.
from dataclasses import dataclass, replace
from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Request, WebSocket
from fastapi.responses import JSONResponse, PlainTextResponse, Response

from omega.i18n import translatable as _
from omega.server.clock import Clock
from omega.server.config import LEVEL_RANGE, computer_load, is_quick_level
from omega.server.errors import ApiError
from omega.server.infra.limits import Buckets, Limits, client_address, owner_key
from omega.server.infra.scheduler import Scheduler
from omega.server.tables.abandon import close_abandoned
from omega.server.tables.core import TableCore
from omega.server.tables.deps import (
    CALLER_CHARGED,
    Actor,
    Callers,
    Reader,
    Sessions,
    body,
    socket_user,
    socket_user_now,
    table_core,
)
from omega.server.tables.presence import Presence
from omega.server.tables.records import Records
from omega.server.tables.relink import Links
from omega.server.tables.schemas import (
    CreateTable,
    LinksBody,
    parse_action_body,
    parse_create,
    parse_links,
    parse_name,
    to_action,
)
from omega.server.tables.socket import SocketHooks, SocketLimits, TableSocket
from omega.server.tables.state import COMPUTER_TURN, FLAG_NEAR, TIMEOUT, SeatConfig
from omega.server.tables.timecontrol import TimeControl
from omega.server.tables.values import NewTable

__all__ = ["router", "setup", "TableParts", "new_table", "ABANDON"]

#: Site-wide work: close tables abandoned unfinished (``abandon.close_abandoned``).
ABANDON = "abandon"

router = APIRouter()


@dataclass
class TableParts:
    """What the table routes use besides the core (``app.state.tables``)."""

    presence: Presence
    records: Records
    links: Links
    #: New tables per client address.
    creations: Buckets
    #: New sockets per address and per token.
    connects: SocketLimits
    #: Chat and rematch on the table's socket (None: a server without them).
    hooks: SocketHooks | None = None


def setup(app: FastAPI, core: TableCore, presence: Presence, limits: Limits, clock: Clock,
          sessions: Sessions, hooks: SocketHooks | None, scheduler: Scheduler) -> TableParts:
    """Make the table routes' parts and keep them in ``app.state`` (``core``, ``callers``,
    ``tables``): ``sessions`` says which account a session cookie names, ``hooks`` handles
    the socket's chat and rematch messages.  The tables' due work: clocks' flags, and the
    sweep of abandoned tables; at each heartbeat, the catch-up of the tables watched here."""
    scheduler.every(ABANDON, core.settings.abandon_check_every, partial(close_abandoned, core))
    scheduler.handle(TIMEOUT, core.flag)
    scheduler.handle(FLAG_NEAR, core.flag_near)
    # A notification lost between another process's commit and its publish: caught up here.
    scheduler.at_beat(core.catch_up_watched)
    parts = TableParts(
        presence, Records(core), Links(core, limits), Buckets(limits.create_rate, limits.create_burst),
        SocketLimits(Buckets(limits.ws_connect_rate, limits.ws_connect_burst),
                     Buckets(limits.ws_token_connect_rate, limits.ws_token_connect_burst)),
        hooks)
    app.state.core = core
    app.state.callers = Callers.of(limits, clock, sessions)
    app.state.tables = parts
    return parts


def _parts(conn: Request | WebSocket) -> TableParts:
    parts: TableParts = conn.app.state.tables
    return parts


def new_table(req: CreateTable) -> NewTable:
    """The table a validated create request asks for (its creator: the seat it names, else
    the first human seat)."""
    assert req.seats is not None
    seats = tuple(SeatConfig(s.kind, getattr(s, "level", None)) for s in req.seats)
    creator = req.creator_seat if req.creator_seat is not None else next(
        i for i, s in enumerate(seats) if s.kind == "human")
    return NewTable(req.players, req.size, req.pie_rule, seats, creator, req.name,
                    time_control=TimeControl.parse(req.time_control), hints=req.hints, pausable=req.pausable)


def creation_allowed(request: Request) -> None:
    """Dependency: one new table of the client address's budget."""
    if not _parts(request).creations.take(client_address(request), request.app.state.callers.clock.monotonic()):
        raise ApiError("rate_limited", _("too many new tables; slow down"))


async def creator_account(request: Request) -> int | None:
    """Dependency of a table's creation: the logged-in creator's account or None; a request
    that carries a session cookie must come from the site itself (``cross_site``)."""
    sessions: Sessions = request.app.state.callers.sessions
    if sessions.session_id(request) is not None:
        sessions.refuse_cross_site(request)
    return await sessions.user_id(request)


@router.post("/api/tables", status_code=201, dependencies=[Depends(creation_allowed)])
async def create_table(request: Request, req: Annotated[CreateTable, Depends(body(parse_create))],
                       user_id: Annotated[int | None, Depends(creator_account)]) -> dict[str, Any]:
    # A logged-in creator's account holds the creator's seat from the start.
    core = table_core(request)
    new = replace(new_table(req), creator_user=user_id)
    owner = owner_key(request, user_id)
    if any(s.kind == "computer" for s in new.seats):
        await computers_allowed(core, request.app.state.limits, owner, new)
    return await core.create(new, owner=owner)


async def computers_allowed(core: TableCore, limits: Limits, owner: str, new: NewTable) -> None:
    """Refuse a table with computer seats while the computer players are busy, or while its
    owner's unfinished computer games would take more than their share (``busy``,
    ``too_many_computer_games``)."""
    waiting = await core.db(core.repo.due_count, COMPUTER_TURN)
    if waiting >= limits.computer_queue:
        raise ApiError("busy", _("the computer players are busy ({waiting} turns waiting); try again in a minute, or play people", waiting=waiting))
    seats = [(new.size, s.level) for s in new.seats if s.kind == "computer" and s.level is not None]
    if computer_load(seats) == 0:
        return  # quick levels only: they take no one's share
    going = computer_load(await core.db(core.repo.computer_seats_of, owner))
    if going + computer_load(seats) > limits.computer_load:
        quick = max(n for n in LEVEL_RANGE if is_quick_level(n))
        raise ApiError("too_many_computer_games",
                       _("you have enough games against strong computer players going; finish or resign one first, or choose a level up to {quick}", quick=quick))


@router.get("/api/tables/{table_id}")
async def get_table(request: Request, table_id: str, who: Reader) -> dict[str, Any]:
    return await table_core(request).view(table_id, who)


@router.post("/api/tables/{table_id}/actions", dependencies=CALLER_CHARGED)
async def post_action(request: Request, table_id: str, action: Annotated[Any, Depends(body(parse_action_body))],
                      who: Actor) -> dict[str, Any]:
    acted = await table_core(request).act(table_id, who, to_action(action), request_id=action.request_id,
                                          version=action.version)
    assert acted is not None  # a person's action is stored, answered or refused
    return {"version": acted.version, "state": acted.state}


@router.post("/api/tables/{table_id}/name", dependencies=CALLER_CHARGED)
async def post_name(request: Request, table_id: str, name: Annotated[str, Depends(body(parse_name))],
                    who: Actor) -> dict[str, Any]:
    core = table_core(request)
    await core.visit(table_id, who)
    return await core.rename(table_id, who, name)


@router.get("/api/tables/{table_id}/record.txt")
async def record_txt(request: Request, table_id: str, who: Reader) -> Response:
    text, _ = await _parts(request).records.record(table_id, who)
    return PlainTextResponse(text, headers={"content-disposition": f'attachment; filename="omega-{table_id}.txt"'})


@router.get("/api/tables/{table_id}/record.json")
async def record_json(request: Request, table_id: str, who: Reader) -> Response:
    _, data = await _parts(request).records.record(table_id, who)
    return JSONResponse(data, headers={"content-disposition": f'attachment; filename="omega-{table_id}.json"'})


def replay_at(request: Request) -> int:
    """Dependency: the replay's ``at`` (a whole number of at most 6 digits)."""
    at_text = request.query_params.get("at", "")
    # isdigit() alone takes "²", which int() refuses: ASCII digits only.
    if not (at_text.isascii() and at_text.isdigit()) or len(at_text) > 6:
        raise ApiError("bad_request", _("bad request: at must be a whole number"))
    return int(at_text)


@router.get("/api/tables/{table_id}/replay", dependencies=CALLER_CHARGED)
async def replay(request: Request, table_id: str, at: Annotated[int, Depends(replay_at)],
                 who: Reader) -> dict[str, Any]:
    return await _parts(request).records.replay(table_id, who, at)


@router.get("/api/tables/{table_id}/links", dependencies=CALLER_CHARGED)
async def get_links(request: Request, table_id: str, who: Reader) -> dict[str, Any]:
    return await _parts(request).links.status(table_id)


@router.post("/api/tables/{table_id}/links", dependencies=CALLER_CHARGED)
async def post_links(request: Request, table_id: str, req: Annotated[LinksBody, Depends(body(parse_links))],
                     who: Actor) -> dict[str, Any]:
    return await _parts(request).links.renew(table_id, who, req)


@router.websocket("/ws/tables/{table_id}")
async def table_socket(websocket: WebSocket, table_id: str) -> None:
    parts = _parts(websocket)
    callers: Callers = websocket.app.state.callers
    await TableSocket(websocket, table_core(websocket), parts.presence, websocket.app.state.limits, callers.clock,
                      table_id, parts.connects, socket_user, parts.hooks, socket_user_now).run()
