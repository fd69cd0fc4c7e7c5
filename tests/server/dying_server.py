"""``omega serve`` that dies between a commit and its publish: the real command
(``omega.cli.main``) with :meth:`omega.server.infra.pubsub.Publisher.publish` replaced by
SIGKILL of the process, so that the first write it commits is stored and then never
published, and the process is gone as if killed at that very moment.

Usage: ``python tests/server/dying_server.py serve --port 0 --db postgresql+psycopg://...``.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterable


def die(publisher: object, notes: Iterable[str]) -> None:
    """Kill this process: the commit is stored, the publish never happens."""
    os.kill(os.getpid(), signal.SIGKILL)


def main() -> int:
    from omega.cli import main as omega_main
    from omega.server.infra.pubsub import Publisher

    Publisher.publish = die  # type: ignore[method-assign,assignment]
    return omega_main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
