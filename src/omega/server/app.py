"""The FastAPI application: HTTP and WebSocket transport of ``docs/server-api.md``.

Transport only: requests are validated (``schemas``), handed to the
:class:`~omega.server.service.TableService`, and answered; no rule is decided here.

>>> app = create_app("sqlite://", bot_factory=None)
>>> sorted(r.path for r in app.routes if r.path.startswith("/api/tables/"))[:2]
['/api/tables/{table_id}', '/api/tables/{table_id}/actions']
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.resources import files
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import DBAPIError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.websockets import WebSocketDisconnect, WebSocketDisconnected, WebSocketState

from omega.ai import bot_for_level
from omega.server.ai_worker import DEFAULT_DEADLINE, DEFAULT_WORKERS, BotFactory, ComputerPlayers
from omega.server.config import site_config
from omega.server.limits import Buckets, Limits, TokenBucket
from omega.server.pubsub import Delivery, Subscriber
from omega.server.schemas import parse_action_body, parse_client_message, parse_create, parse_name, to_action
from omega.server.service import Settings, TableService, hash_token
from omega.server.storage import Repository, default_url, make_engine
from omega.server.tables import ApiError

__all__ = ["create_app", "web_dir"]

log = logging.getLogger("omega.server")

_MISSING_CLIENT = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Omega</title></head>
<body><h1>Omega server</h1><p>The web client is missing: <code>omega/web/index.html</code> is not
installed. The API is at <code>/api</code>.</p></body></html>"""


def web_dir() -> Path:
    """Where the page's files are (``src/omega/web``)."""
    return Path(str(files("omega") / "web"))


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    # Downloads (record links) cannot set headers: a token in the query string is accepted too.
    return request.query_params.get("token") or None


