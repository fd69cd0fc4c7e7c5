"""What a table on this site may be: the one home of the table limits the server checks and
the page offers (``GET /api/config``, ``omega.server.site``); and :class:`Settings`, the
timings of a server process.

The engine plays boards of side 2 to 13; a table is 5 to 10, the sizes people play and the
page draws comfortably.

>>> TABLE_SIZES
range(5, 11)
"""

from __future__ import annotations

from dataclasses import dataclass

from omega.ai.levels import MAX_LEVEL, MIN_LEVEL, level
from omega.game import MAX_PLAYERS, MIN_PLAYERS

__all__ = ["Settings", "TABLE_SIZES", "TABLE_PLAYERS", "DEFAULT_SIZE", "DEFAULT_LEVEL", "LEVEL_RANGE",
           "QUICK_ITERATIONS", "is_quick_level", "computer_load"]

#: Board sides a table may have.
TABLE_SIZES = range(5, 11)
#: Players at a table: as many as the rules allow.
TABLE_PLAYERS = range(MIN_PLAYERS, MAX_PLAYERS + 1)
#: Computer levels a seat may have: every level there is.
LEVEL_RANGE = range(MIN_LEVEL, MAX_LEVEL + 1)
#: What the page's form starts with: the level is the one whose rating is nearest the 1000
#: a new player starts at (``omega.ai.levels.nearest_level``; tests/server/test_levels.py).
DEFAULT_SIZE = 5
DEFAULT_LEVEL = 3

#: A level searching at most this many iterations a turn is *quick*: it answers in tens of
#: milliseconds on any board (levels 1 to 13; level 15 takes about a second on side 10 and
#: level 16 two), so its turns have a worker of their own (``work.computers.FairSlots``)
#: and do not count towards an owner's computer load.
QUICK_ITERATIONS = 4_000


def is_quick_level(number: int) -> bool:
    """Whether computer level ``number`` answers in tens of milliseconds (see
    :data:`QUICK_ITERATIONS`).

    >>> [n for n in LEVEL_RANGE if is_quick_level(n)]
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]
    """
    return level(number).iterations <= QUICK_ITERATIONS


def computer_load(seats: list[tuple[int, int]]) -> float:
    """Seconds of a worker's time the computer seats ``(size, level)`` may take in one round
    of turns at most: each slow level's time cap, times the board's side over the largest
    side (a smaller board ends its search sooner: level 16 took 0.8 s a turn on side 5
    against 2.0 s on side 10).  Quick levels count nothing.  What one owner may have going
    at once is capped (``Limits.computer_load``).

    >>> computer_load([(10, 16), (10, 16), (10, 16)])   # three level-16 players on side 10
    15.0
    >>> computer_load([(5, 16), (10, 15), (10, 1)])
    5.5
    """
    return sum(level(n).seconds * size / TABLE_SIZES[-1] for size, n in seats if not is_quick_level(n))


@dataclass
class Settings:
    """Tunable limits and timings of a server process (rate limits are in ``limits.Limits``)."""

    #: Events a reconnecting socket may be sent one by one before it gets a sync instead.
    max_replay_events: int = 500
    #: Seconds between heartbeats, between sweeps for dead processes, and at most between
    #: two looks for due work.
    sweep_interval: float = 2.0
    #: A process whose heartbeat is older than this is dead (PostgreSQL only; with SQLite
    #: one process owns the file, so every other process row is dead at start-up).
    dead_after: float = 20.0
    #: Tables kept in memory.
    cache_size: int = 5000
    #: Database threads (None: 16 for PostgreSQL; 2 for SQLite, whose writes are serial
    #: anyway and where more threads only fight over the GIL while holding the write lock).
    db_threads: int | None = None
    #: Seconds before a computer turn whose bot failed is tried again.
    retry_delay: float = 3.0
    #: An unfinished table nobody acted on for this long (seconds: 30 days) is closed as
    #: abandoned; finished games are kept for good.
    abandon_after: float = 30 * 24 * 3600.0
    #: Seconds between looks for abandoned tables.
    abandon_check_every: float = 3600.0
    #: How long a log-in lasts (seconds: 30 days from the log-in; logging in again starts
    #: a new one).  Expired sessions are removed every ``session_purge_every`` seconds.
    session_lifetime: float = 30 * 24 * 3600.0
    session_purge_every: float = 3600.0
    #: How long a mailed link that verifies an email address works (seconds: 2 days, for a
    #: mail read the next evening), and a password reset's (30 minutes: a reset link is worth
    #: the whole account, and whoever asked for it is waiting for the mail).
    email_verify_lifetime: float = 2 * 24 * 3600.0
    password_reset_lifetime: float = 30 * 60.0
