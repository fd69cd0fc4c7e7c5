"""The WebSocket of a table (``/ws/tables/{id}``): the caller is identified once when it
connects; then it gets a sync (or the events it missed), every new event in version order,
presence messages, and may send actions, which take the same action path as HTTP ones.

The secret never travels in the URL (URLs end up in proxies' and servers' logs): the client
offers the protocol, ``omega.v2`` (events carry what changed) or ``omega.v1`` (events carry
the whole state), and ``omega.token.<seat token or spectator key>``; the server accepts the
newest protocol offered.

>>> token_of(["omega.v2", "omega.token.abc-_1"]), token_of(["chat"])
('abc-_1', None)
>>> protocol_of(["omega.v1", "omega.v2"]), protocol_of(["omega.v1"]), protocol_of([])
('omega.v2', 'omega.v1', None)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from fastapi import WebSocket
from starlette.websockets import WebSocketDisconnect, WebSocketDisconnected, WebSocketState

from omega.i18n import translatable as _
from omega.server.clock import Clock
from omega.server.errors import SESSION_ENDED, ApiError
from omega.server.infra.language import connection_language
from omega.server.infra.limits import Buckets, Limits, TokenBucket
from omega.server.infra.pubsub import Delivery, Item, Notice, PresenceNote, Subscriber
from omega.server.tables.core import TableCore
from omega.server.tables.identity import Credentials, Identity, SeatHolder
from omega.server.tables.presence import Presence
from omega.server.tables.schemas import ChatMessage, RematchMessage, parse_client_message, to_action
from omega.server.tables.timecontrol import stamp_ms
from omega.server.tables.values import viewer_seat

__all__ = ["TableSocket", "SocketHooks", "SocketLimits", "CLOSE_TOO_SLOW", "SUBPROTOCOLS", "CHANGES", "TOKEN_PREFIX", "token_of",
           "protocol_of"]

#: The protocols the server speaks, newest first: ``omega.v2`` sends each event with the
#: state's changes (patch operations), ``omega.v1`` with the whole state.
SUBPROTOCOLS = ("omega.v2", "omega.v1")
#: The protocol whose events carry changes.
CHANGES = "omega.v2"
#: The offered subprotocol that carries the caller's secret.
TOKEN_PREFIX = "omega.token."


def protocol_of(subprotocols: list[str]) -> str | None:
    """The newest protocol a client offered (None: it offered none; it gets whole states)."""
    return next((p for p in SUBPROTOCOLS if p in subprotocols), None)


def token_of(subprotocols: list[str]) -> str | None:
    """The secret a client offered as a subprotocol, if any."""
    for offered in subprotocols:
        if offered.startswith(TOKEN_PREFIX) and len(offered) > len(TOKEN_PREFIX):
            return offered[len(TOKEN_PREFIX):]
    return None

log = logging.getLogger("omega.server")


class _Gone(Exception):
    """The client closed its socket while we were sending."""


#: Close code of a socket whose client fell too far behind (did not read); see server-api.md.
CLOSE_TOO_SLOW = 4408


@dataclass(frozen=True)
class SocketLimits:
    """How often new sockets may be opened: per client address, and per token (every
    opening is checked against both, so neither new tokens nor new addresses are free)."""

    by_address: Buckets
    by_token: Buckets

    def allow(self, address: str, credentials: Credentials, now: float) -> bool:
        """Whether a socket may be opened now (spends from both budgets)."""
        ok = self.by_address.take(address, now)
        if credentials.digest is not None:
            ok = self.by_token.take(credentials.digest, now) and ok
        return ok


class SocketHooks(Protocol):
    """What a feature beside the game does on the table's socket (the social feature's chat
    and rematches): told when a socket opened, handles the client's messages of its types,
    and is told when a seat's socket closed."""

    async def opened(self, sock: TableSocket, who: Identity) -> None:
        """A socket opened and got the table (before its queue's sender starts)."""
        ...

    async def handle(self, sock: TableSocket, who: Identity, msg: ChatMessage | RematchMessage) -> None:
        """A chat or rematch message from the socket's client (ApiError when refused)."""
        ...

    async def closed(self, table_id: str, seat: int) -> None:
        """A seat's socket closed."""
        ...


