"""What a table's socket does around the game: chat and rematch messages.

:class:`Social` is the one thing the table socket calls for them: when a socket opens
(:meth:`Social.opened`: the chat history, then where a rematch stands), for a client message of
type ``chat`` or ``rematch`` (:meth:`Social.handle`), and when a seat's socket closes
(:meth:`Social.closed`: a player leaving cancels a proposed rematch).  Notes from other server
processes (PostgreSQL NOTIFY) come in through :meth:`Social.remote`.

>>> parse_tag("c42"), parse_tag("r"), parse_tag("x")
(('c', 42), ('r', None), None)
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Protocol

from fastapi import FastAPI

from omega.server.clock import Clock
from omega.server.errors import ApiError
from omega.server.infra.limits import Limits
from omega.server.social.chat import CHAT_TAG, Chat, chat_message
from omega.server.social.rematch import REMATCH_TAG, Rematches
from omega.server.tables.core import TableCore
from omega.server.tables.identity import Identity, SeatHolder, Spectator
from omega.server.tables.schemas import ChatMessage, RematchMessage

__all__ = ["Social", "SocialSocket", "parse_tag", "new_social", "setup"]

log = logging.getLogger("omega.server")


class SocialSocket(Protocol):
    """What :class:`Social` needs of a table socket."""

    table_id: str
    address: str
    #: The ids of the chat lines sent in the history when the socket opened.
    chat_sent: frozenset[int]

    async def send(self, message: dict[str, Any]) -> None:
        """Send one JSON message to this socket's client."""
        ...

    async def send_text(self, text: str) -> None:
        """Send one message already encoded."""
        ...

    async def account_id(self) -> int | None:
        """The account logged in on the socket's page (None: nobody)."""
        ...


def parse_tag(tag: str) -> tuple[str, int | None] | None:
    """A note's tag from another process: ``c<id>`` (a chat message) or ``r`` (a rematch)."""
    if tag == REMATCH_TAG:
        return REMATCH_TAG, None
    rest = tag[len(CHAT_TAG):]
    if tag.startswith(CHAT_TAG) and rest.isascii() and rest.isdigit() and len(rest) < 19:
        return CHAT_TAG, int(rest)
    return None


class Social:
    """Chat and rematch for the table sockets of one server process."""

    def __init__(self, chat: Chat, rematches: Rematches) -> None:
        self.chat = chat
        self.rematches = rematches

    async def opened(self, sock: SocialSocket, who: Identity) -> None:
        """A socket opened (and got the table): its chat history and the rematch, if there
        are any (a table without either sends nothing more than before they existed)."""
        lines = await self.chat.history(sock.table_id, who.seat if isinstance(who, SeatHolder) else None)
        if lines:
            # The socket was subscribed before the history was read (nothing is lost), so a
            # line stored meanwhile may be in both: the socket skips its live copy.
            sock.chat_sent = frozenset(line.id for line in lines)
            await sock.send_text(chat_message(lines, history=True))
        await self.rematches.greet(sock.table_id, who, sock.send)

    async def handle(self, sock: SocialSocket, who: Identity, msg: ChatMessage | RematchMessage) -> None:
        """A chat or rematch message from the socket's client (ApiError when refused)."""
        if isinstance(msg, ChatMessage):
            # A spectator writes as whoever is logged in on the page (a seat, as its account).
            account = await sock.account_id() if isinstance(who, Spectator) else None
            await self.chat.post(sock.table_id, who, sock.address, msg.text, account)
            return
        rematch, changed = await self.rematches.answer(sock.table_id, who, msg.op)
        if not changed:  # everyone else already knows; the asker is told where it stands
            config = (await self.rematches.core.get(sock.table_id)).state.config
            await sock.send(rematch.view(config, who))

    async def closed(self, table_id: str, seat: int) -> None:
        """A seat's socket closed."""
        try:
            await self.rematches.left(table_id, seat)
        except ApiError:
            pass  # the table is gone: nothing to cancel
        except Exception:
            log.exception("could not cancel the rematch of table %s", table_id)

    def remote(self, table_id: str, tag: str) -> None:
        """Another process noted a chat message or a rematch change (PostgreSQL NOTIFY)."""
        parsed = parse_tag(tag)
        if parsed is None:
            return
        kind, message_id = parsed
        asyncio.get_running_loop().create_task(self._remote(table_id, kind, message_id))

    async def _remote(self, table_id: str, kind: str, message_id: int | None) -> None:
        try:
            if kind == CHAT_TAG and message_id is not None:
                await self.chat.remote(table_id, message_id)
            else:
                await self.rematches.remote(table_id)
        except Exception:
            log.exception("could not deliver a note of table %s from another process", table_id)


def new_social(core: TableCore, limits: Limits, clock: Clock) -> Social:
    """The chat and rematches of a server process.

    >>> from omega.server.clock import FakeClock
    >>> from omega.server.tables.identity import AccountAuthenticator
    >>> from omega.server.infra.db import make_engine
    >>> from omega.server.tables.store import Repository
    >>> clock = FakeClock()
    >>> core = TableCore(Repository(make_engine("sqlite://")), clock, AccountAuthenticator())
    >>> social = new_social(core, Limits(), clock); social.rematches.core is core
    True
    >>> core.close()
    """
    return Social(Chat(core, limits, clock), Rematches(core))


def setup(app: FastAPI, core: TableCore, limits: Limits, clock: Clock) -> Social:
    """The chat and rematches of the app (``app.state.social``), for the table sockets."""
    social = new_social(core, limits, clock)
    app.state.social = social
    return social
