"""The lobby over real HTTP and WebSocket round trips: open tables listed live, seats taken
with one request (and the race for the last one), no move before the game starts, the
creator's cancel, the caps on open tables per account and per address, the listing fair
across creators, paged and filtered, quick play's pairing (closest ratings first, across
processes), rated games changing ratings once in the end's transaction, and ``omega ratings
--recompute``."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import threading
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import httpx
from sqlalchemy import create_engine, text
from websockets.sync.client import connect

from observe import observable_state
from omega import Game
from omega.server.clock import FakeClock
from omega.server.infra.limits import Limits
from omega.server.lobby.quickplay import WINDOW, WINDOW_GROWTH
from omega.server.lobby.service import LISTED_MAX, LOBBY_PAGE
from omega.server.ratings.service import MODEL, NOT_RATED, display, rated_users
from omega.server.tables.state import MIN_RATED_TURNS, SeatConfig, TableConfig, TableState

from .server_helpers import ROOT, LiveServer, error_code, make_server, random_turn
from .site_helpers import (
    CHEAP,
    RATED_CLOCK,
    ROOMY,
    Browser,
    browser_at,
    lobby_socket,
    open_table,
    ratings_in,
    seats_by_user,
    state_of,
    tables_stored,
)


def listed_ids(b: Browser, **params: Any) -> list[str]:
    r = b.get("/api/lobby", params=params)
    assert r.status_code == 200, r.text
    return [t["id"] for t in r.json()["tables"]]


def play_out(players: list[Browser], table_id: str, rng: random.Random) -> dict[str, Any]:
    """Random legal turns by the seat to move until the game is over."""
    while True:
        st = state_of(players[0], table_id)
        if st["status"] == "over":
            return st
        mover = players[st["game"]["current_seat"]]
        game = Game(players=st["players"], size=st["size"])
        empty = [c for c in game.cells if c not in st["game"]["stones"]]
        r = mover.post(f"/api/tables/{table_id}/actions",
                       {"type": "turn", "cells": rng.sample(empty, st["players"]), "request_id": f"r{rng.random()}"})
        assert r.status_code == 200, r.text


def ann_color(b: Browser, table_id: str) -> str:
    st = state_of(b, table_id)
    return str(st["seats"][st["you"]["seat"]]["color"])


# -- open tables ----------------------------------------------------------------------------------

def test_an_open_table_is_listed_live_taken_with_one_click_and_starts_full(site: LiveServer, people: Any) -> None:
    ann, bob = people("Ann"), people("Bob")
    watcher = lobby_socket(site)  # a guest watching the lobby
    bobs = lobby_socket(site, bob)
    assert watcher.recv()["tables"] == [] and bobs.recv()["you"]["username"] == "Bob"

    made = open_table(ann, rated=True, pie_rule=True)
    table_id = made["id"]
    assert list(made["invites"]) == [str(made["seat"])]  # no links for the seats the lobby fills
    listed = bobs.until(lambda m: m["type"] == "table")["table"]
    assert listed["id"] == table_id and listed["rated"] and listed["pie_rule"] and listed["free"] == 1
    assert listed["time_control"] == RATED_CLOCK and listed["host"] == 0
    assert [s["user"] for s in listed["seats"]] == ["Ann", None]
    assert listed["seats"][0]["rating"] == {"display": 1000, "games": 0, "wins": 0, "provisional": True}
    assert watcher.until(lambda m: m["type"] == "table")["table"] == listed
    assert bob.get("/api/lobby").json()["tables"] == [listed]

    # No move before every seat is taken; the refusal changes nothing.
    before = state_of(ann, table_id)
    game_before = observable_state(Game.from_record(ann.get(f"/api/tables/{table_id}/record.txt").text))
    assert before["status"] == "waiting" and before["open"] and before["rated"]
    r = ann.post(f"/api/tables/{table_id}/actions", {"type": "turn", "cells": ["e5", "a1"], "request_id": "r1"})
    assert r.status_code == 409 and error_code(r) == "not_started" and "every seat" in r.json()["error"]["message"]
    assert state_of(ann, table_id) == before
    assert observable_state(Game.from_record(ann.get(f"/api/tables/{table_id}/record.txt").text)) == game_before

    r = bob.post(f"/api/lobby/tables/{table_id}/take", {})
    assert r.status_code == 200, r.text
    assert r.json()["seat"] == 1 and r.json()["state"]["status"] == "playing"
    assert r.json()["state"]["seats"][1]["name"] == "Bob"
    gone = bobs.until(lambda m: m["type"] == "removed")
    assert gone == {"type": "removed", "id": table_id, "status": "playing"}
    assert watcher.until(lambda m: m["type"] == "removed") == gone
    assert bob.get("/api/lobby").json()["tables"] == []
    # Bob's account holds the seat: his browser plays without a link.
    assert ann.post(f"/api/tables/{table_id}/actions",
                    {"type": "turn", "cells": ["e5", "a1"], "request_id": "r2"}).status_code == 200
    # Anyone may watch a rated table, without a key.
    r = httpx.get(f"{site.url}/api/tables/{table_id}")
    assert r.status_code == 200 and r.json()["you"] == {"seat": None}
    watcher.close()
    bobs.close()



def test_an_open_table_keeps_its_clock(site: LiveServer, people: Any) -> None:
    ann, bob = people("Ann"), people("Bob")
    table_id = open_table(ann, rated=True, time_control="5+5")["id"]
    listed = bob.get("/api/lobby").json()["tables"]
    assert [(t["id"], t["time_control"]) for t in listed] == [(table_id, "5+5")]
    assert bob.post(f"/api/lobby/tables/{table_id}/take", {}).status_code == 200
    clock = state_of(bob, table_id)["clock"]
    assert clock is not None and clock["control"] == "5+5"


def test_twenty_players_race_for_the_last_seat(site: LiveServer, people: Any) -> None:
    ann, bob = people("Ann"), people("Bob")
    table_id = open_table(ann, players=3)["id"]
    assert bob.post(f"/api/lobby/tables/{table_id}/take", {}).status_code == 200
    racers = [people(f"racer{i}") for i in range(20)]
    start = threading.Barrier(len(racers))
    answers: list[httpx.Response] = []

    def race(b: Browser) -> None:
        start.wait()
        answers.append(b.post(f"/api/lobby/tables/{table_id}/take", {"seat": 2}))

    threads = [threading.Thread(target=race, args=(b,)) for b in racers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    won = [r for r in answers if r.status_code == 200]
    lost = [r for r in answers if r.status_code != 200]
    assert len(won) == 1 and len(lost) == 19
    assert {(r.status_code, error_code(r)) for r in lost} == {(409, "conflict")}
    assert all("not free" in r.json()["error"]["message"] or "started" in r.json()["error"]["message"] for r in lost)
    winner = won[0].json()["state"]["seats"][2]["name"]
    st = state_of(ann, table_id)
    assert st["status"] == "playing" and [s["name"] for s in st["seats"]] == ["Ann", "Bob", winner]
    # One join for the seat in the log, and the seat held by the winner's account only.
    record = ann.get(f"/api/tables/{table_id}/record.json").json()
    assert record["tags"]["Red"] == winner
    for b in racers:
        mine = b.get("/api/account/tables").json()["tables"]
        assert [t["id"] for t in mine] == ([table_id] if b.user()["username"] == winner else [])  # type: ignore[index]


def test_the_creator_cancels_before_the_start_and_only_then(site: LiveServer, people: Any) -> None:
    ann, bob, cy = people("Ann"), people("Bob"), people("Cyd")
    table_id = open_table(ann, players=3)["id"]
    assert bob.post(f"/api/lobby/tables/{table_id}/take", {}).status_code == 200
    r = bob.post(f"/api/lobby/tables/{table_id}/cancel")
    assert r.status_code == 403 and "creator" in r.json()["error"]["message"]
    r = bob.post(f"/api/lobby/tables/{table_id}/take", {})
    assert r.status_code == 409 and "already" in r.json()["error"]["message"]
    r = ann.post(f"/api/lobby/tables/{table_id}/cancel", origin="https://evil.example")
    assert r.status_code == 403 and error_code(r) == "cross_site"
    r = ann.post(f"/api/lobby/tables/{table_id}/cancel")
    assert r.status_code == 200 and r.json()["state"]["status"] == "cancelled"
    assert bob.get("/api/lobby").json()["tables"] == []
    r = cy.post(f"/api/lobby/tables/{table_id}/take", {})
    assert r.status_code == 409 and "cancelled" in r.json()["error"]["message"]
    r = ann.post(f"/api/tables/{table_id}/actions", {"type": "turn", "cells": ["e5", "a1", "i9"], "request_id": "x"})
    assert r.status_code == 409 and error_code(r) == "game_over"
    # Once started, it cannot be cancelled.
    other = open_table(ann)["id"]
    assert cy.post(f"/api/lobby/tables/{other}/take", {}).status_code == 200
    r = ann.post(f"/api/lobby/tables/{other}/cancel")
    assert r.status_code == 409 and error_code(r) == "conflict"


def test_what_an_open_table_refuses(site: LiveServer, people: Any) -> None:
    ann, bob = people("Ann"), people("Bob")
    guest = httpx.post(f"{site.url}/api/lobby/tables", json={"players": 2}, timeout=30)
    assert guest.status_code == 401 and error_code(guest) == "auth_required"
    for body, words in [({"players": 2, "rated": True, "time_control": "5+5",
                          "seats": [{"kind": "human"}, {"kind": "computer", "level": 1}]},
                         "computer"),
                        ({"players": 2, "rated": "yes"}, "rated"), ({"players": 5}, "players"),
                        ({"players": 2, "name": "X"}, "usernames"),
                        ({"players": 2, "rated": True, "time_control": "5+5", "hints": True}, "hints"),
                        ({"players": 2, "time_control": "5+99"}, "time"),
                        ({"players": 2, "seats": [{"kind": "human"}, {"kind": "computer", "level": 1}]}, "free seat")]:
        r = ann.post("/api/lobby/tables", body)
        assert r.status_code == 400 and error_code(r) == "bad_request" and words in r.json()["error"]["message"], r.text
    assert ann.get("/api/lobby").json()["tables"] == []
    # A table made by link is not open: its seats are not taken in the lobby.
    linked = ann.post("/api/tables", {"players": 2}).json()["id"]
    r = bob.post(f"/api/lobby/tables/{linked}/take", {})
    assert r.status_code == 403 and error_code(r) == "forbidden"
    assert httpx.get(f"{site.url}/api/tables/{linked}").status_code == 401  # and not public
    table_id = open_table(ann, players=3, seats=[{"kind": "human"}, {"kind": "human"}, {"kind": "computer", "level": 1}])["id"]
    r = bob.post(f"/api/lobby/tables/{table_id}/take", {"seat": 2})
    assert r.status_code == 409 and "not free" in r.json()["error"]["message"]
    r = bob.post(f"/api/lobby/tables/{table_id}/take", {"seat": "1"})
    assert r.status_code == 400 and error_code(r) == "bad_request"
    assert bob.post("/api/lobby/tables/nope/take", {}).status_code == 404


# -- no one fills the lobby ---------------------------------------------------------------------------

def test_a_flood_from_one_session_over_six_addresses_is_capped_and_others_are_listed_first(
        site: LiveServer, people: Any, db_url: str, clock: FakeClock) -> None:
    # Finding 3 of issue 29: 150 openings from one session over 6 addresses all got 201, and
    # the listing (the 100 oldest) showed the flooder's tables only.
    ann, bob = people("Ann"), people("Bob")
    bobs = lobby_socket(site, bob)
    assert bobs.recv()["total"] == 0
    senders = [browser_at(site, f"127.0.0.{i}", ann.http.cookies) for i in range(2, 8)]
    answers = [senders[i % len(senders)].post("/api/lobby/tables", {"players": 2}) for i in range(150)]
    made = [r.json()["id"] for r in answers if r.status_code == 201]
    refused = [r for r in answers if r.status_code != 201]
    cap = Limits().lobby_open_per_account
    assert len(made) == cap == 5
    assert {(r.status_code, error_code(r)) for r in refused} == {(429, "too_many_open_tables")}
    assert refused[0].json()["error"]["message"].startswith(f"your account has {cap} open tables waiting")
    # A refusal changes nothing: the listing, the tables stored, the account's tables.
    listing, stored = bob.get("/api/lobby").json(), tables_stored(db_url)
    mine = ann.get("/api/account/tables").json()
    r = senders[0].post("/api/lobby/tables", {"players": 3, "rated": True, "time_control": "10+5"})
    assert r.status_code == 429 and error_code(r) == "too_many_open_tables"
    assert bob.get("/api/lobby").json() == listing and tables_stored(db_url) == stored
    assert ann.get("/api/account/tables").json() == mine
    assert listing["total"] == cap and set(listed_ids(bob)) == set(made)

    # Another player's table is pushed at once and listed first.
    clock.advance(1)
    theirs = open_table(bob)["id"]
    assert bobs.until(lambda m: m["type"] == "table" and m["table"]["id"] == theirs)["table"]["seats"][0]["user"] == "Bob"
    assert listed_ids(ann)[0] == theirs
    assert bob.get("/api/lobby").json()["total"] == cap + 1
    # Once one of Ann's tables is cancelled she may open another.
    assert ann.post(f"/api/lobby/tables/{made[0]}/cancel").status_code == 200
    assert senders[1].post("/api/lobby/tables", {"players": 2}).status_code == 201
    for b in senders:
        b.close()
    bobs.close()


def test_the_address_cap_counts_every_account_behind_one_address(db_url: str, clock: FakeClock) -> None:
    live = make_server(db_url, clock=clock, password_hasher=CHEAP,
                       limits=replace(ROOMY, lobby_open_per_account=2, lobby_open_per_address=3))
    made: list[Browser] = []

    def person(name: str, address: str) -> Browser:
        b = browser_at(live, address)
        made.append(b)
        assert b.register(name).status_code == 201
        return b

    try:
        ann, bob, cyd, dan = (person("Ann", "127.0.0.2"), person("Bob", "127.0.0.2"), person("Cyd", "127.0.0.2"),
                              person("Dan", "127.0.0.3"))
        a1, a2 = open_table(ann)["id"], open_table(ann)["id"]
        r = ann.post("/api/lobby/tables", {"players": 2})
        assert r.status_code == 429 and error_code(r) == "too_many_open_tables"
        assert "your account has 2 open tables" in r.json()["error"]["message"]
        b1 = open_table(bob)["id"]
        before = dan.get("/api/lobby").json()
        r = bob.post("/api/lobby/tables", {"players": 2})  # Bob has one, his address three
        assert r.status_code == 429 and error_code(r) == "too_many_open_tables"
        assert "your address has 3 open tables" in r.json()["error"]["message"]
        assert dan.get("/api/lobby").json() == before
        # From another address Bob opens his second.
        elsewhere = browser_at(live, "127.0.0.4", bob.http.cookies)
        made.append(elsewhere)
        b2 = open_table(elsewhere)["id"]
        # A cancelled table and a started one no longer count.
        assert ann.post(f"/api/lobby/tables/{a1}/cancel").status_code == 200
        c1 = open_table(cyd)["id"]
        assert cyd.post("/api/lobby/tables", {"players": 2}).status_code == 429
        assert dan.post(f"/api/lobby/tables/{a2}/take", {}).status_code == 200
        a3 = open_table(ann)["id"]
        assert set(listed_ids(dan)) == {b1, b2, c1, a3}
    finally:
        for b in made:
            b.close()
        live.stop()


def test_the_listing_is_fair_across_creators_and_paged(db_url: str, clock: FakeClock) -> None:
    live = make_server(db_url, clock=clock, password_hasher=CHEAP,
                       limits=replace(ROOMY, lobby_open_per_account=200, lobby_open_per_address=200))
    people = [Browser(live) for _ in range(3)]
    try:
        ann, bob, cyd = people
        for b, name in zip(people, ("Ann", "Bob", "Cyd"), strict=True):
            assert b.register(name).status_code == 201
        watcher = lobby_socket(live)
        assert watcher.recv()["tables"] == []
        flood = []
        for _ in range(150):
            flood.append(open_table(ann)["id"])
            clock.advance(1)  # tables of one second are told apart by their ids only
        cyd1 = open_table(cyd)["id"]
        clock.advance(1)
        bob1 = open_table(bob)["id"]
        clock.advance(1)
        cyd2 = open_table(cyd)["id"]
        # Pushed at once, 150 tables of another creator or not.
        assert watcher.until(lambda m: m["type"] == "table" and m["table"]["id"] == cyd2)["table"]["free"] == 1
        # Each creator's newest table (the newest first), then each one's second newest, ...
        fair = [cyd2, bob1, flood[-1], cyd1, flood[-2], *reversed(flood[:-2])]
        first = bob.get("/api/lobby").json()
        assert [t["id"] for t in first["tables"]] == fair[:LOBBY_PAGE]
        assert (first["total"], first["offset"], first["limit"]) == (153, 0, LOBBY_PAGE)
        fresh = lobby_socket(live)
        snapshot = fresh.recv()
        assert [t["id"] for t in snapshot["tables"]] == fair[:LOBBY_PAGE]
        assert (snapshot["total"], snapshot["limit"]) == (153, LOBBY_PAGE)
        # Pages of 50 hold every table once, in the same order; past the end nothing.
        seen = []
        for offset in range(0, 153, 50):
            page = bob.get("/api/lobby", params={"offset": offset, "limit": 50}).json()
            assert page["total"] == 153 and page["offset"] == offset
            seen += [t["id"] for t in page["tables"]]
        assert seen == fair
        assert listed_ids(bob, offset=153) == [] and len(listed_ids(bob, limit=LISTED_MAX)) == LISTED_MAX
        # A table that starts leaves the list at once; its creator's next one moves up.
        assert ann.post(f"/api/lobby/tables/{cyd2}/take", {}).status_code == 200
        assert watcher.until(lambda m: m["type"] == "removed")["id"] == cyd2
        assert listed_ids(bob)[:4] == [bob1, cyd1, flood[-1], flood[-2]]
        watcher.close()
        fresh.close()
    finally:
        for b in people:
            b.close()
        live.stop()


def test_the_listing_filters_by_players_side_rated_clock_and_rating(site: LiveServer, people: Any, db_url: str,
                                                                   clock: FakeClock) -> None:
    ann, bob, cyd, dan = people("Ann"), people("Bob"), people("Cyd"), people("Dan")
    set_rating(db_url, "Dan", 2, 1400)
    duel = open_table(ann)["id"]  # 2 players, side 5, casual, untimed
    clock.advance(1)
    trio = open_table(bob, players=3, size=7, time_control="5+5")["id"]
    clock.advance(1)
    daily = open_table(cyd, rated=True, size=6, time_control="1d")["id"]
    clock.advance(1)
    strong = open_table(dan, rated=True, time_control="10+10")["id"]
    every = [strong, daily, trio, duel]
    assert listed_ids(ann) == every
    for params, wanted in [
        ({"players": 2}, [strong, daily, duel]), ({"players": 3, "size": 7}, [trio]), ({"size": 6}, [daily]),
        ({"players": 4}, []), ({"rated": "true"}, [strong, daily]), ({"rated": "false"}, [trio, duel]),
        ({"time_control": "untimed"}, [duel]), ({"time_control": "realtime"}, [strong, trio]),
        ({"time_control": "turn_based"}, [daily]), ({"time_control": "5+5"}, [trio]),
        ({"time_control": "10+10", "rated": "true"}, [strong]),
        # The host's display rating at the table's player count (a newcomer's is 1000).
        ({"rating_min": 1300}, [strong]), ({"rating_max": 1200}, [daily, trio, duel]),
        ({"rating_min": 1000, "rating_max": 1000, "players": 2}, [daily, duel]),
        ({"players": 2, "limit": 1, "offset": 1}, [daily]),
    ]:
        assert listed_ids(bob, **params) == wanted, params
    page = bob.get("/api/lobby", params={"players": 2, "limit": 1}).json()
    assert page["total"] == 3 and page["limit"] == 1
    # Bad values are refused, each naming its parameter; a refusal lists nothing.
    for query, words in [
        ("players=5", "players must be a whole number from 2 to 4"), ("players=two", "players"),
        ("players=%C2%B2", "players"), ("size=4", "size must be"), ("rated=yes", "rated must be true or false"),
        ("time_control=5%2B99", "increment"), ("time_control=bogus", "time_control must be"),
        ("time_control=", "time_control must be"), ("rating_min=-5", "rating_min"),
        ("rating_min=1200&rating_max=1100", "rating_min must not be above rating_max"),
        ("offset=x", "offset"), ("limit=0", "limit must be a whole number from 1 to 100"), ("limit=101", "limit"),
        ("colour=red", "no parameter 'colour'"), ("players=2&players=3", "players given twice"),
    ]:
        r = bob.get(f"/api/lobby?{query}")
        assert r.status_code == 400 and error_code(r) == "bad_request", (query, r.text)
        assert words in r.json()["error"]["message"], (query, r.text)
    assert listed_ids(ann) == every


# -- ratings --------------------------------------------------------------------------------------

def test_rated_games_change_ratings_once_and_recompute_gives_the_same(site: LiveServer, people: Any,
                                                                      db_url: str) -> None:
    rng = random.Random(5)
    ann, bob, cy = people("Ann"), people("Bob"), people("Cyd")
    # A 2-player game played to the end, one ended by resignation, a 3-player one, and an
    # unrated one.
    duel = open_table(ann, rated=True)["id"]
    bob.post(f"/api/lobby/tables/{duel}/take", {})
    st = play_out(seats_by_user([ann, bob], duel), duel, rng)
    winner = st["game"]["winner"]
    resigned = open_table(bob, rated=True)["id"]
    ann.post(f"/api/lobby/tables/{resigned}/take", {})
    for _ in range(2 * MIN_RATED_TURNS):  # a resignation counts once each has made these turns
        st = state_of(bob, resigned)
        seated = seats_by_user([ann, bob], resigned)[st["game"]["current_seat"]]
        assert seated.post(f"/api/tables/{resigned}/actions", {"type": "turn", "cells": random_turn(st, rng),
                                                                "request_id": f"t{rng.random()}"}).status_code == 200
    assert bob.post(f"/api/tables/{resigned}/actions", {"type": "resign", "request_id": "g"}).status_code == 200
    trio = open_table(cy, rated=True, players=3)["id"]
    ann.post(f"/api/lobby/tables/{trio}/take", {})
    bob.post(f"/api/lobby/tables/{trio}/take", {})
    st3 = play_out(seats_by_user([cy, ann, bob], trio), trio, rng)
    last = next(s["name"] for s in st3["seats"] if s["color"] == st3["game"]["ranking"][-1])
    casual = open_table(ann)["id"]
    cy.post(f"/api/lobby/tables/{casual}/take", {})
    assert ann.post(f"/api/tables/{casual}/actions", {"type": "resign", "request_id": "u"}).status_code == 200

    two = {r["username"]: r for r in ann.get("/api/ratings/2").json()["ratings"]}
    assert set(two) == {"Ann", "Bob"} and two["Ann"]["games"] == two["Bob"]["games"] == 2
    assert two["Ann"]["provisional"] and two["Ann"]["display"] != 1000
    three = ann.get("/api/ratings/3").json()
    assert three["total"] == 3 and three["ratings"][-1]["username"] == last
    assert [r["rank"] for r in three["ratings"]] == [1, 2, 3]
    profile = cy.get("/api/users/ann/ratings").json()
    assert set(profile["ratings"]) == {"2", "3"}
    assert [h["table_id"] for h in profile["history"]] == [duel, resigned, trio]
    assert profile["history"][1]["place"] == 1  # Bob resigned: Ann first
    games = {g["id"]: g for g in profile["games"]}
    assert games[casual]["rating"] is None and not games[casual]["rated"]
    assert games[duel]["rating"]["after"] == profile["history"][0]["after"]
    assert games[duel]["place"] == profile["history"][0]["place"] == (1 if winner == ann_color(ann, duel) else 2)
    assert ann.get("/api/ratings/5").status_code == 404
    assert ann.get("/api/ratings/2?limit=0").status_code == 400
    assert ann.get("/api/users/nobody/ratings").status_code == 404

    # Rebuilt from the event log: the same numbers, to the last bit.
    live = ratings_in(db_url)
    engine = create_engine(db_url)
    with engine.begin() as conn:  # spoil them first
        conn.execute(text("UPDATE ratings SET mu = 99, games = 0"))
    engine.dispose()
    done = subprocess.run([sys.executable, "-m", "omega.cli", "ratings", "--recompute", "--db", db_url],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "rated 3 games again" in done.stdout
    assert ratings_in(db_url) == live
    assert {r["username"]: r for r in ann.get("/api/ratings/2").json()["ratings"]} == two


def test_what_is_not_rated() -> None:
    config = TableConfig("t", 2, 5, False, "", (SeatConfig("human"),) * 2, rated=True)
    state = TableState(config)
    assert rated_users(state, "board_full", [1, 2]) == [1, 2]
    for reason in NOT_RATED:
        assert rated_users(state, reason, [1, 2]) is None
    assert rated_users(state, "board_full", [1, None]) is None  # a guest's seat
    assert rated_users(state, "resignation", [1, 1]) is None
    assert rated_users(TableState(TableConfig("t", 2, 5, False, "", (SeatConfig("human"),) * 2)), "board_full",
                    [1, 2]) is None


# -- quick play ----------------------------------------------------------------------------------------

def set_rating(url: str, user: str, players: int, shown: int) -> None:
    """Give ``user`` a rating whose display is ``shown`` (sigma as a newcomer's)."""
    mu = (shown - 1000) / 30 + 3 * MODEL.sigma
    assert display(mu, MODEL.sigma) == shown
    engine = create_engine(url)
    with engine.begin() as conn:
        uid = conn.execute(text("SELECT id FROM users WHERE username = :u"), {"u": user}).scalar_one()
        conn.execute(text("INSERT INTO ratings (user_id, players, mu, sigma, games, wins, updated_at) "
                          "VALUES (:u, :p, :mu, :s, 3, 1, :t)"),
                     {"u": uid, "p": players, "mu": mu, "s": MODEL.sigma, "t": datetime(2027, 1, 1, tzinfo=UTC)})
    engine.dispose()


def test_quick_play_matches_the_closest_ratings_first(site: LiveServer, people: Any, db_url: str,
                                                      clock: FakeClock) -> None:
    ann, bob, cy, dan = people("Ann"), people("Bob"), people("Cyd"), people("Dan")
    for name, shown in [("Ann", 1000), ("Bob", 1400), ("Cyd", 1050), ("Dan", 1600)]:
        set_rating(db_url, name, 2, shown)
    anns, bobs = lobby_socket(site, ann), lobby_socket(site, bob)
    anns.recv(), bobs.recv()
    assert ann.post("/api/quickplay", {"players": 2, "size": 5}).json()["status"] == "waiting"
    r = bob.post("/api/quickplay", {"players": 2, "size": 5}).json()
    assert r["status"] == "waiting" and r["rating"] == 1400 and r["others_waiting"] == 1  # 400 apart: not yet
    r = cy.post("/api/quickplay", {"players": 2, "size": 5}).json()
    assert r["status"] == "matched"  # Cy is 50 from Ann, 350 from Bob: Ann and Cy play
    matched = anns.until(lambda m: m["type"] == "matched")
    assert matched["table_id"] == r["table_id"]
    st = state_of(cy, r["table_id"])
    assert st["rated"] and st["pie_rule"] and st["status"] == "playing" and not st["open"]
    assert sorted(s["name"] for s in st["seats"]) == ["Ann", "Cyd"]
    assert state_of(ann, r["table_id"])["you"]["seat"] == 1 - st["you"]["seat"]
    assert ann.get("/api/quickplay").json()["status"] == "matched"
    # Dan (1600) is 200 from Bob: matched only once Bob has waited long enough for his window.
    assert dan.post("/api/quickplay", {"players": 2, "size": 5}).json()["status"] == "waiting"
    wait = (200 - WINDOW) / WINDOW_GROWTH
    clock.advance(wait + 3)  # the recurring matcher runs within its interval of server time
    matched = bobs.until(lambda m: m["type"] == "matched", timeout=30)
    assert dan.get("/api/quickplay").json() == {"status": "matched", "table_id": matched["table_id"],
                                                "seat": 1 - matched["seat"]}
    # Leaving the queue; a guest cannot queue; bad bodies change nothing.
    assert ann.post("/api/quickplay", {"players": 3, "size": 6}).json()["status"] == "waiting"
    assert ann.post("/api/quickplay/leave").json() == {"status": "idle"}
    assert httpx.post(f"{site.url}/api/quickplay", json={"players": 2, "size": 5}).status_code == 401
    for body in [{"players": 1, "size": 5}, {"players": 2, "size": 11}, {"players": 2}, {"players": 2, "size": 5, "x": 1}]:
        r = ann.post("/api/quickplay", body)
        assert r.status_code == 400 and error_code(r) == "bad_request"
    assert ann.get("/api/quickplay").json() == {"status": "idle"}
    anns.close()
    bobs.close()


def test_quick_play_across_two_server_processes(pg: Any) -> None:
    url = pg.new_database()
    one = make_server(url, password_hasher=CHEAP, limits=ROOMY)
    two = make_server(url, password_hasher=CHEAP, limits=ROOMY)
    try:
        ann, bob = Browser(one), Browser(two)
        assert ann.register("Ann").status_code == 201 and bob.register("Bob").status_code == 201
        anns = lobby_socket(one, ann)
        anns.recv()
        assert ann.post("/api/quickplay", {"players": 2, "size": 7}).json()["status"] == "waiting"
        r = bob.post("/api/quickplay", {"players": 2, "size": 7}).json()
        assert r["status"] == "matched"
        # Ann's page, on the other process, is told by NOTIFY.
        assert anns.until(lambda m: m["type"] == "matched")["table_id"] == r["table_id"]
        # And an open table made on one process appears live in the other's lobby.
        bob_lobby = lobby_socket(two, bob)
        bob_lobby.recv()
        made = open_table(ann)
        assert bob_lobby.until(lambda m: m["type"] == "table")["table"]["id"] == made["id"]
        assert bob.post(f"/api/lobby/tables/{made['id']}/take", {}).status_code == 200
        assert anns.until(lambda m: m["type"] == "removed")["id"] == made["id"]
        anns.close()
        bob_lobby.close()
        ann.close()
        bob.close()
    finally:
        one.stop()
        two.stop()


def test_the_lobby_socket_refuses_other_sites_and_answers_pings(site: LiveServer, people: Any) -> None:
    ann = people("Ann")
    sock = connect(f"{site.ws_url}/ws/lobby", additional_headers={
        "origin": "https://evil.example", "cookie": f"omega_session={ann.session}"}, open_timeout=30)
    with sock:
        msg = json.loads(sock.recv(timeout=20))
        assert msg["error"]["code"] == "cross_site"
    lobby = lobby_socket(site, ann)
    assert lobby.recv()["type"] == "lobby"
    lobby.conn.send(json.dumps({"type": "ping"}))
    assert lobby.recv() == {"type": "pong"}
    lobby.conn.send("nonsense")
    assert lobby.recv()["error"]["code"] == "bad_request"
    lobby.close()

