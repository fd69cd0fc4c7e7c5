"""Ratings that cannot be farmed, over real HTTP and WebSocket round trips on SQLite and
PostgreSQL (issue 29, findings 2 and 8): a rated game aborted by a resignation or a flag
before each player made ``MIN_RATED_TURNS`` turns rates nobody and says so; games between
the same two accounts past ``PAIR_DAILY_GAMES`` a day are stored unrated; accounts of a
shared origin meeting at a rated table leave a flag for moderators."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

import pytest

from omega.server.clock import FakeClock
from omega.server.errors import ApiError
from omega.server.ratings.service import PAIR_DAILY_GAMES, PAIR_WINDOW, rated_users, unrated_reason
from omega.server.tables.actions import ResignAction, TurnAction
from omega.server.tables.decide import decide, decide_timeout
from omega.server.tables.events import Event, Joined
from omega.server.tables.state import MIN_RATED_TURNS, SeatConfig, TableConfig, TableState
from omega.server.tables.timecontrol import TimeControl

from .server_helpers import LiveServer
from .site_helpers import (
    Browser,
    agreed_rematch,
    browser_at,
    counted_duel,
    open_table,
    rated_duel,
    ratings_in,
    resign,
    rows,
    seats_by_user,
    state_of,
    table_socket,
    take_turns,
)


def unrated(url: str) -> dict[str, str]:
    return {t: r for t, r in rows(url, "SELECT table_id, reason FROM unrated_games")}


def leaderboard(b: Browser) -> dict[str, Any]:
    r = b.get("/api/ratings/2")
    assert r.status_code == 200, r.text
    return {e["username"]: e for e in r.json()["ratings"]}


# -- finding 2: farming by resigning at once ----------------------------------------------------------

def test_resigning_before_the_game_counts_farms_nothing(site: LiveServer, people: Any, db_url: str) -> None:
    """The attack of finding 2: A opens a rated table, B takes it and resigns before moving,
    12 times.  Each game is aborted, names no winner, and rates nobody: A has no rating (not
    on the leaderboard), and B none either."""
    farmer, feeder = people("farmer"), people("feeder")
    tables = []
    for _ in range(12):
        table_id = rated_duel(farmer, feeder)
        tables.append(table_id)
        st = resign(feeder, table_id)
        assert st["status"] == "over" and st["end_reason"] == "aborted"
        assert st["game"]["winner"] is None and st["game"]["tiebreak"] is False
    assert leaderboard(farmer) == {}
    assert farmer.get("/api/users/farmer/ratings").json()["ratings"] == {}
    assert ratings_in(db_url) == []
    # Each one is recorded as not counted, and says so on the profile.
    assert unrated(db_url) == dict.fromkeys(tables, "aborted")
    games = farmer.get("/api/users/farmer/ratings").json()["games"]
    assert {g["id"] for g in games} == set(tables)
    assert all(g["rating"] is None and g["reason"] == "aborted" and g["unrated"] == "aborted" for g in games)
    # The record says why it ended, and names no winner.
    record = farmer.get(f"/api/tables/{tables[0]}/record.json").json()
    assert record["tags"]["Outcome"].startswith("Aborted: ") and "resigned before the game counted" in \
        record["tags"]["Outcome"]


def test_a_resignation_after_the_minimum_counts(site: LiveServer, people: Any, db_url: str) -> None:
    rng = random.Random(2)
    ann, bob = people("ann"), people("bob")
    # One turn short of the minimum for Bob: still aborted.
    short = rated_duel(ann, bob)
    by_seat = seats_by_user([ann, bob], short)
    take_turns(by_seat, short, 2 * MIN_RATED_TURNS - 1, rng)
    assert resign(bob, short)["end_reason"] == "aborted"
    # Each made the minimum: a resignation, rated.
    full = rated_duel(ann, bob)
    take_turns(seats_by_user([ann, bob], full), full, 2 * MIN_RATED_TURNS, rng)
    st = resign(bob, full)
    assert st["end_reason"] == "resignation" and st["game"]["winner"] == st["seats"][st["you"]["seat"] ^ 1]["color"]
    board = leaderboard(ann)
    assert board["ann"]["games"] == board["bob"]["games"] == 1 and board["ann"]["display"] > board["bob"]["display"]
    assert unrated(db_url) == {short: "aborted"}


# -- finding 8: resigning at once in a rematch -----------------------------------------------------------

def test_resigning_at_once_in_a_rematch_is_aborted_and_unrated(site: LiveServer, people: Any,
                                                               db_url: str) -> None:
    rng = random.Random(8)
    ann, bob = people("ann"), people("bob")
    first = counted_duel(ann, bob, rng)
    before = ratings_in(db_url)
    assert len(before) == 2 + 2  # two ratings, two changes
    started = agreed_rematch(table_socket(site, ann, first), table_socket(site, bob, first))
    again = started["table"]["id"]
    st = state_of(ann, again)
    assert st["rated"] and st["status"] == "playing" and st["game"]["history"] == []
    watch = table_socket(site, bob, again)
    try:
        watch.until(lambda m: m["type"] == "sync")
        resign(ann, again)  # before any move
        resigned = watch.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "resign")
        assert resigned["event"]["aborted"] is True
        out = watch.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "over")
        assert out["event"]["reason"] == "aborted"
        assert out["state"]["end_reason"] == "aborted" and out["state"]["game"]["winner"] is None
    finally:
        watch.close()
    assert ratings_in(db_url) == before
    assert unrated(db_url) == {again: "aborted"}
    assert [h["table_id"] for h in ann.get("/api/users/ann/ratings").json()["history"]] == [first]


# -- the flag before the minimum ---------------------------------------------------------------------------

def test_a_flag_before_the_minimum_aborts_a_rated_game(site: LiveServer, people: Any, db_url: str,
                                                        clock: FakeClock) -> None:
    """At a casual table a flag after each player's first turn loses on time
    (tests/server/test_clocks.py); at a rated one it aborts the game, unrated."""
    rng = random.Random(3)
    ann, bob = people("ann"), people("bob")
    table_id = str(open_table(ann, rated=True, time_control="1+0")["id"])
    assert bob.post(f"/api/lobby/tables/{table_id}/take", {}).status_code == 200
    take_turns(seats_by_user([ann, bob], table_id), table_id, 2, rng)  # one turn each
    watch = table_socket(site, ann, table_id)
    try:
        watch.until(lambda m: m["type"] == "sync")
        clock.advance(61)
        flagged = watch.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "timeout", timeout=30)
        assert flagged["event"]["aborted"] is True
        out = watch.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "over")
        assert out["event"]["reason"] == "aborted" and out["state"]["game"]["winner"] is None
    finally:
        watch.close()
    assert ratings_in(db_url) == [] and unrated(db_url) == {table_id: "aborted"}
    record = ann.get(f"/api/tables/{table_id}/record.json").json()
    assert "ran out of time before the game counted" in record["tags"]["Outcome"]


# -- the pair limit ------------------------------------------------------------------------------------------

def test_games_of_one_pair_past_the_daily_limit_are_unrated(site: LiveServer, people: Any, db_url: str,
                                                             clock: FakeClock) -> None:
    rng = random.Random(4)
    ann, bob, cy = people("ann"), people("bob"), people("cyd")
    played = [counted_duel(ann, bob, rng) for _ in range(PAIR_DAILY_GAMES + 2)]
    board = leaderboard(ann)
    assert board["ann"]["games"] == board["bob"]["games"] == PAIR_DAILY_GAMES
    assert board["ann"]["provisional"]
    assert unrated(db_url) == dict.fromkeys(played[PAIR_DAILY_GAMES:], "pair_limit")
    games = {g["id"]: g for g in ann.get("/api/users/ann/ratings").json()["games"]}
    assert games[played[-1]]["rating"] is None and games[played[-1]]["unrated"] == "pair_limit"
    assert games[played[0]]["rating"] is not None and games[played[0]]["unrated"] is None
    # Another pair is not held back by it: Ann against Cy counts.
    counted_duel(cy, ann, rng)
    assert leaderboard(ann)["ann"]["games"] == PAIR_DAILY_GAMES + 1
    # A day after the first counted games, the pair may count again.
    clock.advance(PAIR_WINDOW.total_seconds() + 1)
    later = counted_duel(ann, bob, rng)
    assert leaderboard(ann)["bob"]["games"] == PAIR_DAILY_GAMES + 1 and later not in unrated(db_url)


def test_three_players_count_every_pair_at_the_table(site: LiveServer, people: Any, db_url: str) -> None:
    """At 3 players every two accounts are a pair: once Ann and Bob have had their games of
    the day, a game of the three does not count (a third account does not launder it)."""
    rng = random.Random(5)
    ann, bob, cy = people("ann"), people("bob"), people("cyd")
    for _ in range(PAIR_DAILY_GAMES):
        counted_duel(ann, bob, rng)
    trio = str(open_table(cy, rated=True, players=3)["id"])
    for b in (ann, bob):
        assert b.post(f"/api/lobby/tables/{trio}/take", {}).status_code == 200
    by_seat = seats_by_user([ann, bob, cy], trio)
    take_turns(by_seat, trio, 3 * MIN_RATED_TURNS, rng)
    resign(by_seat[0], trio)
    resign(by_seat[1], trio)
    assert state_of(cy, trio)["end_reason"] == "resignation"
    assert unrated(db_url) == {trio: "pair_limit"}
    assert cy.get("/api/ratings/3").json()["total"] == 0


# -- shared origins --------------------------------------------------------------------------------------------

def flags(url: str) -> list[tuple[str, str, str, str]]:
    return sorted((str(t), str(u), str(o), str(r)) for t, u, o, r in rows(
        url, "SELECT f.table_id, u.username, o.username, f.reason FROM fair_play_flags f "
             "JOIN users u ON u.id = f.user_id JOIN users o ON o.id = f.other_id"))


def test_accounts_of_a_shared_origin_meeting_at_a_rated_table_are_flagged(site: LiveServer, people: Any,
                                                                          db_url: str) -> None:
    rng = random.Random(6)
    # Made from one address, together: every game they play rated is flagged, counted or not.
    farmer, feeder = people("farmer", "127.0.0.2"), people("feeder", "127.0.0.2")
    aborted = rated_duel(farmer, feeder)
    resign(feeder, aborted)
    assert flags(db_url) == [(aborted, "farmer", "feeder", "made_together"),
                             (aborted, "farmer", "feeder", "same_address")]
    # Strangers, from two addresses: no flag, and the game counts as usual.
    ann, bob = people("ann", "127.0.0.3"), people("bob", "127.0.0.4")
    fair = counted_duel(ann, bob, rng)
    assert [f for f in flags(db_url) if f[0] == fair] == []
    assert leaderboard(ann)["ann"]["games"] == 1
    # Bob logs in from Ann's address too: both have a live session from one place.
    bob_here = browser_at(site, "127.0.0.3")
    try:
        assert bob_here.login("bob").status_code == 200
        shared = counted_duel(ann, bob_here, rng)
    finally:
        bob_here.close()
    assert [f for f in flags(db_url) if f[0] == shared] == [(shared, "ann", "bob", "same_address")]
    assert leaderboard(ann)["ann"]["games"] == 2  # flagged for a moderator, rated as usual
    # A casual table is never flagged: nothing to farm there.
    casual = str(open_table(farmer)["id"])
    assert feeder.post(f"/api/lobby/tables/{casual}/take", {}).status_code == 200
    resign(feeder, casual)
    assert [f for f in flags(db_url) if f[0] == casual] == []


def test_the_moderators_read_of_flags(site: LiveServer, people: Any) -> None:
    farmer, feeder = people("farmer"), people("feeder")
    table_id = rated_duel(farmer, feeder)
    resign(feeder, table_id)
    read = site.app.state.ratings.flags(10)
    assert [(f["table_id"], f["users"], f["reason"]) for f in read] == [
        (table_id, ["farmer", "feeder"], "same_address"), (table_id, ["farmer", "feeder"], "made_together")]
    assert read[0]["at"].endswith("Z")
    assert site.app.state.ratings.flags(10, before=read[-1]["id"]) == []
    assert site.app.state.ratings.not_counted(table_id) == "aborted"


# -- the rules, table by table ------------------------------------------------------------------------------------

T0 = datetime(2027, 1, 1, tzinfo=UTC)


def _started(players: int, rated: bool) -> TableState:
    """A timed table of ``players`` people, each joined."""
    t = TableState(TableConfig("t", players, 5, False, "", (SeatConfig("human"),) * players,
                               TimeControl.parse("1+0"), rated=rated))
    for i in range(players):
        t.apply(Event(Joined(i), at=T0).with_version(t.version + 1))
    return t


def _play(t: TableState, turns: int) -> None:
    """The people to move play ``turns`` turns."""
    for _ in range(turns):
        cells = TurnAction(tuple(t.game.empty_cells()[: t.config.players]))
        for e in decide(t, t.to_move_seat(), cells, T0).events:
            t.apply(e)


def test_at_three_players_an_early_resignation_aborts_the_whole_rated_game() -> None:
    rated, casual = _started(3, True), _started(3, False)
    for t in (rated, casual):
        _play(t, 3)  # one turn each
    events = decide(rated, 1, ResignAction(), T0).events
    assert [(e.kind, getattr(e.payload, "aborted", None) or getattr(e.payload, "reason", None)) for e in events] \
        == [("resign", True), ("over", "aborted")]
    # At a casual table the computer plays on for the resigner, as before.
    assert [e.kind for e in decide(casual, 1, ResignAction(), T0).events] == ["resign"]
    for e in events:
        rated.apply(e)
    assert rated.over and rated.end_reason == "aborted" and rated.aborted_seat == 1
    assert rated.view()["game"]["winner"] is None and rated.due_work() == {}
    assert rated.record_tags()["Outcome"] == "Aborted: Black resigned before the game counted"
    assert unrated_reason(rated, "aborted") == "aborted" and rated_users(rated, "aborted", [1, 2, 3]) is None
    with pytest.raises(ApiError) as info:
        decide(rated, 2, ResignAction(), T0)
    assert info.value.code == "game_over"


def test_the_minimum_is_turns_each_person_made_not_the_computer() -> None:
    t = _started(2, True)
    _play(t, 2 * MIN_RATED_TURNS - 1)
    assert t.short_of_minimum() and t.turns_made == [MIN_RATED_TURNS, MIN_RATED_TURNS - 1]
    _play(t, 1)
    assert not t.short_of_minimum()
    events = decide(t, t.to_move_seat(), ResignAction(), T0).events
    assert [getattr(e.payload, "reason", None) for e in events] == [None, "resignation"]
    # A flag once the minimum is made loses on time, as at a casual table.
    flagged = decide_timeout(t, T0.replace(year=2028)).events
    assert [getattr(e.payload, "reason", None) for e in flagged] == [None, "timeout"]
