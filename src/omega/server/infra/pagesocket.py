"""A page's socket that only listens: the lobby's, a tournament's.

The server sends a first view, then what changes; the page may send pings, each answered
with a pong, and nothing else.  Sends are serialised by a lock, since the pump and the pong
may want the socket at the same moment.

>>> PageSocket.refusal("the lobby")["error"]["message"]
'bad request: the lobby socket takes {"type": "ping"} only'
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from omega.server.infra.limits import Buckets, Limits

__all__ = ["PageSocket"]

PING = '{"type":"ping"}'


class PageSocket:
    """An accepted socket of a page that listens; :meth:`run` serves it until it closes."""

    def __init__(self, websocket: WebSocket, limits: Limits, monotonic: Callable[[], float]) -> None:
        self.websocket = websocket
        self.limits = limits
        self.monotonic = monotonic
        self._sending = asyncio.Lock()

    @staticmethod
    def refusal(what: str) -> dict[str, Any]:
        """What a message other than a ping is answered with (``what``: the page's name)."""
        return {"type": "error", "request_id": None, "error": {
            "code": "bad_request", "message": f'bad request: {what} socket takes {{"type": "ping"}} only'}}

    async def send(self, message: dict[str, Any]) -> None:
        """Send one message, within the send timeout (a stuck reader costs only itself)."""
        async with self._sending, asyncio.timeout(self.limits.ws_send_timeout):
            await self.websocket.send_text(json.dumps(message, separators=(",", ":")))

    async def run(self, what: str, start: Callable[[], Awaitable[None]], pump: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """``start`` sends the first view, ``pump`` (a task from then on) what follows; pings
        are answered, anything else refused.  Returns when the socket closes or fails, the
        pump stopped; the caller's own clean-up goes in its ``finally``."""
        writer: asyncio.Task[None] | None = None
        try:
            await start()
            writer = asyncio.get_running_loop().create_task(pump())
            bucket = Buckets(self.limits.ws_rate, self.limits.ws_burst, max_keys=1)
            while True:
                message = await self.websocket.receive()
                if message["type"] == "websocket.disconnect":
                    return
                if not bucket.take("", self.monotonic()):
                    continue  # a flood costs its sender only
                raw = message.get("text") or ""
                if len(raw) <= self.limits.max_message and raw.replace(" ", "") == PING:
                    await self.send({"type": "pong"})
                else:
                    await self.send(self.refusal(what))
        except (WebSocketDisconnect, TimeoutError, OSError):
            pass
        finally:
            if writer is not None:
                writer.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await writer
