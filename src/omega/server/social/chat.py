"""Table chat: short plain-text messages between the people at a table.

Who may write: the player of any human seat (resigned or not), and spectators unless the
table is rated (:func:`may_chat`; whether a table is rated is read through :func:`is_rated`
alone).  A message is checked by :func:`~omega.server.social.chat_text.check_chat_text` (at most
``CHAT_MAX`` characters, one line), then charged to its writer's budget (``Limits.chat_rate``,
``chat_burst``: per seat, or per client address for spectators, counted by each server
process), then stored in the ``chat`` table beside the table's rows.  Chat is never an event:
it does not move the table's version and never enters the record or a replay.

A stored message reaches this process's sockets of the table at once, and other processes'
through the database (``NOTIFY 'server:table:c<id>'``: they read the message by its id).  A
socket that opens gets the last :data:`CHAT_HISTORY` messages.

An account may be refused the chat by :attr:`Chat.gate` (set at wiring: the moderation
feature's mute), asked with the writer's account (a seat's, or a logged-in spectator's).
A message a moderator removes (:meth:`Chat.hide`) is hidden for everyone: left out of the
history, and every socket of the table is told (``chat_removed``); its row is kept.

**Kept apart.**  Where two accounts hold seats at the table and one blocked the other
(:attr:`Chat.apart`, set at wiring by the feature that knows), neither is sent the other's
messages, live or in the history: the server leaves them out for that seat's sockets, so
it holds in every browser.  (A spectator's socket and a spectator's message name no account:
they are not filtered.)

>>> from omega.server.tables.state import SeatConfig, TableConfig
>>> from omega.server.tables.identity import SeatHolder, Spectator
>>> config = TableConfig("t", 2, 5, False, "", (SeatConfig("human"), SeatConfig("computer", 1)))
>>> may_chat(config, SeatHolder(0)), may_chat(config, Spectator())
(True, True)
>>> from dataclasses import replace
>>> may_chat(replace(config, rated=True), Spectator())
False
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, insert, select, text, update
from sqlalchemy.engine import Connection

from omega.i18n import translatable as _
from omega.server.accounts.models import UserRow
from omega.server.clock import Clock, stamp
from omega.server.errors import ApiError
from omega.server.infra.db import utc
from omega.server.infra.limits import Buckets, Limits
from omega.server.infra.pubsub import Notice
from omega.server.social.chat_text import check_chat_text
from omega.server.social.models import ChatRow
from omega.server.tables.core import TableCore
from omega.server.tables.identity import Identity, SeatHolder, Spectator
from omega.server.tables.state import TableConfig

__all__ = ["Chat", "ChatLine", "ChatRef", "ChatGate", "CHAT_HISTORY", "CHAT_TAG", "SPECTATOR_NAME", "may_chat", "is_rated",
           "chat_message", "removed_message", "Apart", "hidden_seats"]

#: Messages a socket gets when it opens (the latest ones).
CHAT_HISTORY = 100
#: The tag of a chat message's note between server processes (followed by its id).
CHAT_TAG = "c"
#: How a spectator's messages are signed.
SPECTATOR_NAME = "Spectator"


#: The pairs of the given accounts kept apart (one blocked the other), asked inside a
#: transaction of the chat's.
Apart = Callable[[Connection, Sequence[int]], set[frozenset[int]]]


def hidden_seats(seat_users: Sequence[int | None], author: int | None, apart: set[frozenset[int]]) -> frozenset[int]:
    """The seats whose account must not see ``author``'s messages (nor ``author`` theirs).

    >>> sorted(hidden_seats([7, 8, 9], 7, {frozenset((7, 9))})), hidden_seats([7, None], None, set())
    ([2], frozenset())
    """
    if author is None:
        return frozenset()
    return frozenset(i for i, u in enumerate(seat_users) if u is not None and frozenset((u, author)) in apart)


def is_rated(config: TableConfig) -> bool:
    """Whether the table is rated: the one place chat asks (rated tables keep their chat to
    the players)."""
    return config.rated


def may_chat(config: TableConfig, who: Identity) -> bool:
    """Whether ``who`` may write in the table's chat: a human seat's player, or a spectator
    of a table that is not rated."""
    if isinstance(who, SeatHolder):
        return config.seats[who.seat].kind == "human"
    return isinstance(who, Spectator) and not is_rated(config)


@dataclass(frozen=True)
class ChatLine:
    """One stored message as sockets see it."""

    id: int
    at: str
    seat: int | None
    name: str
    user: str | None
    text: str

    def json(self) -> dict[str, Any]:
        """The message of ``docs/server-api.md`` (Table chat).

        >>> ChatLine(7, "2027-01-01T00:00:00Z", None, "Spectator", None, "hi").json()["text"]
        'hi'
        """
        return {"id": self.id, "at": self.at, "seat": self.seat, "name": self.name, "user": self.user,
                "text": self.text}


def chat_message(lines: list[ChatLine], *, history: bool) -> str:
    """The socket message carrying ``lines`` (``history``: the ones sent when a socket opens).

    >>> chat_message([], history=True)
    '{"type":"chat","history":true,"messages":[]}'
    """
    return json.dumps({"type": "chat", "history": history, "messages": [line.json() for line in lines]},
                      separators=(",", ":"))


def removed_message(message_id: int) -> str:
    """The socket message that says a moderator removed message ``message_id``.

    >>> removed_message(7)
    '{"type":"chat_removed","id":7}'
    """
    return json.dumps({"type": "chat_removed", "id": message_id}, separators=(",", ":"))


#: Asked before an account's message is stored: raises ``ApiError`` to refuse it.
ChatGate = Callable[[int], Awaitable[None]]


@dataclass(frozen=True)
class ChatRef:
    """A stored message with its table, and whether a moderator removed it (for evidence).

    >>> ChatRef("t1", ChatLine(7, "2027-01-01T00:00:00Z", 0, "Ann", "ann", "hi"), False).json()["table_id"]
    't1'
    """

    table_id: str
    line: ChatLine
    hidden: bool

    def json(self) -> dict[str, Any]:
        """The message as evidence and a moderator's lists show it."""
        return {**self.line.json(), "table_id": self.table_id, "removed": self.hidden}


