"""The table's pure core: decisions take the time, events carry it, and replaying the stored
log rebuilds the same table, times included.  No server, no real clock."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest

from omega.server.clock import FakeClock
from omega.server.errors import ApiError
from omega.server.infra.db import make_engine
from omega.server.tables.actions import ResignAction, SwapAction, TurnAction
from omega.server.tables.decide import decide
from omega.server.tables.events import Event, Joined, PresenceChanged, Renamed, payload_from
from omega.server.tables.identity import TableKeys
from omega.server.tables.state import COMPUTER_TURN, PresenceCount, SeatConfig, TableConfig, TableState
from omega.server.tables.store import Repository, Write, Writer

CONFIG = TableConfig("tbl1", players=3, size=5, pie_rule=False, created_at="2026-01-01T00:00:00Z",
                     seats=(SeatConfig("human"), SeatConfig("human"), SeatConfig("computer", 2)))


def _play_random(state: TableState, clock: FakeClock, rng: random.Random, turns: int) -> list[Event]:
    """Decide and apply ``turns`` actions (random legal turns, a resignation, names), the
    clock moving on between them; returns the stored events."""
    log: list[Event] = []

    def store(events: Sequence[Event]) -> None:
        for e in events:
            stored = e.with_version(state.version + 1)
            state.apply(stored)
            log.append(stored)

    store([Event(Joined(0), at=clock.now()), Event(Renamed(0, "Ann"), at=clock.now())])
    for n in range(turns):
        clock.advance(rng.uniform(0.5, 30))
        if state.over:
            break
        if n == 3:
            store(decide(state, 1, ResignAction(), clock.now()).events)
            continue
        mover = state.to_move_seat()
        seat = None if state.computer_to_move() else mover
        cells = rng.sample(state.game.empty_cells(), state.config.players)
        store(decide(state, seat, TurnAction(tuple(cells)), clock.now()).events)
        if n % 2:
            store([Event(PresenceChanged(0, connected=n % 4 == 1, connections=n % 4 == 1), at=clock.now())])
    return log


def _picture(state: TableState) -> tuple[object, ...]:
    return (state.view(0), state.version, state.play_version, state.updated_at, state.due_work(),
            state.resigned, state.requests)


def test_decide_stamps_events_with_the_time_it_is_given_and_changes_nothing() -> None:
    state = TableState(CONFIG)
    now = datetime(2026, 5, 6, 7, 8, 9, tzinfo=UTC)
    before = _picture(state)
    events = decide(state, 0, TurnAction(("e5", "a1", "i9")), now).events
    assert [e.kind for e in events] == ["turn"] and events[0].at == now
    assert _picture(state) == before  # deciding is not applying
    for seat, action, code in ((1, TurnAction(("e5", "a1", "i9")), "not_your_turn"),
                               (0, TurnAction(("e5", "e5", "i9")), "illegal_move"),
                               (0, SwapAction(), "illegal_move"),
                               (2, ResignAction(), "forbidden"),
                               (None, TurnAction(("e5", "a1", "i9")), "not_your_turn")):
        with pytest.raises(ApiError) as info:
            decide(state, seat, action, now)
        assert info.value.code == code
        assert _picture(state) == before  # a refused action changes nothing


def test_the_log_replays_to_the_same_table_times_included() -> None:
    for seed in range(5):
        rng = random.Random(seed)
        clock = FakeClock()
        live = TableState(CONFIG)
        log = _play_random(live, clock, rng, 12)
        replayed = TableState(CONFIG)
        for e in log:
            replayed.apply(e)
        assert _picture(replayed) == _picture(live)
        assert live.updated_at == log[-1].at and live.updated_at is not None
        assert live.updated_at > datetime(2026, 1, 1, tzinfo=UTC)


def test_taking_a_trial_is_applying_its_events() -> None:
    # The action path applies a decided event to a copy (to store the row's derived columns)
    # and the cache then takes that copy: the same table as applying the event itself.
    for seed in range(5):
        log = _play_random(TableState(CONFIG), FakeClock(), random.Random(seed), 12)
        applied, taken = TableState(CONFIG), TableState(CONFIG)
        for i, e in enumerate(log):
            applied.apply(e)
            taken.set_presence(PresenceCount(2 * i + 1, {0: i % 2}))  # live counts change apart from the events
            applied.set_presence(PresenceCount(2 * i + 1, {0: i % 2}))
            trial = taken.copy()
            trial.set_presence(PresenceCount(2 * i + 2, {0: 5}))  # a stale count in the trial is not taken
            trial.apply(e)
            taken.take(trial)
            assert _picture(taken) == _picture(applied)
        assert taken.requests == applied.requests and taken.game is not applied.game


def test_stored_events_come_back_typed_with_their_times() -> None:
    repo = Repository(make_engine("sqlite://"))
    repo.migrate()
    clock = FakeClock(datetime(2026, 3, 1, 12, 0, tzinfo=UTC))
    live = TableState(CONFIG)
    repo.create_table(CONFIG, TableKeys((None, None, None), "s" * 64))
    log = _play_random(live, clock, random.Random(7), 10)
    def store(w: Writer | None) -> list[Event]:
        assert w is not None
        return w.append([e.with_version(0) for e in log], status=live.status, to_move_seat=live.to_move_seat())

    repo.write_many([Write(CONFIG.id, store, lambda _: None)])
    stored = repo.load(CONFIG.id)
    assert stored is not None
    assert [(e.payload, e.version, e.at) for e in stored.events] == [(e.payload, e.version, e.at) for e in log]
    replayed = TableState(stored.config)
    for e in stored.events:
        replayed.apply(e)
    assert _picture(replayed) == _picture(live)
    repo.engine.dispose()


def test_due_work_follows_the_play_version() -> None:
    state = TableState(CONFIG)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert state.due_work() == {}
    for seat in (0, 1):
        cells = [c for c in state.game.empty_cells()][:3]
        for e in decide(state, seat, TurnAction(tuple(cells)), now).events:
            state.apply(e.with_version(state.version + 1))
    assert state.computer_to_move() and state.due_work() == {COMPUTER_TURN: state.play_version}
    # A player coming or going does not make the computer's turn a new piece of work.
    state.apply(Event(PresenceChanged(0, True, 1), version=state.version + 1, at=now + timedelta(seconds=1)))
    assert state.due_work() == {COMPUTER_TURN: state.play_version} and state.play_version < state.version


def test_unknown_or_malformed_stored_events_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown event kind"):
        payload_from("teleport", {"seat": 0})
    with pytest.raises(ValueError, match="fields"):
        payload_from("name", {"seat": 0})


def test_a_presence_count_read_earlier_changes_nothing_when_it_arrives_later() -> None:
    # Bob's socket opens just after Ann's; on PostgreSQL the two counts are read in that
    # order (the table's row is locked) but may come back in either order.  Taking the late
    # arrival of the earlier count would show Bob absent while his socket is open.
    state = TableState(CONFIG)
    ann_opened, bob_opened = PresenceCount(1, {0: 1}), PresenceCount(2, {0: 1, 1: 1})
    assert state.set_presence(bob_opened)
    assert not state.set_presence(ann_opened)
    assert state.connected() == (True, True, True)
    assert state.set_presence(PresenceCount(3, {1: 1}))  # Ann leaves: newer news is taken
    assert state.connected() == (False, True, True)
