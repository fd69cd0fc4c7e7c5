"""New links made by a table's creator (``POST /api/tables/{id}/links``), over real HTTP
and WebSocket round trips on both databases, and on two ``omega serve`` processes sharing
one PostgreSQL database."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from alembic import command
from sqlalchemy import text
from websockets.exceptions import ConnectionClosed

from observe import observable_state
from omega import Game
from omega.server.clock import FakeClock
from omega.server.infra.db import make_engine
from omega.server.infra.limits import Limits

from .server_helpers import (
    Api,
    LiveServer,
    PgCluster,
    ServeProcess,
    Socket,
    bearer,
    error_code,
    make_server,
    migrations,
)
from .site_helpers import agreed_rematch


@pytest.fixture
def site(db_url: str, clock: FakeClock) -> Iterator[LiveServer]:
    with make_server(db_url, clock=clock) as live:
        yield live


@pytest.fixture
def http(site: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=site.url, timeout=30) as client:
        yield client


def create(http: httpx.Client, players: int = 3) -> dict[str, Any]:
    r = http.post("/api/tables", json={"players": players, "seats": [{"kind": "human"}] * players, "name": "Ann"})
    assert r.status_code == 201, r.text
    return dict(r.json())


def relink(http: httpx.Client, table_id: str, token: str | None, body: Any, **headers: str) -> httpx.Response:
    return http.post(f"/api/tables/{table_id}/links", content=json.dumps(body).encode(),
                     headers={"content-type": "application/json", **bearer(token), **headers})


def status(http: httpx.Client, table_id: str, token: str | None) -> int:
    return http.get(f"/api/tables/{table_id}", headers=bearer(token)).status_code


def snapshot(http: httpx.Client, t: dict[str, Any]) -> dict[str, Any]:
    """What the table shows (its state, its game by the public API, its log's length)."""
    state = http.get(f"/api/tables/{t['id']}", headers=bearer(t["token"])).json()
    record = http.get(f"/api/tables/{t['id']}/record.txt", headers=bearer(t["token"])).text
    return {"state": state, "game": observable_state(Game.from_record(record))}


def test_the_creator_makes_new_invites_and_the_old_ones_open_nothing(http: httpx.Client) -> None:
    t = create(http)
    old = t["invites"]
    assert status(http, t["id"], old["1"]) == 200  # seat 2's player joins with the first invite
    info = http.get(f"/api/tables/{t['id']}/links", headers=bearer(t["token"])).json()
    assert info == {"creator_seat": 0, "open_seats": [2]}

    r = relink(http, t["id"], t["token"], {"invites": True})
    assert r.status_code == 200, r.text
    answer = r.json()
    assert set(answer["invites"]) == {"2"} and answer["spectator_key"] is None
    new = answer["invites"]["2"]
    assert new != old["2"]
    assert answer["state"]["you"] == {"seat": 0}

    # The replaced invite opens nothing, for reading or for acting; the new one opens seat 3.
    assert status(http, t["id"], old["2"]) == 403
    r = http.post(f"/api/tables/{t['id']}/actions", json={"type": "resign", "request_id": "x"},
                  headers=bearer(old["2"]))
    assert r.status_code == 403 and error_code(r) == "forbidden"
    state = http.get(f"/api/tables/{t['id']}", headers=bearer(new)).json()
    assert state["you"] == {"seat": 2} and state["seats"][2]["joined"]
    # Seats already joined keep their tokens; the spectator key was not asked for.
    assert status(http, t["id"], old["1"]) == 200
    assert status(http, t["id"], t["token"]) == 200
    assert status(http, t["id"], t["spectator_key"]) == 200
    # Every seat has joined now: no invite is left to make anew.
    r = relink(http, t["id"], t["token"], {"invites": True})
    assert r.status_code == 409 and error_code(r) == "conflict"


def test_a_new_spectator_key_leaves_open_sockets_open(site: LiveServer, http: httpx.Client) -> None:
    t = create(http, players=2)
    watching = Socket(site.url.replace("http", "ws"), t["id"], t["spectator_key"])
    try:
        assert watching.recv()["type"] == "sync"
        r = relink(http, t["id"], t["token"], {"spectator": True, "invites": True})
        assert r.status_code == 200, r.text
        key = r.json()["spectator_key"]
        assert key and key != t["spectator_key"] and set(r.json()["invites"]) == {"1"}
        seen = watching.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "links")
        assert seen["event"] == {"kind": "links", "seat": 0, "seats": [1], "spectator": True}
        # The open socket still gets the table's events ...
        http.post(f"/api/tables/{t['id']}/actions", json={"type": "turn", "cells": ["e5", "a1"], "request_id": "a"},
                  headers=bearer(t["token"]))
        assert watching.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "turn")["event"]["seat"] == 0
    finally:
        watching.close()
    # ... but the old key opens no new one, and reads nothing; the new key does.
    late = Socket(site.url.replace("http", "ws"), t["id"], t["spectator_key"])
    try:
        assert late.recv()["error"]["code"] == "forbidden"
        with pytest.raises(ConnectionClosed) as closed:
            late.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
    finally:
        late.close()
    assert status(http, t["id"], t["spectator_key"]) == 403
    assert http.get(f"/api/tables/{t['id']}", headers=bearer(key)).json()["you"] == {"seat": None}


