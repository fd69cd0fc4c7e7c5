"""Pushing table events to sockets: an in-process hub, and PostgreSQL LISTEN/NOTIFY between
server processes that share one database.

Every committed event reaches the sockets of the process that made it straight from the hub.
With PostgreSQL the process then tells the others ``'server:table:version'``, after the
commit: its :class:`Publisher` gathers what its commits stored over a few milliseconds and
sends it as one ``NOTIFY omega_events`` in a short transaction of its own (a notifying
transaction holds a lock until its commit is flushed, so a NOTIFY inside every turn's commit
made the turns' commits wait for each other).  Every other process hears it, reads the new
events from the database and gives them to its own hub.  A socket never depends on a
notification's content, only on the event log, so a lost or late notification costs
latency, never correctness: a process killed between a commit and its publish leaves the
others to find the new version at their next look at the tables they serve
(``TableCore.catch_up_watched``) or at the table's next notification.

>>> hub = Hub(); sub = hub.add("t1", seat=0)
>>> hub.deliver("t1", [Delivery(1, {"kind": "turn"}, {"version": 1}, {"version": 0})]); sub.queue.qsize()
1
>>> slow = Subscriber("t1", seat=None, maxsize=1)   # a reader that fell behind
>>> slow.on_overflow = lambda: print("too far behind")
>>> slow.offer(None); slow.offer(None)
too far behind
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from omega.server.infra.groups import leave
from omega.server.infra.patch import diff
from omega.server.infra.tasks import stop_task

__all__ = ["Delivery", "PresenceNote", "Notice", "Subscriber", "Hub", "PgListener", "Publisher", "pack", "entries",
           "CHANNEL", "WORK_TAG", "PUBLISH_WINDOW"]

log = logging.getLogger("omega.server")
CHANNEL = "omega_events"
#: The note ``'server:table:w'``: work for the computer players was stored at the table (a
#: computer's turn, a review, a hint), so a process that does such work looks at once
#: instead of at its next round (``omega worker`` listens for it).
WORK_TAG = "w"
#: Between the entries of one notification's payload (no entry holds a new line).
SEPARATOR = "\n"
#: The longest payload sent, in bytes: PostgreSQL refuses one of 8,000 or more.
MAX_PAYLOAD = 7_900
#: Seconds a :class:`Publisher` gathers committed entries before it sends them together.
PUBLISH_WINDOW = 0.005


@dataclass(frozen=True)
class Delivery:
    """One event for sockets: its version, the public event, the table state after it and
    the one before it (both without ``you``, which is the socket's own).  A socket speaking
    ``omega.v2`` is sent what changed between the two; one speaking ``omega.v1`` the whole
    state.  Each message is encoded once, whatever the number of sockets.

    >>> d = Delivery(3, {"kind": "join", "seat": 1}, {"id": "t", "version": 3}, {"id": "t", "version": 2})
    >>> d.head
    '{"type":"event","version":3,"event":{"kind":"join","seat":1},"state":{"id":"t","version":3'
    >>> d.changes_message
    '{"type":"event","version":3,"event":{"kind":"join","seat":1},"changes":[["replace","/version",3]]}'
    """

    version: int
    event: dict[str, Any]
    state: dict[str, Any]
    #: The state at ``version - 1``, as this process last sent it.
    before: dict[str, Any]

    @cached_property
    def head(self) -> str:
        """The ``omega.v1`` event message as JSON up to the state's last field, left open for
        each socket to add its viewer's ``"you"`` and close."""
        message = json.dumps({"type": "event", "version": self.version, "event": self.event, "state": self.state},
                             separators=(",", ":"))
        return message[:-2]  # without the state's and the message's closing braces

    @cached_property
    def changes_message(self) -> str:
        """The ``omega.v2`` event message: the state's changes as patch operations."""
        return json.dumps({"type": "event", "version": self.version, "event": self.event,
                           "changes": diff(self.before, self.state)}, separators=(",", ":"))


@dataclass(frozen=True)
class PresenceNote:
    """Who is at the table now (one boolean per seat), at table version ``version``.  Not an
    event: it has no version of its own and is never replayed."""

    version: int
    seats: tuple[bool, ...]


@dataclass(frozen=True)
class Notice:
    """A message for a table's sockets that is not an event (a chat message, where a rematch
    stands): ``render`` gives each socket's text for its viewer (the table's ``Identity`` of
    the socket, which this layer only passes on; None: nothing for that one).
    ``chat_line``: the id of the chat line it carries, which a socket that opened meanwhile
    may already have sent in its history (then it sends it no second time)."""

    render: Callable[[Any], str | None]
    chat_line: int | None = None


#: What a socket's queue holds: an event, a presence note, a notice, or None (only wakes
#: the writer).
Item = Delivery | PresenceNote | Notice | None


class Subscriber:
    """One socket's inbox: a bounded queue, so a client that stops reading never makes the
    server buffer without bound.  When it is full the socket has fallen too far behind:
    ``on_overflow`` is called (the socket closes itself, code 4408) and further events are
    dropped.  ``resync`` asks the socket's writer for one full sync."""

    def __init__(self, table_id: str, seat: int | None, maxsize: int = 256) -> None:
        self.table_id = table_id
        self.seat = seat
        self.queue: asyncio.Queue[Item] = asyncio.Queue(maxsize)
        self.overflow = False
        self.resync = False
        self.on_overflow: Callable[[], None] | None = None

    def offer(self, item: Item) -> None:
        """Queue ``item`` without ever waiting (``None`` only wakes the reader)."""
        try:
            self.queue.put_nowait(item)
        except asyncio.QueueFull:
            if not self.overflow and self.on_overflow is not None:
                self.on_overflow()
            self.overflow = True


class Hub:
    """The sockets of this process, by table."""

    def __init__(self) -> None:
        self._subs: dict[str, set[Subscriber]] = {}

    def add(self, table_id: str, seat: int | None, maxsize: int = 256) -> Subscriber:
        """A new inbox for a socket on ``table_id``."""
        sub = Subscriber(table_id, seat, maxsize)
        self._subs.setdefault(table_id, set()).add(sub)
        return sub

    def remove(self, sub: Subscriber) -> None:
        """Forget a closed socket."""
        leave(self._subs, sub.table_id, sub)

    def has(self, table_id: str) -> bool:
        """Whether any socket of this process watches ``table_id``."""
        return table_id in self._subs

    def tables(self) -> list[str]:
        """The tables that sockets of this process watch."""
        return list(self._subs)

    def sockets(self, table_id: str) -> int:
        """Open sockets on ``table_id``."""
        return len(self._subs.get(table_id, ()))

    def socket_count(self) -> int:
        """Open sockets of this process."""
        return sum(len(s) for s in self._subs.values())

    def deliver(self, table_id: str, items: list[Delivery]) -> None:
        """Give events (in version order) to every socket of the table."""
        for sub in self._subs.get(table_id, ()):
            for item in items:
                sub.offer(item)

    def deliver_presence(self, table_id: str, note: PresenceNote) -> None:
        """Tell every socket of the table who is there now."""
        for sub in self._subs.get(table_id, ()):
            sub.offer(note)

    def deliver_notice(self, table_id: str, notice: Notice) -> None:
        """Give a notice to every socket of the table."""
        for sub in self._subs.get(table_id, ()):
            sub.offer(notice)

    def resync_all(self) -> None:
        """After a lost notification link: every socket gets a full sync."""
        for subs in self._subs.values():
            for sub in subs:
                sub.resync = True
                sub.offer(None)


def pack(notes: Sequence[str], limit: int = MAX_PAYLOAD) -> list[str]:
    """``notes`` (``'server:table:tag'`` each) as few payloads as fit ``limit`` bytes each.  A
    table's version notes but the newest are left out: whoever hears one reads every event
    after the version it holds, whatever the note says.

    >>> pack(["a:t1:3", "a:t1:w", "a:t2:9", "a:t1:4"])
    ['a:t1:4\\na:t1:w\\na:t2:9']
    >>> pack(["a:t1:3", "a:t2:9"], limit=8)
    ['a:t1:3', 'a:t2:9']
    """
    newest: dict[str, str] = {}
    for note in notes:
        head, _, tag = note.rpartition(":")
        newest[head + (":" if tag.isdigit() else ":" + tag)] = note
    payloads: list[str] = []
    size = limit  # no payload open yet
    for note in newest.values():
        length = len(note.encode())
        if size + 1 + length > limit:
            payloads.append(note)
            size = length
        else:
            payloads[-1] += SEPARATOR + note
            size += 1 + length
    return payloads


def entries(payload: str) -> list[tuple[str, str, str]]:
    """The ``(server, table, tag)`` notes of one payload (one note, or a batch of them).

    >>> entries("a:t1:4\\na:t2:w")
    [('a', 't1', '4'), ('a', 't2', 'w')]
    """
    out = []
    for note in payload.split(SEPARATOR):
        server, _, rest = note.partition(":")
        table_id, _, tag = rest.rpartition(":")
        out.append((server, table_id, tag))
    return out


class Publisher:
    """Tells the other processes what this one's commits stored, after the commits: the
    notes given to :meth:`publish` within ``window`` seconds go out together (``send`` gets
    their payloads, made by :func:`pack`, to NOTIFY in one short transaction); notes that
    come while a batch is being sent go in the next.  No commit waits for it.

    >>> sent = []
    >>> async def send(payloads): sent.extend(payloads)
    >>> async def main():
    ...     publisher = Publisher(send, window=0)
    ...     publisher.publish(["a:t1:3", "a:t1:w"]); publisher.publish(["a:t1:4", "a:t2:9"])
    ...     await publisher.flush()
    ...     return publisher.batches, publisher.notes
    >>> asyncio.run(main()), sent
    ((1, 4), ['a:t1:4\\na:t1:w\\na:t2:9'])
    """

    def __init__(self, send: Callable[[list[str]], Awaitable[None]], window: float = PUBLISH_WINDOW) -> None:
        self._send = send
        self.window = window
        self._pending: list[str] = []
        self._task: asyncio.Task[None] | None = None
        #: Notes given, and notes whose batch is over (sent or failed): what :meth:`flush` waits for.
        self._given = 0
        self._over = 0
        self._waiting: list[asyncio.Future[None]] = []
        #: Batches sent and the notes in them (for the benchmarks); batches that failed.
        self.batches = 0
        self.notes = 0
        self.failed = 0

    def publish(self, notes: Iterable[str]) -> None:
        """Send ``notes`` with the next batch (on the event loop; never waits)."""
        before = len(self._pending)
        self._pending.extend(notes)
        self._given += len(self._pending) - before
        if self._task is None and self._pending:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def flush(self) -> None:
        """Wait until every note given so far is sent (or its batch failed); notes given
        meanwhile are not waited for, so a steady stream of them never keeps it waiting."""
        target = self._given
        while self._over < target:
            waiter = asyncio.get_running_loop().create_future()
            self._waiting.append(waiter)
            await waiter

    async def _run(self) -> None:
        try:
            while self._pending:
                if self.window > 0:
                    await asyncio.sleep(self.window)  # gather what the other commits store meanwhile
                batch, self._pending = self._pending, []
                try:
                    await self._send(pack(batch))
                    self.batches += 1
                    self.notes += len(batch)
                except Exception as e:  # the database is unreachable: the others catch up by version
                    self.failed += 1
                    log.warning("could not publish %d table notes (%s); other processes catch up by version",
                                len(batch), e)
                self._batch_over(len(batch))
        finally:  # also when cancelled (the loop is closing): what is left is not sent
            self._task = None
            self._pending = []
            self._batch_over(self._given - self._over)

    def _batch_over(self, count: int) -> None:
        self._over += count
        waiting, self._waiting = self._waiting, []
        for waiter in waiting:
            if not waiter.done():
                waiter.set_result(None)


class PgListener:
    """Listens on PostgreSQL for other processes' events (``on_event(table, version)``),
    presence changes (``on_presence(table)``), other notes about a table
    (``on_note(table, tag)``: ``'server:table:tag'`` with a tag that is neither a version
    nor ``p``, such as a chat message's) and site-wide topics: a notification
    ``server:<topic>:<detail>`` whose topic is a key of ``topics`` (names shorter than any
    table id, e.g. the lobby's) goes to ``topics[topic](detail)``."""

    def __init__(self, conninfo: str, server_id: str, on_event: Callable[[str, int], None],
                 on_reconnect: Callable[[], None], on_presence: Callable[[str], None],
                 on_note: Callable[[str, str], None] | None = None,
                 topics: dict[str, Callable[[str], None]] | None = None) -> None:
        self.topics = topics or {}
        self.conninfo = conninfo
        self.server_id = server_id
        self.on_event = on_event
        self.on_reconnect = on_reconnect
        self.on_presence = on_presence
        self.on_note = on_note
        self.ready = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def wait_ready(self, timeout: float) -> None:
        """Wait until the listener listens (TimeoutError after ``timeout`` seconds)."""
        async with asyncio.timeout(timeout):  # not wait_for: on 3.11 it can swallow a cancellation
            await self.ready.wait()

    def start(self) -> None:
        """Start listening in the background."""
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        """Stop listening."""
        await stop_task(self._task)

    async def _run(self) -> None:
        import psycopg

        while True:
            try:
                async with await psycopg.AsyncConnection.connect(self.conninfo, autocommit=True) as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    # Events committed while we were not listening are in the log: resync.
                    self.on_reconnect()
                    self.ready.set()
                    async for note in conn.notifies():
                        for server, table_id, version in entries(note.payload):
                            if server != self.server_id and table_id:
                                self._heard(table_id, version)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # the database restarted or the network broke: retry
                self.ready.clear()
                log.warning("event listener lost its connection (%s); retrying", e)
                await asyncio.sleep(1.0)

    def _heard(self, table_id: str, version: str) -> None:
        topic = self.topics.get(table_id)
        if topic is not None:
            topic(version)
        elif version == "p":  # 'server:table:p': someone's sockets came or went
            self.on_presence(table_id)
        elif version.isascii() and version.isdigit():
            self.on_event(table_id, int(version))
        elif self.on_note is not None:
            self.on_note(table_id, version)
