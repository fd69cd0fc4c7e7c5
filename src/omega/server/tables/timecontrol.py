"""Time controls: what a table's clocks are, written as short text, and their arithmetic.

The one home of every fact about time controls: the kinds, the text form, the presets
and limits a table may have (served to the page by ``GET /api/config``), and how a seat's
clock moves when it plays.  Pure: no clock is read here, times come in as arguments.

Three kinds, each with a text form that round-trips:

- ``untimed``: no clock (the default; today's casual tables).
- real time, ``"M+S"``: a Fischer clock of M minutes plus S seconds after every move
  (``"5+5"``, ``"1+0"``).
- turn-based, ``"P"`` or ``"P+R"``: at most P for each move (``12h``, ``1d``, ``3d``,
  ``7d``), and optionally a reserve R (whole days) that pays for moves that take longer.

>>> tc = TimeControl.parse("5+5")
>>> tc.text, tc.kind, tc.start_bank_ms, tc.increment_ms
('5+5', 'realtime', 300000, 5000)
>>> TimeControl.parse("3d+7d").describe()
'3 days a move + 7 days in reserve'
>>> TimeControl.parse("untimed").timed
False

A seat's clock is a *bank* (a Fischer clock's time left; a turn-based seat's reserve) plus
the fresh per-move time of each turn.  A move that used ``used_ms`` leaves the bank at
``bank - max(0, used - per_move) + increment``; the flag falls once the turn has lasted
``bank + per_move``.

>>> tc.bank_after(300000, 12000)      # 12 s used, 5 s back
293000
>>> day = TimeControl.parse("1d+2d")
>>> day.bank_after(day.start_bank_ms, 30 * 3600 * 1000) // 3600000   # 30 h used: 6 h of the reserve
42
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from omega.i18n import Message, message_of
from omega.i18n import translatable as _
from omega.server.errors import ApiError
from omega.server.infra.bodies import bad_body

__all__ = [
    "TimeControl", "UNTIMED", "REALTIME_PRESETS", "PER_MOVE_CHOICES", "BASE_MINUTES", "INCREMENT_SECONDS",
    "RESERVE_DAYS", "LOW_FRACTION", "LOW_MS", "QUICKPLAY_DEFAULT", "time_control_config", "stamp_ms", "ms_between",
    "require_clock", "body_clock",
]

Kind = Literal["untimed", "realtime", "turn_based"]

#: Real-time base minutes a table may have (custom values too).
BASE_MINUTES = range(1, 181)
#: Real-time increment seconds per move.
INCREMENT_SECONDS = range(0, 61)
#: Turn-based limits per move, by their text.
PER_MOVE_CHOICES: dict[str, int] = {"12h": 12 * 3600, "1d": 86400, "3d": 3 * 86400, "7d": 7 * 86400}
#: Whole days a turn-based reserve may hold (0: none).
RESERVE_DAYS = range(0, 31)
#: The real-time presets the page offers first.
REALTIME_PRESETS = ("3+2", "5+5", "10+10", "20+0")
#: The real-time preset a quick-play game gets when the request names none (a quick-play
#: request may name any of :data:`REALTIME_PRESETS`): quick play is for a game now, so a
#: real-time clock, and one long enough for a side-5 board's 10 to 15 turns to be thought
#: about, yet short enough that a player who walks away costs the other minutes, not hours.
QUICKPLAY_DEFAULT = "5+5"
#: A clock shows red once it has less than this share of the control's full time left ...
LOW_FRACTION = 0.10
#: ... or less than this many milliseconds, whichever is more.
LOW_MS = 20_000

_REALTIME = re.compile(r"(\d{1,3})\+(\d{1,2})")
_TURN_BASED = re.compile(r"(\d{1,2}[hd])(?:\+(\d{1,2})d)?")
_UNTIMED_TEXTS = ("untimed", "none", "")


def _duration(seconds: int) -> Message:
    """``3 days``, ``1 day``, ``12 hours``, ``5 minutes``, ``1 second`` (each a sentence of
    the catalogs: one for one and one for more, as languages write plurals differently)."""
    if seconds >= 86400 and seconds % 86400 == 0:
        n = seconds // 86400
        return _("{n} day", n=n) if n == 1 else _("{n} days", n=n)
    if seconds >= 3600 and seconds % 3600 == 0:
        n = seconds // 3600
        return _("{n} hour", n=n) if n == 1 else _("{n} hours", n=n)
    if seconds >= 60 and seconds % 60 == 0:
        n = seconds // 60
        return _("{n} minute", n=n) if n == 1 else _("{n} minutes", n=n)
    return _("{n} second", n=seconds) if seconds == 1 else _("{n} seconds", n=seconds)


@dataclass(frozen=True)
class TimeControl:
    """A table's time control (see the module's text).  Make one with :meth:`parse`.

    Times are whole seconds: ``base`` (real time: the starting clock), ``increment``
    (real time: added after each move), ``per_move`` (turn-based: fresh for each move),
    ``reserve`` (turn-based: the starting bank).

    >>> TimeControl.parse("10+10") == TimeControl("realtime", base=600, increment=10)
    True
    """

    kind: Kind = "untimed"
    base: int = 0
    increment: int = 0
    per_move: int = 0
    reserve: int = 0

    @classmethod
    def parse(cls, text: str | None) -> TimeControl:
        """The control written as ``text`` (None or ``untimed``: no clock); ValueError with
        a sentence naming the problem for anything else.

        >>> TimeControl.parse("12h").per_move_ms
        43200000
        >>> TimeControl.parse("0+5")
        Traceback (most recent call last):
        ValueError: time control '0+5': base minutes must be from 1 to 180
        """
        raw = (text or "").strip().lower()
        if raw in _UNTIMED_TEXTS:
            return UNTIMED
        m = _REALTIME.fullmatch(raw)
        if m:
            minutes, seconds = int(m.group(1)), int(m.group(2))
            if minutes not in BASE_MINUTES:
                raise ValueError(f"time control {text!r}: base minutes must be from {BASE_MINUTES.start} "
                                 f"to {BASE_MINUTES.stop - 1}")
            if seconds not in INCREMENT_SECONDS:
                raise ValueError(f"time control {text!r}: the increment must be from {INCREMENT_SECONDS.start} "
                                 f"to {INCREMENT_SECONDS.stop - 1} seconds")
            return cls("realtime", base=minutes * 60, increment=seconds)
        m = _TURN_BASED.fullmatch(raw)
        if m:
            per_move = PER_MOVE_CHOICES.get(m.group(1))
            if per_move is None:
                raise ValueError(f"time control {text!r}: a move's limit must be one of {', '.join(PER_MOVE_CHOICES)}")
            days = int(m.group(2) or 0)
            if days not in RESERVE_DAYS or (m.group(2) is not None and days == 0):
                raise ValueError(f"time control {text!r}: the reserve must be from 1 to {RESERVE_DAYS.stop - 1} days")
            return cls("turn_based", per_move=per_move, reserve=days * 86400)
        raise ValueError(f"time control {text!r} is not one of: untimed, minutes+seconds (5+5), "
                         "a limit per move (12h, 1d, 3d, 7d) with an optional reserve in days (3d+7d)")

    @property
    def timed(self) -> bool:
        """Whether the table has clocks at all."""
        return self.kind != "untimed"

    @property
    def text(self) -> str:
        """The short text form that :meth:`parse` reads back.

        >>> [TimeControl.parse(t).text for t in ("untimed", "3+2", "1d", "12h+3d")]
        ['untimed', '3+2', '1d', '12h+3d']
        """
        if self.kind == "realtime":
            return f"{self.base // 60}+{self.increment}"
        if self.kind == "turn_based":
            per = next(k for k, v in PER_MOVE_CHOICES.items() if v == self.per_move)
            return per + (f"+{self.reserve // 86400}d" if self.reserve else "")
        return "untimed"

    def describe(self) -> Message:
        """The control in words, for people (English; ``.in_language(lang)`` for a reader's).

        >>> TimeControl.parse("3+2").describe(), TimeControl.parse("12h").describe()
        ('3 minutes + 2 seconds a move', '12 hours a move')
        """
        if self.kind == "realtime":
            return _("{base} + {increment} a move", base=_duration(self.base), increment=_duration(self.increment))
        if self.kind == "turn_based":
            if self.reserve:
                return _("{per_move} a move + {reserve} in reserve", per_move=_duration(self.per_move),
                         reserve=_duration(self.reserve))
            return _("{per_move} a move", per_move=_duration(self.per_move))
        return _("untimed")

    # -- the arithmetic ---------------------------------------------------------------------

    @property
    def start_bank_ms(self) -> int:
        """Every clocked seat's bank when the game starts."""
        return 1000 * (self.base if self.kind == "realtime" else self.reserve)

    @property
    def per_move_ms(self) -> int:
        """The fresh time of every move (turn-based; 0 for real time)."""
        return 1000 * self.per_move

    @property
    def increment_ms(self) -> int:
        """What a move adds to the bank (real time; 0 for turn-based)."""
        return 1000 * self.increment

    @property
    def full_ms(self) -> int:
        """The most a seat starts a turn with at the start of the game (what "10 % left" is of)."""
        return self.start_bank_ms + self.per_move_ms

    def allowance_ms(self, bank_ms: int) -> int:
        """How long a turn may last with ``bank_ms`` in the bank."""
        return bank_ms + self.per_move_ms

    def bank_after(self, bank_ms: int, used_ms: int) -> int:
        """The bank after a move that used ``used_ms`` (never below zero: a move is taken
        only before the flag falls)."""
        return max(0, bank_ms - max(0, used_ms - self.per_move_ms) + self.increment_ms)

    def low_ms(self) -> int:
        """Below this much time left a clock shows red: 10 % of the full time, at least 20 s.

        >>> TimeControl.parse("3+2").low_ms(), TimeControl.parse("20+0").low_ms()
        (20000, 120000)
        """
        return max(LOW_MS, int(self.full_ms * LOW_FRACTION))


#: No clocks.
UNTIMED = TimeControl()


def stamp_ms(moment: datetime) -> str:
    """A time as the clocks in the API write it: UTC with milliseconds and ``Z``.

    >>> stamp_ms(datetime(2026, 1, 2, 3, 4, 5, 678900, tzinfo=UTC))
    '2026-01-02T03:04:05.678Z'
    """
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def ms_between(start: datetime, end: datetime) -> int:
    """Whole milliseconds from ``start`` to ``end`` (rounded down; negative if end is first).

    >>> t = datetime(2026, 1, 1, tzinfo=UTC)
    >>> ms_between(t, t + timedelta(seconds=1.2345))
    1234
    """
    return (end - start) // timedelta(milliseconds=1)


def require_clock(rated: bool, control: TimeControl) -> None:
    """Refuse a rated table without a clock (``clock_required``): an opponent who walks away
    from an untimed game could stall a rated result for ever, so every rated game, from the
    lobby, quick play or a rematch, has a real-time or turn-based control.

    >>> require_clock(True, TimeControl.parse("5+5")); require_clock(False, UNTIMED)
    >>> require_clock(True, UNTIMED)
    Traceback (most recent call last):
    ...
    omega.server.errors.ApiError: a rated table needs a time control (real time such as 5+5, or turn-based such as 1d)
    """
    if rated and not control.timed:
        raise ApiError("clock_required", _("a rated table needs a time control (real time such as {quickplay_default}, or turn-based such as 1d)", quickplay_default=QUICKPLAY_DEFAULT))


def body_clock(text: str | None) -> TimeControl:
    """The time control a request body names (:meth:`TimeControl.parse`), refused as that
    body's ``bad_request`` when it is none.

    >>> body_clock("5+05").text, body_clock(None).timed
    ('5+5', False)
    >>> body_clock("0+5")
    Traceback (most recent call last):
    ...
    omega.server.errors.ApiError: bad request: time control '0+5': base minutes must be from 1 to 180
    """
    try:
        return TimeControl.parse(text)
    except ValueError as e:
        raise bad_body(message_of(e)) from None


def time_control_config(lang: str = "en") -> dict[str, Any]:
    """The time controls a table may have, as ``GET /api/config`` serves them (their labels
    in ``lang``).

    >>> c = time_control_config()
    >>> c["default"], c["realtime"]["presets"][0], c["turn_based"]["per_move"][0]
    ('untimed', {'text': '3+2', 'label': '3 minutes + 2 seconds a move'}, {'text': '12h', 'label': '12 hours a move'})
    """
    return {
        "default": UNTIMED.text,
        "quickplay": {"default": QUICKPLAY_DEFAULT, "presets": list(REALTIME_PRESETS)},
        "realtime": {
            "presets": [{"text": t, "label": TimeControl.parse(t).describe().in_language(lang)}
                        for t in REALTIME_PRESETS],
            "base_minutes": {"min": BASE_MINUTES.start, "max": BASE_MINUTES.stop - 1},
            "increment_seconds": {"min": INCREMENT_SECONDS.start, "max": INCREMENT_SECONDS.stop - 1},
        },
        "turn_based": {
            "per_move": [{"text": t, "label": TimeControl.parse(t).describe().in_language(lang)}
                         for t in PER_MOVE_CHOICES],
            "reserve_days": {"min": RESERVE_DAYS.start, "max": RESERVE_DAYS.stop - 1},
        },
        "low": {"fraction": LOW_FRACTION, "ms": LOW_MS},
    }
