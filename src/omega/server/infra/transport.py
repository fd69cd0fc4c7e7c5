"""The transport: uvicorn's WebSocket and HTTP protocols, with bounds for clients that stall.

uvicorn stops handing a socket's messages to the network while the peer is not reading (its
write buffer is over the high-water mark) and makes every ``send``, the closing frame's
included, wait for the peer to read.  So a client that never reads would keep its socket,
its presence and its task on the server for ever: the server could not even tell it to go.

:class:`SlowReaderProtocol` lets the application close such a socket at once: the close frame
is queued behind the data the peer has not read (a few bytes more), the application hears
``websocket.disconnect`` right away, and the connection is aborted if the peer has not read
up to the close frame within uvicorn's close timeout (10 s).  A client that was only slow
gets the close code (``4408``, see ``docs/server-api.md``) after its backlog and reconnects
with ``since``; one that is gone costs nothing more.  A frame the protocol cannot take (text
that is not UTF-8, a frame over the size limit, a protocol error) closes the socket with its
code and logs one line, never a traceback (uvicorn logs one for bad UTF-8).

:func:`bounded_http` makes uvicorn's HTTP protocol (httptools) hold each connection to
deadlines, for a server that faces clients without a proxy in front (``docs/security.md``,
Limits): a request's headers must be complete within ``header_timeout`` seconds (then
``408``) and fit in ``max_header_bytes`` (then ``431``); a body that stops arriving for
``body_timeout`` seconds closes the connection; and at most ``waiting`` connections may be
waiting for a request's headers or idle between requests: a new one past that closes the
oldest, so slow senders cannot hold every file descriptor while a client that sends its
request at once is served.  Everything else is uvicorn's.

>>> SlowReaderProtocol.__mro__[1].__name__
'WebSocketsSansIOProtocol'
>>> bounded_http(Limits()).__mro__[2].__name__
'HttpToolsProtocol'
"""

from __future__ import annotations

import asyncio
from asyncio import TimerHandle
from typing import Any, ClassVar

from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState

from omega.server.infra.limits import Limits

__all__ = ["SlowReaderProtocol", "BoundedHttpProtocol", "Waiting", "bounded_http", "BAD_FRAME"]

#: The one line a bad frame logs (``uvicorn.error``): the client, the close code, its reason.
BAD_FRAME = "%s - WebSocket bad frame, closed %d: %s"
# websockets' code for "the connection was lost", when no close frame could be sent.
_ABNORMAL = 1006


def _peer(client: tuple[str, int] | None) -> str:
    return f"{client[0]}:{client[1]}" if client else "-"


class SlowReaderProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol; a close never waits for a peer that does not read."""

    async def send(self, message: Any) -> None:
        """Send an ASGI message; a close while the peer is not reading goes out at once."""
        if (message["type"] == "websocket.close" and self.handshake_complete and not self.close_sent
                and not self.disconnected and self.initial_response is None and not self.writable.is_set()
                and not self.transport.is_closing()):
            code = int(message.get("code", 1000))
            reason = str(message.get("reason") or "")
            self.queue.put_nowait({"type": "websocket.disconnect", "code": code, "reason": reason})
            self.conn.send_close(code, reason)
            self.transport.write(b"".join(self.conn.data_to_send()))
            self.close_sent = True
            # abort, not close: close() would wait for ever for the buffer to drain.
            self.close_timer = self.loop.call_later(self.close_timeout, self.transport.abort)
            return
        await super().send(message)

    def keepalive_timeout(self) -> None:
        """A peer that answered no ping: drop it, even with unread data in the buffer."""
        super().keepalive_timeout()
        if not self.writable.is_set():
            self.transport.abort()

    def send_receive_event_to_app(self) -> None:
        """Hand a whole message to the application; a text message that is not UTF-8 fails
        the connection with 1007 here, before uvicorn would decode it and log a traceback."""
        if self.curr_msg_data_type == "text" and not self.close_sent:
            try:
                b"".join(self.frames).decode()
            except UnicodeDecodeError as e:
                self.frames = []
                # fail(), as websockets does for its own protocol errors: the close frame,
                # then nothing more is parsed.
                self.conn.fail(1007, f"invalid UTF-8 at byte {e.start}")
                self.handle_parser_exception()
                return
        super().send_receive_event_to_app()

    def handle_parser_exception(self) -> None:
        """A frame the protocol refused: one log line, then uvicorn closes the connection."""
        sent = self.conn.close_sent
        code, reason = (sent.code, sent.reason) if sent is not None else (_ABNORMAL, "connection lost")
        self.logger.warning(BAD_FRAME, _peer(self.client), code, reason or "-")
        if sent is None:  # uvicorn's handler needs a close frame sent; without one, just go
            self.queue.put_nowait({"type": "websocket.disconnect", "code": code, "reason": reason})
            self.close_sent = True
            self.transport.close()
            return
        super().handle_parser_exception()


class Waiting:
    """The connections of one server waiting for a request's headers, or idle between
    requests, oldest first; past ``cap`` the oldest is closed to make room.

    >>> class Conn:
    ...     closed = False
    ...     def expire(self) -> None: self.closed = True
    >>> waiting = Waiting(cap=2)
    >>> a, b, c = Conn(), Conn(), Conn()
    >>> waiting.add(a); waiting.add(b); waiting.add(c)
    >>> a.closed, b.closed, len(waiting)
    (True, False, 2)
    """

    def __init__(self, cap: int) -> None:
        self.cap = cap
        # A dict keeps insertion order: the first key is the oldest.
        self._conns: dict[Any, None] = {}

    def __len__(self) -> int:
        return len(self._conns)

    def add(self, conn: Any) -> None:
        """Count ``conn`` as waiting (a no-op if it is); close the oldest others past the cap."""
        if conn in self._conns:
            return
        while len(self._conns) >= self.cap:
            oldest = next(iter(self._conns))
            del self._conns[oldest]
            oldest.expire()
        self._conns[conn] = None

    def discard(self, conn: Any) -> None:
        """``conn`` is no longer waiting (its headers came, or it closed)."""
        self._conns.pop(conn, None)


def _status(code: int, phrase: str) -> bytes:
    return f"HTTP/1.1 {code} {phrase}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".encode("ascii")


class BoundedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, with a deadline for a request's headers and body, a size
    limit for the headers, and a place in its server's :class:`Waiting` while it waits for
    headers.  Built by :func:`bounded_http`, which sets the class attributes."""

    header_timeout: ClassVar[float] = Limits.header_timeout
    body_timeout: ClassVar[float] = Limits.body_timeout
    max_header_bytes: ClassVar[int] = Limits.max_header_bytes
    waiting: ClassVar[Waiting]

    def __init__(self, config: Config, server_state: ServerState, app_state: dict[str, Any],
                 _loop: asyncio.AbstractEventLoop | None = None) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self._deadline: TimerHandle | None = None
        #: True from the connection (or the end of a response) until a request's headers are in.
        self._awaiting_headers = True
        self._header_bytes = 0
        #: True from a request's first byte to the end of its body.
        self._in_message = False

    # -- the deadlines
    def _arm(self, seconds: float, late: Any) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, late)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _refuse(self, response: bytes) -> None:
        self._disarm()
        self.waiting.discard(self)
        if not self.transport.is_closing():
            self.transport.write(response)
            self.transport.close()

    def _headers_late(self) -> None:
        self._deadline = None
        self._refuse(_status(408, "Request Timeout"))

    def _body_late(self) -> None:
        self._deadline = None
        if self.flow.read_paused:
            # The server stopped reading (the application has not taken the body yet): not
            # the client's delay.
            self._arm(self.body_timeout, self._body_late)
            return
        # No answer: the application may be writing one; the request is lost either way.
        self.waiting.discard(self)
        self.transport.close()

    def expire(self) -> None:
        """Close this connection to make room for a newer one (:class:`Waiting`)."""
        self._refuse(_status(408, "Request Timeout") if self._header_bytes else b"")

    # -- uvicorn's protocol
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm(self.header_timeout, self._headers_late)
        self.waiting.add(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self.waiting.discard(self)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._awaiting_headers:
            self._header_bytes += len(data)
        super().data_received(data)
        if self._awaiting_headers and self._header_bytes > self.max_header_bytes:
            self._refuse(_status(431, "Request Header Fields Too Large"))

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_message = True
        if self._deadline is None:  # a kept-alive connection's next request: its own deadline
            self._arm(self.header_timeout, self._headers_late)

    def on_headers_complete(self) -> None:
        self._awaiting_headers = False
        self._header_bytes = 0
        self.waiting.discard(self)
        # Until the body is in (at once for a request without one: on_message_complete).
        self._arm(self.body_timeout, self._body_late)
        super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        super().on_body(body)
        if self._deadline is not None:
            self._arm(self.body_timeout, self._body_late)

    def on_message_complete(self) -> None:
        self._in_message = False
        self._disarm()
        super().on_message_complete()

    def handle_websocket_upgrade(self) -> None:
        self._disarm()  # the WebSocket protocol takes the connection over
        super().handle_websocket_upgrade()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        # An answer given before the body was all in (a refusal) leaves the body's deadline on.
        if self.timeout_keep_alive_task is not None and not self._in_message:
            # Idle until the next request (uvicorn's keep-alive timeout closes it): waiting.
            self._awaiting_headers = True
            self._header_bytes = 0
            self.waiting.add(self)


def bounded_http(limits: Limits) -> type[BoundedHttpProtocol]:
    """A :class:`BoundedHttpProtocol` class for one server, with ``limits``' deadlines and
    its own :class:`Waiting` (uvicorn makes one protocol object per connection from it).

    >>> protocol = bounded_http(Limits(header_timeout=1.5))
    >>> protocol.header_timeout, protocol.waiting.cap == Limits().waiting_connections
    (1.5, True)
    """

    class Bounded(BoundedHttpProtocol):
        header_timeout = limits.header_timeout
        body_timeout = limits.body_timeout
        max_header_bytes = limits.max_header_bytes
        waiting = Waiting(limits.waiting_connections)

    return Bounded
