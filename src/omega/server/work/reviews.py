"""Reviews of finished games on the server: asked for by anyone at the table, made once as
background work in the computer players' worker pool, stored, and served to everyone.

A request stores a ``review`` row of due work for the table (its key is the table, so at
most one review of a table is ever waiting or running); the scheduler of one process with
computer players (``omega serve``, or ``omega worker`` beside servers started with
``--no-workers``) claims it and :meth:`Reviews.run` searches the game's positions in the
workers (each position is one piece of work, waiting for a worker like a computer's turn; all
reviews together take one place in the workers' rotation, so they never hold up games),
sends its progress to the table's sockets, then stores the review and says so.  While
``Limits.review_queue`` reviews wait or run site-wide, a new request is refused with ``busy``.

Progress reaches the sockets of every server process: the process making the review gives
it to its own sockets and notes it for the others (PostgreSQL NOTIFY ``'server:table:v…'``,
:func:`review_tag`), which rebuild the same message from the note alone.

>>> review_tag("running", 3, 7), parse_review_tag("v3.7")
('v3.7', ('running', 3, 7))
>>> review_tag("done"), parse_review_tag("vd"), parse_review_tag("c12")
('vd', ('done', 0, 0), None)

Everything about a review's content is :mod:`omega.ai.review`'s; this module only moves it.
"""

# No ``from __future__ import annotations``: FastAPI reads the routes' annotations.
import asyncio
import json
import logging
import zlib
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse
from sqlalchemy import DateTime, ForeignKey, Integer, Text, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Mapped, mapped_column

from omega.game import Game
from omega.i18n import translatable as _
from omega.server.errors import ApiError
from omega.server.infra.db import Base, Database
from omega.server.infra.due import Due
from omega.server.infra.pubsub import WORK_TAG, Notice
from omega.server.infra.scheduler import Scheduler
from omega.server.infra.state import from_app
from omega.server.tables.core import TableCore
from omega.server.tables.deps import CALLER_CHARGED, Reader
from omega.server.work.computers import ComputerPlayers
from omega.server.work.thinking import Searched, assemble_review, search

__all__ = ["Reviews", "ReviewBudget", "ReviewRow", "stored_review", "store_review", "router", "setup", "review_message",
           "review_tag", "parse_review_tag", "REVIEW", "REVIEW_OWNER", "REVIEW_TAG", "IN_FLIGHT"]

log = logging.getLogger("omega.server")

#: The kind of due work of a review.
REVIEW = "review"
#: The first letter of a review's note to other server processes (``review_tag``).
REVIEW_TAG = "v"
#: A review's status letters in its note (running is ``<done>.<total>``).
_STATUS_LETTERS = {"queued": "q", "done": "d"}
#: Reviews run at once by one server process (the others wait in the database).
RUNNING_PER_PROCESS = 1
#: Positions of one review searched at once (each in a worker of its own).
IN_FLIGHT = 2
#: The place every review takes in the workers' rotation (no client address looks like it).
REVIEW_OWNER = "(reviews)"

#: Simulations and seconds per position (None: ``omega.ai.review``'s defaults).
ReviewBudget = tuple[int, float]


class ReviewRow(Base):
    """The review of a finished game (``omega.ai.review``'s JSON form), made once."""

    __tablename__ = "reviews"
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    #: The table version the review was made at.
    version: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    data: Mapped[str] = mapped_column(Text)


def stored_review(db: Database, table_id: str) -> str | None:
    """The stored review of the table's game (JSON text), if it has one."""
    with db.engine.connect() as conn, conn.begin():
        return conn.execute(select(ReviewRow.data).where(ReviewRow.table_id == table_id)).scalar_one_or_none()


def store_review(db: Database, table_id: str, version: int, data: str, now: datetime) -> None:
    """Store the review of the table's game; a review already there stays (one per game)."""
    dialect_insert = postgresql_insert if db.is_postgres else sqlite_insert
    with db.writing() as conn:
        conn.execute(dialect_insert(ReviewRow).values(table_id=table_id, version=version, data=data, created_at=now)
                     .on_conflict_do_nothing(index_elements=["table_id"]))