def test_refused_requests_change_nothing(site: LiveServer, http: httpx.Client) -> None:
    t = create(http)
    assert status(http, t["id"], t["invites"]["1"]) == 200
    before = snapshot(http, t)
    refusals = [
        (t["invites"]["1"], {"invites": True}, 403, "forbidden"),  # a seat that did not create the table
        (t["spectator_key"], {"spectator": True}, 403, "forbidden"),
        (None, {"invites": True}, 401, "auth_required"),
        ("nonsense", {"invites": True}, 403, "forbidden"),
        (t["token"], {}, 400, "bad_request"),  # nothing asked for
        (t["token"], {"invites": "yes"}, 400, "bad_request"),
        (t["token"], {"invites": True, "seats": [1]}, 400, "bad_request"),
    ]
    for token, body, code, name in refusals:
        r = relink(http, t["id"], token, body)
        assert (r.status_code, error_code(r)) == (code, name), (body, r.text)
    r = relink(http, "nosuchid", t["token"], {"invites": True})
    assert r.status_code == 404
    assert snapshot(http, t) == before
    assert status(http, t["id"], t["invites"]["2"]) == 200  # every link works as before
    assert status(http, t["id"], t["spectator_key"]) == 200


def test_new_links_are_rate_limited_per_table(site: LiveServer, http: httpx.Client, clock: FakeClock) -> None:
    t = create(http)
    burst = Limits().relink_burst
    for _ in range(burst):
        assert relink(http, t["id"], t["token"], {"spectator": True}).status_code == 200
    before = snapshot(http, t)
    key = http.get(f"/api/tables/{t['id']}/links", headers=bearer(t["token"])).json()
    r = relink(http, t["id"], t["token"], {"invites": True, "spectator": True})
    assert r.status_code == 429 and error_code(r) == "rate_limited"
    assert snapshot(http, t) == before
    assert http.get(f"/api/tables/{t['id']}/links", headers=bearer(t["token"])).json() == key
    clock.advance(1 / Limits().relink_rate)
    assert relink(http, t["id"], t["token"], {"invites": True}).status_code == 200


def test_a_creator_proved_by_cookie_needs_the_site_s_own_page(site: LiveServer) -> None:
    with httpx.Client(base_url=site.url, timeout=30) as browser:
        r = browser.post("/api/account/register", json={"username": "Ann", "password": "correct horse battery"},
                         headers={"origin": site.url})
        assert r.status_code == 201, r.text
        r = browser.post("/api/tables", json={"players": 2, "seats": [{"kind": "human"}] * 2},
                         headers={"origin": site.url})
        assert r.status_code == 201, r.text
        t = r.json()
        before = snapshot(browser, t)
        r = relink(browser, t["id"], None, {"invites": True}, origin="https://elsewhere.example")
        assert r.status_code == 403 and error_code(r) == "cross_site"
        assert snapshot(browser, t) == before
        assert status(browser, t["id"], t["invites"]["1"]) == 200
        r = relink(browser, t["id"], None, {"invites": True}, origin=site.url)
        assert r.status_code == 409  # the invite above joined seat 2: the request got in, nothing to renew



