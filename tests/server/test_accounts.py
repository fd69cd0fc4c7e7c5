"""Accounts over real HTTP and WebSocket round trips: registering, logging in and out,
sessions and their expiry, CSRF refusals, brute-force limits, claiming guest seats, seats
held by accounts, "my tables" and the history."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
from argon2 import PasswordHasher, profiles
from sqlalchemy import create_engine, text
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from omega.server.clock import FakeClock
from omega.server.config import Settings
from omega.server.infra.limits import Limits

from .server_helpers import LiveServer, ServeProcess, bearer, error_code, make_server, subprotocols
from .site_helpers import CHEAP, PASSWORD, Browser


class CountingHasher(PasswordHasher):
    """The cheap hasher, counting the passwords it checks."""

    def __init__(self) -> None:
        p = profiles.CHEAPEST
        super().__init__(time_cost=p.time_cost, memory_cost=p.memory_cost, parallelism=p.parallelism,
                         hash_len=p.hash_len, salt_len=p.salt_len)
        self.verified = 0

    def verify(self, hash: str | bytes, password: str | bytes) -> bool:
        self.verified += 1
        return super().verify(hash, password)


@pytest.fixture
def site(db_url: str, clock: FakeClock) -> Iterator[LiveServer]:
    with make_server(db_url, clock=clock, password_hasher=CHEAP) as live:
        yield live


@pytest.fixture
def browsers(site: LiveServer) -> Iterator[Any]:
    made: list[Browser] = []

    def new(origin: str | None = None) -> Browser:
        b = Browser(site, origin)
        made.append(b)
        return b

    yield new
    for b in made:
        b.close()


def guest_table(server: LiveServer, **body: Any) -> dict[str, Any]:
    """A table created by a guest (no cookie)."""
    body.setdefault("players", 2)
    r = httpx.post(f"{server.url}/api/tables", json=body, timeout=30)
    assert r.status_code == 201, r.text
    return dict(r.json())


# -- registering, logging in and out, sessions ------------------------------------------------------

def test_register_log_in_log_out(browsers: Any) -> None:
    ann = browsers()
    r = ann.register("Ann")
    assert r.status_code == 201, r.text
    assert r.json()["user"]["username"] == "Ann"
    cookie = r.headers["set-cookie"]
    assert "omega_session=" in cookie and "HttpOnly" in cookie and "SameSite=lax" in cookie
    assert "Secure" not in cookie  # plain HTTP here; HTTPS gets Secure (test below)
    assert ann.user() == r.json()["user"]

    # Another browser logs in to the same account (the name in any case and width).
    other = browsers()
    r = other.login("ＡＮＮ")
    assert r.status_code == 200, r.text
    assert other.user() == ann.user()
    assert other.session != ann.session

    old = ann.session
    r = ann.post("/api/account/logout")
    assert r.status_code == 200 and r.json() == {"user": None}
    assert ann.user() is None
    # The ended session cannot be brought back by sending the old cookie again.
    ann.http.cookies.set("omega_session", old or "")
    assert ann.user() is None
    assert other.user() is not None  # the other browser's session goes on


def test_the_rules_of_usernames_and_passwords(browsers: Any) -> None:
    b = browsers()
    for username, password, field in [("ab", PASSWORD, "username"), ("a" * 21, PASSWORD, "username"),
                                      ("an n", PASSWORD, "username"), ("ann!", PASSWORD, "username"),
                                      ("Ann", "short", "password")]:
        r = b.register(username, password)
        assert r.status_code == 400 and error_code(r) == "bad_request", (username, r.text)
        assert field in r.json()["error"]["message"]
    assert b.register("Zoë_9-x").status_code == 201
    assert browsers().register("zoË_9-X").json()["error"]["code"] == "name_taken"
    r = browsers().register("ZOE\u0308_9-x")  # the same name, its letter decomposed
    assert r.status_code == 409 and error_code(r) == "name_taken" and "not available" in r.json()["error"]["message"]
    config = b.get("/api/config").json()
    assert config["username"]["min"] == 3 and config["username"]["max"] == 20
    assert config["password"]["min"] == 8 and config["password"]["max"] >= 64


def test_log_out_everywhere_ends_every_session(browsers: Any) -> None:
    a, b, c = browsers(), browsers(), browsers()
    a.register("Ann")
    b.login("Ann")
    c.register("Bob")
    r = a.post("/api/account/logout-everywhere")
    assert r.status_code == 200 and r.json()["sessions_ended"] == 2
    assert a.user() is None and b.user() is None
    assert c.user() is not None
    assert a.post("/api/account/logout-everywhere").status_code == 401


def test_sessions_expire(site: LiveServer, browsers: Any, clock: FakeClock) -> None:
    a = browsers()
    a.register("Ann")
    lifetime = Settings().session_lifetime
    clock.advance(lifetime - 60)
    assert a.user() is not None
    clock.advance(61)
    r = a.get("/api/account")
    assert r.json() == {"user": None}
    assert 'omega_session=""' in r.headers.get("set-cookie", "")  # the browser is told to forget it
    # Expired sessions are purged from the database by recurring work.
    assert a.login("Ann").status_code == 200
    assert a.user() is not None


def test_change_password_needs_the_current_one_and_ends_other_sessions(browsers: Any) -> None:
    a, b = browsers(), browsers()
    a.register("Ann")
    b.login("Ann")
    r = a.post("/api/account/password", {"current_password": "not the password", "new_password": "a new secret"})
    assert r.status_code == 403 and error_code(r) == "forbidden"
    assert b.user() is not None and browsers().login("Ann").status_code == 200  # nothing changed
    r = a.post("/api/account/password", {"current_password": PASSWORD, "new_password": "short"})
    assert r.status_code == 400
    r = a.post("/api/account/password", {"current_password": PASSWORD, "new_password": "a new secret"})
    assert r.status_code == 200, r.text
    assert a.user() is not None  # this session goes on
    assert b.user() is None  # the others end
    assert browsers().login("Ann").status_code == 401
    assert browsers().login("Ann", "a new secret").status_code == 200


def test_secure_cookie_under_https(tmp_path: Any) -> None:
    # Behind a trusted proxy that terminates TLS (X-Forwarded-Proto: https), as in production.
    server = ServeProcess(f"sqlite:///{tmp_path / 'o.sqlite3'}", args=("--forwarded-allow-ips", "127.0.0.1"))
    try:
        server.ready()
        with httpx.Client(base_url=server.url, timeout=30) as client:
            https = {"x-forwarded-proto": "https", "origin": f"https://127.0.0.1:{server.port}"}
            r = client.post("/api/account/register", json={"username": "Ann", "password": PASSWORD}, headers=https)
            assert r.status_code == 201, r.text
            assert "Secure" in r.headers["set-cookie"]
            # Over HTTPS an http:// Origin is not the site.
            r = client.post("/api/account/logout", headers=https | {"origin": server.url})
            assert r.status_code == 403 and error_code(r) == "cross_site"
            r = client.post("/api/account/logout", headers=https)
            assert r.status_code == 200 and "Secure" in r.headers["set-cookie"]
    finally:
        server.stop()


# -- CSRF ----------------------------------------------------------------------------------------------

def test_cookie_writes_from_another_site_are_refused(site: LiveServer, browsers: Any) -> None:
    a = browsers()
    a.register("Ann")
    t = a.post("/api/tables", {"players": 2}).json()
    before = httpx.get(f"{site.url}/api/tables/{t['id']}", headers=bearer(t["spectator_key"])).json()
    turn = {"type": "turn", "cells": ["e5", "a1"], "request_id": "r1"}
    for origin in ["http://evil.example", "null", ""]:
        for path, body in [("/api/account/logout-everywhere", None), ("/api/account/logout", None),
                           ("/api/account/password", {"current_password": PASSWORD, "new_password": "x" * 12}),
                           (f"/api/tables/{t['id']}/actions", turn), (f"/api/tables/{t['id']}/name", {"name": "X"}),
                           ("/api/tables", {"players": 2}), ("/api/account/claim", {"seats": []})]:
            r = a.post(path, body, origin=origin)
            assert r.status_code == 403 and error_code(r) == "cross_site", (origin, path, r.text)
        r = a.post("/api/account/login", {"username": "Ann", "password": PASSWORD}, origin=origin)
        assert r.status_code == 403 and error_code(r) == "cross_site"
    # Nothing changed: still logged in, the same password, the table as it was.
    assert a.user() is not None
    after = httpx.get(f"{site.url}/api/tables/{t['id']}", headers=bearer(t["spectator_key"])).json()
    assert after == before
    # Sec-Fetch-Site: same-origin stands for the Origin when a browser sends no Origin.
    r = a.post(f"/api/tables/{t['id']}/actions", turn, origin="", headers={"sec-fetch-site": "same-origin"})
    assert r.status_code == 200, r.text
    r = a.post(f"/api/tables/{t['id']}/actions", turn | {"request_id": "r2"}, origin="",
               headers={"sec-fetch-site": "cross-site"})
    assert error_code(r) == "cross_site"


def test_token_requests_need_no_origin(site: LiveServer, browsers: Any) -> None:
    # Seat links work exactly as before, from anywhere, with or without a session cookie.
    a = browsers(origin="")
    a.post("/api/account/register", {"username": "Ann", "password": PASSWORD}, origin=site.url)
    t = guest_table(site)
    r = a.post(f"/api/tables/{t['id']}/actions", {"type": "turn", "cells": ["e5", "a1"], "request_id": "r"},
               headers=bearer(t["token"]))
    assert r.status_code == 200, r.text


# -- brute force ---------------------------------------------------------------------------------------

def test_log_in_is_limited_per_username_and_per_address(sqlite_url: str, clock: FakeClock) -> None:
    limits = Limits(login_burst=100, login_user_burst=3, login_user_rate=1 / 60)
    live = make_server(sqlite_url, clock=clock, password_hasher=CHEAP, limits=limits)
    try:
        b = Browser(live)
        b.register("Ann")
        for _ in range(3):
            assert b.login("Ann", "wrong password").status_code == 401
        # The username's budget is spent: even the right password is refused, and so is an
        # unknown username's once its own budget is spent (the limit tells nothing apart).
        r = b.login("Ann")
        assert r.status_code == 429 and error_code(r) == "rate_limited"
        for _ in range(3):
            assert b.login("Nobody", "wrong password").status_code == 401
        assert error_code(b.login("Nobody", "wrong password")) == "rate_limited"
        assert b.login("ann ", "x" * 9).status_code == 401  # another key, its own budget
        clock.advance(60)
        assert b.login("Ann").status_code == 200
        b.close()
    finally:
        live.stop()

    limits = Limits(login_burst=4, login_rate=1 / 6, login_user_burst=100)
    live = make_server(sqlite_url, clock=clock, password_hasher=CHEAP, limits=limits)
    try:
        b = Browser(live)
        for i in range(4):
            assert b.login(f"user{i}", "wrong password").status_code == 401
        r = b.login("Ann")
        assert r.status_code == 429 and error_code(r) == "rate_limited"
        clock.advance(6)
        assert b.login("Ann").status_code == 200
        b.close()
    finally:
        live.stop()


def test_registration_is_limited_per_address_and_per_username(sqlite_url: str, clock: FakeClock) -> None:
    limits = Limits(register_burst=4, register_user_burst=2)
    live = make_server(sqlite_url, clock=clock, password_hasher=CHEAP, limits=limits)
    try:
        b = Browser(live)
        assert b.register("Ann").status_code == 201
        assert error_code(b.register("ANN")) == "name_taken"
        assert error_code(b.register("ann")) == "rate_limited"  # this name's budget
        assert b.register("Bob").status_code == 201
        assert error_code(b.register("Cyd")) == "rate_limited"  # this address's budget
        clock.advance(60)
        assert b.register("Cyd").status_code == 201
        b.close()
    finally:
        live.stop()


def test_unknown_user_and_wrong_password_get_the_same_answer_and_the_same_work(sqlite_url: str) -> None:
    hasher = CountingHasher()
    live = make_server(sqlite_url, password_hasher=hasher)
    try:
        b = Browser(live)
        b.register("Ann")
        start = hasher.verified
        wrong = b.login("Ann", "wrong password")
        after_wrong = hasher.verified
        unknown = b.login("Nobody", "wrong password")
        after_unknown = hasher.verified
        assert wrong.status_code == unknown.status_code == 401
        assert wrong.json() == unknown.json() == {"error": {"code": "login_failed",
                                                            "message": "wrong username or password"}}

        def headers(r: httpx.Response) -> dict[str, str]:
            return {k: v for k, v in r.headers.items() if k != "date"}

        assert headers(wrong) == headers(unknown)
        # Each checked one password against an argon2 hash (a dummy one for the unknown user).
        assert after_wrong - start == after_unknown - after_wrong == 1
        b.close()
    finally:
        live.stop()


def test_a_hash_made_with_old_parameters_is_upgraded_at_log_in(sqlite_url: str) -> None:
    live = make_server(sqlite_url, password_hasher=CHEAP)
    try:
        Browser(live).register("Ann")
    finally:
        live.stop()
    stronger = PasswordHasher(time_cost=2, memory_cost=16, parallelism=1)
    live = make_server(sqlite_url, password_hasher=stronger)
    try:
        assert Browser(live).login("Ann").status_code == 200
    finally:
        live.stop()
    engine = create_engine(sqlite_url)
    with engine.connect() as conn:
        stored = conn.execute(text("SELECT password_hash FROM users")).scalar_one()
    engine.dispose()
    assert stored.startswith("$argon2id$") and "m=16,t=2,p=1" in stored
    assert not stronger.check_needs_rehash(stored)


# -- seats held by accounts ----------------------------------------------------------------------------

def test_a_logged_in_creator_holds_the_seat_by_account(site: LiveServer, browsers: Any) -> None:
    a = browsers()
    a.register("Ann")
    t = a.post("/api/tables", {"players": 2, "name": "Ann"}).json()
    # Without any token: the account's seat.
    r = a.get(f"/api/tables/{t['id']}")
    assert r.status_code == 200 and r.json()["you"] == {"seat": 0}
    r = a.post(f"/api/tables/{t['id']}/actions", {"type": "turn", "cells": ["e5", "a1"], "request_id": "x"})
    assert r.status_code == 200, r.text
    # The seat link works as ever, and the other seat is a guest's.
    assert httpx.get(f"{site.url}/api/tables/{t['id']}", headers=bearer(t["token"])).json()["you"]["seat"] == 0
    assert httpx.get(f"{site.url}/api/tables/{t['id']}", headers=bearer(t["invites"]["1"])).status_code == 200
    # Another account, logged in, holds no seat here.
    b = browsers()
    b.register("Bob")
    r = b.get(f"/api/tables/{t['id']}")
    assert r.status_code == 403 and error_code(r) == "forbidden"
    # Nobody logged in and no token: as before.
    assert httpx.get(f"{site.url}/api/tables/{t['id']}").status_code == 401


def test_a_guest_who_registers_claims_the_seats_of_their_links(site: LiveServer, browsers: Any) -> None:
    t1 = guest_table(site)
    t2 = guest_table(site, players=3)
    watch_before = httpx.get(f"{site.url}/api/tables/{t1['id']}", headers=bearer(t1["spectator_key"])).json()
    a = browsers()
    a.register("Ann")
    r = a.post("/api/account/claim", {"seats": [
        {"table_id": t1["id"], "token": t1["token"]},
        {"table_id": t2["id"], "token": t2["invites"]["2"]},
        {"table_id": t1["id"], "token": t1["invites"]["1"]},  # a second seat of the same table
        {"table_id": t1["id"], "token": t1["spectator_key"]},
        {"table_id": t1["id"], "token": "not-a-token"},
        {"table_id": "nosuchid", "token": t1["token"]},
        {"table_id": t1["id"], "token": t1["token"]},  # again
    ]})
    assert r.status_code == 200, r.text
    answers = [(s["status"], s.get("error", {}).get("code")) for s in r.json()["seats"]]
    assert answers == [("claimed", None), ("claimed", None), ("refused", "conflict"), ("refused", "forbidden"),
                       ("refused", "forbidden"), ("refused", "not_found"), ("already", None)]
    assert [s["seat"] for s in r.json()["seats"][:2]] == [0, 2]
    assert a.get(f"/api/tables/{t1['id']}").json()["you"]["seat"] == 0
    assert a.get(f"/api/tables/{t2['id']}").json()["you"]["seat"] == 2
    # The guest links keep working, and claiming stored no event (only the first visits did).
    assert httpx.get(f"{site.url}/api/tables/{t1['id']}", headers=bearer(t1["invites"]["1"])).json()["you"]["seat"] == 1
    watch_after = httpx.get(f"{site.url}/api/tables/{t1['id']}", headers=bearer(t1["spectator_key"])).json()
    assert [e for e in ("version",) if watch_after[e] != watch_before[e]] == ["version"]  # the join of seat 1
    assert watch_after["version"] == watch_before["version"] + 1
    # Another account cannot take a seat an account holds.
    b = browsers()
    b.register("Bob")
    r = b.post("/api/account/claim", {"seats": [{"table_id": t1["id"], "token": t1["token"]}]})
    seat = r.json()["seats"][0]
    assert seat["status"] == "refused" and seat["error"]["code"] == "forbidden"
    assert "another account" in seat["error"]["message"]
    assert b.get(f"/api/tables/{t1['id']}").status_code == 403
    # Claiming needs a logged-in user.
    assert browsers().post("/api/account/claim", {"seats": []}).status_code == 401


def test_a_seat_bound_in_one_process_is_known_to_another(pg: Any) -> None:
    url = pg.new_database()
    one, two = (make_server(url, password_hasher=CHEAP) for _ in range(2))
    try:
        t = guest_table(one)
        a2 = Browser(two)
        a2.register("Ann")
        assert a2.get(f"/api/tables/{t['id']}").status_code == 403  # caches the table's keys
        a1 = Browser(one)
        a1.http.cookies.set("omega_session", a2.session or "")
        assert a1.post("/api/account/claim", {"seats": [{"table_id": t["id"], "token": t["token"]}]}) \
            .json()["seats"][0]["status"] == "claimed"
        assert a2.get(f"/api/tables/{t['id']}").json()["you"]["seat"] == 0
        a1.close()
        a2.close()
    finally:
        one.stop()
        two.stop()


# -- lists ---------------------------------------------------------------------------------------------

def test_my_tables_put_my_turn_first_and_leave_finished_games_out(site: LiveServer, browsers: Any,
                                                                   clock: FakeClock) -> None:
    a = browsers()
    a.register("Ann")

    def table(players: int = 2) -> dict[str, Any]:
        clock.advance(1)
        r = a.post("/api/tables", {"players": players})
        assert r.status_code == 201
        return dict(r.json())

    def play(t: dict[str, Any], token: str, cells: list[str]) -> None:
        clock.advance(1)
        r = httpx.post(f"{site.url}/api/tables/{t['id']}/actions", headers=bearer(token),
                       json={"type": "turn", "cells": cells, "request_id": secrets.token_hex(4)})
        assert r.status_code == 200, r.text

    mine_first = table()          # my turn (seat 0 starts)
    theirs = table()
    play(theirs, theirs["token"], ["e5", "a1"])   # now seat 1's turn
    finished = table()
    clock.advance(1)
    r = a.post(f"/api/tables/{finished['id']}/actions", {"type": "resign", "request_id": "g"})
    assert r.status_code == 200
    newest_mine = table(players=3)  # my turn, changed last
    listed = a.get("/api/account/tables").json()["tables"]
    assert [t["id"] for t in listed] == [newest_mine["id"], mine_first["id"], theirs["id"]]
    assert [t["your_turn"] for t in listed] == [True, True, False]
    assert listed[0]["seats"][0] == {"index": 0, "kind": "human", "level": None, "user": "Ann", "name": None,
                                     "name_text": None}
    assert listed[0]["players"] == 3 and listed[0]["seat"] == 0
    # The opponent moves: that table is my turn again and the most recent change.
    play(theirs, theirs["invites"]["1"], ["e4", "a2"])
    listed = a.get("/api/account/tables").json()["tables"]
    assert [t["id"] for t in listed] == [theirs["id"], newest_mine["id"], mine_first["id"]]
    assert browsers().get("/api/account/tables").status_code == 401



def test_my_tables_show_turn_based_time_left_soonest_flag_first(site: LiveServer, browsers: Any,
                                                                clock: FakeClock) -> None:
    a, b = browsers(), browsers()
    a.register("Ann")
    b.register("Bob")

    def table(control: str) -> dict[str, Any]:
        r = a.post("/api/tables", {"players": 2, "time_control": control})
        assert r.status_code == 201, r.text
        t = dict(r.json())
        claimed = b.post("/api/account/claim", {"seats": [{"table_id": t["id"], "token": t["invites"]["1"]}]})
        assert claimed.json()["seats"][0]["status"] == "claimed"
        assert b.get(f"/api/tables/{t['id']}").status_code == 200  # Bob is there: the clocks start
        return t

    week, untimed, day = table("7d"), table("untimed"), table("1d")
    clock.advance(3600)
    answer = a.get("/api/account/tables").json()
    listed = {t["id"]: t for t in answer["tables"]}
    # My move everywhere: the clock that runs out first comes first, then the untimed table.
    assert [t["id"] for t in answer["tables"]] == [day["id"], week["id"], untimed["id"]]
    now = datetime.fromisoformat(answer["server_time"])
    assert now == clock.now()
    left = datetime.fromisoformat(listed[day["id"]]["flag_at"]) - now
    assert left == timedelta(hours=23)
    assert listed[day["id"]]["time_control"] == {"text": "1d", "kind": "turn_based"}
    assert listed[untimed["id"]]["flag_at"] is None
    assert listed[untimed["id"]]["time_control"] == {"text": "untimed", "kind": "untimed"}
    # Bob's list shows the same tables as the opponent's move: no clock of his runs.
    assert all(not t["your_turn"] for t in b.get("/api/account/tables").json()["tables"])


def test_history_lists_finished_games_newest_first_in_pages(site: LiveServer, browsers: Any,
                                                            clock: FakeClock) -> None:
    a, b = browsers(), browsers()
    a.register("Ann")
    b.register("Bob")
    games = []
    for i in range(3):
        clock.advance(10)
        t = a.post("/api/tables", {"players": 2}).json()
        assert b.post("/api/account/claim", {"seats": [{"table_id": t["id"], "token": t["invites"]["1"]}]}) \
            .json()["seats"][0]["status"] == "claimed"
        clock.advance(10)
        loser = a if i != 1 else b   # Ann loses games 0 and 2 by resigning, Bob game 1
        r = loser.post(f"/api/tables/{t['id']}/actions", {"type": "resign", "request_id": "r"})
        assert r.status_code == 200, r.text
        games.append(t["id"])
    unfinished = a.post("/api/tables", {"players": 2}).json()

    page1 = a.get("/api/account/history?limit=2").json()
    assert [g["id"] for g in page1["games"]] == [games[2], games[1]]
    assert [(g["won"], g["place"], g["color"], g["reason"]) for g in page1["games"]] == [
        (False, 2, "White", "resignation"), (True, 1, "White", "resignation")]
    assert page1["games"][0]["seats"][1]["user"] == "Bob"
    page2 = a.get("/api/account/history", params={"limit": 2, "before": page1["next"]}).json()
    assert [g["id"] for g in page2["games"]] == [games[0]] and page2["next"] is None
    assert unfinished["id"] not in [g["id"] for g in page1["games"] + page2["games"]]
    assert [g["won"] for g in b.get("/api/account/history").json()["games"]] == [True, False, True]
    for bad in ["limit=0", "limit=51", "limit=x", "before=nonsense", "before=2027-01-01T00:00:00~"]:
        r = a.get(f"/api/account/history?{bad}")
        assert r.status_code == 400 and error_code(r) == "bad_request", bad

    # The public profile: games played and won.
    profile = httpx.get(f"{site.url}/api/users/ann").json()
    assert profile["username"] == "Ann" and profile["games_played"] == 3 and profile["games_won"] == 1
    assert httpx.get(f"{site.url}/api/users/Bob").json()["games_won"] == 2
    assert httpx.get(f"{site.url}/api/users/nobody").status_code == 404


def test_history_knows_the_colour_after_a_pie_swap(site: LiveServer, browsers: Any) -> None:
    a = browsers()
    a.register("Ann")
    t = guest_table(site, pie_rule=True)
    a.post("/api/account/claim", {"seats": [{"table_id": t["id"], "token": t["invites"]["1"]}]})
    for token, action in [(t["token"], {"type": "turn", "cells": ["e5", "a1"]}), (t["invites"]["1"], {"type": "swap"}),
                          (t["token"], {"type": "resign"})]:
        r = httpx.post(f"{site.url}/api/tables/{t['id']}/actions", headers=bearer(token),
                       json=action | {"request_id": secrets.token_hex(4)})
        assert r.status_code == 200, r.text
    game = a.get("/api/account/history").json()["games"][0]
    assert (game["seat"], game["color"], game["won"], game["ranking"]) == (1, "White", True, ["White", "Black"])


# -- the socket ----------------------------------------------------------------------------------------

def test_a_socket_with_a_session_cookie_plays_the_accounts_seat(site: LiveServer, browsers: Any) -> None:
    a = browsers()
    a.register("Ann")
    t = a.post("/api/tables", {"players": 2}).json()
    cookie = f"omega_session={a.session}"
    with connect(f"{site.ws_url}/ws/tables/{t['id']}", subprotocols=subprotocols(None),  # type: ignore[arg-type]
                 additional_headers={"cookie": cookie}, origin=site.url, open_timeout=30) as ws:  # type: ignore[arg-type]
        sync = json.loads(ws.recv(timeout=20))
        assert sync["type"] == "sync" and sync["state"]["you"] == {"seat": 0}
        ws.send(json.dumps({"type": "action", "request_id": "w1", "action": {"type": "turn", "cells": ["e5", "a1"]}}))
        while (msg := json.loads(ws.recv(timeout=20)))["type"] != "ack":
            pass
        assert msg["request_id"] == "w1"
    # Another site's page cannot use the cookie.
    with connect(f"{site.ws_url}/ws/tables/{t['id']}", subprotocols=subprotocols(None),  # type: ignore[arg-type]
                 additional_headers={"cookie": cookie}, origin="http://evil.example",  # type: ignore[arg-type]
                 open_timeout=30) as ws:
        msg = json.loads(ws.recv(timeout=20))
        assert msg["type"] == "error" and msg["error"]["code"] == "cross_site"
        with pytest.raises(ConnectionClosed):
            ws.recv(timeout=20)
        assert ws.close_code == 4403


def test_a_claim_costs_a_request_per_link(sqlite_url: str) -> None:
    live = make_server(sqlite_url, password_hasher=CHEAP, limits=Limits(http_burst=5, http_rate=0.001))
    try:
        tables = [guest_table(live) for _ in range(6)]
        b = Browser(live)
        b.register("Ann")
        r = b.post("/api/account/claim", {"seats": [{"table_id": t["id"], "token": t["token"]} for t in tables]})
        assert r.status_code == 429 and error_code(r) == "rate_limited"
        # Refused before any seat was bound.
        assert b.get(f"/api/tables/{tables[0]['id']}").status_code == 403
        b.close()
    finally:
        live.stop()
