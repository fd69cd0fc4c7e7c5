"""``omega serve`` for the fuzz suite: the real command in its own process, with the request
and table-creation rate limits raised, so that a fuzzer talking as fast as it can gets real
answers rather than ``rate_limited`` after its first forty requests.

``omega serve`` has no option for its limits, so this script runs it (``omega.cli.main``,
with its logging, token redaction, uvicorn options and real computer players) after
swapping :func:`omega.server.app.create_app` for one that takes :func:`fuzz_limits`.
What a client may send in one message and the WebSocket message rate keep their documented
defaults, so floods and oversized messages meet the real limits.

Usage: ``python tests/server/fuzz_server.py serve --port 8123 --db sqlite:///x.sqlite3``.
"""

from __future__ import annotations

import functools
import sys
from dataclasses import fields, replace

from omega.server.infra.limits import Limits

#: Limits that count requests: far above what one fuzzing client sends.
RAISED: dict[str, float] = {"http_rate": 1e6, "http_burst": 10**6, "create_rate": 1e6, "create_burst": 10**6}


def fuzz_limits() -> Limits:
    """The default limits with the ones that count requests or connections raised.

    >>> fuzz_limits().max_message == Limits().max_message, fuzz_limits().http_burst > 1000
    (True, True)
    """
    raised: dict[str, float] = dict(RAISED)
    for f in fields(Limits):
        # Connection-rate limits (per address, per token) count sockets the way http_rate
        # counts requests: a fuzzer opens many.
        if "connect" in f.name and f.type in ("int", "float", int, float):
            raised[f.name] = 10**6
    return replace(Limits(), **raised)  # type: ignore[arg-type]


def main() -> int:
    import omega.server.app
    from omega.cli import main as omega_main

    omega.server.app.create_app = functools.partial(omega.server.app.create_app, limits=fuzz_limits())
    return omega_main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
