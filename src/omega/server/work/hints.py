"""Hints: at a table whose creator allows them, the player to move may ask the computer for
the best turn it finds in about a second (``thinking.HINT_SECONDS``).

The hint is searched in the computer players' workers (in the table owner's place in their
rotation, like the table's computer turns), then a ``hint`` event is stored through the one
action path: every socket of the table sees who asked on which turn, and the record carries
a ``Hints`` tag.  The hint is only shown to the player; they may still play anything.  A
hint is not a change of the play, so a turn chosen before it is still accepted.

Where the search runs:

- A process with computer players (``omega serve``) searches in its own workers while the
  request waits, as it always did.
- A process without them (``omega serve --no-workers``, PostgreSQL only) stores a ``hint``
  row of due work for the table at the play's version and waits (at most :data:`HINT_WAIT`
  seconds) for a process that has computer players (``omega worker``) to claim it, search,
  and note the answer (PostgreSQL NOTIFY ``'server:table:h<version>.<cells>'``,
  :func:`hint_tag`).  The asking process then stores the ``hint`` event itself, so a hint
  nobody waits for any more (the request gave up) is never counted, and the answer and its
  HTTP response are the same wherever the search ran.

>>> hint_tag(4, ("e5", "a1")), parse_hint_tag("h4.e5.a1")
('h4.e5.a1', (4, ('e5', 'a1')))
>>> hint_tag(9, "swap"), parse_hint_tag("h9.swap"), parse_hint_tag("h9.-"), parse_hint_tag("c3")
('h9.swap', (9, 'swap'), (9, None), None)
"""

# No ``from __future__ import annotations``: FastAPI reads the routes' annotations.
import asyncio
import zlib
from datetime import datetime
from typing import Any

from fastapi import APIRouter, FastAPI, Request

from omega.game import SWAP, Action
from omega.i18n import translatable as _
from omega.server.errors import ApiError
from omega.server.infra.due import Due
from omega.server.infra.groups import Waiters
from omega.server.infra.pubsub import WORK_TAG
from omega.server.infra.scheduler import Scheduler
from omega.server.tables.core import TableCore
from omega.server.tables.decide import Decided, decide_hint
from omega.server.tables.deps import CALLER_CHARGED, Actor
from omega.server.tables.identity import Identity
from omega.server.tables.state import TableState
from omega.server.tables.store import Writer
from omega.server.tables.values import Cached, seat_of
from omega.server.work.computers import ComputerPlayers
from omega.server.work.thinking import hint

__all__ = ["Hints", "router", "setup", "hint_tag", "parse_hint_tag", "HINT", "HINT_TAG", "HINT_WAIT"]

#: The kind of due work of a hint searched by another process.
HINT = "hint"
#: The first letter of a hint's note to other server processes (``hint_tag``).
HINT_TAG = "h"
#: Seconds a request at a process without computer players waits for another process's
#: answer (the search's second, the claim, a wait for a free worker) before ``busy``.
HINT_WAIT = 10.0
#: The note's stand-in for "no hint" (the search failed or missed its deadline).
_NO_HINT = "-"

#: A found hint (an action), or None when the search failed.
Answer = Action | None


def hint_tag(version: int, action: Answer) -> str:
    """The note of the hint found at play version ``version`` (cell names have neither
    ``.`` nor ``:``; a few bytes, as every server process hears every note)."""
    cells = _NO_HINT if action is None else SWAP if action == SWAP else ".".join(action)
    return f"{HINT_TAG}{version}.{cells}"


def parse_hint_tag(tag: str) -> tuple[int, Answer] | None:
    """``(version, action or None)`` of a hint's note; None if ``tag`` is not one."""
    if not tag.startswith(HINT_TAG):
        return None
    version, dot, rest = tag[len(HINT_TAG):].partition(".")
    if not (dot and rest and version.isascii() and version.isdigit() and len(version) < 10):
        return None
    if rest == _NO_HINT:
        return int(version), None
    return int(version), SWAP if rest == SWAP else tuple(rest.split("."))


