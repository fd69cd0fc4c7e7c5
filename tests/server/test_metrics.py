"""``GET /metrics``: what a server process counts, in Prometheus text format, read over real
HTTP from a live server, and who may read it."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from omega.server.app import create_app
from omega.server.clock import FakeClock

from .server_helpers import ROOT, Api, LiveServer, Socket, error_code, free_port, make_server, scrape, value


@pytest.fixture
def api(sqlite_server: LiveServer) -> Iterator[Api]:
    client = Api(sqlite_server.url)
    yield client
    client.close()


def test_requests_are_counted_by_route_template_never_by_path(sqlite_server: LiveServer, api: Api) -> None:
    t = api.create(players=2)
    assert api.get(t["id"], t["token"]).status_code == 200
    assert api.get(t["id"], t["token"]).status_code == 200
    assert api.get("nosuchid", t["token"]).status_code == 404
    assert api.http.request("PROPFIND", f"/api/tables/{t['id']}").status_code == 405
    assert api.http.get("/no/such/page").status_code == 404
    text = scrape(sqlite_server.url)
    route = "/api/tables/{table_id}"
    assert value(text, "omega_http_requests_total", route=route, method="GET", status="200") == 2
    assert value(text, "omega_http_requests_total", route=route, method="GET", status="404") == 1
    assert value(text, "omega_http_requests_total", route=route, method="other", status="405") == 1
    assert value(text, "omega_http_requests_total", route="/api/tables", method="POST", status="201") == 1
    assert value(text, "omega_http_requests_total", route="unmatched", method="GET", status="404") == 1
    assert value(text, "omega_http_request_duration_seconds_count", route=route) == 4
    # No id, token, raw path or invented method becomes a label.
    for secret in (t["id"], t["token"], t["spectator_key"], "nosuchid", "/no/such/page", "PROPFIND"):
        assert secret not in text


def test_moves_are_timed_per_transport_and_sockets_counted(sqlite_server: LiveServer, api: Api) -> None:
    t = api.create(players=2)
    tid = t["id"]
    seat0, seat1 = Socket(sqlite_server.ws_url, tid, t["invites"]["0"]), Socket(sqlite_server.ws_url, tid, t["invites"]["1"])
    try:
        assert seat0.recv()["type"] == seat1.recv()["type"] == "sync"
        assert value(scrape(sqlite_server.url), "omega_open_sockets") == 2
        api.turn(tid, t["invites"]["0"], ["e5", "a1"])
        # Seat 1 answers over its socket; a refused action is not a move.
        seat1.send({"type": "action", "request_id": "r1", "action": {"type": "turn", "cells": ["e5", "b2"]}})
        assert seat1.until(lambda m: m["type"] == "error")["error"]["code"] == "illegal_move"
        seat1.send({"type": "action", "request_id": "r2", "action": {"type": "turn", "cells": ["e4", "b2"]}})
        assert seat1.until(lambda m: m["type"] == "ack")["request_id"] == "r2"
        text = scrape(sqlite_server.url)
        assert value(text, "omega_move_roundtrip_seconds_count", transport="http") == 1
        assert value(text, "omega_move_roundtrip_seconds_count", transport="websocket") == 1
        assert value(text, "omega_move_roundtrip_seconds_bucket", transport="websocket", le="+Inf") == 1
    finally:
        seat0.close()
        seat1.close()
    # The clients closed; once the server is done with both connections it counts neither.
    sqlite_server.finish_connections()
    assert value(scrape(sqlite_server.url), "omega_open_sockets") == 0


def test_the_computer_queue_is_counted_site_wide(sqlite_url: str) -> None:
    clock = FakeClock()
    live = make_server(sqlite_url, bot=None, clock=clock)  # nobody plays the computer's turns
    api = Api(live.url)
    try:
        t = api.create(players=2, seats=[{"kind": "human"}, {"kind": "computer", "level": 1}])
        text = scrape(live.url)
        assert value(text, "omega_computer_turns_due") == 0
        assert value(text, "omega_computer_oldest_waiting_seconds") == 0
        api.turn(t["id"], t["token"], ["e5", "a1"])
        clock.advance(30)
        text = scrape(live.url)
        assert value(text, "omega_computer_turns_due") == 1
        assert value(text, "omega_computer_oldest_waiting_seconds") == 30
    finally:
        api.close()
        live.stop()


def test_computer_turns_waiting_and_thinking_are_measured(sqlite_server: LiveServer, api: Api) -> None:
    t = api.create(players=2, seats=[{"kind": "human"}, {"kind": "computer", "level": 1}])
    watch = Socket(sqlite_server.ws_url, t["id"], t["spectator_key"])
    try:
        watch.recv()
        api.turn(t["id"], t["token"], ["e5", "a1"])
        watch.until(lambda m: m["type"] == "event" and m["event"].get("computer") is True)
    finally:
        watch.close()
    text = scrape(sqlite_server.url)
    assert value(text, "omega_computer_think_seconds_count", level="1") == 1
    assert value(text, "omega_computer_wait_seconds_count") == 1
    assert value(text, "omega_computer_turns_thinking") == value(text, "omega_computer_turns_waiting") == 0
    assert value(text, "omega_computer_deadline_misses_total") == 0


def test_timeouts_fired_are_counted(sqlite_server: LiveServer) -> None:
    assert value(scrape(sqlite_server.url), "omega_clock_timeouts_total") == 0
    sqlite_server.app.state.core.metrics.timeout_fired()
    assert value(scrape(sqlite_server.url), "omega_clock_timeouts_total") == 1


def test_database_errors_are_counted(sqlite_url: str, tmp_path: Path) -> None:
    live = make_server(sqlite_url)
    api = Api(live.url)
    try:
        t = api.create(players=2)
        assert value(scrape(live.url), "omega_database_errors_total", error="OperationalError") == 0
        # The tables go missing under the server: reading a table it does not hold fails.
        with sqlite3.connect(sqlite_url.removeprefix("sqlite:///")) as conn:
            conn.execute("ALTER TABLE tables RENAME TO tables_gone")
        r = api.get("abcdefgh", t["token"])
        assert r.status_code == 503 and error_code(r) == "unavailable"
        assert value(scrape(live.url), "omega_database_errors_total", error="OperationalError") == 1
    finally:
        api.close()
        live.stop()


def test_metrics_are_for_monitoring_addresses_only(sqlite_url: str, sqlite_server: LiveServer) -> None:
    # The default: this machine, straight to the process.
    assert "omega_open_sockets" in scrape(sqlite_server.url)
    # Through a proxy (which says whom it forwards) never, whatever the address.
    r = httpx.get(f"{sqlite_server.url}/metrics", headers={"X-Forwarded-For": "127.0.0.1"})
    assert r.status_code == 403 and error_code(r) == "forbidden"
    for allowed in ("10.9.0.0/16", ""):
        live = LiveServer(create_app(sqlite_url, bot_factory=None, metrics_from=allowed))
        try:
            r = httpx.get(f"{live.url}/metrics")
            assert r.status_code == 403 and error_code(r) == "forbidden"
            assert "omega_" not in r.text
        finally:
            live.stop()


def test_a_bad_metrics_address_is_refused_at_start(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "omega.cli", "serve", "--port", str(free_port()), "--db",
                        f"sqlite:///{tmp_path / 'omega.sqlite3'}", "--metrics-from", "127.0.0.1,localhost"],
                       capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert r.returncode == 2
    assert r.stderr.splitlines()[-1] == "omega serve: --metrics-from: not an address or network: 'localhost'"
