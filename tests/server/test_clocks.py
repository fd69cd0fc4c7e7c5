"""Clocks: the arithmetic on a fake clock (increments, the swap, the flag at its very moment,
the log replaying to the same clocks), the server acting when a flag falls (in this process
on a fake clock; in real ``omega serve`` processes on a shared test clock: two processes on
one PostgreSQL database, a restart), and a move racing its flag."""

from __future__ import annotations

import random
import threading
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from omega.server.clock import FakeClock
from omega.server.config import Settings
from omega.server.errors import ApiError
from omega.server.tables.actions import ResignAction, SwapAction, TurnAction
from omega.server.tables.decide import decide, decide_timeout
from omega.server.tables.events import Event, Joined, payload_from
from omega.server.tables.state import RESIGNED_LEVEL, TIMEOUT, SeatConfig, TableConfig, TableState
from omega.server.tables.timecontrol import TimeControl, time_control_config

from .clock_server import advance
from .server_helpers import (
    Api,
    LiveServer,
    PgCluster,
    ServeProcess,
    Socket,
    error_code,
    make_server,
    random_turn,
)

HUMANS2 = (SeatConfig("human"), SeatConfig("human"))
CLOCK_SERVER = Path(__file__).with_name("clock_server.py")


def _table(control: str, seats: tuple[SeatConfig, ...] = HUMANS2, pie: bool = False) -> TableState:
    return TableState(TableConfig("clk", len(seats), 5, pie, "2026-01-01T00:00:00Z", seats, TimeControl.parse(control)))


def _store(state: TableState, events: Sequence[Event], log: list[Event] | None = None) -> None:
    for e in events:
        stored = e.with_version(state.version + 1)
        state.apply(stored)
        if log is not None:
            log.append(stored)


def _join_all(state: TableState, clock: FakeClock, log: list[Event] | None = None) -> None:
    for i, s in enumerate(state.config.seats):
        if s.kind == "human":
            _store(state, [Event(Joined(i), at=clock.now())], log)


def _move(state: TableState, clock: FakeClock, seconds: float, log: list[Event] | None = None,
          seat: int | None = -1) -> Sequence[Event]:
    """The seat to move plays a legal turn after thinking ``seconds``."""
    clock.advance(seconds)
    mover = state.to_move_seat() if seat == -1 else seat
    cells = tuple(state.game.empty_cells()[: state.config.players])
    events = decide(state, mover, TurnAction(cells), clock.now()).events
    _store(state, events, log)
    return events


def _clocks(state: TableState) -> tuple[object, ...]:
    return (state.banks_ms, state.turn_since, state.flag_at(), state.clock_view(), state.moved, state.timed_out,
            state.due_work(), state.end_reason)


# -- the arithmetic ---------------------------------------------------------------------------


def test_time_controls_round_trip_and_refuse_what_is_outside_the_limits() -> None:
    for text in ("untimed", "1+0", "3+2", "5+5", "10+10", "20+0", "180+60", "12h", "1d", "3d", "7d", "1d+30d",
                 "12h+1d"):
        assert TimeControl.parse(text).text == text
        assert TimeControl.parse(TimeControl.parse(text).text) == TimeControl.parse(text)
    assert TimeControl.parse(None) == TimeControl.parse("") == TimeControl.parse("none") == TimeControl()
    for bad in ("0+5", "181+0", "5+61", "2d", "1d+0d", "1d+31d", "5", "5+", "+5", "abc", "5 + 5", "1w"):
        with pytest.raises(ValueError, match="time control"):
            TimeControl.parse(bad)
    config = time_control_config()
    assert [p["text"] for p in config["realtime"]["presets"]] == ["3+2", "5+5", "10+10", "20+0"]
    assert [p["text"] for p in config["turn_based"]["per_move"]] == ["12h", "1d", "3d", "7d"]


