"""``omega serve``: run the web app with uvicorn.

>>> import argparse
>>> _database(argparse.Namespace(db="sqlite:///x.db"))
'sqlite:///x.db'
"""

from __future__ import annotations

import argparse
import logging
import sys

from omega.server.logs import install_redaction
from omega.server.storage import default_url

__all__ = ["serve_main", "uvicorn_options"]


def uvicorn_options(forwarded_allow_ips: str | None = None) -> dict[str, object]:
    """Settings of the transport: the WebSocket frame limit, no per-message compression (on
    these small JSON messages zlib cost more CPU than anything else the server does), a
    protocol that can close a socket whose client stopped reading (``transport``), no
    ``Server`` banner, and which proxies may say whom they forward.

    uvicorn trusts ``X-Forwarded-For`` from 127.0.0.1 unless told otherwise; here nobody is
    trusted unless ``forwarded_allow_ips`` names the proxies: otherwise anyone on the same
    machine could claim any address and dodge the per-address limits.

    >>> uvicorn_options()["ws_per_message_deflate"], uvicorn_options()["proxy_headers"]
    (False, False)
    >>> uvicorn_options("10.0.0.2")["forwarded_allow_ips"]
    '10.0.0.2'
    """
    from omega.server.limits import Limits

    options: dict[str, object] = {
        "ws_max_size": Limits().ws_max_frame, "ws_per_message_deflate": False, "server_header": False,
        "proxy_headers": bool(forwarded_allow_ips), "forwarded_allow_ips": forwarded_allow_ips or "",
    }
    try:
        from omega.server.transport import SlowReaderProtocol
    except ImportError:  # a uvicorn without the sans-I/O protocol: its default, and no quick close
        return options
    options["ws"] = SlowReaderProtocol
    return options


def _database(args: argparse.Namespace) -> str:
    return str(args.db) if args.db else default_url()


def serve_main(args: argparse.Namespace) -> int:
    """Serve until interrupted; exit status 2 for a bad database URL."""
    import uvicorn
    from sqlalchemy.exc import ArgumentError

    from omega.server.app import create_app
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # Alembic narrates each plugin it loads at INFO: keep its warnings only.
    logging.getLogger("alembic").setLevel(logging.WARNING)
    install_redaction()
    url = _database(args)
    try:
        app = create_app(url, ai_workers=args.ai_workers)
    except (ArgumentError, ValueError) as e:
        print(f"omega serve: bad database URL {url!r}: {e}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as e:
        print(f"omega serve: missing driver for {url!r}: {e}", file=sys.stderr)
        return 2
    # Log the database without its password.
    logging.getLogger("omega.server").info("database %s", app.state.core.repo.engine.url)
    # Config, then the redaction, then run: Config sets up uvicorn's loggers (replacing their
    # handlers), and every record must pass the filter that hides ?token= values.
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level="info",
                            access_log=bool(getattr(args, "access_log", False)), lifespan="on",
                            **uvicorn_options(getattr(args, "forwarded_allow_ips", None)))  # type: ignore[arg-type]
    install_redaction()
    server = uvicorn.Server(config)
    server.run()
    return 0 if server.started else 3
