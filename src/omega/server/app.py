"""The FastAPI application: HTTP and WebSocket transport of ``docs/server-api.md``.

Transport only: requests are validated (``schemas``), the caller is identified once (a
FastAPI dependency), and the request goes to the table core; no rule is decided here.
:func:`create_app` also wires the server's parts together: storage, the clock, the
authenticator, the action path, presence, the scheduler of due work and the computer players.

>>> app = create_app("sqlite://", bot_factory=None)
>>> sorted(r.path for r in app.routes if r.path.startswith("/api/tables/"))[:2]
['/api/tables/{table_id}', '/api/tables/{table_id}/actions']
"""

# No ``from __future__ import annotations`` here: FastAPI reads the routes' annotations,
# and the dependencies they name are local to create_app.
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from importlib.resources import files
from pathlib import Path
from typing import Annotated, Any, TypeVar

from argon2 import PasswordHasher
from fastapi import Depends, FastAPI, Request, WebSocket
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import DBAPIError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import Receive, Scope, Send

from omega.ai import bot_for_level
from omega.server.accounts.passwords import Passwords
from omega.server.accounts.routes import (
    add_account_routes,
    cookie_writer,
    refuse_cross_site,
    session_id_of,
    session_user,
)
from omega.server.accounts.service import Accounts, User
from omega.server.clock import Clock, SystemClock
from omega.server.config import Settings, site_config
from omega.server.errors import ApiError
from omega.server.infra.compress import CompressPage
from omega.server.infra.headers import SecurityHeaders
from omega.server.infra.limits import Buckets, Limits, client_address, read_body
from omega.server.infra.metrics import DEFAULT_METRICS_FROM, MetricsAccess, RequestMetrics
from omega.server.infra.pubsub import PgListener
from omega.server.lobby.routes import add_lobby
from omega.server.social.hooks import new_social
from omega.server.tables.core import NewTable, TableCore
from omega.server.tables.identity import AccountAuthenticator, Credentials, Identity, hash_token
from omega.server.tables.presence import Presence
from omega.server.tables.records import Records
from omega.server.tables.relink import link_routes
from omega.server.tables.schemas import CreateTable, parse_action_body, parse_create, parse_name, to_action
from omega.server.tables.socket import SocketLimits, TableSocket
from omega.server.tables.state import COMPUTER_TURN, TIMEOUT, SeatConfig
from omega.server.tables.store import Repository, default_url, make_engine
from omega.server.tables.timecontrol import TimeControl
from omega.server.work.computers import DEFAULT_DEADLINE, DEFAULT_WORKERS
from omega.server.work.hints import install_hints
from omega.server.work.reviews import ReviewBudget, install_reviews
from omega.server.work.scheduler import ABANDON, Scheduler
from omega.server.work.thinking import BotForLevel
from omega.server.work.worker import computer_players, count_due_work

__all__ = ["create_app", "web_dir"]

log = logging.getLogger("omega.server")
T = TypeVar("T")

_MISSING_CLIENT = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Omega</title></head>
<body><h1>Omega server</h1><p>The web client is missing: <code>omega/web/index.html</code> is not
installed. The API is at <code>/api</code>.</p></body></html>"""


def web_dir() -> Path:
    """Where the page's files are (``src/omega/web``)."""
    return Path(str(files("omega") / "web"))


def _credentials(request: Request) -> Credentials:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return Credentials(value.strip())
    # Downloads (record links) cannot set headers: a token in the query string is accepted too.
    return Credentials(request.query_params.get("token") or None)


def _address(request: Request) -> str:
    return client_address(request)


def _new_table(req: CreateTable) -> NewTable:
    assert req.seats is not None
    seats = tuple(SeatConfig(s.kind, getattr(s, "level", None)) for s in req.seats)
    creator = req.creator_seat if req.creator_seat is not None else next(
        i for i, s in enumerate(seats) if s.kind == "human")
    return NewTable(req.players, req.size, req.pie_rule, seats, creator, req.name,
                    time_control=TimeControl.parse(req.time_control), hints=req.hints)


