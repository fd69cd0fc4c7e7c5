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

from omega.ai.levels import MAX_LEVEL, MIN_LEVEL
from omega.game import MAX_PLAYERS, MIN_PLAYERS

__all__ = ["Settings", "TABLE_SIZES", "TABLE_PLAYERS", "DEFAULT_SIZE", "DEFAULT_LEVEL", "LEVEL_RANGE"]

#: Board sides a table may have.
TABLE_SIZES = range(5, 11)
#: Players at a table: as many as the rules allow.
TABLE_PLAYERS = range(MIN_PLAYERS, MAX_PLAYERS + 1)
#: Computer levels a seat may have: every level there is.
LEVEL_RANGE = range(MIN_LEVEL, MAX_LEVEL + 1)
#: What the page's form starts with.
DEFAULT_SIZE = 5
DEFAULT_LEVEL = 2


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
