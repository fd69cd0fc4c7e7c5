"""``omega serve`` (the web app under uvicorn) and ``omega worker`` (computer turns apart).

>>> import argparse
>>> _database(argparse.Namespace(db="sqlite:///x.db"))
'sqlite:///x.db'
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import signal
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, TypeVar

from omega.server.infra.db import default_url
from omega.server.infra.logs import install_redaction
from omega.server.notify.mailer import MailSettings, mail_directory, mailer_for

if TYPE_CHECKING:
    from omega.server.infra.limits import Limits

__all__ = ["SHUTDOWN_GRACE", "serve_main", "worker_main", "uvicorn_options", "settle_memory"]

#: Seconds a stopping server waits for its requests and sockets to finish before it cancels
#: them; well inside the units' ``TimeoutStopSec`` (30 s, docs/deploy.md), so that a stop
#: always reaches the shutdown that withdraws the process's presence and its claims.
SHUTDOWN_GRACE = 5.0


def uvicorn_options(forwarded_allow_ips: str | None = None, grace: float = SHUTDOWN_GRACE,
                    limits: Limits | None = None) -> dict[str, object]:
    """Settings of the transport: the WebSocket frame limit, no per-message compression (on
    these small JSON messages zlib cost more CPU than anything else the server does), a
    protocol that can close a socket whose client stopped reading and logs a bad frame in
    one line (``transport``), an HTTP protocol that closes slow senders and bounds the
    connections waiting for headers (``transport.bounded_http``, with ``limits``), no
    ``Server`` banner, which proxies may say whom they forward, and how long a stop waits
    for the requests in progress (``grace`` seconds; uvicorn alone would wait for ever).

    uvicorn trusts ``X-Forwarded-For`` from 127.0.0.1 unless told otherwise; here nobody is
    trusted unless ``forwarded_allow_ips`` names the proxies: otherwise anyone on the same
    machine could claim any address and dodge the per-address limits.

    >>> uvicorn_options()["ws_per_message_deflate"], uvicorn_options()["proxy_headers"]
    (False, False)
    >>> uvicorn_options("10.0.0.2")["forwarded_allow_ips"]
    '10.0.0.2'
    >>> uvicorn_options()["timeout_graceful_shutdown"] == SHUTDOWN_GRACE
    True
    >>> from omega.server.infra.limits import Limits
    >>> uvicorn_options(limits=Limits(header_timeout=2.0))["http"].header_timeout
    2.0
    """
    from omega.server.infra.limits import Limits

    limits = limits or Limits()
    options: dict[str, object] = {
        "ws_max_size": limits.ws_max_frame, "ws_per_message_deflate": False, "server_header": False,
        "proxy_headers": bool(forwarded_allow_ips), "forwarded_allow_ips": forwarded_allow_ips or "",
        "timeout_graceful_shutdown": grace, "timeout_keep_alive": limits.keep_alive_timeout,
    }
    try:
        from omega.server.infra.transport import SlowReaderProtocol, bounded_http
    except ImportError:  # a uvicorn without the sans-I/O protocol or httptools: its defaults
        return options
    options["ws"] = SlowReaderProtocol
    options["http"] = bounded_http(limits)
    return options


def settle_memory() -> None:
    """Before serving: collect once, then move every object made so far (modules, the app and
    its routes, the database engine) out of the cycle collector's sight.  They live as long
    as the process, and a full collection walks every object it sees, with the event loop
    stopped: its pause was the longest stall a move met under load (docs/measured/2026-12-01-server-profiles.md).
    Objects made later (tables, sockets) are collected as before.

    >>> settle_memory(); frozen = gc.get_freeze_count(); gc.unfreeze(); frozen > 0
    True
    """
    gc.collect()
    gc.freeze()


def _database(args: argparse.Namespace) -> str:
    return str(args.db) if args.db else default_url()


def _log_setup() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # Alembic narrates each plugin it loads at INFO: keep its warnings only.
    logging.getLogger("alembic").setLevel(logging.WARNING)
    install_redaction()


def _transport_limits(args: argparse.Namespace) -> Limits:
    """The limits with ``--header-timeout`` when given (tests use a short one)."""
    from omega.server.infra.limits import Limits

    timeout = getattr(args, "header_timeout", None)
    return Limits() if timeout is None else replace(Limits(), header_timeout=float(timeout))


def _is_sqlite(url: str) -> bool:
    return url.split(":", 1)[0].split("+", 1)[0] == "sqlite"


def _shown(url: str) -> str:
    """A database URL as a message may show it: its password hidden, and only its scheme
    where it cannot be read (what follows may be a password).

    >>> _shown("postgresql://ann:secret@db/omega"), _shown("postgresql://ann:secret@db:port/omega")
    ("'postgresql://ann:***@db/omega'", "a 'postgresql' URL")
    """
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return repr(make_url(url).render_as_string(hide_password=True))
    except (ArgumentError, ValueError):
        return f"a {url.split(':', 1)[0][:20]!r} URL"


def _mail_settings(args: argparse.Namespace, url: str, command: str) -> MailSettings | None:
    """Where the process sends mail (``--smtp`` or the environment); None after saying why
    a URL is bad (the message never repeats the URL: it may hold a password)."""
    directory = _built(command, url, lambda: mail_directory(url))  # the database URL, read first
    if directory is None:
        return None
    settings = MailSettings.from_env(smtp_url=getattr(args, "smtp", None), directory=directory)
    try:
        mailer_for(settings)
    except ValueError as e:
        print(f"omega {command}: --smtp / OMEGA_SMTP_URL: {e}", file=sys.stderr)
        return None
    return settings


T = TypeVar("T")


def _built(command: str, url: str, build: Callable[[], T]) -> T | None:
    """What ``build`` makes on the database ``url``; None after one line on standard error
    when the URL is bad or its driver is missing."""
    from sqlalchemy.exc import ArgumentError

    try:
        return build()
    except (ArgumentError, ValueError) as e:
        print(f"omega {command}: bad database URL {_shown(url)}: {e}", file=sys.stderr)
    except ModuleNotFoundError as e:
        print(f"omega {command}: missing driver for {_shown(url)}: {e}", file=sys.stderr)
    return None


def serve_main(args: argparse.Namespace) -> int:
    """Serve until interrupted; exit status 2 for a bad database URL or bad options."""
    import uvicorn

    from omega.ai import bot_for_level
    from omega.server.app import create_app
    from omega.server.infra.metrics import DEFAULT_METRICS_FROM, MetricsAccess
    from omega.server.work.worker import NEEDS_POSTGRES
    _log_setup()
    url = _database(args)
    no_workers = bool(getattr(args, "no_workers", False))
    metrics_from = getattr(args, "metrics_from", None)
    metrics_from = DEFAULT_METRICS_FROM if metrics_from is None else metrics_from
    if no_workers and _is_sqlite(url):
        print(f"omega serve: --no-workers: {NEEDS_POSTGRES}", file=sys.stderr)
        return 2
    try:
        MetricsAccess(metrics_from)
    except ValueError as e:
        print(f"omega serve: --metrics-from: {e}", file=sys.stderr)
        return 2
    mail = _mail_settings(args, url, "serve")
    if mail is None:
        return 2
    # --no-workers: no computer players here, the site's `omega worker` processes play.
    app = _built("serve", url, lambda: create_app(url, ai_workers=args.ai_workers,
                                                  bot_factory=None if no_workers else bot_for_level,
                                                  metrics_from=metrics_from, mail=mail))
    if app is None:
        return 2
    # Log the database without its password.
    log = logging.getLogger("omega.server")
    log.info("database %s", app.state.core.repo.engine.url)
    log.info("server %s%s", app.state.core.server_id,
             ": no computer players here (omega worker plays them)" if no_workers else "")
    # Config, then the redaction, then run: Config sets up uvicorn's loggers (replacing their
    # handlers), and every record must pass the filter that hides ?token= values.
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level="info",
                            access_log=bool(getattr(args, "access_log", False)), lifespan="on",
                            **uvicorn_options(getattr(args, "forwarded_allow_ips", None),  # type: ignore[arg-type]
                                              limits=_transport_limits(args)))
    install_redaction()
    server = uvicorn.Server(config)
    settle_memory()
    server.run()
    return 0 if server.started else 3


def worker_main(args: argparse.Namespace) -> int:
    """Play computer turns until SIGTERM or SIGINT; exit status 2 for a bad database URL
    (or SQLite), 3 if the database cannot be reached at start."""
    from omega.server.analysis.routes import install_worker as install_analysis
    from omega.server.infra.limits import Limits
    from omega.server.work.worker import NEEDS_POSTGRES, Worker
    _log_setup()
    url = _database(args)
    log = logging.getLogger("omega.server")
    if _is_sqlite(url):
        print(f"omega worker: {NEEDS_POSTGRES}", file=sys.stderr)
        return 2
    mail = _mail_settings(args, url, "worker")
    if mail is None:
        return 2

    def build() -> Worker:
        made = Worker(url, ai_workers=args.ai_workers, mail=mail)
        # The analysis boards' positions asked at servers without computer players.
        install_analysis(made.core, made.scheduler, made.computers, Limits().computer_queue)
        return made

    worker = _built("worker", url, build)
    if worker is None:
        return 2

    async def run() -> int:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        try:
            await worker.start()
        except Exception:
            log.exception("the worker could not start")
            worker.core.close()
            return 3
        if args.metrics_port is not None:
            from prometheus_client import start_http_server

            # Its own thread; the figures are filled in on the event loop (Worker._sample_forever).
            metrics, _thread = start_http_server(args.metrics_port, addr=args.metrics_host,
                                                 registry=worker.metrics.registry)
            # The port it listens on (chosen by the system for --metrics-port 0).
            log.info("metrics on http://%s:%d/metrics", args.metrics_host, metrics.server_port)
        log.info("worker %s playing computer turns with %d AI workers; database %s", worker.server_id,
                 args.ai_workers, worker.repo.engine.url)
        await stop.wait()
        log.info("worker %s stopping", worker.server_id)
        await worker.stop()
        return 0

    settle_memory()
    return asyncio.run(run())
