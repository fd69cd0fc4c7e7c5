"""Reviews of finished games on the server: asked for by anyone at the table, made once as
background work in the computer players' worker pool, stored, and served to everyone.

A request stores a ``review`` row of due work for the table (its key is the table, so at
most one review of a table is ever waiting or running); the scheduler of one process claims
it and :meth:`Reviews.run` searches the game's positions in the workers (each position is
one piece of work, waiting for a worker like a computer's turn; all reviews together take
one place in the workers' rotation, so they never hold up games), sends its progress to the
table's sockets, then stores the review and says so.  While ``Limits.review_queue`` reviews
wait or run site-wide, a new request is refused with ``busy``.

Everything about a review's content is :mod:`omega.ai.review`'s; this module only moves it.
"""

# No ``from __future__ import annotations``: FastAPI reads the routes' annotations.
import asyncio
import json
import logging
import zlib
from collections.abc import Awaitable, Callable, Sequence
from typing import Annotated, Any

from fastapi import Depends, FastAPI
from fastapi.responses import JSONResponse

from omega.game import Game
from omega.server.computers import ComputerPlayers
from omega.server.core import TableCore
from omega.server.errors import ApiError
from omega.server.identity import Identity
from omega.server.pubsub import Notice
from omega.server.scheduler import Scheduler
from omega.server.storage import Due
from omega.server.thinking import Searched, assemble_review, search

__all__ = ["Reviews", "ReviewBudget", "review_routes", "REVIEW", "REVIEW_OWNER", "IN_FLIGHT"]

log = logging.getLogger("omega.server")

#: The kind of due work of a review.
REVIEW = "review"
#: Reviews run at once by one server process (the others wait in the database).
RUNNING_PER_PROCESS = 1
#: Positions of one review searched at once (each in a worker of its own).
IN_FLIGHT = 2
#: The place every review takes in the workers' rotation (no client address looks like it).
REVIEW_OWNER = "(reviews)"

#: Simulations and seconds per position (None: ``omega.ai.review``'s defaults).
ReviewBudget = tuple[int, float]


def _default_budget() -> ReviewBudget:
    # Read from the review module only when a review runs: the server process does not
    # load the search (NumPy, Numba) otherwise.
    from omega.ai.review import DEFAULT_ITERATIONS, DEFAULT_SECONDS

    return DEFAULT_ITERATIONS, DEFAULT_SECONDS


class Reviews:
    """The reviews of one server process: requests, the background work and its progress."""

    def __init__(self, core: TableCore, computers: ComputerPlayers | None, queue: int,
                 budget: ReviewBudget | None = None) -> None:
        self.core = core
        self.computers = computers
        #: Reviews waiting or running site-wide past which a request is refused (``busy``).
        self.queue = queue
        self.budget = budget
        #: (positions searched, positions in all) of the reviews this process is making.
        self.progress: dict[str, tuple[int, int]] = {}

    def _tell(self, table_id: str, message: dict[str, Any]) -> None:
        text = json.dumps({"type": "review", **message}, separators=(",", ":"))
        self.core.hub.deliver_notice(table_id, Notice(lambda _who: text))

    async def status(self, table_id: str) -> dict[str, Any]:
        """Where the table's review stands: ``done`` (with the review), ``running`` (with
        progress, when this process makes it), ``queued`` or ``none``."""
        repo = self.core.repo
        stored = await self.core.db(repo.review, table_id)
        if stored is not None:
            return {"status": "done", "review": json.loads(stored)}
        if table_id in self.progress:
            done, total = self.progress[table_id]
            return {"status": "running", "done": done, "total": total}
        if await self.core.db(repo.due_version, REVIEW, table_id) is not None:
            return {"status": "queued"}
        return {"status": "none"}

    async def request(self, table_id: str) -> dict[str, Any]:
        """Ask for the table's review: the review if it is made, else it is queued (once)."""
        cached = await self.core.fresh(table_id)
        if not cached.state.over:
            raise ApiError("conflict", "the game is not over yet: a review is made once it has ended")
        if not cached.state.game.history:
            raise ApiError("conflict", "nothing to review: the game ended before its first turn")
        if self.computers is None:
            raise ApiError("unavailable", "this server has no computer players to review games")
        current = await self.status(table_id)
        if current["status"] != "none":
            return current
        repo = self.core.repo
        waiting = await self.core.db(repo.due_count, REVIEW)
        if waiting >= self.queue:
            raise ApiError("busy", f"the computer is busy reviewing {waiting} games; try again in a minute")
        await self.core.db(repo.keep_due, REVIEW, table_id, cached.state.version, self.core.clock.now())
        self.core.on_due()
        self._tell(table_id, {"status": "queued"})
        return {"status": "queued"}

    async def run(self, due: Due) -> None:
        """Make the review of ``due.table_id`` (scheduler handler): search every position in
        the workers, store the review, tell the table."""
        table_id = due.table_id
        core, computers = self.core, self.computers
        assert computers is not None
        if await core.db(core.repo.review, table_id) is not None:
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
        self.progress[table_id] = (0, total)
        self._tell(table_id, {"status": "running", "done": 0, "total": total})
        gate = asyncio.Semaphore(IN_FLIGHT)

        async def one(k: int) -> None:
            nonlocal done
            async with gate:
                found[k] = await computers.work(REVIEW_OWNER, search, positions[k], iterations, seconds, seed + k)
            done += 1
            self.progress[table_id] = (done, total)
            self._tell(table_id, {"status": "running", "done": done, "total": total})

        try:
            await asyncio.gather(*(one(k) for k in range(total)))
            searched = [f for f in found if f is not None]
            data = await computers.work(REVIEW_OWNER, assemble_review, game, searched, iterations, seconds)
        finally:
            self.progress.pop(table_id, None)
        await self._store(table_id, cached.state.version, data)
        return None

    async def _store(self, table_id: str, version: int, data: dict[str, Any]) -> None:
        text = json.dumps(data, separators=(",", ":"))
        await self.core.db(self.core.repo.store_review, table_id, version, text, self.core.clock.now())
        self._tell(table_id, {"status": "done"})
        log.info("review of table %s stored", table_id)


def review_routes(app: FastAPI, reviews: Reviews, reader: Callable[..., Awaitable[Identity]],
                  charged: Sequence[Any]) -> None:
    """Add the review's routes (docs/server-api.md) to ``app``, for anyone at the table:
    ``reader`` is the app's dependency that identifies them, ``charged`` its rate limit."""

    Reader = Annotated[Identity, Depends(reader)]

    @app.get("/api/tables/{table_id}/review", dependencies=list(charged))
    async def get_review(table_id: str, who: Reader) -> dict[str, Any]:
        return await reviews.status(table_id)

    @app.post("/api/tables/{table_id}/review", dependencies=list(charged))
    async def post_review(table_id: str, who: Reader) -> JSONResponse:
        answer = await reviews.request(table_id)
        return JSONResponse(answer, status_code=200 if answer["status"] == "done" else 202)


def install_reviews(app: FastAPI, core: TableCore, scheduler: Scheduler, computers: ComputerPlayers | None,
                    reader: Callable[..., Awaitable[Identity]], charged: Sequence[Any], queue: int,
                    budget: ReviewBudget | None = None) -> Reviews:
    """Wire reviews into the app: their routes, and their due work in the scheduler."""
    reviews = Reviews(core, computers, queue, budget)
    if computers is not None:
        scheduler.handle(REVIEW, reviews.run, capacity=RUNNING_PER_PROCESS)
    review_routes(app, reviews, reader, charged)
    app.state.reviews = reviews
    return reviews