def review_message(status: str, done: int = 0, total: int = 0) -> str:
    """The socket message of where a table's review stands (docs/server-api.md).

    >>> review_message("running", 2, 7)
    '{"type":"review","status":"running","done":2,"total":7}'
    >>> review_message("done")
    '{"type":"review","status":"done"}'
    """
    message: dict[str, Any] = {"type": "review", "status": status}
    if status == "running":
        message |= {"done": done, "total": total}
    return json.dumps(message, separators=(",", ":"))


def review_tag(status: str, done: int = 0, total: int = 0) -> str:
    """The note for other processes of a review's ``status`` (a few bytes: every server
    process hears every note)."""
    return REVIEW_TAG + (f"{done}.{total}" if status == "running" else _STATUS_LETTERS[status])


def parse_review_tag(tag: str) -> tuple[str, int, int] | None:
    """``(status, done, total)`` of a review's note; None if ``tag`` is not one."""
    if not tag.startswith(REVIEW_TAG):
        return None
    rest = tag[len(REVIEW_TAG):]
    for status, letter in _STATUS_LETTERS.items():
        if rest == letter:
            return status, 0, 0
    done, dot, total = rest.partition(".")
    if dot and all(p.isascii() and p.isdigit() and len(p) < 7 for p in (done, total)):
        return "running", int(done), int(total)
    return None


def _default_budget() -> ReviewBudget:
    # Read from the review module only when a review runs: the server process does not
    # load the search (NumPy, Numba) otherwise.
    from omega.ai.review import DEFAULT_ITERATIONS, DEFAULT_SECONDS

    return DEFAULT_ITERATIONS, DEFAULT_SECONDS


