"""``omega worker``: a process that plays computer turns, makes game reviews and searches
hints, apart from the processes that serve people, on any machine that reaches the site's
PostgreSQL database.

A worker is a scheduler (``scheduler``) that handles the due work of the computer players
with its own pool of bot processes (``computers``): ``computer`` (a computer's turn),
``review`` (a finished game's review, ``reviews``) and ``hint`` (a hint asked at a server
without computer players, ``hints``).  It claims due rows (``FOR UPDATE SKIP LOCKED``, so
each goes to one process) and stores what it made through the same action path as everyone
(``core``).  The commit notifies every ``omega serve`` process (``pg_notify``), which pushes
a turn to its sockets; a review's progress and a hint's answer travel as notes the same way.
A worker has no sockets; it listens only for the note that new work was stored
(``pubsub.WORK_TAG``), so that it claims the work at once rather than at its next round.
It never handles a clock's timeout, the sweep of abandoned tables or of old sessions:
those stay with ``omega serve`` (docs/deploy.md lists which process does what).

A worker killed in the middle of a turn loses nothing: the turn's ``due`` row stays until a
turn is stored, and the worker's claim is held only while its heartbeat is fresh.  Once the
heartbeat is ``Settings.dead_after`` old a sweep forgets the worker, and another worker (or a
server with workers) claims the turn and plays it.  A review it was making is made again
from the start the same way.

Several workers and ``omega serve --no-workers`` processes share one database; SQLite has
one process, which plays its computer turns itself.

>>> import asyncio
>>> worker = Worker("sqlite://")
>>> asyncio.run(worker.start())
Traceback (most recent call last):
...
ValueError: a worker needs PostgreSQL (with SQLite, omega serve plays the computer's turns itself)
>>> worker.core.close()
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from sqlalchemy import Connection

from omega.ai import bot_for_level
from omega.server.clock import Clock, SystemClock
from omega.server.config import Settings
from omega.server.infra.db import make_engine
from omega.server.infra.limits import Limits
from omega.server.infra.pubsub import WORK_TAG, PgListener
from omega.server.infra.scheduler import Scheduler
from omega.server.infra.tasks import stop_task
from omega.server.notify.mailer import MailSettings, mail_directory
from omega.server.notify.notices import Notice
from omega.server.notify.parts import build as build_notify
from omega.server.push.channel import PushChannel, PushOptions
from omega.server.push.store import PushStore
from omega.server.ratings.service import install as install_ratings
from omega.server.tables.core import TableCore
from omega.server.tables.identity import TokenAuthenticator
from omega.server.tables.presence import Presence
from omega.server.tables.state import COMPUTER_TURN
from omega.server.tables.store import Repository
from omega.server.tournaments.routes import install as install_tournaments
from omega.server.vacation.service import install as install_vacation
from omega.server.work.computers import DEFAULT_DEADLINE, DEFAULT_WORKERS, ComputerPlayers
from omega.server.work.hints import Hints
from omega.server.work.reviews import ReviewBudget, Reviews
from omega.server.work.thinking import BotForLevel

__all__ = ["Worker", "computer_players", "count_due_work", "NEEDS_POSTGRES"]

log = logging.getLogger("omega.server")

#: Computer turns one process holds claimed at most (waiting or thinking).  Owners are capped
#: apart, so this only bounds many owners at once; a turn of an owner not yet served here
#: must find room, or it would wait behind the others' claims for a whole search.
CLAIMED_TURNS = 64
#: Why a worker (or a server without workers) cannot run on SQLite.
NEEDS_POSTGRES = "a worker needs PostgreSQL (with SQLite, omega serve plays the computer's turns itself)"


def computer_players(core: TableCore, scheduler: Scheduler, workers: int, bot_factory: BotForLevel,
                     deadline: float, clock: Callable[[], float]) -> ComputerPlayers:
    """This process's computer players, handling the scheduler's computer turns: each owner's
    turns claimed here at most as many as may think at once (``ComputerPlayers.per_owner``),
    so claimed turns wait here only behind other owners' and the rest of an owner's stay in
    the database for whichever process has room first."""
    computers = ComputerPlayers(core, workers, bot_factory, deadline=deadline, clock=clock, metrics=core.metrics)
    scheduler.handle(COMPUTER_TURN, computers.play, capacity=CLAIMED_TURNS, per_owner=computers.per_owner)
    return computers


def count_due_work(core: TableCore) -> None:
    """Before each scrape, count the site's computer turns due and how long the oldest
    unclaimed one has waited (two small queries of the ``due`` table)."""
    metrics = core.metrics

    async def sample() -> None:
        metrics.computer_due.set(await core.db(core.repo.due_count, COMPUTER_TURN))
        first = await core.db(core.repo.next_due_at, [COMPUTER_TURN])
        waited = 0.0 if first is None else (core.clock.now() - first).total_seconds()
        metrics.computer_oldest.set(max(0.0, waited))

    metrics.sample_with(sample)


class Worker:
    """The parts of a worker process on ``database_url``: the action path (for storing the
    turns), the scheduler, the computer players, and the reviews and hints they make.
    ``review_budget``: simulations and seconds per position of a review (None: the
    review's own default).  ``mail``: where its mail goes (default: the environment, as for
    ``omega serve``).  ``start``, then ``stop``."""

    def __init__(self, database_url: str, *, ai_workers: int = DEFAULT_WORKERS,
                 bot_factory: BotForLevel = bot_for_level, computer_deadline: float = DEFAULT_DEADLINE,
                 clock: Clock | None = None, settings: Settings | None = None,
                 review_budget: ReviewBudget | None = None, mail: MailSettings | None = None) -> None:
        clock = clock or SystemClock()
        self.repo = Repository(make_engine(database_url))
        self.core = TableCore(self.repo, clock, TokenAuthenticator(), settings)
        # A computer playing on for a resigned seat may make a rated game's last turn here.
        install_ratings(self.core)
        # A computer's move here may start a person's turn-based clock: its flag_near work
        # (automatic vacation, run by the servers) is kept due as a server would keep it.
        install_vacation(self.core, self._tell)
        # ...and end a tournament's game: its place is stored and the tournament's work made due.
        install_tournaments(self.core, self._tell)
        self.metrics = self.core.metrics
        self.scheduler = Scheduler(self.core, Presence(self.core))
        # A computer's move that leaves another computer to move makes new work: look at once.
        self.core.on_due = self.scheduler.wake
        self.computers = computer_players(self.core, self.scheduler, ai_workers, bot_factory, computer_deadline,
                                          clock.monotonic)
        # Only the making: requests are taken (and limited) by the servers.
        self.reviews = Reviews(self.core, self.computers, Limits().review_queue, review_budget)
        self.reviews.make_in(self.scheduler)
        self.hints = Hints(self.core, self.computers, Limits().computer_queue)
        self.hints.search_in(self.scheduler)
        # A computer's move may make a person's turn, and mail is sent by whichever process
        # claims it first: the worker queues and sends notices like a server.
        self.notify = build_notify(self.core, self.scheduler,
                                   mail or MailSettings.from_env(directory=mail_directory(database_url)))
        # And pushes them: a delivery goes to whichever process claims it first.
        self.notify.notifier.add_channel(PushChannel(self.core, PushStore(self.core.repo), PushOptions.from_env()))
        count_due_work(self.core)
        self._sampling: asyncio.Task[None] | None = None
        self._listener: PgListener | None = None

    def _tell(self, conn: Connection, notice: Notice) -> None:
        """An automatic vacation's notice, queued in the transaction that started it."""
        self.notify.notifier.queue(conn, notice, self.core.clock.now())

    @property
    def server_id(self) -> str:
        """This process's id in the ``servers`` table (and in the claims it holds)."""
        return self.core.server_id

    async def start(self) -> None:
        """Migrate the database if needed, register, and start claiming computer turns."""
        if not self.repo.is_postgres:
            raise ValueError(NEEDS_POSTGRES)
        await self.core.db(self.repo.migrate)
        url = self.repo.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
        # (Re)connected: work stored while nobody listened is found by looking now.
        self._listener = PgListener(url, self.server_id, on_event=_ignore_event, on_reconnect=self.scheduler.wake,
                                    on_presence=_ignore_presence, on_note=self._noted)
        self._listener.start()
        await self._listener.wait_ready(30)
        await self.scheduler.start()
        self._sampling = asyncio.get_running_loop().create_task(self._sample_forever())

    def _noted(self, table_id: str, tag: str) -> None:
        if tag == WORK_TAG:
            self.scheduler.wake()

    async def _sample_forever(self) -> None:
        # The metrics endpoint of a worker answers from its own thread: the figures it shows
        # are filled in here, on the event loop, at every heartbeat.
        while True:
            try:
                await self.metrics.refresh()
            except Exception:
                log.exception("could not sample the metrics")
            await asyncio.sleep(self.core.settings.sweep_interval)

    async def stop(self) -> None:
        """Stop the bots (a turn being thought about stays due for another process), leave
        the ``servers`` table and close the database."""
        await stop_task(self._sampling)
        await self.computers.stop()
        await self.scheduler.stop()
        if self._listener is not None:
            await self._listener.stop()
        await self.core.publisher.flush()
        self.core.close()


def _ignore_event(table_id: str, version: int) -> None:
    """A worker keeps no tables for sockets: other processes' events are read when needed."""


def _ignore_presence(table_id: str) -> None:
    """A worker has no sockets to tell who is at a table."""