class Hints:
    """The hints of one server process: the route's work, the search as due work (in a
    process with computer players), and the answers other processes note."""

    def __init__(self, core: TableCore, computers: ComputerPlayers | None, queue: int,
                 wait: float = HINT_WAIT) -> None:
        self.core = core
        self.computers = computers
        #: Computer work waiting (here, or hints site-wide) past which a hint is ``busy``.
        self.queue = queue
        #: Seconds to wait for another process's answer.
        self.wait = wait
        self._waiting: Waiters[tuple[str, int], Answer] = Waiters()

    def search_in(self, scheduler: Scheduler) -> None:
        """Search hints asked at other processes (this one has computer players)."""
        assert self.computers is not None
        scheduler.handle(HINT, self.search, capacity=2 * self.computers.workers)

    async def ask(self, table_id: str, who: Identity) -> dict[str, Any]:
        """A hint for ``who``: checked, searched (here or elsewhere), stored as a ``hint``
        event; the answer of ``POST /api/tables/{id}/hint``."""
        seat = seat_of(who)
        if seat is None:
            raise ApiError("forbidden", _("only a player can ask for a hint"))
        core = self.core
        await core.visit(table_id, who)
        cached = await core.fresh(table_id)
        decide_hint(cached.state, seat, core.clock.now())  # refused at once, before any search
        version = cached.state.play_version
        if self.computers is not None:
            if self.computers.status()["waiting"] >= self.queue:
                raise ApiError("busy", _("the computer players are busy; try again in a minute"))
            try:
                action = await self._search(cached, version)
            except TimeoutError:
                raise ApiError("busy", _("the computer took too long to find a hint; try again")) from None
        elif core.repo.is_postgres:
            action = await self._elsewhere(table_id, version)
        else:
            raise ApiError("unavailable", _("this server has no computer players to give hints"))

        def decision(state: TableState, w: Writer, now: datetime) -> Decided:
            if state.play_version != version:
                raise ApiError("stale_version", _("the game moved on while the computer was thinking"))
            return decide_hint(state, seat, now)

        written = await core.write(table_id, decision)
        return {"version": written.stored[-1].version, "hint": SWAP if action == SWAP else list(action),
                "state": written.view(seat)}

    async def _search(self, cached: Cached, version: int) -> Action:
        assert self.computers is not None
        seed = zlib.crc32(f"hint:{cached.state.config.id}:{version}".encode())
        return await self.computers.work(cached.owner, hint, cached.state.game.copy(), seed)

    async def _elsewhere(self, table_id: str, version: int) -> Action:
        """Have a process with computer players search the hint (due work) and wait for its
        note."""
        core = self.core
        if await core.db(core.repo.due_count, HINT) >= self.queue:
            raise ApiError("busy", _("the computer players are busy; try again in a minute"))
        key = (table_id, version)
        # Waiting before the row exists: the answer cannot come before anyone listens.
        answer = self._waiting.expect(key)
        try:
            # The same version keeps a row already there (a second tab asking): one search.
            await core.db(core.repo.keep_due, HINT, table_id, version, core.clock.now())
            await core.note(table_id, WORK_TAG)
            async with asyncio.timeout(self.wait):
                action = await answer
        except TimeoutError:
            raise ApiError("busy", _("the computer took too long to find a hint; try again")) from None
        finally:
            self._waiting.leave(key, answer)
        if action is None:
            raise ApiError("busy", _("the computer could not find a hint in time; try again"))
        return action

    async def search(self, due: Due) -> None:
        """Search the hint asked at ``due.table_id`` (scheduler handler, in a process with
        computer players) and note it for the process that waits for it."""
        cached = await self.core.fresh(due.table_id)
        state = cached.state
        if state.over or state.play_version != due.version:
            return None  # the play moved on: that hint is of no use to anyone
        action: Answer
        try:
            action = await self._search(cached, due.version)
        except TimeoutError:
            action = None
        self._answer(due.table_id, due.version, action)
        await self.core.note(due.table_id, hint_tag(due.version, action))
        return None

    def remote(self, table_id: str, tag: str) -> bool:
        """A note from another process (PostgreSQL NOTIFY): if it is a hint's answer, give it
        to the requests waiting for it here and say True."""
        parsed = parse_hint_tag(tag)
        if parsed is None:
            return False
        self._answer(table_id, *parsed)
        return True

    def _answer(self, table_id: str, version: int, action: Answer) -> None:
        self._waiting.answer((table_id, version), action)


#: ``POST /api/tables/{id}/hint`` (docs/server-api.md).
router = APIRouter()


@router.post("/api/tables/{table_id}/hint", dependencies=CALLER_CHARGED)
async def post_hint(request: Request, table_id: str, who: Actor) -> dict[str, Any]:
    hints: Hints = request.app.state.hints
    return await hints.ask(table_id, who)


def setup(app: FastAPI, core: TableCore, scheduler: Scheduler, computers: ComputerPlayers | None,
          queue: int) -> Hints:
    """The hints of the app (``app.state.hints``) and, with computer players, the search of
    hints asked at other processes.  ``queue``: the computer work waiting past which a hint
    is refused (``busy``)."""
    hints = Hints(core, computers, queue)
    if computers is not None:
        hints.search_in(scheduler)
    app.state.hints = hints
    return hints
