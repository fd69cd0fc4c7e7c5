"""A confirmed turn is played once: decided on the copy of the table that the cache then
takes, then stored, delivered and answered without being applied again.  Counted on the
real rules (``Game.play``) through a real action path on SQLite, in this process and over
HTTP; and what the sockets and the actor are sent is still the table as each event left it."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from pathlib import Path

import pytest

from omega.game import Color, Game
from omega.server.clock import FakeClock
from omega.server.infra.db import make_engine
from omega.server.infra.pubsub import Delivery
from omega.server.tables.actions import TurnAction
from omega.server.tables.core import TableCore
from omega.server.tables.identity import AccountAuthenticator, SeatHolder
from omega.server.tables.state import SeatConfig, TableState
from omega.server.tables.store import Repository
from omega.server.tables.values import NewTable
from omega.server.tables.views import with_viewer

from .server_helpers import Api, make_server, random_turn

pytestmark = pytest.mark.timeout(300)

HUMANS2 = (SeatConfig("human"), SeatConfig("human"))


class PlayCount:
    """Counts the turns the rules play, wherever in this process they are played."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.plays = 0
        play = Game.play

        def counted(game: Game, cells: Sequence[str] | dict[Color, str]) -> None:
            self.plays += 1
            play(game, cells)

        monkeypatch.setattr(Game, "play", counted)


def test_every_turn_through_the_action_path_is_played_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    count = PlayCount(monkeypatch)

    async def scenario() -> tuple[list[Delivery], TableState, str]:
        repo = Repository(make_engine(f"sqlite:///{tmp_path / 'omega.db'}"))
        repo.migrate()
        core = TableCore(repo, FakeClock(), AccountAuthenticator())
        try:
            made = await core.create(NewTable(2, 5, False, HUMANS2, creator_seat=0, name="Ann"))
            table_id = made["id"]
            watcher = core.hub.add(table_id, None)  # a socket watches: every event's delivery is made
            rng = random.Random(5)
            turn = 0
            cached = await core.get(table_id)
            while not cached.state.over:
                seat = cached.state.to_move_seat()
                assert seat is not None
                cells = tuple(rng.sample(cached.state.game.empty_cells(), 2))
                before = count.plays
                acted = await core.act(table_id, SeatHolder(seat), TurnAction(cells), request_id=f"r{turn}")
                assert acted is not None
                assert count.plays == before + 1, f"turn {turn} was played {count.plays - before} times"
                # The actor's answer is the view its delivery carried, with the viewer's part.
                assert acted.state == cached.state.view(seat)
                # A retry is answered from the log of requests: nothing is played.
                again = await core.act(table_id, SeatHolder(seat), TurnAction(cells), request_id=f"r{turn}")
                assert again is not None and again.version == acted.version and count.plays == before + 1
                turn += 1
            deliveries = []
            while not watcher.queue.empty():
                item = watcher.queue.get_nowait()
                assert isinstance(item, Delivery)
                deliveries.append(item)
            last = deliveries[-1]
            assert acted.state == with_viewer(last.state, seat) and acted.written.shared is last.state
            return deliveries, cached.state, table_id
        finally:
            core.close()

    deliveries, live, table_id = asyncio.run(scenario())
    # Seat 1's first turn joined it in the same write, and the last turn ended the game: each
    # of those events was delivered with the table as it left it, as a replay of the log says.
    assert [d.event["kind"] for d in deliveries[:3]] == ["turn", "join", "turn"]
    assert [d.event["kind"] for d in deliveries[-2:]] == ["turn", "over"]
    repo = Repository(make_engine(f"sqlite:///{tmp_path / 'omega.db'}"))
    stored = repo.load(table_id)
    repo.engine.dispose()
    assert stored is not None
    replay = TableState(stored.config)
    views = {}
    for e in stored.events:
        views[e.version - 1] = replay.view(viewer=False)
        replay.apply(e)
    views[replay.version] = replay.view(viewer=False)
    assert [d.version for d in deliveries] == list(range(deliveries[0].version, replay.version + 1))
    for d in deliveries:
        assert d.state == views[d.version] and d.before == views[d.version - 1]
    assert replay.view(0) == live.view(0) and replay.requests == live.requests


def test_a_turn_over_http_is_played_once(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    count = PlayCount(monkeypatch)
    live = make_server(sqlite_url, bot=None)
    api = Api(live.url)
    try:
        table = api.create(players=2, size=5)
        tokens = table["invites"]
        rng = random.Random(2)
        state = table["state"]
        for _ in range(4):
            seat = state["game"]["current_seat"]
            before = count.plays
            r = api.act(table["id"], tokens[str(seat)], {"type": "turn", "cells": random_turn(state, rng)})
            assert r.status_code == 200, r.text
            assert count.plays == before + 1
            state = r.json()["state"]
            assert state == api.state(table["id"], tokens[str(seat)])
    finally:
        api.close()
        live.stop()
