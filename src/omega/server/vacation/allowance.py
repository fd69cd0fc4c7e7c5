"""How much vacation an account has: the yearly allowance, how time on vacation is charged,
and when a vacation runs out.  Pure: times come in as arguments.

Every account has :data:`ALLOWANCE_DAYS` days a calendar year (UTC), renewed on 1 January.
On OGS vacation builds up, a day for every eight, to at most 30 days (a new player starts
with 20), and pauses every correspondence clock of the player; lichess has none (a
correspondence clock always runs: players choose a longer time a move).  Here a plain
yearly allowance of OGS's cap: easy to say on the account page and to plan with.  Time on vacation is charged by the hour, a
started hour counting whole (so a vacation that saves a game an hour from its flag costs an
hour, not a day).

>>> t = datetime(2026, 3, 1, 9, tzinfo=UTC)
>>> b = Balance(2026, 0).charge(t, t + timedelta(hours=50, minutes=1))
>>> b.used_hours, b.left_hours(t), describe_hours(b.left_hours(t))
(51, 669, '27 days 21 hours')
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from omega.i18n import Message
from omega.i18n import translatable as _

__all__ = ["ALLOWANCE_DAYS", "ALLOWANCE_HOURS", "AUTOMATIC_BEFORE", "BACK_FOR", "Balance", "hours_started", "describe_hours"]

#: Days of vacation an account has a calendar year: as long a break as a summer holiday,
#: short of the month after which an unfinished game is closed as abandoned.
ALLOWANCE_DAYS = 30
ALLOWANCE_HOURS = ALLOWANCE_DAYS * 24
#: How long before a turn-based flag falls an automatic vacation starts instead: the
#: shortest turn-based limit is 12 hours a move, so a player who forgot a game still had
#: three quarters of a turn to play it.
AUTOMATIC_BEFORE = timedelta(hours=3)
#: After coming back from a vacation, none starts by itself for this long: the player is
#: here, and a clock that resumed with less than :data:`AUTOMATIC_BEFORE` left is theirs to
#: play (longer than that, so the flag handled a moment late still falls).
BACK_FOR = timedelta(days=1)
_HOUR = timedelta(hours=1)


def hours_started(span: timedelta) -> int:
    """The hours ``span`` is charged as: each started hour counts whole.

    >>> hours_started(timedelta(0)), hours_started(timedelta(seconds=1)), hours_started(timedelta(hours=2))
    (0, 1, 2)
    """
    whole, rest = divmod(max(span, timedelta(0)), _HOUR)
    return whole + (1 if rest else 0)


def _new_year(year: int) -> datetime:
    return datetime(year, 1, 1, tzinfo=UTC)


def describe_hours(hours: int) -> Message:
    """Hours as the account page says them (a message: English, or ``.in_language(lang)``).

    >>> describe_hours(720), describe_hours(25), describe_hours(5), describe_hours(49).in_language("es")
    ('30 days', '1 day 1 hour', '5 hours', '2 días 1 hora')
    """
    days, rest = divmod(hours, 24)
    day = _("{n} day", n=days) if days == 1 else _("{n} days", n=days)
    hour = _("{n} hour", n=rest) if rest == 1 else _("{n} hours", n=rest)
    if days and rest:
        return _("{days} {hours}", days=day, hours=hour)
    return day if days else hour


@dataclass(frozen=True)
class Balance:
    """The hours charged in ``year``; another year's allowance is whole.

    >>> Balance(2025, 700).left_hours(datetime(2026, 1, 1, tzinfo=UTC))   # renewed on 1 January
    720
    """

    year: int
    used_hours: int

    def used_in(self, year: int) -> int:
        """The hours charged in ``year``."""
        return self.used_hours if year == self.year else 0

    def left_hours(self, now: datetime) -> int:
        """The hours left in the year of ``now``."""
        return max(0, ALLOWANCE_HOURS - self.used_in(now.year))

    def charge(self, since: datetime, end: datetime) -> Balance:
        """The balance after a vacation from ``since`` to ``end``: the part in ``end``'s year
        is charged to it (a part in the year before went with that year's allowance).

        >>> Balance(2026, 10).charge(datetime(2026, 12, 31, 20, tzinfo=UTC), datetime(2027, 1, 1, 5, tzinfo=UTC))
        Balance(year=2027, used_hours=5)
        """
        start = max(since, _new_year(end.year))
        return Balance(end.year, self.used_in(end.year) + hours_started(end - start))

    def left_during(self, since: datetime, now: datetime) -> int:
        """The hours left at ``now`` of a vacation on since ``since``, counting it.

        >>> t = datetime(2026, 5, 1, tzinfo=UTC)
        >>> Balance(2026, 0).left_during(t, t + timedelta(hours=3, minutes=5))
        716
        """
        return self.charge(since, now).left_hours(now)

    def runs_out(self, since: datetime) -> datetime:
        """When a vacation begun at ``since`` has spent the allowance, if nobody ends it first
        (past 1 January the new year's allowance goes on).

        >>> Balance(2026, 700).runs_out(datetime(2026, 6, 1, tzinfo=UTC))
        datetime.datetime(2026, 6, 1, 20, 0, tzinfo=datetime.timezone.utc)
        >>> Balance(2026, 700).runs_out(datetime(2026, 12, 31, 12, tzinfo=UTC))
        datetime.datetime(2027, 1, 31, 0, 0, tzinfo=datetime.timezone.utc)
        """
        out = since + _HOUR * (ALLOWANCE_HOURS - self.used_in(since.year))
        next_year = _new_year(since.year + 1)
        return out if out <= next_year else next_year + _HOUR * ALLOWANCE_HOURS