def test_fischer_increments_and_the_time_each_move_used() -> None:
    clock = FakeClock()
    t = _table("5+5")
    assert t.clock_seat() is None  # nobody has joined: no clock runs yet
    _join_all(t, clock)
    assert t.clock_seat() == 0 and t.flag_at() == clock.now() + timedelta(minutes=5)
    first = _move(t, clock, 12.5)
    assert first[0].payload.used_ms == 12_500  # type: ignore[union-attr]
    assert t.banks_ms == [300_000 - 12_500 + 5_000, 300_000]
    _move(t, clock, 2.0)
    assert t.banks_ms == [292_500, 303_000]
    # The running clock's deadline: the turn's start plus what the seat has.
    assert t.flag_at() == clock.now() + timedelta(milliseconds=292_500)
    view = t.clock_view()
    assert view is not None and view["left_ms"] == [292_500, 303_000] and view["running"] == 0
    assert view["control"] == "5+5" and view["increment_ms"] == 5000 and view["low_ms"] == 30_000


def test_turn_based_moves_spend_the_reserve_only_past_the_limit() -> None:
    clock = FakeClock()
    t = _table("1d+2d")
    _join_all(t, clock)
    assert t.flag_at() == clock.now() + timedelta(days=3)
    _move(t, clock, 20 * 3600)             # within the day: the reserve is whole
    assert t.banks_ms[0] == 2 * 86_400_000
    _move(t, clock, 60)
    _move(t, clock, 30 * 3600)             # six hours past the day come out of the reserve
    assert t.banks_ms[0] == (48 - 6) * 3_600_000
    view = t.clock_view()
    assert view is not None and view["left_ms"][0] == (24 + 42) * 3_600_000 and view["per_move_ms"] == 86_400_000


def test_the_swap_uses_the_swapping_players_clock() -> None:
    clock = FakeClock()
    t = _table("3+2", pie=True)
    _join_all(t, clock)
    _move(t, clock, 10)                    # White (seat 0) plays the first turn
    clock.advance(7)
    swap = decide(t, 1, SwapAction(), clock.now()).events
    assert swap[0].payload.used_ms == 7000 and swap[0].payload.seat == 1  # type: ignore[union-attr]
    _store(t, swap)
    assert t.banks_ms == [180_000 - 10_000 + 2_000, 180_000 - 7_000 + 2_000]
    # Still Black's turn, now seat 0's: its clock runs from the swap.
    assert t.clock_seat() == 0 and t.turn_since == clock.now()


def test_the_flag_falls_at_its_very_moment() -> None:
    clock = FakeClock()
    t = _table("1+0")
    _join_all(t, clock)
    _move(t, clock, 1)
    _move(t, clock, 1)
    flag = t.flag_at()
    assert flag is not None and flag == clock.now() + timedelta(seconds=59)
    just_before = flag - timedelta(microseconds=1)
    cells = TurnAction(tuple(t.game.empty_cells()[:2]))
    assert decide_timeout(t, just_before).events == () and not t.flag_fallen(just_before)
    assert decide(t, 0, cells, just_before).events[0].payload.used_ms == 58_999  # type: ignore[union-attr]
    # At the flag's moment it is too late, for a turn as for a resignation, and the timeout
    # is what happens instead.
    for action in (cells, ResignAction()):
        with pytest.raises(ApiError) as info:
            decide(t, 0, action, flag)
        assert info.value.code == "too_late" and "your time ran out" in info.value.message
    with pytest.raises(ApiError) as info:
        decide(t, 1, ResignAction(), flag)
    assert info.value.code == "too_late" and "White's time ran out" in info.value.message
    events = decide_timeout(t, flag).events
    assert [e.kind for e in events] == ["timeout", "over"]
    _store(t, events)
    assert t.over and t.end_reason == "timeout" and t.view()["game"]["winner"] == "Black"
    assert t.record_tags()["Outcome"] == "Black wins on time" and t.record_tags()["TimedOut"] == "White"
    assert t.record_tags()["TimeControl"] == "1+0"
    assert t.view()["seats"][0]["timed_out"] and not t.view()["seats"][0]["resigned"]
    assert t.due_work() == {}


