"""Where the server's time comes from: one injected clock, never a hidden ``datetime.now()``.

Decisions take the time as an argument (``decide(..., now)``), events store the time they
were decided at, and rate limits and due work read the same clock.  Production uses
:class:`SystemClock`; tests pass a :class:`FakeClock` and move it by hand, so nothing in a
test waits for real time to pass.

>>> clock = FakeClock()
>>> start = clock.now()
>>> clock.advance(90)
>>> (clock.now() - start).total_seconds(), clock.monotonic()
(90.0, 90.0)
>>> stamp(datetime(2026, 1, 2, 3, 4, 5, 678, tzinfo=UTC))
'2026-01-02T03:04:05Z'
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Protocol

__all__ = ["Clock", "SystemClock", "FakeClock", "stamp"]


class Clock(Protocol):
    """Wall time (for what is stored and shown) and a monotonic count of seconds (for rates)."""

    def now(self) -> datetime:
        """The current time, timezone-aware UTC."""
        ...

    def monotonic(self) -> float:
        """Seconds from an arbitrary start; never goes back."""
        ...


class SystemClock:
    """The real time of this machine.

    >>> SystemClock().now().tzinfo is UTC
    True
    """

    def now(self) -> datetime:
        """``datetime.now(UTC)``."""
        return datetime.now(UTC)

    def monotonic(self) -> float:
        """``time.monotonic()``."""
        return time.monotonic()


class FakeClock:
    """A clock that moves only when told to (``advance``); for tests.

    >>> FakeClock(datetime(2026, 1, 1, tzinfo=UTC)).now().isoformat()
    '2026-01-01T00:00:00+00:00'
    """

    def __init__(self, start: datetime | None = None) -> None:
        self._start = start or datetime(2026, 1, 1, tzinfo=UTC)
        self._elapsed = 0.0

    def now(self) -> datetime:
        """The start plus every ``advance`` so far."""
        return self._start + timedelta(seconds=self._elapsed)

    def monotonic(self) -> float:
        """Seconds advanced so far."""
        return self._elapsed

    def advance(self, seconds: float) -> None:
        """Move the clock on by ``seconds`` (not back)."""
        if seconds < 0:
            raise ValueError("a clock does not go back")
        self._elapsed += seconds


def stamp(moment: datetime) -> str:
    """The API's way of writing a time: UTC, whole seconds, ``Z``."""
    return moment.astimezone(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