def create_app(
    database_url: str | None = None, *, ai_workers: int = DEFAULT_WORKERS,
    bot_factory: BotForLevel | None = bot_for_level, limits: Limits | None = None, settings: Settings | None = None,
    computer_deadline: float = DEFAULT_DEADLINE, clock: Clock | None = None, sqlite_synchronous: str = "FULL",
    password_hasher: PasswordHasher | None = None,
    review_budget: ReviewBudget | None = None,
    metrics_from: str = DEFAULT_METRICS_FROM,
) -> FastAPI:
    """The web app on ``database_url`` (default: ``OMEGA_DATABASE_URL`` or ``./data/``).

    ``bot_factory`` makes computer players (``bot_for_level`` in production; tests may pass a
    quicker one, or None to leave computer turns pending).  ``computer_deadline``: seconds a
    bot may think about a turn before its worker is killed and a quicker bot plays it.
    ``clock``: where the server's time comes from (tests pass a ``FakeClock``).
    ``sqlite_synchronous``: ``FULL`` (an acknowledged turn survives a power cut) or
    ``NORMAL`` (only a crash of the process; for measuring the difference).
    ``password_hasher``: argon2-cffi's hasher of account passwords (default: its defaults;
    tests may pass a cheaper one).
    ``review_budget``: simulations and seconds per position of a game's review (tests pass
    a small one; None: the review's own default).
    ``metrics_from``: the addresses or networks that may read ``GET /metrics``
    (comma-separated; docs/security.md).
    """
    limits = limits or Limits()
    clock = clock or SystemClock()
    repo = Repository(make_engine(database_url or default_url(), sqlite_synchronous))
    core = TableCore(repo, clock, AccountAuthenticator(), settings)
    passwords = Passwords(password_hasher)
    accounts = Accounts(core, passwords, limits, core.settings)
    presence = Presence(core)
    records = Records(core)
    social = new_social(core, limits, clock)
    scheduler = Scheduler(core, presence)
    core.on_due = scheduler.wake
    computers = computer_players(core, scheduler, ai_workers, bot_factory, computer_deadline, clock.monotonic) \
        if bot_factory is not None else None
    metrics_access = MetricsAccess(metrics_from)
    metrics = core.metrics
    count_due_work(core)

    async def count_sockets() -> None:
        metrics.sockets.set(core.hub.socket_count())

    metrics.sample_with(count_sockets)
    # Only a token that proved itself once gets a bucket of its own; everything else (no
    # token, an unknown or junk one) is charged to the client's address, which an attacker
    # cannot mint for free the way it can mint tokens.
    token_buckets = Buckets(limits.http_rate, limits.http_burst)
    address_buckets = Buckets(limits.http_rate, limits.http_burst)
    create_buckets = Buckets(limits.create_rate, limits.create_burst)
    connects = SocketLimits(Buckets(limits.ws_connect_rate, limits.ws_connect_burst),
                            Buckets(limits.ws_token_connect_rate, limits.ws_token_connect_burst))
    scheduler.every(ABANDON, core.settings.abandon_check_every, core.close_abandoned)
    scheduler.every("sessions", core.settings.session_purge_every, accounts.purge)
    scheduler.handle(TIMEOUT, core.flag)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await core.db(repo.migrate)
        listener = None
        if repo.is_postgres:
            url = repo.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
            def resync() -> None:
                core.hub.resync_all()
                lobby.feed.resync_all()

            listener = PgListener(url, core.server_id, core.remote_event, resync, core.remote_presence,
                                  on_note, topics=lobby.topics)
            listener.start()
            await listener.wait_ready(30)
        await scheduler.start()
        try:
            yield
        finally:
            if computers is not None:
                await computers.stop()
            await scheduler.stop()
            if listener is not None:
                await listener.stop()
            await lobby.stop()
            passwords.close()
            core.close()

    app = FastAPI(title="Omega", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(CompressPage)
    # Outside the routing, which leaves the route it matched in the scope this one reads.
    app.add_middleware(RequestMetrics, metrics=metrics, clock=clock.monotonic,
                       move_routes=("/api/tables/{table_id}/actions",))
    app.state.core = core
    app.state.scheduler = scheduler
    app.state.computers = computers
    app.state.limits = limits
    app.state.accounts = accounts
    app.state.social = social

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(exc.as_json(), status_code=exc.status)

    @app.exception_handler(DBAPIError)
    async def database_error(request: Request, exc: DBAPIError) -> JSONResponse:
        # The database is down or restarting: nothing was acknowledged, the client may retry
        # (with the same request_id, so a retry never plays twice).
        log.error("database error on %s: %s", request.url.path, exc)
        error = ApiError("unavailable", "the database is not available; try again")
        return JSONResponse(error.as_json(), status_code=error.status)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "bad_request")
        error = ApiError(code, str(exc.detail))
        # A 405 keeps the router's Allow header.
        return JSONResponse(error.as_json(), status_code=error.status, headers=exc.headers)

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception) -> JSONResponse:
        # A bug: the traceback goes to the log (uvicorn logs it after this answer), the
        # client gets the usual error shape, never a plain-text page.
        error = ApiError("internal", "internal server error")
        return JSONResponse(error.as_json(), status_code=error.status)

    # -- dependencies: who is calling, and what they sent -------------------------------------

    async def caller(request: Request) -> Credentials:
        """The request's credentials, after charging one request: to the token's (or
        session's) own bucket if it has proved itself before, otherwise to the client's
        address.  Without a token, the session cookie's account; a write authenticated so
        must come from the site itself (``cross_site``)."""
        credentials = _credentials(request)
        session_id = session_id_of(request) if credentials.token is None else None
        now = clock.monotonic()
        key = credentials.digest or (f"session:{hash_token(session_id)}" if session_id is not None else None)
        if key is not None and key in token_buckets:
            allowed = token_buckets.take(key, now)
        else:
            allowed = address_buckets.take(_address(request), now)
        if not allowed:
            raise ApiError("rate_limited", "too many requests; slow down")
        if session_id is None:
            return credentials
        if request.method not in ("GET", "HEAD"):
            refuse_cross_site(request)
        user = await session_user(request)
        if user is None:
            return credentials
        assert key is not None
        token_buckets.open(key, now)
        return Credentials(None, user_id=user.id)

    def proved(credentials: Credentials) -> None:
        """A token identified someone: from now on it is charged to a bucket of its own."""
        if credentials.digest is not None:
            token_buckets.open(credentials.digest, clock.monotonic())

    async def reader(table_id: str, credentials: Annotated[Credentials, Depends(caller)]) -> Identity:
        """Whoever reads a table: identified against its latest state; a seat's first visit
        joins it."""
        who = await core.identify(table_id, credentials)
        proved(credentials)
        await core.visit(table_id, who)
        return who

    async def actor(table_id: str, credentials: Annotated[Credentials, Depends(caller)]) -> Identity:
        """Whoever acts: the write catches up inside its transaction, and a first action joins
        in the same commit."""
        who = await core.identify(table_id, credentials, fresh=False)
        proved(credentials)
        return who

    def body(parse: Callable[[bytes], T]) -> Callable[[Request], Awaitable[T]]:
        """A dependency that reads the body (at most ``max_message`` bytes, refused before
        it is all read) and parses it with the strict model of ``schemas``."""
        async def read(request: Request) -> T:
            return parse(await read_body(request, limits.max_message))
        return read

    async def socket_user(websocket: WebSocket) -> int | None:
        """The account of a socket opened without a token, by its session cookie; a page of
        another site may not use the cookie (``cross_site``)."""
        if session_id_of(websocket) is None:
            return None
        refuse_cross_site(websocket)
        user = await session_user(websocket)
        return user.id if user is not None else None

    Reader = Annotated[Identity, Depends(reader)]
    Actor = Annotated[Identity, Depends(actor)]
    charged = [Depends(caller)]  # route dependencies run first: the rate limit before parsing

    # -- pages ------------------------------------------------------------------------------------

    def index() -> Response:
        page = web_dir() / "index.html"
        if page.is_file():
            return HTMLResponse(page.read_text(encoding="utf-8"))
        return HTMLResponse(_MISSING_CLIENT)

    app.add_api_route("/", index, methods=["GET", "HEAD"], include_in_schema=False)
    app.add_api_route("/t/{table_id}", index, methods=["GET", "HEAD"], include_in_schema=False)
    app.mount("/static", StaticFiles(directory=web_dir(), check_dir=False), name="static")

    # A path no route knows: a person's browser gets the page (which says "not found" in
    # its own words) with status 404; the API and other programs keep the JSON error.
    no_route = app.router.default
    program_paths = ("/api/", "/ws/", "/static/", "/healthz")

    async def not_found(scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        if scope["type"] == "http" and scope.get("method") in ("GET", "HEAD") and not path.startswith(program_paths):
            response = index()
            response.status_code = 404
            await response(scope, receive, send)
            return
        await no_route(scope, receive, send)

    app.router.default = not_found

    # -- HTTP API ---------------------------------------------------------------------------------

    @app.get("/api/health")
    async def health() -> dict[str, Any]:
        return {"ok": True}

    async def healthz() -> dict[str, Any]:
        """For load balancers and monitors: the process answers and its database does too
        (a database that does not answer gives 503 ``unavailable``)."""
        await core.db(repo.ping)
        return {"ok": True, "database": "ok"}

    app.add_api_route("/healthz", healthz, methods=["GET", "HEAD"], include_in_schema=False)

    async def prometheus(request: Request) -> Response:
        """This process's metrics, for monitoring addresses only (never through the proxy)."""
        if not metrics_access.allows(request.client.host if request.client else None,
                                     forwarded="x-forwarded-for" in request.headers):
            raise ApiError("forbidden", "metrics are served to monitoring addresses only (omega serve --metrics-from)")
        await metrics.refresh()
        body, content_type = metrics.render(request.headers.get("accept", ""))
        return Response(body, headers={"content-type": content_type})

    app.add_api_route("/metrics", prometheus, methods=["GET"], include_in_schema=False)

    @app.get("/api/config")
    async def config() -> dict[str, Any]:
        return site_config()

    def creation_allowed(request: Request) -> None:
        if not create_buckets.take(_address(request), clock.monotonic()):
            raise ApiError("rate_limited", "too many new tables; slow down")

    @app.post("/api/tables", status_code=201, dependencies=[Depends(creation_allowed)])
    async def create_table(request: Request, req: Annotated[CreateTable, Depends(body(parse_create))],
                           user: Annotated[User | None, Depends(cookie_writer)]) -> dict[str, Any]:
        # A logged-in creator's account holds the creator's seat from the start.
        new = replace(_new_table(req), creator_user=user.id if user is not None else None)
        if any(s.kind == "computer" for s in new.seats):
            waiting = await core.db(repo.due_count, COMPUTER_TURN)
            if waiting >= limits.computer_queue:
                raise ApiError("busy", f"the computer players are busy ({waiting} turns waiting); "
                                       "try again in a minute, or play people")
        return await core.create(new, owner=_address(request))

    @app.get("/api/status")
    async def status() -> dict[str, Any]:
        """What the server is doing: sockets, cached tables, computer turns."""
        return {
            "sockets": core.hub.socket_count(), "tables_cached": core.cached_tables,
            "computer_turns_due": await core.db(repo.due_count, COMPUTER_TURN),
            "computers": computers.status() if computers is not None else None,
        }

    @app.get("/api/tables/{table_id}")
    async def get_table(table_id: str, who: Reader) -> dict[str, Any]:
        return await core.view(table_id, who)

    @app.post("/api/tables/{table_id}/actions", dependencies=charged)
    async def post_action(table_id: str, action: Annotated[Any, Depends(body(parse_action_body))],
                          who: Actor) -> dict[str, Any]:
        acted = await core.act(table_id, who, to_action(action), request_id=action.request_id,
                               version=action.version)
        assert acted is not None  # a person's action is stored, answered or refused
        return {"version": acted.version, "state": acted.state}

    @app.post("/api/tables/{table_id}/name", dependencies=charged)
    async def post_name(table_id: str, name: Annotated[str, Depends(body(parse_name))], who: Actor) -> dict[str, Any]:
        await core.visit(table_id, who)
        return await core.rename(table_id, who, name)

    @app.get("/api/tables/{table_id}/record.txt")
    async def record_txt(table_id: str, who: Reader) -> Response:
        text, _ = await records.record(table_id, who)
        return PlainTextResponse(text, headers={"content-disposition": f'attachment; filename="omega-{table_id}.txt"'})

    @app.get("/api/tables/{table_id}/record.json")
    async def record_json(table_id: str, who: Reader) -> Response:
        _, data = await records.record(table_id, who)
        return JSONResponse(data, headers={"content-disposition": f'attachment; filename="omega-{table_id}.json"'})

    def replay_at(request: Request) -> int:
        at_text = request.query_params.get("at", "")
        # isdigit() alone takes "²", which int() refuses: ASCII digits only.
        if not (at_text.isascii() and at_text.isdigit()) or len(at_text) > 6:
            raise ApiError("bad_request", "bad request: at must be a whole number")
        return int(at_text)

    @app.get("/api/tables/{table_id}/replay", dependencies=charged)
    async def replay(table_id: str, at: Annotated[int, Depends(replay_at)], who: Reader) -> dict[str, Any]:
        return await records.replay(table_id, who, at)

    add_account_routes(app)
    reviews = install_reviews(app, core, scheduler, computers, reader, charged, limits.review_queue, review_budget)
    hints = install_hints(app, core, scheduler, computers, actor, charged, limits.computer_queue)
    link_routes(app, core, reader, actor, charged, limits)
    lobby = add_lobby(app, core, accounts, scheduler, limits)

    def on_note(table_id: str, tag: str) -> None:
        """A note from another process: a review's progress, a hint's answer, or chat and rematch."""
        if not (reviews.remote(table_id, tag) or hints.remote(table_id, tag)):
            social.remote(table_id, tag)

    # -- WebSocket --------------------------------------------------------------------------------

    @app.websocket("/ws/tables/{table_id}")
    async def table_socket(websocket: WebSocket, table_id: str) -> None:
        await TableSocket(websocket, core, presence, limits, clock, table_id, connects, socket_user, social).run()

    return app
