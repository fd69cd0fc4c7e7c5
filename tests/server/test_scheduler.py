"""The scheduler's claim loop stops when it is told to, even when it is woken at that moment.

On Python 3.11, ``asyncio.wait_for`` returns normally instead of raising when it is
cancelled in the same loop step as the future it waits for completes; a claim loop
waiting that way outlived its stopped server (and its closed database threads) once.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from omega.server.clock import FakeClock
from omega.server.infra.db import make_engine
from omega.server.infra.due import Due
from omega.server.infra.scheduler import Scheduler, wait_set
from omega.server.tables.core import TableCore
from omega.server.tables.identity import AccountAuthenticator
from omega.server.tables.presence import Presence
from omega.server.tables.store import Repository

pytestmark = pytest.mark.timeout(60)


async def _next_turns(count: int) -> None:
    """Let the event loop run ``count`` rounds of its ready callbacks (no time passes)."""
    loop = asyncio.get_running_loop()
    for _ in range(count):
        turn = loop.create_future()
        loop.call_soon(turn.set_result, None)
        await turn


def test_a_wait_cancelled_as_its_event_is_set_is_cancelled() -> None:
    async def scenario() -> str:
        event = asyncio.Event()
        waiting = asyncio.create_task(wait_set(event, 60.0))
        await _next_turns(3)  # the task is now waiting on the event
        event.set()
        waiting.cancel()
        try:
            await waiting
        except asyncio.CancelledError:
            return "cancelled"
        return "returned"

    assert asyncio.run(scenario()) == "cancelled"


def test_wait_set_says_whether_the_event_came() -> None:
    async def scenario() -> tuple[bool, bool]:
        event = asyncio.Event()
        missed = await wait_set(event, 0.0)
        event.set()
        return missed, await wait_set(event, 0.0)

    assert asyncio.run(scenario()) == (False, True)


def test_a_scheduler_stopped_right_after_a_wake_stops(tmp_path: Path) -> None:
    async def scenario() -> tuple[bool, list[asyncio.Task[Any]]]:
        loop = asyncio.get_running_loop()
        repo = Repository(make_engine(f"sqlite:///{tmp_path / 'omega.db'}"))
        repo.migrate()
        core = TableCore(repo, FakeClock(), AccountAuthenticator())
        looked = asyncio.Event()
        next_due_at = core.repo.next_due_at

        def watched(*args: Any) -> Any:
            try:
                return next_due_at(*args)
            finally:
                loop.call_soon_threadsafe(looked.set)

        core.repo.next_due_at = watched  # type: ignore[method-assign]
        scheduler = Scheduler(core, Presence(core))

        async def never(due: Due) -> None:
            raise AssertionError("nothing is due")

        scheduler.handle("nothing", never)  # a kind to look for: the loop asks when it is due next
        await scheduler.start()
        try:
            await looked.wait()  # the claim loop has looked for due work ...
            await _next_turns(4)  # ... and is waiting for its next round
            scheduler.wake()
            # stop() returns at once, or, awaiting a loop that does not end, only when this
            # guard cancels it (a cancellation that stop() then takes for the loop's).
            async with asyncio.timeout(5) as guard:
                await scheduler.stop()
            return guard.expired(), [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        finally:
            core.close()

    held, left = asyncio.run(scenario())
    assert not held, "stop() waited for a claim loop that went on"
    assert left == []
