"""The computer players shared fairly: what one owner may start, and searches for games that
moved on (docs/security.md, Limits)."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from omega.ai.levels import MAX_LEVEL
from omega.server.config import LEVEL_RANGE, is_quick_level
from omega.server.work.computers import FairSlots

from .server_helpers import Api, error_code, first_steps, make_server


def test_strong_computer_games_of_one_owner_are_capped_at_creation(sqlite_url: str) -> None:
    live = make_server(sqlite_url)
    api = Api(live.url)
    try:
        strong = [{"kind": "human"}] + [{"kind": "computer", "level": MAX_LEVEL}] * 3
        t = api.create(players=4, size=10, seats=strong)  # 15 of the 20 worker-seconds a round
        refused = api.http.post("/api/tables", json={"players": 4, "size": 10, "seats": strong})
        assert refused.status_code == 429 and error_code(refused) == "too_many_computer_games"
        # Quick levels take nobody's share.
        api.create(players=2, size=10, seats=[{"kind": "human"}, {"kind": "computer", "level": max(n for n in LEVEL_RANGE if is_quick_level(n))}])
        r = api.act(t["id"], t["token"], {"type": "resign"})
        assert r.status_code == 200, r.text
        api.create(players=4, size=10, seats=strong)  # the finished game no longer counts
    finally:
        api.close()
        live.stop()


def test_slots_keep_one_for_quick_turns_and_cap_each_owner() -> None:
    async def run() -> tuple[list[str], int]:
        slots, served = FairSlots(4), []
        held = [await slots.acquire("flood") for _ in range(2)]  # the owner's cap: half the slots
        others = [await slots.acquire(f"other{i}") for i in range(1)]  # slow work: one slot left
        late = asyncio.create_task(slots.acquire("flood"))
        slow = asyncio.create_task(slots.acquire("victim"))
        await first_steps()  # each asks at its first step
        assert slots.waiting == 2
        assert not late.done() and not slow.done()  # flood at its cap; slow work leaves the last slot
        quick = await slots.acquire("victim", quick=True)
        served.append("quick")
        slots.release(held[0], 5.0)
        await asyncio.wait_for(slow, 1)
        assert not late.done()  # the victim used less time than the flood
        for slot in [*held[1:], *others, quick, slow.result()]:
            slots.release(slot, 1.0)
        await asyncio.wait_for(late, 1)
        slots.release(late.result(), 1.0)
        return served, slots.free

    served, free = asyncio.run(run())
    assert served == ["quick"] and free == 4



@pytest.mark.slow
def test_a_search_for_a_game_that_ended_is_cancelled(sqlite_url: str) -> None:
    # A bot that would think for hours; its game ends by resignation while it thinks.
    live = make_server(sqlite_url, bot="mcts:iterations=1000000000", ai_workers=1, computer_deadline=60.0)
    api = Api(live.url)
    computers = live.app.state.computers
    try:
        t = api.create(players=2, seats=[{"kind": "human"}, {"kind": "computer", "level": 5}])
        api.turn(t["id"], t["token"], ["e5", "a1"])
        assert _until(lambda: computers.status()["thinking"] == 1)
        r = api.act(t["id"], t["token"], {"type": "resign"})
        assert r.status_code == 200, r.text
        assert _until(lambda: computers.turns_cancelled == 1 and computers.status()["thinking"] == 0)
        assert computers.deadline_misses == 0 and computers.turns_played == 0
    finally:
        api.close()
        live.stop()


def _until(condition: object, timeout: float = 30.0) -> bool:
    """Poll ``condition`` (the server runs in this process's threads) until true or timeout."""
    assert callable(condition)
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        threading.Event().wait(0.05)
    return True
