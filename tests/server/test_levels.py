"""The computer levels as players meet them: each level's rating where it is chosen and at
the table, and a quick level's reply held back until it has been seen to think."""

from __future__ import annotations

import asyncio
from typing import Any

from omega.ai.levels import LEVELS, MAX_LEVEL, MIN_LEVEL, level, nearest_level
from omega.game import Game
from omega.server.clock import FakeClock
from omega.server.config import DEFAULT_LEVEL
from omega.server.infra.due import Due
from omega.server.ratings.service import DISPLAY_BASE
from omega.server.tables.identity import Identity
from omega.server.tables.state import COMPUTER_TURN
from omega.server.tables.values import Acted, ComputerJob
from omega.server.work.computers import ComputerPlayers
from omega.server.work.thinking import spec_bot

from .server_helpers import Api, make_server


def test_each_level_comes_with_its_rating_in_the_config_and_at_the_table(sqlite_url: str) -> None:
    live = make_server(sqlite_url, bot=None)
    api = Api(live.url)
    try:
        config = api.http.get("/api/config").json()
        assert [(lv["level"], lv["rating"], lv["rating_low"], lv["rating_high"]) for lv in config["levels"]] == [
            (lv.number, lv.rating, lv.rating_low, lv.rating_high) for lv in LEVELS]
        # The form starts at the level a new player's rating is nearest.
        assert config["default_level"] == DEFAULT_LEVEL == nearest_level(DISPLAY_BASE)
        t = api.create(players=3, seats=[{"kind": "human"}, {"kind": "computer", "level": MIN_LEVEL},
                                         {"kind": "computer", "level": MAX_LEVEL}])
        seats = api.state(t["id"], t["token"])["seats"]
        assert [s["rating"] for s in seats] == [None, level(MIN_LEVEL).rating, level(MAX_LEVEL).rating]
    finally:
        api.close()
        live.stop()


class _Table:
    """One table whose computer is to move at version 1; records the clock of each action."""

    def __init__(self, number: int, clock: FakeClock) -> None:
        self.job = ComputerJob("t1", 1, number, 7, Game(players=2, size=3), "owner")
        self.clock = clock
        self.acted_at: list[float] = []

    async def computer_job(self, table_id: str) -> ComputerJob | None:
        return self.job

    async def computer_due(self, table_id: str, version: int) -> bool:
        return not self.acted_at

    async def act(self, table_id: str, who: Identity, action: Any, *, request_id: str | None = None,
                  version: int | None = None) -> Acted | None:
        self.acted_at.append(self.clock.monotonic())
        return None


def _reply_times(numbers: list[int]) -> tuple[list[float], list[float]]:
    """When each level's reply was played, on a fake clock that only the pause moves (the
    search itself takes no fake time), and the pauses asked for."""
    clock, pauses = FakeClock(), []

    async def sleep(seconds: float) -> None:
        pauses.append(seconds)
        clock.advance(seconds)

    async def run() -> list[float]:
        computers = ComputerPlayers(_Table(0, clock), workers=1, bot_factory=spec_bot("random"),
                                    clock=clock.monotonic, paced=True, sleep=sleep)
        out = []
        try:
            for number in numbers:
                start = clock.monotonic()
                table = computers.tables = _Table(number, clock)
                await computers.play(Due(COMPUTER_TURN, "t1", 1))
                out += [t - start for t in table.acted_at]
        finally:
            await computers.stop()
        return out

    return asyncio.run(run()), pauses


def test_a_beginner_is_seen_to_think_before_its_reply_is_played() -> None:
    beginner, strongest = level(MIN_LEVEL), level(MAX_LEVEL)
    assert beginner.think > 0 and strongest.think == 0
    replied, pauses = _reply_times([MIN_LEVEL, MAX_LEVEL])
    # The beginner's reply (a millisecond's search) waits out its think on the server's
    # clock, a little at a time; the strongest level's is played as soon as it is found.
    assert replied[0] >= beginner.think and replied[1] == 0
    assert len(pauses) > 1 and abs(sum(pauses) - beginner.think) < 1e-9
