"""Tables left unfinished: a site-wide sweep (the ``abandon`` recurring work, set by the
tables' ``setup``) closes every table nobody acted on for ``Settings.abandon_after`` seconds.
Finished games are kept as they are."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from omega.server.tables.core import TableCore
from omega.server.tables.decide import Decided, decide_abandon
from omega.server.tables.state import TableState
from omega.server.tables.store import Writer

__all__ = ["close_abandoned", "close_if_idle"]

log = logging.getLogger("omega.server")

#: How many idle tables one read of the sweep takes.
BATCH = 100


async def close_abandoned(core: TableCore) -> int:
    """Close every unfinished table of ``core`` nobody acted on for ``abandon_after``
    seconds; returns how many were closed."""
    idle_since = core.clock.now() - timedelta(seconds=core.settings.abandon_after)
    closed = 0
    while True:
        batch = await core.db(core.repo.idle_tables, idle_since, BATCH)
        for table_id in batch:
            closed += await close_if_idle(core, table_id, idle_since)
        if len(batch) < BATCH:
            break
    if closed:
        log.info("closed %d tables abandoned unfinished", closed)
    return closed


async def close_if_idle(core: TableCore, table_id: str, idle_since: datetime) -> bool:
    """Close the table as abandoned if nothing happened on it since ``idle_since`` (checked
    again inside the write: a move that just came in keeps it open)."""
    def decision(state: TableState, w: Writer, now: datetime) -> Decided:
        if state.updated_at is not None and state.updated_at >= idle_since:
            return Decided(state)
        return decide_abandon(state, now)

    return bool((await core.write(table_id, decision)).stored)
