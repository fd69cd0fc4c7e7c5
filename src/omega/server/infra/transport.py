"""The WebSocket transport: uvicorn's protocol, with a way out for clients that stop reading.

uvicorn stops handing a socket's messages to the network while the peer is not reading (its
write buffer is over the high-water mark) and makes every ``send``, the closing frame's
included, wait for the peer to read.  So a client that never reads would keep its socket,
its presence and its task on the server for ever: the server could not even tell it to go.

:class:`SlowReaderProtocol` lets the application close such a socket at once: the close frame
is queued behind the data the peer has not read (a few bytes more), the application hears
``websocket.disconnect`` right away, and the connection is aborted if the peer has not read
up to the close frame within uvicorn's close timeout (10 s).  A client that was only slow
gets the close code (``4408``, see ``docs/server-api.md``) after its backlog and reconnects
with ``since``; one that is gone costs nothing more.  Everything else is uvicorn's.

>>> SlowReaderProtocol.__mro__[1].__name__
'WebSocketsSansIOProtocol'
"""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

__all__ = ["SlowReaderProtocol"]


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