def test_a_seat_that_never_moved_aborts_the_game() -> None:
    clock = FakeClock()
    t = _table("1+0")
    _join_all(t, clock)
    _move(t, clock, 3)                     # White moves; Black never does
    clock.advance(60)
    events = decide_timeout(t, clock.now()).events
    assert [(e.kind, getattr(e.payload, "reason", None)) for e in events] == [("timeout", None), ("over", "aborted")]
    _store(t, events)
    assert t.over and t.aborted and t.end_reason == "aborted"
    assert t.record_tags()["Outcome"] == "Aborted: Black made no first move in time"


def test_with_three_players_the_seat_out_of_time_ranks_last_and_the_computer_plays_it() -> None:
    clock = FakeClock()
    t = _table("1+0", (SeatConfig("human"), SeatConfig("human"), SeatConfig("computer", 2)))
    _join_all(t, clock)
    _move(t, clock, 1)
    _move(t, clock, 1)
    assert t.clock_seat() is None and t.computer_to_move()  # a computer seat has no clock
    _move(t, clock, 5, seat=None)
    assert t.clock_seat() == 0 and t.turn_since == clock.now()  # White's turn began with the computer's
    assert t.banks_ms == [59_000, 59_000, 60_000] and t.clock_view()["left_ms"][2] is None  # type: ignore[index]
    clock.advance(59)
    events = decide_timeout(t, clock.now()).events
    assert [e.kind for e in events] == ["timeout"]  # two players are still in: the game goes on
    _store(t, events)
    assert not t.over and t.computer_to_move() and t.computer_level() == RESIGNED_LEVEL
    assert t.due_work() == {"computer": t.play_version}
    _move(t, clock, 1, seat=None)          # the computer plays White's turn
    assert t.clock_seat() == 1
    assert t.view()["game"]["ranking"][-1] == "White" and t.view()["game"]["timed_out"] == ["White"]
    with pytest.raises(ApiError) as info:
        decide(t, 0, ResignAction(), clock.now())
    assert info.value.code == "forbidden" and "time ran out" in info.value.message


def test_the_first_turn_waits_for_everyone_to_join() -> None:
    clock = FakeClock()
    t = _table("3+2")
    _store(t, [Event(Joined(0), at=clock.now())])
    assert t.clock_seat() is None and TIMEOUT not in t.due_work()
    clock.advance(600)                     # the friend takes ten minutes to open the invite
    _store(t, [Event(Joined(1), at=clock.now())])
    assert t.flag_at() == clock.now() + timedelta(minutes=3) and t.due_work() == {TIMEOUT: t.play_version}
    assert t.due_at(TIMEOUT) == t.flag_at()


def test_the_log_replays_to_the_same_clocks() -> None:
    for seed in range(4):
        rng = random.Random(seed)
        clock = FakeClock()
        live = _table(rng.choice(["3+2", "1d+3d", "10+10"]), (SeatConfig("human"), SeatConfig("human"),
                                                               SeatConfig("computer", 1)))
        log: list[Event] = []
        _join_all(live, clock, log)
        while not live.over and len(log) < 30:
            seat = None if live.computer_to_move() else live.to_move_seat()
            _move(live, clock, rng.uniform(0.1, 20), log, seat=seat)
            if len(log) == 12:
                flag = live.flag_at()
                assert flag is not None
                clock.advance((flag - clock.now()).total_seconds())
                _store(live, decide_timeout(live, clock.now()).events, log)
        replayed = TableState(live.config)
        for e in log:
            # Through the stored form, as a restart reads the log.
            replayed.apply(Event(payload_from(e.kind, e.data), version=e.version, at=e.at))
        assert _clocks(replayed) == _clocks(live) and replayed.view(0) == live.view(0)


def test_events_stored_before_clocks_existed_still_load() -> None:
    assert payload_from("turn", {"seat": 0, "color": "White", "cells": ["e5", "a1"], "computer": False}).used_ms is None
    with pytest.raises(ValueError, match="fields"):
        payload_from("turn", {"seat": 0, "color": "White", "cells": ["e5"], "computer": False, "spare": 1})


# -- the server, in this process, on a fake clock ------------------------------------------------


@pytest.fixture
def fake_clock() -> FakeClock:
    return FakeClock(datetime.now(UTC))


