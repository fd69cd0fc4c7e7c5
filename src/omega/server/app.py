"""The FastAPI application: the wiring of the server's parts (``docs/server-api.md``).

:func:`create_app` builds the infrastructure (the database, the clock, the action path's
core, the scheduler of due work), then each feature, which keeps its service in
``app.state`` and registers its own due work and hooks, then includes each feature's
router.  Nothing is decided here: the routes are in the features' ``routes`` modules.

>>> app = create_app("sqlite://", bot_factory=None)
>>> app.url_path_for("get_table", table_id="t1"), app.url_path_for("post_hint", table_id="t1")
('/api/tables/t1', '/api/tables/t1/hint')
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from argon2 import PasswordHasher
from fastapi import FastAPI
from sqlalchemy import Connection

from omega.ai import bot_for_level
from omega.server import languages, site
from omega.server.accounts import routes as accounts
from omega.server.accounts.passwords import Passwords
from omega.server.accounts.recovery import Mailing
from omega.server.analysis import routes as analysis
from omega.server.challenges import routes as challenges
from omega.server.clock import Clock, SystemClock
from omega.server.config import Settings
from omega.server.infra.compress import CompressPage
from omega.server.infra.db import default_url, make_engine
from omega.server.infra.headers import SecurityHeaders
from omega.server.infra.limits import Limits
from omega.server.infra.metrics import DEFAULT_METRICS_FROM, RequestMetrics
from omega.server.infra.pubsub import PgListener
from omega.server.infra.scheduler import Scheduler
from omega.server.leaving import routes as leaving
from omega.server.leaving.service import close_account
from omega.server.lobby import routes as lobby
from omega.server.moderation import routes as moderation
from omega.server.notify import routes as notify
from omega.server.notify.mailer import MailSettings, mail_directory
from omega.server.notify.notices import Notice
from omega.server.notify.outbox import queue_mail
from omega.server.push import routes as push
from omega.server.push.channel import PushOptions
from omega.server.puzzles import routes as puzzles
from omega.server.ratings import routes as ratings
from omega.server.relations import routes as relations
from omega.server.social import hooks as social
from omega.server.tables import routes as tables
from omega.server.tables.core import TableCore
from omega.server.tables.identity import AccountAuthenticator
from omega.server.tables.presence import Presence
from omega.server.tables.store import Repository
from omega.server.tournaments import routes as tournaments
from omega.server.vacation import routes as vacation
from omega.server.watch import routes as watch
from omega.server.work import hints, reviews
from omega.server.work.computers import DEFAULT_DEADLINE, DEFAULT_WORKERS
from omega.server.work.reviews import ReviewBudget
from omega.server.work.thinking import BotForLevel
from omega.server.work.worker import computer_players, count_due_work

__all__ = ["create_app"]


def create_app(
    database_url: str | None = None, *, ai_workers: int = DEFAULT_WORKERS,
    bot_factory: BotForLevel | None = bot_for_level, limits: Limits | None = None, settings: Settings | None = None,
    computer_deadline: float = DEFAULT_DEADLINE, clock: Clock | None = None, sqlite_synchronous: str = "FULL",
    password_hasher: PasswordHasher | None = None,
    review_budget: ReviewBudget | None = None,
    metrics_from: str = DEFAULT_METRICS_FROM, mail: MailSettings | None = None,
    push_options: PushOptions | None = None,
) -> FastAPI:
    """The web app on ``database_url`` (default: ``OMEGA_DATABASE_URL`` or ``./data/``).

    ``bot_factory`` makes computer players (``bot_for_level`` in production; tests may pass a
    quicker one, or None to leave computer turns pending).  ``computer_deadline``: seconds a
    bot may think about a turn before its worker is killed and a quicker bot plays it.
    ``clock``: where the server's time comes from (tests pass a ``FakeClock``).
    ``sqlite_synchronous``: ``FULL`` (an acknowledged turn survives a power cut) or
    ``NORMAL`` (only a crash of the process; for measuring the difference).
    ``password_hasher``: argon2-cffi's hasher of account passwords (default: its defaults;
    tests may pass a cheaper one).
    ``review_budget``: simulations and seconds per position of a game's review (tests pass
    a small one; None: the review's own default).
    ``metrics_from``: the addresses or networks that may read ``GET /metrics``
    (comma-separated; docs/security.md).
    ``mail``: where mail goes and the site's address in its links (default: the environment,
    ``OMEGA_SMTP_URL`` and the rest; without one, ``.eml`` files beside the database).
    ``push_options``: how Web Push is sent (default: ``PushOptions.from_env()``).
    """
    limits = limits or Limits()
    clock = clock or SystemClock()
    # -- infrastructure: the database, the action path's core, due work ---------------------
    database_url = database_url or default_url()
    repo = Repository(make_engine(database_url, sqlite_synchronous))
    core = TableCore(repo, clock, AccountAuthenticator(), settings)
    presence = Presence(core)
    scheduler = Scheduler(core, presence)
    core.on_due = scheduler.wake
    computers = computer_players(core, scheduler, ai_workers, bot_factory, computer_deadline, clock.monotonic) \
        if bot_factory is not None else None
    passwords = Passwords(password_hasher)
    count_due_work(core)

    async def count_sockets() -> None:
        core.metrics.sockets.set(core.hub.socket_count())

    core.metrics.sample_with(count_sockets)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await core.db(repo.migrate)
        await the_push.keys()  # the site's VAPID key pair, made by the first process to start
        listener = None
        if repo.is_postgres:
            url = repo.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)

            def resync() -> None:
                core.hub.resync_all()
                the_lobby.feed.resync_all()
                the_tournaments.feed.resync_all()

            listener = PgListener(url, core.server_id, core.remote_event, resync, core.remote_presence,
                                  on_note, topics={**the_lobby.topics, **the_tournaments.topics,
                                                   **the_challenges.topics})
            listener.start()
            await listener.wait_ready(30)
        await scheduler.start()
        try:
            yield
        finally:
            if computers is not None:
                await computers.stop()
            await scheduler.stop()
            if listener is not None:
                await listener.stop()
            await the_lobby.stop()
            passwords.close()
            await core.publisher.flush()  # what the last commits stored, for the other processes
            core.close()

    app = FastAPI(title="Omega", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(CompressPage)
    # Outside the routing, which leaves the route it matched in the scope this one reads.
    app.add_middleware(RequestMetrics, metrics=core.metrics, clock=clock.monotonic,
                       move_routes=("/api/tables/{table_id}/actions",))
    app.state.limits = limits
    app.state.scheduler = scheduler
    app.state.computers = computers

    # -- the features ----------------------------------------------------------------------------
    site.setup(app, metrics_from)
    the_accounts = accounts.setup(app, core, passwords, limits, scheduler)
    the_social = social.setup(app, core, limits, clock)
    tables.setup(app, core, presence, limits, clock, accounts.CookieSessions(), the_social, scheduler)
    the_ratings = ratings.setup(app, core)
    the_reviews = reviews.setup(app, core, scheduler, computers, limits.review_queue, review_budget)
    the_hints = hints.setup(app, core, scheduler, computers, limits.computer_queue)
    the_lobby = lobby.setup(app, core, the_ratings, scheduler, limits)
    the_notify = notify.setup(app, core, scheduler, mail or MailSettings.from_env(directory=mail_directory(database_url)))
    accounts.setup_recovery(app, the_accounts, Mailing(queue_mail, the_notify.outbox.wake,
                                                       the_notify.outbox.settings.site_url), limits)
    the_push = push.setup(app, core, push_options)
    the_notify.notifier.add_channel(the_push)

    def tell(conn: Connection, notice: Notice) -> None:
        """A vacation's notice, queued in the transaction that started the vacation."""
        the_notify.notifier.queue(conn, notice, core.clock.now())

    vacation.setup(app, core, scheduler, tell)
    the_tournaments = tournaments.setup(app, core, scheduler, limits, tell)
    # Blocks keep two accounts apart in quick play and in a table's chat (asked through a
    # callable: neither the lobby nor chat knows the feature), and in challenges.
    the_relations = relations.setup(app, core, the_lobby.feed.users)
    the_lobby.quickplay.apart = the_relations.blocked_among
    the_social.chat.apart = the_relations.blocked_among
    the_challenges = challenges.setup(app, core, scheduler, the_relations, tell, the_lobby.feed.tell)
    the_moderation = moderation.setup(app, core, the_accounts, the_social, the_ratings, limits, tell)
    watch.setup(app, core, the_ratings)
    puzzles.setup(app, core)
    leaving.setup(app, core, scheduler, the_accounts, the_ratings)
    the_analysis = analysis.setup(app, core, scheduler, computers, limits.computer_queue)
    # A moderator's "close account" is the leaving feature's closing (moderation sits below it).
    the_moderation.closer = lambda conn, user_id, now, by: close_account(conn, user_id, now, by).remove_at
    the_moderation.wake = scheduler.wake

    def on_note(table_id: str, tag: str) -> None:
        """A note from another process: a review's progress, a hint's or an evaluation's answer,
        or chat and rematch."""
        if not (the_reviews.remote(table_id, tag) or the_hints.remote(table_id, tag)
                or the_analysis.evaluations.remote(table_id, tag)):
            the_social.remote(table_id, tag)

    for router in (site.router, tables.router, accounts.router, reviews.router, hints.router, lobby.router,
                   ratings.router, notify.router, push.router, vacation.router, tournaments.router,
                   relations.router, challenges.router, moderation.router, watch.router, leaving.router, analysis.router,
                   puzzles.router, languages.router):
        app.include_router(router)
    return app
