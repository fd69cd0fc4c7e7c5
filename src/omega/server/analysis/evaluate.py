"""The analysis board's evaluations: each colour's win chance, the scores and the best turn
of a position, searched at a computer level's strength in the computer players' workers.

- **Charged to whoever asks**: the search waits for a worker in the caller's place in the
  workers' rotation (``infra.limits.owner_key``: the account, else the address), the place
  that owner's tables' computer turns take too.  So the fair-play rule of the computer
  players holds (``work.computers.FairSlots``): an owner never holds more than half the
  workers, the owner that used least worker time goes first, and one worker stays free for
  quick turns.  However many boards an owner opens, real games wait at most one search.
- **A stream per board**: a page names the stream its requests belong to (its board); a new
  request in the stream cancels the one before it while that one still waits for a worker
  (a search a worker has taken finishes, into the cache, as cancelling it would cost a new
  worker process).  An owner has at most :data:`PER_OWNER` evaluations waiting or searching.
- **Cached per position**: the key is the position itself (:func:`position_key`: the setting,
  the stones, who is to move and whether a swap is possible), so two ways to the same
  position share one search; the search is seeded by the key, so an answer found again is
  the same answer.
- **Servers without computer players** (``omega serve --no-workers``, PostgreSQL only) store
  the position and an ``evaluate`` row of due work in the caller's name (so the workers
  claim owners in turn, at most their share of one owner's: ``infra.due.claim_due``), and
  wait for the process that searched it to note the answer (``'server:<digest>:e'``).  The
  stored answers are every process's cache; a newer position of the same board drops the
  older's row while no process has claimed it.

>>> from omega import Game
>>> g = Game(size=2); g.play(["a1", "b2"])
>>> position_key(g)
'2.2.-.B.-.W...B...'
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import zlib
from collections import OrderedDict
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from omega.ai.levels import level
from omega.game import SWAP, Game
from omega.i18n import translatable as _
from omega.server.analysis.store import (
    Asked,
    answer_of_digest,
    ask_elsewhere,
    asked,
    drop_unclaimed,
    owner_waiting,
    purge_asked,
    store_answer,
)
from omega.server.errors import ApiError
from omega.server.infra.due import Due
from omega.server.infra.groups import Waiters
from omega.server.infra.pubsub import WORK_TAG
from omega.server.infra.scheduler import Scheduler
from omega.server.tables.core import TableCore
from omega.server.work.computers import ComputerPlayers
from omega.server.work.thinking import Searched, search

__all__ = ["Evaluations", "Budget", "position_key", "answer_of", "EVAL_LEVEL", "PER_OWNER", "CACHE_SIZE", "DEADLINE",
           "EVALUATE", "EVAL_TAG", "WAIT", "KEEP"]

#: The kind of due work of a position asked at a server without computer players.
EVALUATE = "evaluate"
#: The note of a found answer to other processes (``'server:<digest>:e'``).
EVAL_TAG = "e"
#: Seconds a server without computer players waits for another process's answer.
WAIT = 10.0
#: How long the positions asked of other processes (and their answers) are kept.
KEEP = timedelta(days=1)

#: The computer level whose search budget an evaluation has (simulations, and a time cap).
EVAL_LEVEL = 15
#: Evaluations of one owner waiting for a worker or searching at once (past it: ``busy``).
PER_OWNER = 2
#: Positions whose evaluation a process keeps (the least recently asked go first).
CACHE_SIZE = 4096
#: Seconds an evaluation may take in its worker (twice the cap of ``EVAL_LEVEL`` and a start).
DEADLINE = 10.0

#: Simulations and seconds of one evaluation's search.
Budget = tuple[int, float]


def position_key(game: Game) -> str:
    """The canonical key of ``game``'s position: players, side, pie rule, the colour to move
    (``-`` once over), whether a swap is possible, then every cell's stone (``.`` empty) in
    board order.  Entries in another order that place the same stones meet here."""
    to_move = game.to_move
    stones = "".join("." if (c := game.stone(cell)) is None else c.letter for cell in game.cells)
    return (f"{game.players}.{game.size}.{'p' if game.pie_rule else '-'}.{'-' if to_move is None else to_move.letter}."
            f"{'s' if game.can_swap else '-'}.{stones}")


def answer_of(game: Game, found: Searched | None) -> dict[str, Any]:
    """The evaluation's answer (docs/server-api.md, Analysis boards): each colour's win
    chance (``values``), its score (a decimal string), the best action found (``best``: cells
    in colour order, ``"swap"``, or null once over), the simulations and seconds searched.
    ``found`` None: a finished position, which needs no search (its winner has 1).

    >>> g = Game(size=2); g.play(["a1", "b2"]); g.play(["c3", "a2"])
    >>> answer_of(g, None)["values"]
    {'White': 0.0, 'Black': 1.0}
    """
    if found is None:
        values: tuple[float, ...] = tuple(1.0 if c == game.winner else 0.0 for c in game.colors)
        best, iterations, seconds = None, 0, 0.0
    else:
        values, best, iterations, seconds = found
    scores = game.scores()
    return {
        "to_move": None if game.to_move is None else game.to_move.label, "over": game.is_over,
        "values": {c.label: round(values[c], 3) for c in game.colors},
        "scores": {c.label: str(scores[c]) for c in game.colors},
        "best": None if best is None else SWAP if best == SWAP else list(best),
        "iterations": iterations, "seconds": round(seconds, 3),
    }


@dataclass(eq=False)
class _Job:
    owner: str
    task: asyncio.Task[dict[str, Any]] | None = None
    #: A worker took it: cancelling it now would end that worker.
    started: bool = False


class Evaluations:
    """The evaluations of one server process: its cache, its streams, and the searches it
    has the computer players' workers make (None: this process has none, ``unavailable``)."""

    def __init__(self, core: TableCore, computers: ComputerPlayers | None, queue: int,
                 budget: Budget | None = None) -> None:
        self.core = core
        self.computers = computers
        #: Seconds to wait for another process's answer.
        self.wait = WAIT
        #: Whether a position this process cannot search is asked of another (PostgreSQL:
        #: every process listens for the others' notes).
        self.elsewhere = computers is None and core.repo.is_postgres
        self._elsewhere: Waiters[str, None] = Waiters()
        self._remote_streams: dict[tuple[str, str], tuple[str, asyncio.Future[None]]] = {}
        #: Computer work waiting here past which an evaluation is refused (``busy``).
        self.queue = queue
        strength = level(EVAL_LEVEL)
        self.budget: Budget = budget or (strength.iterations, strength.seconds)
        self._cache: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._streams: dict[tuple[str, str], _Job] = {}
        #: Searches made, answers given from the cache, and requests replaced by newer ones.
        self.searched = 0
        self.cached = 0
        self.superseded = 0

    def waiting(self, owner: str) -> int:
        """``owner``'s evaluations waiting for a worker or searching."""
        return sum(1 for (o, _), job in self._streams.items() if o == owner)

    async def evaluate(self, owner: str, stream: str, game: Game) -> dict[str, Any]:
        """The evaluation of ``game``'s position for ``owner`` (the answer of
        ``POST /api/analysis/evaluate``): from the cache, or searched in ``owner``'s place.
        ``superseded`` if a newer request of the same stream replaced it while it waited."""
        key = position_key(game)
        found = self._cache.get(key)
        if found is not None:
            self._cache.move_to_end(key)
            self.cached += 1
            return {**found, "key": key, "cached": True}
        if game.is_over:
            return {**answer_of(game, None), "key": key, "cached": False}
        if self.elsewhere:
            return {**await self._ask_elsewhere(owner, stream, key, game), "key": key}
        if self.computers is None:
            raise ApiError("unavailable", _("this server has no computer players to evaluate positions"))
        older = self._streams.get((owner, stream))
        if older is not None and not older.started and older.task is not None:
            older.task.cancel()  # waiting for a worker still: it has cost nothing
            self.superseded += 1
            self._streams.pop((owner, stream), None)
        if self.waiting(owner) >= PER_OWNER:
            raise ApiError("busy", _("you have {count} positions being evaluated already; wait for them", count=PER_OWNER))
        if self.computers.status()["waiting"] >= self.queue:
            raise ApiError("busy", _("the computer players are busy; try again in a minute"))
        job = _Job(owner)
        job.task = asyncio.create_task(self._search(job, key, game.copy()))
        self._streams[(owner, stream)] = job
        job.task.add_done_callback(lambda _: self._forget(owner, stream, job))
        # Waited for, not awaited: a request that goes away leaves the search to finish
        # (into the cache), and a cancelled search is this request's answer, not its end.
        await asyncio.wait({job.task})
        if job.task.cancelled():
            raise ApiError("superseded", _("a newer position of this board is being evaluated instead"))
        return {**job.task.result(), "key": key, "cached": False}

    def _forget(self, owner: str, stream: str, job: _Job) -> None:
        if self._streams.get((owner, stream)) is job:
            del self._streams[(owner, stream)]

    async def _search(self, job: _Job, key: str, game: Game) -> dict[str, Any]:
        assert self.computers is not None
        iterations, seconds = self.budget

        def started() -> None:
            job.started = True

        try:
            found = await self.computers.work(job.owner, search, game, iterations, seconds, zlib.crc32(key.encode()),
                                              deadline=DEADLINE, on_start=started)
        except TimeoutError:
            raise ApiError("busy", _("the computer took too long to evaluate this position; try again")) from None
        self.searched += 1
        answer = answer_of(game, found)
        self._remember(key, answer)
        return answer

    def _remember(self, key: str, answer: dict[str, Any]) -> None:
        self._cache[key] = answer
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)

    # -- a server without computer players, and the processes that have them -------------------

    async def _ask_elsewhere(self, owner: str, stream: str, key: str, game: Game) -> dict[str, Any]:
        """Have a process with computer players evaluate ``game`` (due work in ``owner``'s
        name) and wait for its note; the answer."""
        core, digest = self.core, _digest(key)
        older = self._remote_streams.pop((owner, stream), None)
        if older is not None and not older[1].done():
            older[1].cancel()
            self.superseded += 1
            await core.db(drop_unclaimed, core.repo, EVALUATE, older[0])
        if await core.db(owner_waiting, core.repo, EVALUATE, owner) >= PER_OWNER:
            raise ApiError("busy", _("you have {count} positions being evaluated already; wait for them", count=PER_OWNER))
        if await core.db(core.repo.due_count, EVALUATE) >= self.queue:
            raise ApiError("busy", _("the computer players are busy; try again in a minute"))
        # Listening before the row exists: the note cannot come before anyone waits for it.
        noted = self._elsewhere.expect(digest)
        self._remote_streams[(owner, stream)] = (digest, noted)
        try:
            position = Asked(game.players, game.size, game.pie_rule, json.dumps(list(game.history)), owner, None)
            found = await core.db(ask_elsewhere, core.repo, EVALUATE, digest, position, core.clock.now())
            if found is None:
                await core.note(digest, WORK_TAG)
                await asyncio.wait({noted}, timeout=self.wait)
                if noted.cancelled():
                    raise ApiError("superseded", _("a newer position of this board is being evaluated instead"))
                found = await core.db(answer_of_digest, core.repo, digest)
        finally:
            self._elsewhere.leave(digest, noted)
            if self._remote_streams.get((owner, stream), (None, None))[1] is noted:
                del self._remote_streams[(owner, stream)]
        if found is None:
            raise ApiError("busy", _("the computer took too long to evaluate this position; try again"))
        answer: dict[str, Any] = json.loads(found)
        self._remember(key, answer)
        return {**answer, "cached": False}

    def search_in(self, scheduler: Scheduler) -> None:
        """Evaluate the positions asked at other processes (this one has computer players):
        each owner's claimed here at most as many as may search at once."""
        assert self.computers is not None
        scheduler.handle(EVALUATE, self.run, capacity=2 * self.computers.workers, per_owner=self.computers.per_owner)

    async def run(self, due: Due) -> None:
        """Evaluate the position asked as ``due.table_id`` (scheduler handler), keep its
        answer and note it for the process that waits."""
        core = self.core
        position = await core.db(asked, core.repo, due.table_id)
        if position is None:
            return None  # purged meanwhile: nobody waits for it
        if position.answer is None:
            game = Game.from_history(json.loads(position.actions), position.players, position.size, position.pie_rule)
            try:
                answer = await self._search(_Job(position.owner), position_key(game), game)
            except ApiError:
                answer = None  # the waiting request answers busy
            if answer is not None:
                await core.db(store_answer, core.repo, due.table_id, json.dumps(answer))
        # The work's row goes before the note (the scheduler's own removal then finds nothing):
        # the owner's next position, asked as soon as this answer arrives, must not count it
        # among the owner's evaluations still waiting.
        await core.db(core.repo.finish_due, due, core.server_id)
        await core.note(due.table_id, EVAL_TAG)
        return None

    def remote(self, table_id: str, tag: str) -> bool:
        """A note from another process: if it is an evaluation's answer, wake the requests
        waiting for it here and say True."""
        if tag != EVAL_TAG:
            return False
        self._elsewhere.answer(table_id, None)
        return True

    async def purge(self) -> None:
        """Forget the positions asked of other processes more than :data:`KEEP` ago."""
        await self.core.db(purge_asked, self.core.repo, self.core.clock.now() - KEEP)


def _digest(key: str) -> str:
    """The position's key as the due work's key (32 characters).

    >>> len(_digest("2.5.-.W.-." + "." * 61))
    32
    """
    return hashlib.sha256(key.encode()).hexdigest()[:32]