@pytest.fixture
def timed_server(db_url: str, fake_clock: FakeClock) -> Any:
    live = make_server(db_url, clock=fake_clock, settings=Settings(sweep_interval=0.05))
    try:
        yield live
    finally:
        live.stop()


def _two_player_table(api: Api, control: str) -> tuple[str, list[str], str]:
    t = api.create(players=2, time_control=control)
    tokens = [t["invites"]["0"], t["invites"]["1"]]
    api.state(t["id"], tokens[1])         # Black opens the invite: the first turn's clock starts
    return t["id"], tokens, t["spectator_key"]


def test_the_api_takes_and_shows_the_time_control(api: Api) -> None:
    config = api.http.get("/api/config").json()["time_controls"]
    assert config["default"] == "untimed" and config["realtime"]["base_minutes"] == {"min": 1, "max": 180}
    t = api.create(players=2, time_control="5+5")
    assert t["state"]["clock"]["control"] == "5+5" and t["state"]["clock"]["running"] is None
    assert api.create(players=2)["state"]["clock"] is None
    for bad in ("0+1", "5+5+5", "9d", 5):
        r = api.http.post("/api/tables", json={"players": 2, "time_control": bad})
        assert r.status_code == 400 and error_code(r) == "bad_request", r.text
    r = api.http.get(f"/api/tables/{t['id']}/record.txt", params={"token": t["token"]})
    assert "TimeControl: 5+5" in r.text


def test_the_server_acts_when_the_flag_falls(timed_server: LiveServer, fake_clock: FakeClock) -> None:
    api = Api(timed_server.url)
    try:
        tid, tokens, spectator = _two_player_table(api, "1+0")
        api.turn(tid, tokens[0], ["e5", "a1"])
        state = api.turn(tid, tokens[1], ["e4", "a2"])["state"]
        watch = Socket(timed_server.ws_url, tid, spectator)
        try:
            sync = watch.until(lambda m: m["type"] == "sync")
            assert sync["server_time"].endswith("Z") and sync["state"]["clock"]["running"] == 0
            flag = datetime.fromisoformat(state["clock"]["flag_at"])
            fake_clock.advance((flag - fake_clock.now()).total_seconds() - 0.001)
            watch.send({"type": "ping"})
            assert watch.until(lambda m: m["type"] == "pong")["type"] == "pong"  # nothing fell yet
            assert not any(m["type"] == "event" for m in watch.received)
            fake_clock.advance(0.002)  # past the flag (the fake clock counts in float seconds)
            out = watch.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "over")
            assert out["event"]["reason"] == "timeout" and out["event"]["winner"] == "Black"
            assert out["state"]["end_reason"] == "timeout" and out["state"]["seats"][0]["timed_out"]
            kinds = [m["event"]["kind"] for m in watch.received if m["type"] == "event"]
            assert kinds == ["timeout", "over"]
        finally:
            watch.close()
        r = api.act(tid, tokens[0], {"type": "turn", "cells": ["e3", "a3"]})
        assert r.status_code == 409 and error_code(r) == "game_over"
    finally:
        api.close()


def test_a_confirm_racing_the_flag_is_kept_or_refused_never_both(timed_server: LiveServer,
                                                                 fake_clock: FakeClock) -> None:
    """The move and the flag race for the table's single writer: each time the move is either
    acknowledged and stays in the game (the clock goes on), or refused as too late (or as
    game over, when the scheduler's timeout got in first) and the timeout is stored."""
    api = Api(timed_server.url)
    outcomes: set[str] = set()
    try:
        for n in range(8):
            tid, tokens, _ = _two_player_table(api, "1+0")
            api.turn(tid, tokens[0], ["e5", "a1"])
            state = api.turn(tid, tokens[1], ["e4", "a2"])["state"]
            flag = datetime.fromisoformat(state["clock"]["flag_at"])
            fake_clock.advance((flag - fake_clock.now()).total_seconds() - 0.002)
            answer: dict[str, Any] = {}
            cells = random_turn(state, random.Random(n))
            mover = threading.Thread(target=lambda a=answer, t=tid, tok=tokens[0], c=cells: a.update(
                r=api.act(t, tok, {"type": "turn", "cells": c})))
            mover.start()
            for _ in range(n % 4):
                threading.Event().wait(0.001)  # spread the moment the flag falls over the request
            fake_clock.advance(0.004)
            mover.join(30)
            r = answer["r"]
            final = api.state(tid, tokens[1])
            history = final["game"]["history"]
            if r.status_code == 200:
                outcomes.add("kept")
                assert len(history) == 3 and final["status"] == "playing" and not final["seats"][0]["timed_out"]
                assert final["clock"]["running"] == 1  # Black's clock runs on
            else:
                outcomes.add(error_code(r))
                assert error_code(r) in ("too_late", "game_over"), r.text
                assert len(history) == 2 and final["end_reason"] == "timeout" and final["seats"][0]["timed_out"]
        assert outcomes <= {"kept", "too_late", "game_over"} and outcomes & {"too_late", "game_over"}
    finally:
        api.close()


