"""``omega serve`` for the fuzz suite: the real command in its own process, with the request
and table-creation rate limits raised, so that a fuzzer talking as fast as it can gets real
answers rather than ``rate_limited`` after its first forty requests.

``omega serve`` has no option for its limits, so this script runs it (``omega.cli.main``,
with its logging, token redaction, uvicorn options and real computer players) after
swapping :func:`omega.server.app.create_app` for one that takes :func:`fuzz_limits`.
What a client may send in one message and the WebSocket message rate keep their documented
defaults, so floods and oversized messages meet the real limits.

With :data:`CLOCK_ENV` naming a file, the server runs on ``clock_server.FileClock`` on that
file, so that the suite makes a rated game's clock fall by moving the time on
(``clock_server.advance``) instead of waiting a minute.

Usage: ``python tests/server/fuzz_server.py serve --port 8123 --db sqlite:///x.sqlite3``.
"""

from __future__ import annotations

import functools
import os
import sys
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from argon2 import PasswordHasher, profiles

from omega.server.infra.limits import Limits
from omega.server.lobby.service import LOBBY_PAGE

#: Limits that count requests: far above what one fuzzing client sends.
RAISED: dict[str, float] = {"http_rate": 1e6, "http_burst": 10**6, "create_rate": 1e6, "create_burst": 10**6}
#: One account may keep more tables open in the lobby than its first page lists (the flood
#: of finding 3 of issue 29), so that the suite sees whether the listing stays fair to the
#: other creators; every account of the suite comes from one address, whose cap is lifted.
LOBBY_CAPS: dict[str, int] = {"lobby_open_per_account": LOBBY_PAGE + 5, "lobby_open_per_address": 10**6}
#: Passwords hashed with argon2id's cheapest parameters, as in the tests' own servers: at
#: full strength a registration costs 0.3 to 1.7 s of a loaded test machine, and the suite
#: registers its accounts to play, not to test the hashing (tests/server/test_accounts.py).
HASHER = PasswordHasher.from_parameters(profiles.CHEAPEST)
#: The environment variable naming the file of the server's clock (none: the system's).
CLOCK_ENV = "FUZZ_CLOCK_FILE"


def fuzz_limits() -> Limits:
    """The default limits with the ones that count requests or connections raised, and the
    lobby's caps at :data:`LOBBY_CAPS`.

    >>> fuzz_limits().max_message == Limits().max_message, fuzz_limits().http_burst > 1000
    (True, True)
    >>> fuzz_limits().lobby_open_per_account > LOBBY_PAGE
    True
    """
    raised: dict[str, float] = {**RAISED, **LOBBY_CAPS}
    for f in fields(Limits):
        # Connection-rate limits (per address, per token) count sockets the way http_rate
        # counts requests: a fuzzer opens many.
        if "connect" in f.name and f.type in ("int", "float", int, float):
            raised[f.name] = 10**6
    return replace(Limits(), **raised)  # type: ignore[arg-type]


def main() -> int:
    import omega.server.app
    from omega.cli import main as omega_main

    options: dict[str, Any] = {"limits": fuzz_limits(), "password_hasher": HASHER}
    if os.environ.get(CLOCK_ENV):
        # Beside this script, so on its path when it runs (and only then).
        from clock_server import FileClock

        options["clock"] = FileClock(Path(os.environ[CLOCK_ENV]))
    omega.server.app.create_app = functools.partial(omega.server.app.create_app, **options)
    return omega_main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
