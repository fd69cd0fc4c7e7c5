"""``omega serve`` on a clock that tests can move: for the clock tests that need real server
processes (two on one PostgreSQL database, a restart) and the browser's clock test.

``omega serve`` always runs on the system's clock; this script (test code only: nothing in
``omega`` reads it, so it cannot be switched on in production) runs the real command
(``omega.cli.main``) after swapping :func:`omega.server.app.create_app` for one that takes a
:class:`FileClock`: the system's time plus the seconds written in a file.  Every process
started with the same file shares one time, and a test moves it by writing the file
(:func:`advance`) instead of waiting for a clock to run down.

Two settings change with it: a jump of the clock must not make the processes declare each
other dead (``dead_after``), and the scheduler looks for due work every 0.25 s, so that a
jump is noticed at once.  Everything else is the production server.

Usage: ``python tests/server/clock_server.py CLOCK_FILE serve --port 8123 --db URL``.
"""

from __future__ import annotations

import functools
import os
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from omega.server.config import Settings


class FileClock:
    """The system's time moved on by the seconds in ``path`` (read again whenever the file
    is replaced; no file: not moved).

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "clock"
    >>> clock = FileClock(path)
    >>> before = clock.now()
    >>> advance(path, 3600)
    >>> 3599 < (clock.now() - before).total_seconds() < 3700
    True
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._seen: tuple[int, int] | None = None
        self._offset = 0.0

    def offset(self) -> float:
        """Seconds this clock is ahead of the system's."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return 0.0
        key = (st.st_ino, st.st_mtime_ns)
        if key != self._seen:
            self._seen = key
            self._offset = float(self.path.read_text() or 0)
        return self._offset

    def now(self) -> datetime:
        """The system's time plus the offset."""
        return datetime.now(UTC) + timedelta(seconds=self.offset())

    def monotonic(self) -> float:
        """The system's monotonic seconds plus the offset (it only grows)."""
        return time.monotonic() + self.offset()


def advance(path: Path, seconds: float) -> None:
    """Move every process's clock on ``path`` by ``seconds`` (the file replaced at once,
    never seen half written)."""
    current = float(path.read_text() or 0) if path.exists() else 0.0
    tmp = path.with_suffix(".tmp")
    tmp.write_text(repr(current + seconds))
    os.replace(tmp, path)


def main() -> int:
    import omega.server.app
    from omega.cli import main as omega_main

    clock = FileClock(Path(sys.argv[1]))
    settings = Settings(sweep_interval=0.25, dead_after=10**9)
    omega.server.app.create_app = functools.partial(omega.server.app.create_app, clock=clock, settings=settings)
    return omega_main(sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