# -- real server processes on a shared test clock ----------------------------------------------------


class ClockServe(ServeProcess):
    """``omega serve`` on the clock in ``clock_file`` (``clock_server.py``)."""

    def __init__(self, db: str, clock_file: Path, port: int | None = None) -> None:
        import sys

        super().__init__(db, port=port, program=(sys.executable, str(CLOCK_SERVER), str(clock_file)))


def _timed_tables(api: Api, n: int, control: str) -> list[tuple[str, list[str], str]]:
    """``n`` 2-player tables where both players have moved once: White's clock runs."""
    out = []
    for _ in range(n):
        tid, tokens, spectator = _two_player_table(api, control)
        api.turn(tid, tokens[0], ["e5", "a1"])
        api.turn(tid, tokens[1], ["e4", "a2"])
        out.append((tid, tokens, spectator))
    return out


def test_timeouts_fire_once_across_two_processes_on_postgres(pg: PgCluster, tmp_path: Path) -> None:
    url = pg.new_database()
    clock_file = tmp_path / "clock"
    a, b = ClockServe(url, clock_file), ClockServe(url, clock_file)
    a.ready()
    b.ready()
    api_a, api_b = Api(a.url), Api(b.url)
    try:
        tables = _timed_tables(api_a, 6, "1+0")
        # Half the sockets on each process: each process pushes what the other stored.
        watches = [Socket((a if i % 2 else b).ws_url, tid, spectator) for i, (tid, _, spectator) in enumerate(tables)]
        try:
            for w in watches:
                assert w.recv()["type"] == "sync"
            advance(clock_file, 61)
            for w in watches:
                over = w.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "over")
                assert over["event"]["reason"] == "timeout"
        finally:
            for w in watches:
                w.close()
        for tid, tokens, _ in tables:
            r = api_b.http.get(f"/api/tables/{tid}/record.json", params={"token": tokens[0]})
            assert r.json()["tags"]["TimedOut"] == "White"
        # Each timeout was claimed and stored by one process, once.
        lines = [line for p in (a, b) for line in p.log if "ran out at table" in line]
        assert sorted(line.split("at table ")[1].split(";")[0] for line in lines) == sorted(t[0] for t in tables)
    finally:
        api_a.close()
        api_b.close()
        a.stop()
        b.stop()


def test_a_timeout_due_while_the_server_was_down_fires_after_the_restart(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'data' / 'omega.sqlite3'}"
    clock_file = tmp_path / "clock"
    serve = ClockServe(db, clock_file)
    serve.ready()
    api = Api(serve.url)
    try:
        ((tid, tokens, spectator),) = _timed_tables(api, 1, "3+2")
        state = api.state(tid, tokens[0])
        assert state["clock"]["running"] == 0
    finally:
        api.close()
        serve.stop()
    advance(clock_file, 3 * 60 + 5)        # the flag fell while no server ran
    serve = ClockServe(db, clock_file, port=serve.port)
    serve.ready()
    watch = Socket(serve.ws_url, tid, spectator, base=state)
    try:
        over = watch.until(lambda m: m["type"] in ("event", "sync") and m["state"]["status"] == "over")
        assert over["state"]["end_reason"] == "timeout" and over["state"]["game"]["winner"] == "Black"
    finally:
        watch.close()
        serve.stop()