def _line(row: Any) -> ChatLine:
    return ChatLine(row.id, stamp(utc(row.created_at)), row.seat, row.name, row.username, row.text)


def _ref(row: Any) -> ChatRef:
    return ChatRef(row.table_id, _line(row), row.hidden_at is not None)


#: A table's latest lines, newest first: built once (every socket that opens reads them).
_LATEST = (select(ChatRow).where(ChatRow.table_id == bindparam("tid"), ChatRow.hidden_at.is_(None))
           .order_by(ChatRow.id.desc()).limit(CHAT_HISTORY))


class Chat:
    """The chat of every table, for one server process."""

    def __init__(self, core: TableCore, limits: Limits, clock: Clock) -> None:
        self.core = core
        self.clock = clock
        self.budgets = Buckets(limits.chat_rate, limits.chat_burst)
        #: Asked with the writer's account before a message is stored (None: anyone may).
        self.gate: ChatGate | None = None
        #: Who is kept apart (None: nobody is).
        self.apart: Apart | None = None

    def _apart(self, conn: Connection, seat_users: Sequence[int | None]) -> set[frozenset[int]]:
        users = [u for u in seat_users if u is not None]
        return self.apart(conn, users) if self.apart is not None and len(users) > 1 else set()

    async def history(self, table_id: str, seat: int | None = None) -> list[ChatLine]:
        """The table's latest messages, oldest first, as the player of ``seat`` (None: a
        spectator) may read them."""
        users = (await self.core.get(table_id)).keys.seat_users if seat is not None else ()

        def read() -> list[ChatLine]:
            with self.core.repo.engine.connect() as conn:
                rows = conn.execute(_LATEST, {"tid": table_id}).all()
                apart = self._apart(conn, users) if rows else set()
                conn.rollback()
            lines = [_line(r) for r in reversed(rows)]
            viewer = users[seat] if seat is not None and seat < len(users) else None
            if not apart or viewer is None:
                return lines
            hide = hidden_seats(users, viewer, apart)
            return [line for line in lines if line.seat is None or line.seat not in hide]

        return await self.core.db(read)

    async def post(self, table_id: str, who: Identity, address: str, raw_text: str,
                   account: int | None = None) -> ChatLine:
        """Store a message by ``who`` (from ``address``; ``account``: a spectator's logged-in
        account) and send it to the table's sockets.  Refused (and nothing stored) with
        ``forbidden``, ``bad_request``, ``rate_limited`` or what :attr:`gate` says."""
        cached = await self.core.get(table_id)
        config = cached.state.config
        if not may_chat(config, who):
            raise ApiError("forbidden", _("spectators cannot write in the chat of a rated table")
                           if isinstance(who, Spectator) else _("this seat cannot write in the chat"))
        message = check_chat_text(raw_text)
        seat = who.seat if isinstance(who, SeatHolder) else None
        writer = cached.keys.seat_users[seat] if seat is not None and seat < len(cached.keys.seat_users) else account
        if self.gate is not None and writer is not None:
            await self.gate(writer)
        key = f"{table_id}:{seat}" if seat is not None else f"{table_id}:watch:{address}"
        if not self.budgets.take(key, self.clock.monotonic()):
            raise ApiError("rate_limited", _("you are writing too fast; wait a few seconds"))
        name = cached.state.names[seat] if seat is not None else SPECTATOR_NAME
        user_id = cached.keys.seat_users[seat] if seat is not None and seat < len(cached.keys.seat_users) else None
        now = self.clock.now()
        repo = self.core.repo
        server_id = self.core.server_id

        seat_users = cached.keys.seat_users

        def store() -> tuple[ChatLine, frozenset[int]]:
            with repo.writing() as conn:
                username = None if user_id is None else conn.execute(
                    select(UserRow.username).where(UserRow.id == user_id)).scalar_one_or_none()
                new_id = conn.execute(insert(ChatRow).values(
                    table_id=table_id, created_at=now, seat=seat, name=name, username=username, text=message,
                ).returning(ChatRow.id)).scalar_one()
                if repo.is_postgres:
                    conn.execute(text("SELECT pg_notify('omega_events', :p)"),
                                 {"p": f"{server_id}:{table_id}:{CHAT_TAG}{new_id}"})
                hide = hidden_seats(seat_users, user_id, self._apart(conn, seat_users))
            return ChatLine(new_id, stamp(now), seat, name, username, message), hide

        line, hide = await self.core.db(store)
        self._deliver(table_id, line, hide)
        return line

    def _deliver(self, table_id: str, line: ChatLine, hide: frozenset[int] = frozenset()) -> None:
        out = chat_message([line], history=False)

        def render(who: Identity) -> str | None:
            return None if isinstance(who, SeatHolder) and who.seat in hide else out

        self.core.hub.deliver_notice(table_id, Notice(render, chat_line=line.id))

    def _deliver_removal(self, table_id: str, message_id: int) -> None:
        out = removed_message(message_id)
        self.core.hub.deliver_notice(table_id, Notice(lambda _who: out))

    async def remote(self, table_id: str, message_id: int) -> None:
        """Another process stored (or removed) message ``message_id``: tell this process's sockets."""
        if not self.core.hub.has(table_id):
            return

        seat_users = (await self.core.get(table_id)).keys.seat_users

        def read() -> tuple[ChatRef, frozenset[int]] | None:
            with self.core.repo.engine.connect() as conn:
                row = conn.execute(select(ChatRow).where(ChatRow.id == message_id,
                                                         ChatRow.table_id == table_id)).one_or_none()
                author = seat_users[row.seat] if row is not None and row.seat is not None \
                    and row.seat < len(seat_users) else None
                hide = hidden_seats(seat_users, author, self._apart(conn, seat_users)) if author is not None \
                    else frozenset()
                conn.rollback()
            return None if row is None else (_ref(row), hide)

        found = await self.core.db(read)
        if found is not None and found[0].hidden:
            self._deliver_removal(table_id, message_id)
        elif found is not None:
            self._deliver(table_id, found[0].line, found[1])

    # -- what moderators read and do ----------------------------------------------------------

    def _read(self, query: Any) -> list[ChatRef]:
        with self.core.repo.engine.connect() as conn:
            rows = conn.execute(query).all()
            conn.rollback()
        return [_ref(r) for r in rows]

    async def message(self, message_id: int) -> ChatRef | None:
        """Message ``message_id`` with its table (None: no such message)."""
        found = await self.core.db(self._read, select(ChatRow).where(ChatRow.id == message_id))
        return found[0] if found else None

    async def written_by(self, username: str, limit: int, table_id: str | None = None) -> list[ChatRef]:
        """The latest messages the account ``username`` wrote (at ``table_id`` only, when
        given), newest first, removed ones included."""
        query = select(ChatRow).where(ChatRow.username == username)
        if table_id is not None:
            query = query.where(ChatRow.table_id == table_id)
        return await self.core.db(self._read, query.order_by(ChatRow.id.desc()).limit(limit))

    @staticmethod
    def hide(conn: Connection, message_id: int, now: datetime) -> ChatRef | None:
        """Remove message ``message_id`` for everyone, inside the caller's transaction (its
        row stays, marked); the message as it was, or None if there is none.  Tell the
        table's sockets with :meth:`removed` once committed."""
        row = conn.execute(select(ChatRow).where(ChatRow.id == message_id)).one_or_none()
        if row is None:
            return None
        conn.execute(update(ChatRow).where(ChatRow.id == message_id, ChatRow.hidden_at.is_(None)).values(hidden_at=now))
        return _ref(row)

    async def removed(self, table_id: str, message_id: int) -> None:
        """Message ``message_id`` was removed: tell this process's sockets of the table, and
        the other processes (``c<id>``: they read it again and find it removed)."""
        self._deliver_removal(table_id, message_id)
        await self.core.note(table_id, f"{CHAT_TAG}{message_id}")