def test_a_lobby_table_has_no_links_to_make(site: LiveServer) -> None:
    with httpx.Client(base_url=site.url, timeout=30, headers={"origin": site.url}) as browser:
        r = browser.post("/api/account/register", json={"username": "Ann", "password": "correct horse battery"})
        assert r.status_code == 201, r.text
        r = browser.post("/api/lobby/tables", json={"players": 2, "rated": True, "time_control": "5+5"})
        assert r.status_code == 201, r.text
        table_id = r.json()["id"]
        before = browser.get(f"/api/tables/{table_id}").json()
        # Its free seat is taken in the lobby by an account: an invite would let a guest into
        # a rated game; and anyone may watch it without a key.
        for body in ({"invites": True}, {"spectator": True}):
            r = relink(browser, table_id, None, body)
            assert (r.status_code, error_code(r)) == (409, "conflict"), r.text
            assert "lobby" in r.json()["error"]["message"]
        assert browser.get(f"/api/tables/{table_id}").json() == before


def test_a_rematch_s_table_has_no_creator(site: LiveServer, http: httpx.Client) -> None:
    t = create(http, players=2)
    assert status(http, t["id"], t["invites"]["1"]) == 200
    http.post(f"/api/tables/{t['id']}/actions", json={"type": "resign", "request_id": "r"}, headers=bearer(t["token"]))
    ws = site.url.replace("http", "ws")
    started = agreed_rematch(Socket(ws, t["id"], t["token"]), Socket(ws, t["id"], t["invites"]["1"]))
    new_id = started["table"]["id"]
    info = http.get(f"/api/tables/{new_id}/links", headers=bearer(t["token"])).json()
    assert info["creator_seat"] is None
    r = relink(http, new_id, t["token"], {"spectator": True})
    assert r.status_code == 403 and error_code(r) == "forbidden"
    assert status(http, new_id, t["invites"]["1"]) == 200


def test_the_migration_finds_the_creator_in_the_log(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'omega.sqlite3'}"
    live = make_server(url)
    try:
        with httpx.Client(base_url=live.url, timeout=30) as http:
            r = http.post("/api/tables", json={"players": 2, "seats": [{"kind": "human"}] * 2, "creator_seat": 1})
            t = r.json()
    finally:
        live.stop()
    engine = make_engine(url)
    with engine.begin() as conn:
        cfg = migrations(conn)
        command.downgrade(cfg, "0008")  # the revision before the creator was kept
        command.upgrade(cfg, "head")
        seat = conn.execute(text("SELECT creator_seat FROM tables WHERE id = :i"), {"i": t["id"]}).scalar_one()
    engine.dispose()
    assert seat == 1


@pytest.mark.slow
def test_two_processes_refuse_a_replaced_invite_at_once(pg: PgCluster) -> None:
    url = pg.new_database()
    a, b = ServeProcess(url), ServeProcess(url)
    a.ready()
    b.ready()
    api_a, api_b = Api(a.url), Api(b.url)
    try:
        t = api_a.create(players=3, seats=[{"kind": "human"}] * 3)
        old, key = t["invites"], t["spectator_key"]
        # Both processes hold the table, and its first keys, in their caches.
        for api in (api_a, api_b):
            assert api.get(t["id"], key).status_code == 200
        r = api_a.http.post(f"/api/tables/{t['id']}/links", json={"invites": True, "spectator": True},
                            headers=bearer(t["token"]))
        assert r.status_code == 200, r.text
        new, new_key = r.json()["invites"], r.json()["spectator_key"]
        for api in (api_b, api_a):  # B first: nothing told it yet but the database
            assert api.act(t["id"], old["2"], {"type": "resign"}).status_code == 403
            assert api.get(t["id"], old["1"]).status_code == 403
            assert api.get(t["id"], key).status_code == 403
        assert api_b.state(t["id"], new["1"])["you"] == {"seat": 1}
        assert api_a.state(t["id"], new["2"])["you"] == {"seat": 2}
        assert api_b.state(t["id"], new["2"])["you"] == {"seat": 2}
        assert api_a.state(t["id"], new_key)["you"] == {"seat": None}
        assert api_b.state(t["id"], new_key)["you"] == {"seat": None}
        assert api_b.act(t["id"], new["1"], {"type": "resign"}).status_code == 200
    finally:
        api_a.close()
        api_b.close()
        a.stop()
        b.stop()