class TableSocket:
    """One WebSocket connection to a table."""

    def __init__(self, ws: WebSocket, core: TableCore, presence: Presence, limits: Limits, clock: Clock,
                 table_id: str, connects: SocketLimits,
                 account: Callable[[WebSocket], Awaitable[int | None]] | None = None,
                 social: SocketHooks | None = None,
                 account_now: Callable[[WebSocket], Awaitable[int | None]] | None = None) -> None:
        self.connects = connects
        #: Chat and rematch messages (None: a server without them).
        self.social = social
        #: Who is logged in on a socket opened without a token (the session cookie's account).
        self.account = account
        #: The same account asked again now (None: never asked again).
        self.account_now = account_now
        self.ws = ws
        self.core = core
        self.presence = presence
        self.limits = limits
        self.clock = clock
        self.table_id = table_id
        self.address = ws.client.host if ws.client else "?"
        self.send_lock = asyncio.Lock()
        self.last = 0
        #: The chat lines its history held (``Social.opened``): their live copies are skipped.
        self.chat_sent: frozenset[int] = frozenset()
        self.bucket = TokenBucket(limits.ws_rate, limits.ws_burst, clock.monotonic())
        self.writer: asyncio.Task[None] | None = None
        self.closing: asyncio.Task[None] | None = None
        #: Whether events go out as changes (``omega.v2``) rather than whole states.
        self.changes = False
        #: The account whose session cookie opened the socket (None: a token, or nobody).
        #: Its session is asked again before each action: one that ended acts no more.
        self.session_user: int | None = None

    async def send(self, message: dict[str, Any]) -> None:
        await self.send_text(json.dumps(message, separators=(",", ":")))

    async def account_id(self) -> int | None:
        """The account logged in on the page that opened this socket (None: nobody, or a
        server without accounts)."""
        return await self.account(self.ws) if self.account is not None else None

    async def send_text(self, text: str) -> None:
        async with self.send_lock:
            if self.closing is not None:
                raise _Gone
            try:
                # The transport makes a send wait while the client is not reading.
                async with asyncio.timeout(self.limits.ws_send_timeout):
                    await self.ws.send_text(text)
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
            await self.send({"type": "error", "request_id": None, "error": error.as_json(connection_language(self.ws))["error"]})
            await self.ws.close(code=4000 + error.status)

    async def run(self) -> None:
        offered = list(self.ws.scope.get("subprotocols", []))
        protocol = protocol_of(offered)
        self.changes = protocol == CHANGES
        await self.ws.accept(subprotocol=protocol)
        params = self.ws.query_params
        credentials = Credentials(token_of(offered))
        if not self.connects.allow(self.address, credentials, self.clock.monotonic()):
            await self.close_with(ApiError("rate_limited", _("too many new sockets; wait a moment")))
            return
        try:
            if credentials.token is None and self.account is not None:
                credentials = Credentials(None, user_id=await self.account(self.ws))
                self.session_user = credentials.user_id
            who = await self.core.identify(self.table_id, credentials)
            await self.core.visit(self.table_id, who)
        except ApiError as e:
            await self.close_with(e)
            return
        hub = self.core.hub
        if hub.sockets(self.table_id) >= self.limits.sockets_per_table:
            await self.close_with(ApiError("rate_limited", _("too many sockets on this table")))
            return
        seat = who.seat if isinstance(who, SeatHolder) else None
        sub = hub.add(self.table_id, seat, self.limits.ws_send_queue)
        sub.on_overflow = lambda: self.too_slow(f"{self.limits.ws_send_queue} events were waiting to be sent")
        try:
            since_text = params.get("since", "")
            # isdigit() alone takes "²" or "٣", which int() then refuses: ASCII digits only.
            replay = await self.core.events_since(self.table_id, int(since_text)) \
                if since_text.isascii() and since_text.isdigit() and len(since_text) < 10 else None
            if replay is None:
                await self.send_sync(who)
            else:
                # The client has everything up to since: with nothing to replay (since is the
                # current version) the next event must not look like a gap from version 0.
                self.last = int(since_text)
                for item in replay:
                    await self.send_event(item, who)
            if self.social is not None:
                # Before the queue's sender starts: a chat line or rematch change that comes
                # meanwhile is queued and follows what this sends, so the page ends with the
                # newest, never with an older state read here.
                await self.social.opened(self, who)
            self.writer = asyncio.get_running_loop().create_task(self.pump(sub.queue, who, sub))
            if seat is not None:
                await self.presence.opened(self.table_id, seat)
            if replay is not None:
                # Who is here now, this socket's seat counted: the client's flags are as old
                # as the state it resumed from (queued, so it follows what is being sent).
                sub.offer(await self.core.presence_now(self.table_id))
            try:
                await self.read(who)
            finally:
                if seat is not None:
                    with contextlib.suppress(Exception):
                        await self.presence.closed(self.table_id, seat)
                    if self.social is not None:
                        await self.social.closed(self.table_id, seat)
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

    async def send_sync(self, who: Identity) -> None:
        version, state = await self.core.sync(self.table_id, who)
        # The server's time: the page measures its offset from it and shows the clocks by
        # the server's time, never by its own.
        await self.send({"type": "sync", "version": version, "state": state, "server_time": stamp_ms(self.clock.now())})
        self.last = version  # only once sent: a socket closed as too slow names the last one it got

    async def send_event(self, item: Delivery, who: Identity) -> None:
        # Each message is encoded once for every socket (Delivery); a whole state (omega.v1)
        # ends with the viewer's seat, this socket's own.  Changes (omega.v2) go from the
        # version before, which this socket has: its events follow each other without gaps.
        if self.changes:
            await self.send_text(item.changes_message)
        else:
            seat = viewer_seat(who)
            await self.send_text(f'{item.head},"you":{{"seat":{"null" if seat is None else seat}}}}}}}')
        self.last = item.version

    async def send_presence(self, note: PresenceNote) -> None:
        await self.send({"type": "presence", "version": note.version, "seats": list(note.seats)})

    async def pump(self, queue: asyncio.Queue[Item], who: Identity, sub: Subscriber) -> None:
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
                    await self.send_sync(who)
                    continue
                if isinstance(item, PresenceNote):
                    await self.send_presence(item)
                    continue
                if isinstance(item, Notice):
                    if item.chat_line in self.chat_sent:
                        continue  # already sent in the history
                    text = item.render(who)
                    if text is not None:
                        await self.send_text(text)
                    continue
                if item is None or item.version <= self.last:
                    continue
                if item.version > self.last + 1:
                    missing = await self.core.events_since(self.table_id, self.last)
                    if missing is None:
                        await self.send_sync(who)
                        continue
                    for m in missing:
                        if m.version > self.last:
                            await self.send_event(m, who)
                    continue
                await self.send_event(item, who)
        except _Gone:
            pass  # the socket closed; the reader ends the connection

    async def read(self, who: Identity) -> None:
        while True:
            message = await self.ws.receive()
            received = self.clock.monotonic()
            if message["type"] == "websocket.disconnect":
                return
            raw = message.get("text")
            if raw is None:
                raw = (message.get("bytes") or b"").decode("utf-8", "replace")
            # The bucket first: a flood costs one subtraction per message, whatever it holds.
            if not self.bucket.take(self.clock.monotonic()):
                await self.reply_error(None, ApiError("rate_limited", _("at most {ws_rate} messages a second", ws_rate=f"{self.limits.ws_rate:g}")))
                continue
            if len(raw) > self.limits.max_message or len(raw.encode("utf-8")) > self.limits.max_message:
                await self.reply_error(None, ApiError("too_large", _("messages are limited to {max_message} bytes", max_message=self.limits.max_message)))
                continue
            request_id = None
            try:
                msg = parse_client_message(raw)
                if msg.type == "ping":
                    await self.send({"type": "pong", "server_time": stamp_ms(self.clock.now())})
                    continue
                request_id = msg.request_id
                if not await self.session_holds():
                    await self.close_with(ApiError("auth_required", SESSION_ENDED))
                    return
                if isinstance(msg, ChatMessage | RematchMessage):
                    if self.social is None:
                        raise ApiError("bad_request", _("bad request: this server has no {type}", type=msg.type))
                    await self.social.handle(self, who, msg)
                    continue
                acted = await self.core.act(self.table_id, who, to_action(msg.action),
                                            request_id=msg.request_id, version=msg.version)
                assert acted is not None  # a person's action is stored, answered or refused
                await self.send({"type": "ack", "request_id": msg.request_id, "version": acted.version})
                self.core.metrics.moved("websocket", self.clock.monotonic() - received)
            except ApiError as e:
                await self.reply_error(request_id if request_id is not None else _request_id_of(raw), e)

    async def session_holds(self) -> bool:
        """Whether the session that opened the socket (if one did) is still the account's:
        after a log-out, here or on another device, the socket's seat is no longer its own."""
        if self.session_user is None or self.account_now is None:
            return True
        return await self.account_now(self.ws) == self.session_user

    async def reply_error(self, request_id: str | None, error: ApiError) -> None:
        if self.ws.client_state == WebSocketState.CONNECTED:
            await self.send({"type": "error", "request_id": request_id, "error": error.as_json(connection_language(self.ws))["error"]})


def _request_id_of(raw: str) -> str | None:
    """The request_id of a message that failed validation, if one can be read from it."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):  # a message nested thousands deep is refused, not a crash
        return None
    rid = data.get("request_id") if isinstance(data, dict) else None
    return rid if isinstance(rid, str) and len(rid) <= 128 else None
