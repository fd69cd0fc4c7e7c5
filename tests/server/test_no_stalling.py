"""No game anybody can stall (issue 29, finding 7), over real HTTP and WebSocket round trips
on SQLite and PostgreSQL, on a fake clock: every rated game has a clock (a rated lobby
table without one is refused; quick play and rematches make timed rated games whose first
clock runs from the start), and at an untimed casual table the player kept waiting by a
person who is gone may claim that seat: refused too early, while that person is at the
table, at a timed table, and by anyone not kept waiting; accepted after the wait, the game
ending or going on as after a resignation."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import datetime
from typing import Any

from omega.server.clock import FakeClock
from omega.server.social.rematch import rematch_config
from omega.server.tables.state import CLAIM_AFTER, MIN_RATED_TURNS, SeatConfig, TableConfig
from omega.server.tables.timecontrol import QUICKPLAY_DEFAULT, REALTIME_PRESETS, TimeControl

from .server_helpers import Api, LiveServer, Socket, error_code
from .site_helpers import (
    agreed_rematch,
    rated_duel,
    resign,
    seats_by_user,
    state_of,
    table_socket,
    tables_stored,
    take_turns,
)


def in_play(state: dict[str, Any]) -> dict[str, Any]:
    """A table state less who is connected (live state, counted as sockets come and go)."""
    return {**state, "seats": [{k: v for k, v in seat.items() if k != "connected"} for seat in state["seats"]]}


def stamp(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


# -- every rated game has a clock ------------------------------------------------------------------

def test_a_rated_lobby_table_without_a_clock_is_refused_and_stores_nothing(site: LiveServer, people: Any,
                                                                         db_url: str) -> None:
    ann = people("ann")
    before = tables_stored(db_url)
    for body in ({"players": 2, "rated": True}, {"players": 3, "rated": True, "time_control": "untimed"}):
        r = ann.post("/api/lobby/tables", body)
        assert r.status_code == 400 and error_code(r) == "clock_required", r.text
        assert "needs a time control" in r.json()["error"]["message"]
    assert tables_stored(db_url) == before
    assert ann.get("/api/lobby").json()["tables"] == []
    # A clock of either kind makes it a rated table; a casual one may still be untimed.
    for body in ({"players": 2, "rated": True, "time_control": "3+2"}, {"players": 2, "rated": True,
                                                                         "time_control": "1d"},
                 {"players": 2, "rated": False}):
        r = ann.post("/api/lobby/tables", body)
        assert r.status_code == 201, r.text
        assert (r.json()["state"]["clock"] is not None) == body["rated"]


def test_quick_play_makes_rated_games_with_the_clock_the_players_chose(site: LiveServer, people: Any,
                                                                       clock: FakeClock) -> None:
    ann, bob, cyd, dan = people("ann"), people("bob"), people("cyd"), people("dan")
    # A clock outside the presets is refused, and queues nothing.
    for bad in ("1+0", "untimed", "1d", 5):
        r = ann.post("/api/quickplay", {"players": 2, "size": 5, "time_control": bad})
        assert r.status_code == 400 and error_code(r) == "bad_request", r.text
    assert ann.get("/api/quickplay").json() == {"status": "idle"}
    waiting = ann.post("/api/quickplay", {"players": 2, "size": 5}).json()
    assert waiting["status"] == "waiting" and waiting["time_control"] == QUICKPLAY_DEFAULT
    # Players waiting for different clocks are not matched together.
    assert cyd.post("/api/quickplay", {"players": 2, "size": 5, "time_control": "3+2"}).json()["status"] == "waiting"
    matched = bob.post("/api/quickplay", {"players": 2, "size": 5, "time_control": QUICKPLAY_DEFAULT}).json()
    assert matched["status"] == "matched"
    other = dan.post("/api/quickplay", {"players": 2, "size": 5, "time_control": "3+2"}).json()
    assert other["status"] == "matched" and other["table_id"] != matched["table_id"]
    assert cyd.get("/api/quickplay").json()["table_id"] == other["table_id"]
    for table_id, control in ((matched["table_id"], QUICKPLAY_DEFAULT), (other["table_id"], "3+2")):
        st = state_of(ann if table_id == matched["table_id"] else cyd, table_id)
        assert st["rated"] and st["clock"]["control"] == control
        # Every matched player has joined by being matched: the first clock runs already,
        # whether or not its player ever opens the table.
        assert all(s["joined"] for s in st["seats"]) and st["clock"]["running"] == 0
        assert st["clock"]["flag_at"] is not None
    # Nobody comes to the first table: its first clock falls, and the game is aborted (no
    # first move), not held unstarted for ever.
    watch = table_socket(site, bob, matched["table_id"])
    try:
        watch.until(lambda m: m["type"] == "sync")
        clock.advance(TimeControl.parse(QUICKPLAY_DEFAULT).full_ms / 1000 + 1)
        out = watch.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "over", timeout=30)
        assert out["event"]["reason"] == "aborted"
    finally:
        watch.close()


def test_the_quick_play_default_is_one_of_the_presets() -> None:
    assert QUICKPLAY_DEFAULT in REALTIME_PRESETS and TimeControl.parse(QUICKPLAY_DEFAULT).kind == "realtime"


def test_a_rematch_keeps_the_clock_and_seats_everyone_so_it_cannot_stall(site: LiveServer, people: Any) -> None:
    rng = random.Random(7)
    ann, bob = people("ann"), people("bob")
    first = rated_duel(ann, bob)
    control = state_of(ann, first)["clock"]["control"]
    take_turns(seats_by_user([ann, bob], first), first, 2 * MIN_RATED_TURNS, rng)
    resign(bob, first)
    started = agreed_rematch(table_socket(site, ann, first), table_socket(site, bob, first))
    # Neither page moved to the new table, and only Ann looks at it (by HTTP): both seats
    # have joined, so its first clock runs, and a player who accepted and left loses on time.
    again = state_of(ann, started["table"]["id"])
    assert again["rated"] and again["clock"]["control"] == control
    assert all(s["joined"] for s in again["seats"]) and again["clock"]["running"] == 0
    assert again["clock"]["flag_at"] is not None and again["claim_from"] is None


def test_a_rated_rematch_of_an_untimed_table_cannot_be_made() -> None:
    """A rated table stored before every rated table had a clock gives a casual rematch."""
    seats = (SeatConfig("human"), SeatConfig("human"))
    old = TableConfig("old", 2, 5, True, "2026-01-01T00:00:00Z", seats, rated=True)
    assert not rematch_config(old, "new", "2026-01-02T00:00:00Z").rated
    timed = replace(old, time_control=TimeControl.parse("10+5"))
    new = rematch_config(timed, "new", "2026-01-02T00:00:00Z")
    assert new.rated and new.time_control == timed.time_control


# -- claiming an absent player's seat --------------------------------------------------------------

def claim(client: Api, table_id: str, token: str | None, request_id: str | None = None) -> Any:
    return client.act(table_id, token, {"type": "claim"}, request_id=request_id)


def test_a_claim_is_refused_too_early_and_while_the_player_is_there_then_wins(
        site: LiveServer, client: Api, clock: FakeClock) -> None:
    t = client.create(players=2, name="Ann")
    ann, bob = t["token"], t["invites"]["1"]
    client.turn(t["id"], ann, ["e5", "a1"])
    played = client.turn(t["id"], bob, ["e4", "a2"])
    moved = client.turn(t["id"], ann, ["e3", "a3"])["state"]
    # Bob is to move; his turn began with Ann's turn, and a claim is possible CLAIM_AFTER later.
    assert moved["game"]["current_seat"] == 1 and played["state"]["claim_from"] is not None
    since = stamp(moved["claim_from"]) - CLAIM_AFTER
    assert since == clock.now()
    ann_sock = Socket(site.ws_url, t["id"], ann)
    ann_sock.until(lambda m: m["type"] == "sync")
    try:
        # Too early: nothing changes.
        before = client.state(t["id"], ann)
        clock.advance(CLAIM_AFTER.total_seconds() - 1)
        r = claim(client, t["id"], ann)
        assert r.status_code == 409 and error_code(r) == "too_early", r.text
        assert "1 s" in r.json()["error"]["message"]
        assert in_play(client.state(t["id"], ann)) == in_play(before)
        # Past the wait, but Bob has the table open: he is thinking, not gone.
        clock.advance(1)
        bob_sock = Socket(site.ws_url, t["id"], bob)
        bob_sock.until(lambda m: m["type"] == "sync")
        ann_sock.until(lambda m: m["type"] == "presence" and m["seats"] == [True, True])
        r = claim(client, t["id"], ann)
        assert r.status_code == 409 and error_code(r) == "opponent_present", r.text
        # Nobody but the player kept waiting may claim: not Bob for himself, not a spectator.
        r = claim(client, t["id"], bob)
        assert r.status_code == 409 and error_code(r) == "conflict", r.text
        r = claim(client, t["id"], t["spectator_key"])
        assert r.status_code == 403 and error_code(r) == "forbidden", r.text
        assert in_play(client.state(t["id"], ann)) == in_play(before)
        # Bob leaves: Ann claims his seat and wins, as by his resignation.
        bob_sock.close()
        ann_sock.until(lambda m: m["type"] == "presence" and m["seats"] == [True, False])
        r = claim(client, t["id"], ann, request_id="claim-1")
        assert r.status_code == 200, r.text
        st = r.json()["state"]
        assert st["status"] == "over" and st["end_reason"] == "resignation" and st["claim_from"] is None
        assert st["seats"][1]["resigned"] and not st["seats"][0]["resigned"]
        assert st["game"]["ranking"][0] == st["seats"][0]["color"]
        event = ann_sock.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "resign")
        assert event["event"]["seat"] == 1 and event["event"]["claimed_by"] == 0
        # The same request again answers the same, and plays nothing twice.
        again = claim(client, t["id"], ann, request_id="claim-1")
        assert again.status_code == 200 and again.json()["version"] == r.json()["version"]
        assert client.state(t["id"], ann)["version"] == st["version"]
        # Once over, nothing more to claim.
        assert error_code(claim(client, t["id"], ann)) == "game_over"
    finally:
        ann_sock.close()


def test_no_claim_at_a_timed_table(site: LiveServer, client: Api, clock: FakeClock) -> None:
    t = client.create(players=2, time_control="20+0")
    client.turn(t["id"], t["token"], ["e5", "a1"])
    st = client.state(t["id"], t["token"])
    assert st["claim_from"] is None
    clock.advance(CLAIM_AFTER.total_seconds() + 1)
    r = claim(client, t["id"], t["token"])
    assert r.status_code == 403 and error_code(r) == "forbidden", r.text
    assert "clock" in r.json()["error"]["message"]
    assert client.state(t["id"], t["token"])["version"] == st["version"]


def test_with_three_players_the_claimed_seat_is_played_on_by_the_computer(
        site: LiveServer, client: Api, clock: FakeClock) -> None:
    t = client.create(players=3)
    ann, bob, cy = t["token"], t["invites"]["1"], t["invites"]["2"]
    client.turn(t["id"], ann, ["e5", "a1", "b1"])
    sock = Socket(site.ws_url, t["id"], cy)
    sock.until(lambda m: m["type"] == "sync")
    try:
        clock.advance(CLAIM_AFTER.total_seconds())
        # Cy, who waits too, claims Bob's seat over the socket.
        sock.send({"type": "action", "request_id": "c1", "action": {"type": "claim"}})
        ack = sock.until(lambda m: m["type"] in ("ack", "error") and m.get("request_id") == "c1")
        assert ack["type"] == "ack", ack
        # Bob is out, ranked last; the game goes on, the computer playing his stones.
        turned = sock.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "turn"
                            and m["event"]["seat"] == 1, timeout=30)
        st = turned["state"]
        assert turned["event"]["computer"] and st["status"] == "playing" and st["seats"][1]["resigned"]
        assert st["game"]["current_seat"] == 2 and st["game"]["ranking"][-1] == st["seats"][1]["color"]
    finally:
        sock.close()
    # Cy plays on with Ann; Bob's own turns are refused.
    r = client.act(t["id"], bob, {"type": "turn", "cells": ["a4", "a5", "a6"]})
    assert r.status_code == 403 and error_code(r) == "forbidden", r.text