class Reviews:
    """The reviews of one server process: requests, the background work and its progress.

    ``computers`` is None in a process without computer players: it still takes requests
    (the review is made by a process that has them) on PostgreSQL, and refuses them
    (``unavailable``) on SQLite, where no other process could make it."""

    def __init__(self, core: TableCore, computers: ComputerPlayers | None, queue: int,
                 budget: ReviewBudget | None = None) -> None:
        self.core = core
        self.computers = computers
        #: Reviews waiting or running site-wide past which a request is refused (``busy``).
        self.queue = queue
        self.budget = budget
        #: (positions searched, positions in all) of the reviews running: the ones this
        #: process makes, and the ones other processes noted.
        self.progress: dict[str, tuple[int, int]] = {}
        self._making: set[str] = set()
        # Notes leave in the order they were told (asyncio's locks are first come, first
        # served), so other processes see the progress count up as this one does.
        self._noting = asyncio.Lock()

    def make_in(self, scheduler: Scheduler) -> None:
        """Make reviews in this process (it has computer players): handle ``review`` work."""
        scheduler.handle(REVIEW, self.run, capacity=RUNNING_PER_PROCESS)

    async def _tell(self, table_id: str, status: str, done: int = 0, total: int = 0) -> None:
        text = review_message(status, done, total)
        self.core.hub.deliver_notice(table_id, Notice(lambda _who: text))
        async with self._noting:
            await self.core.note(table_id, review_tag(status, done, total))

    def remote(self, table_id: str, tag: str) -> bool:
        """A note from another process (PostgreSQL NOTIFY): if it is about a review, give it
        to this process's sockets of the table and say True."""
        parsed = parse_review_tag(tag)
        if parsed is None:
            return False
        status, done, total = parsed
        if table_id not in self._making:
            if status == "running":
                self.progress[table_id] = (done, total)
            else:
                self.progress.pop(table_id, None)
        text = review_message(status, done, total)
        self.core.hub.deliver_notice(table_id, Notice(lambda _who: text))
        return True

    async def status(self, table_id: str) -> dict[str, Any]:
        """Where the table's review stands: ``done`` (with the review), ``running`` (with
        progress, when this process makes it or heard from the one that does), ``queued``
        or ``none``."""
        repo = self.core.repo
        stored = await self.core.db(stored_review, repo, table_id)
        if stored is not None:
            self.progress.pop(table_id, None)
            return {"status": "done", "review": json.loads(stored)}
        due = await self.core.db(repo.due_version, REVIEW, table_id)
        if table_id in self.progress and (due is not None or table_id in self._making):
            done, total = self.progress[table_id]
            return {"status": "running", "done": done, "total": total}
        self.progress.pop(table_id, None)  # heard of, but no longer due (its maker gave up)
        if due is not None:
            return {"status": "queued"}
        return {"status": "none"}

    async def request(self, table_id: str) -> dict[str, Any]:
        """Ask for the table's review: the review if it is made, else it is queued (once)."""
        cached = await self.core.fresh(table_id)
        if not cached.state.over:
            raise ApiError("conflict", _("the game is not over yet: a review is made once it has ended"))
        if not cached.state.game.history:
            raise ApiError("conflict", _("nothing to review: the game ended before its first turn"))
        if self.computers is None and not self.core.repo.is_postgres:
            raise ApiError("unavailable", _("this server has no computer players to review games"))
        current = await self.status(table_id)
        if current["status"] != "none":
            return current
        repo = self.core.repo
        waiting = await self.core.db(repo.due_count, REVIEW)
        if waiting >= self.queue:
            raise ApiError("busy", _("the computer is busy reviewing {waiting} games; try again in a minute", waiting=waiting))
        await self.core.db(repo.keep_due, REVIEW, table_id, cached.state.version, self.core.clock.now())
        # "queued" is told before any maker hears of the work: a worker that heard first
        # could tell "running" before it, and a page would end on "queued" (NOTIFYs reach
        # every listener in the order they were sent).
        await self._tell(table_id, "queued")
        self.core.on_due()
        await self.core.note(table_id, WORK_TAG)  # a worker elsewhere may be the one to make it
        return {"status": "queued"}

    async def run(self, due: Due) -> None:
        """Make the review of ``due.table_id`` (scheduler handler): search every position in
        the workers, store the review, tell the table."""
        table_id = due.table_id
        core, computers = self.core, self.computers
        assert computers is not None
        if await core.db(stored_review, core.repo, table_id) is not None:
            return None
        cached = await core.fresh(table_id)
        game = cached.state.game.copy()
        iterations, seconds = self.budget or _default_budget()
        positions = [Game(players=game.players, size=game.size, pie_rule=game.pie_rule)]
        for action in game.history:
            positions.append(positions[-1].copy())
            positions[-1].apply(action)
        total = len(positions)
        seed = zlib.crc32(f"review:{table_id}".encode())
        found: list[Searched | None] = [None] * total
        done = 0
        self._making.add(table_id)
        self.progress[table_id] = (0, total)
        gate = asyncio.Semaphore(IN_FLIGHT)

        async def one(k: int) -> None:
            nonlocal done
            async with gate:
                found[k] = await computers.work(REVIEW_OWNER, search, positions[k], iterations, seconds, seed + k)
            done += 1
            self.progress[table_id] = (done, total)
            await self._tell(table_id, "running", done, total)

        try:
            await self._tell(table_id, "running", 0, total)
            await asyncio.gather(*(one(k) for k in range(total)))
            searched = [f for f in found if f is not None]
            data = await computers.work(REVIEW_OWNER, assemble_review, game, searched, iterations, seconds)
        finally:
            self._making.discard(table_id)
            self.progress.pop(table_id, None)
        await self._store(table_id, cached.state.version, data)
        return None

    async def _store(self, table_id: str, version: int, data: dict[str, Any]) -> None:
        text = json.dumps(data, separators=(",", ":"))
        await self.core.db(store_review, self.core.repo, table_id, version, text, self.core.clock.now())
        await self._tell(table_id, "done")
        log.info("review of table %s stored", table_id)


#: The review's routes (docs/server-api.md), for anyone at the table.
router = APIRouter()


Service = Annotated[Reviews, from_app("reviews")]


@router.get("/api/tables/{table_id}/review", dependencies=CALLER_CHARGED)
async def get_review(table_id: str, who: Reader, reviews: Service) -> dict[str, Any]:
    return await reviews.status(table_id)


@router.post("/api/tables/{table_id}/review", dependencies=CALLER_CHARGED)
async def post_review(request: Request, table_id: str, who: Reader, reviews: Service) -> JSONResponse:
    answer = await reviews.request(table_id)
    return JSONResponse(answer, status_code=200 if answer["status"] == "done" else 202)


def setup(app: FastAPI, core: TableCore, scheduler: Scheduler, computers: ComputerPlayers | None, queue: int,
          budget: ReviewBudget | None = None) -> Reviews:
    """The reviews of the app (``app.state.reviews``), made as due work by this process when
    it has computer players."""
    reviews = Reviews(core, computers, queue, budget)
    if computers is not None:
        reviews.make_in(scheduler)
    app.state.reviews = reviews
    return reviews