async def _body(request: Request, limit: int) -> bytes:
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > limit:
        raise ApiError("too_large", f"request bodies are limited to {limit} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ApiError("too_large", f"request bodies are limited to {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def create_app(
    database_url: str | None = None, *, ai_workers: int = DEFAULT_WORKERS,
    bot_factory: BotFactory | None = bot_for_level, limits: Limits | None = None, settings: Settings | None = None,
    computer_deadline: float = DEFAULT_DEADLINE,
) -> FastAPI:
    """The web app on ``database_url`` (default: ``OMEGA_DATABASE_URL`` or ``./data/``).

    ``bot_factory`` makes computer players (``bot_for_level`` in production; tests may pass a
    quicker one, or None to leave computer turns pending).  ``computer_deadline``: seconds a
    bot may think about a turn before its worker is killed and a quicker bot plays it.
    """
    limits = limits or Limits()
    service = TableService(Repository(make_engine(database_url or default_url())), settings)
    computers = ComputerPlayers(service, ai_workers, bot_factory, deadline=computer_deadline) \
        if bot_factory is not None else None
    if computers is not None:
        service.on_computer_turn = computers.schedule
    http_buckets = Buckets(limits.http_rate, limits.http_burst)
    create_buckets = Buckets(limits.create_rate, limits.create_burst)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await service.start()
        try:
            yield
        finally:
            if computers is not None:
                await computers.stop()
            await service.stop()

    app = FastAPI(title="Omega", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.service = service
    app.state.computers = computers
    app.state.limits = limits

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
        code = "not_found" if exc.status_code == 404 else "bad_request"
        return JSONResponse(ApiError(code, str(exc.detail)).as_json(), status_code=404 if code == "not_found" else 400)

    def caller(request: Request) -> str | None:
        """The request's bearer token, after charging it (or its address) one request."""
        token = _bearer(request)
        client = request.client.host if request.client else "?"
        key = hash_token(token) if token else f"addr:{client}"
        if not http_buckets.take(key):
            raise ApiError("rate_limited", "too many requests; slow down")
        return token

    # -- pages ------------------------------------------------------------------------------------

    def index() -> Response:
        page = web_dir() / "index.html"
        if page.is_file():
            return HTMLResponse(page.read_text(encoding="utf-8"))
        return HTMLResponse(_MISSING_CLIENT)

    app.add_api_route("/", index, methods=["GET"], include_in_schema=False)
    app.add_api_route("/t/{table_id}", index, methods=["GET"], include_in_schema=False)
    app.mount("/static", StaticFiles(directory=web_dir(), check_dir=False), name="static")

    # -- HTTP API ---------------------------------------------------------------------------------

    @app.get("/api/health")
    async def health() -> dict[str, Any]:
        return {"ok": True}

    @app.get("/api/config")
    async def config() -> dict[str, Any]:
        return site_config()

    @app.post("/api/tables", status_code=201)
    async def create_table(request: Request) -> dict[str, Any]:
        client = request.client.host if request.client else "?"
        if not create_buckets.take(client):
            raise ApiError("rate_limited", "too many new tables; slow down")
        req = parse_create(await _body(request, limits.max_message))
        return await service.create(req)

    @app.get("/api/tables/{table_id}")
    async def get_table(table_id: str, request: Request) -> dict[str, Any]:
        token = caller(request)
        return await service.state(table_id, token)

    @app.post("/api/tables/{table_id}/actions")
    async def post_action(table_id: str, request: Request) -> dict[str, Any]:
        token = caller(request)
        body = parse_action_body(await _body(request, limits.max_message))
        return await service.act(table_id, token, to_action(body), body.request_id, body.version)

    @app.post("/api/tables/{table_id}/name")
    async def post_name(table_id: str, request: Request) -> dict[str, Any]:
        token = caller(request)
        name = parse_name(await _body(request, limits.max_message))
        return await service.rename(table_id, token, name)

    @app.get("/api/tables/{table_id}/record.txt")
    async def record_txt(table_id: str, request: Request) -> Response:
        token = caller(request)
        text, _ = await service.record(table_id, token)
        return PlainTextResponse(text, headers={"content-disposition": f'attachment; filename="omega-{table_id}.txt"'})

    @app.get("/api/tables/{table_id}/record.json")
    async def record_json(table_id: str, request: Request) -> Response:
        token = caller(request)
        _, data = await service.record(table_id, token)
        return JSONResponse(data, headers={"content-disposition": f'attachment; filename="omega-{table_id}.json"'})

    @app.get("/api/tables/{table_id}/replay")
    async def replay(table_id: str, request: Request) -> dict[str, Any]:
        token = caller(request)
        at_text = request.query_params.get("at", "")
        if not at_text.isdigit() or len(at_text) > 6:
            raise ApiError("bad_request", "bad request: at must be a whole number")
        return await service.replay(table_id, token, int(at_text))

    # -- WebSocket --------------------------------------------------------------------------------

    @app.websocket("/ws/tables/{table_id}")
    async def table_socket(websocket: WebSocket, table_id: str) -> None:
        await websocket.accept()
        socket = _Socket(websocket, service, limits, table_id)
        await socket.run()

    return app


class _Gone(Exception):
    """The client closed its socket while we were sending."""


#: Close code of a socket whose client fell too far behind (did not read); see server-api.md.
CLOSE_TOO_SLOW = 4408


class _Socket:
    """One WebSocket connection to a table."""

    def __init__(self, ws: WebSocket, service: TableService, limits: Limits, table_id: str) -> None:
        self.ws = ws
        self.service = service
        self.limits = limits
        self.table_id = table_id
        self.send_lock = asyncio.Lock()
        self.last = 0
        self.bucket = TokenBucket(limits.ws_rate, limits.ws_burst)
        self.writer: asyncio.Task[None] | None = None
        self.closing: asyncio.Task[None] | None = None

    async def send(self, message: dict[str, Any]) -> None:
        async with self.send_lock:
            if self.closing is not None:
                raise _Gone
            try:
                # The transport makes a send wait while the client is not reading.
                async with asyncio.timeout(self.limits.ws_send_timeout):
                    await self.ws.send_text(json.dumps(message, separators=(",", ":")))
            except TimeoutError:  # before OSError, of which it is a subclass
                self.too_slow(f"a message waited {self.limits.ws_send_timeout:g} s for the client to read")
                raise _Gone from None
            except (WebSocketDisconnect, WebSocketDisconnected, OSError):
                raise _Gone from None

    def too_slow(self, why: str) -> None:
        """The client fell too far behind: close its socket (4408); it may reconnect with since."""
        if self.closing is None:
            log.info("closing a socket of table %s that fell behind: %s", self.table_id, why)
            self.closing = asyncio.get_running_loop().create_task(self._close_too_slow())

    async def _close_too_slow(self) -> None:
        if self.writer is not None and self.writer is not asyncio.current_task():
            self.writer.cancel()  # it may be waiting for the client to read
        # The transport sends the close frame behind the unread data without waiting
        # (transport.SlowReaderProtocol) and tells the reader the socket is closed.
        with contextlib.suppress(Exception):
            async with asyncio.timeout(5):
                await self.ws.close(code=CLOSE_TOO_SLOW,
                                    reason=f"too far behind; reconnect with since={self.last}")

    async def close_with(self, error: ApiError) -> None:
        with contextlib.suppress(Exception):
            await self.send({"type": "error", "request_id": None, "error": error.as_json()["error"]})
            await self.ws.close(code=4000 + error.status)

    async def run(self) -> None:
        params = self.ws.query_params
        try:
            seat = await self.service.authenticate(self.table_id, params.get("token"))
        except ApiError as e:
            await self.close_with(e)
            return
        hub = self.service.hub
        if hub.sockets(self.table_id) >= self.limits.sockets_per_table:
            await self.close_with(ApiError("rate_limited", "too many sockets on this table"))
            return
        sub = hub.add(self.table_id, seat, self.limits.ws_send_queue)
        sub.on_overflow = lambda: self.too_slow(f"{self.limits.ws_send_queue} events were waiting to be sent")
        try:
            since_text = params.get("since", "")
            replay = await self.service.events_since(self.table_id, int(since_text)) \
                if since_text.isdigit() and len(since_text) < 10 else None
            if replay is None:
                await self.send_sync(seat)
            else:
                for item in replay:
                    await self.send_event(item, seat)
            self.writer = asyncio.get_running_loop().create_task(self.pump(sub.queue, seat, sub))
            if seat is not None:
                await self.service.presence(self.table_id, seat, +1)
            try:
                await self.read(seat)
            finally:
                if seat is not None:
                    with contextlib.suppress(Exception):
                        await self.service.presence(self.table_id, seat, -1)
        except (WebSocketDisconnect, _Gone):
            pass  # the client went away; presence and subscription are cleaned up below
        finally:
            hub.remove(sub)
            if self.writer is not None:
                self.writer.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await self.writer
            if self.closing is not None:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await self.closing

    async def send_sync(self, seat: int | None) -> None:
        version, state = await self.service.sync(self.table_id, seat)
        await self.send({"type": "sync", "version": version, "state": state})
        self.last = version  # only once sent: a socket closed as too slow names the last one it got

    async def send_event(self, item: Delivery, seat: int | None) -> None:
        await self.send({"type": "event", "version": item.version, "event": item.event,
                         "state": {**item.state, "you": {"seat": seat}}})
        self.last = item.version

    async def pump(self, queue: asyncio.Queue[Delivery | None], seat: int | None, sub: Subscriber) -> None:
        """Send queued events in order; a gap is filled from the log, ``resync`` gets a sync.
        (An overflow closes the socket instead: see ``too_slow``.)"""
        try:
            while True:
                item = await queue.get()
                if sub.overflow:
                    return
                if sub.resync:
                    sub.resync = False
                    while not queue.empty():
                        queue.get_nowait()
                    await self.send_sync(seat)
                    continue
                if item is None or item.version <= self.last:
                    continue
                if item.version > self.last + 1:
                    missing = await self.service.events_since(self.table_id, self.last)
                    if missing is None:
                        await self.send_sync(seat)
                        continue
                    for m in missing:
                        if m.version > self.last:
                            await self.send_event(m, seat)
                    continue
                await self.send_event(item, seat)
        except _Gone:
            pass  # the socket closed; the reader ends the connection

    async def read(self, seat: int | None) -> None:
        while True:
            message = await self.ws.receive()
            if message["type"] == "websocket.disconnect":
                return
            raw = message.get("text")
            if raw is None:
                raw = (message.get("bytes") or b"").decode("utf-8", "replace")
            # The bucket first: a flood costs one subtraction per message, whatever it holds.
            if not self.bucket.take():
                await self.reply_error(None, ApiError("rate_limited", f"at most {self.limits.ws_rate:g} messages a second"))
                continue
            if len(raw) > self.limits.max_message or len(raw.encode("utf-8")) > self.limits.max_message:
                await self.reply_error(None, ApiError("too_large", f"messages are limited to {self.limits.max_message} bytes"))
                continue
            request_id = None
            try:
                msg = parse_client_message(raw)
                if msg.type == "ping":
                    await self.send({"type": "pong"})
                    continue
                request_id = msg.request_id
                if seat is None:
                    raise ApiError("forbidden", "spectators cannot act")
                answer = await self.service.act(self.table_id, self.ws.query_params.get("token"),
                                                to_action(msg.action), msg.request_id, msg.version)
                await self.send({"type": "ack", "request_id": msg.request_id, "version": answer["version"]})
            except ApiError as e:
                await self.reply_error(request_id if request_id is not None else _request_id_of(raw), e)

    async def reply_error(self, request_id: str | None, error: ApiError) -> None:
        if self.ws.client_state == WebSocketState.CONNECTED:
            await self.send({"type": "error", "request_id": request_id, "error": error.as_json()["error"]})


def _request_id_of(raw: str) -> str | None:
    """The request_id of a message that failed validation, if one can be read from it."""
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    rid = data.get("request_id") if isinstance(data, dict) else None
    return rid if isinstance(rid, str) and len(rid) <= 128 else None
