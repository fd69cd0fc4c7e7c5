"""WebSocket round trips against a live uvicorn server with the ``websockets`` client."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import random
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from omega.server.clock import FakeClock
from omega.server.infra.limits import Limits

from .server_helpers import Api, LiveServer, Socket, make_server, random_turn

pytestmark = pytest.mark.timeout(120)


def _events(sock: Socket, until_version: int) -> list[dict[str, Any]]:
    """Every event the socket received, reading on until ``until_version``."""
    while True:
        out = [m for m in sock.received if m["type"] == "event"]
        if out and out[-1]["version"] >= until_version:
            return out
        sock.recv()


def test_events_have_consecutive_versions(server: LiveServer, api: Api) -> None:
    t = api.create(players=2, name="Ann")
    tid, p0, p1 = t["id"], t["invites"]["0"], t["invites"]["1"]
    a, b = Socket(server.ws_url, tid, p0), Socket(server.ws_url, tid, p1)
    try:
        sync = a.recv()
        assert sync["type"] == "sync" and sync["state"]["you"] == {"seat": 0}
        assert b.recv()["type"] == "sync"
        rng = random.Random(5)
        sockets = [a, b]
        state = api.state(tid, p0)
        for n in range(6):
            seat = state["game"]["current_seat"]
            rid = f"ws-{n}"
            sockets[seat].send({"type": "action", "request_id": rid,
                                "action": {"type": "turn", "cells": random_turn(state, rng)}})
            ack = sockets[seat].until(lambda m, rid=rid: m["type"] in ("ack", "error") and m["request_id"] == rid)
            assert ack["type"] == "ack", ack
            state = api.state(tid, p0)
            assert ack["version"] <= state["version"]
        final = api.state(tid, p0)["version"]
        seen_a = _events(a, final)
        seen_b = _events(b, final)
        for seen, seat in ((seen_a, 0), (seen_b, 1)):
            versions = [m["version"] for m in seen]
            assert versions == list(range(versions[0], final + 1)), versions
            assert all(m["state"]["version"] == m["version"] and m["state"]["you"] == {"seat": seat} for m in seen)
            turns = [m["event"]["cells"] for m in seen if m["event"]["kind"] == "turn"]
            assert turns == final_history(api, tid, p0)
        assert {m["event"]["kind"] for m in seen_a} >= {"turn"}
        # Presence is live state, not history: messages without versions of their own.
        presence = [m for m in a.received if m["type"] == "presence"]
        assert presence and presence[-1]["seats"] == [True, True]
        assert not any(m["type"] == "event" and m["event"]["kind"] == "presence" for m in [*a.received, *b.received])
        a.send({"type": "ping"})
        assert a.until(lambda m: m["type"] != "event")["type"] == "pong"
    finally:
        a.close()
        b.close()


def final_history(api: Api, tid: str, token: str) -> list[Any]:
    return list(api.state(tid, token)["game"]["history"])


def test_reconnect_with_since(server: LiveServer, api: Api) -> None:
    t = api.create(players=2)
    tid, p0, p1 = t["id"], t["invites"]["0"], t["invites"]["1"]
    rng = random.Random(2)
    sock = Socket(server.ws_url, tid, p1)
    first = sock.recv()
    assert first["type"] == "sync"
    seen = first["version"]
    sock.close()
    state = api.state(tid, p0)
    for _ in range(4):
        token = p0 if state["game"]["current_seat"] == 0 else p1
        state = api.turn(tid, token, random_turn(state, rng))["state"]
    now = api.state(tid, p0)["version"]
    sock = Socket(server.ws_url, tid, p1, base=first["state"])  # resumes from what it holds
    try:
        missed = [sock.recv() for _ in range(now - seen)]
        assert [m["type"] for m in missed] == ["event"] * (now - seen)
        assert [m["version"] for m in missed] == list(range(seen + 1, now + 1))
        assert [m["event"]["cells"] for m in missed if m["event"]["kind"] == "turn"] == state["game"]["history"]
        # Each replayed event carries the state as it was then.
        assert [len(m["state"]["game"]["history"]) for m in missed if m["event"]["kind"] == "turn"] == [1, 2, 3, 4]
        # Then our own arrival, which is no event: the version does not move.
        here = sock.until(lambda m: m["type"] == "presence")
        assert here["version"] == now and here["seats"][1] is True
        assert api.state(tid, p0)["version"] == now
    finally:
        sock.close()
    # Reconnecting already up to date: nothing is replayed, and the next event comes alone
    # (the whole log was sent again from version 1, as if the socket had missed it all).
    sock = Socket(server.ws_url, tid, p1, base=api.state(tid, p1))
    try:
        sock.until(lambda m: m["type"] == "presence")
        state = api.state(tid, p0)
        token = p0 if state["game"]["current_seat"] == 0 else p1
        api.turn(tid, token, random_turn(state, rng))
        nxt = sock.until(lambda m: m["type"] == "event")
        assert nxt["version"] == now + 1 and nxt["event"]["kind"] == "turn"
        assert not any(m["type"] == "event" and m["version"] <= now for m in sock.received)
    finally:
        sock.close()
    state = api.state(tid, p0)
    for since in (10**6, 10**12):  # unknown version: a full sync
        sock = Socket(server.ws_url, tid, p1, since=since)
        try:
            msg = sock.recv()
            assert msg["type"] == "sync" and msg["state"]["game"]["history"] == state["game"]["history"]
        finally:
            sock.close()


def test_spectator_and_bad_tokens(server: LiveServer, api: Api) -> None:
    t = api.create(players=2)
    tid = t["id"]
    spy = Socket(server.ws_url, tid, t["spectator_key"])
    try:
        sync = spy.recv()
        assert sync["type"] == "sync" and sync["state"]["you"] == {"seat": None}
        spy.send({"type": "action", "request_id": "x", "action": {"type": "turn", "cells": ["e5", "a1"]}})
        err = spy.until(lambda m: m["type"] == "error")
        assert err["request_id"] == "x" and err["error"]["code"] == "forbidden"
        api.turn(tid, t["token"], ["e5", "a1"])
        ev = spy.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "turn")
        assert ev["event"]["cells"] == ["e5", "a1"] and ev["event"]["color"] == "White"
        assert api.state(tid, t["token"])["game"]["history"] == [["e5", "a1"]]
    finally:
        spy.close()
    for token, code, close in ((None, "auth_required", 4401), ("wrong", "forbidden", 4403)):
        sock = Socket(server.ws_url, tid, token)
        msg = sock.recv()
        assert msg["type"] == "error" and msg["error"]["code"] == code
        with pytest.raises(ConnectionClosed) as info:
            sock.recv()
        assert info.value.rcvd is not None and info.value.rcvd.code == close
    sock = Socket(server.ws_url, "nosuchtable", t["token"])
    assert sock.recv()["error"]["code"] == "not_found"


def test_bad_messages_change_nothing(server: LiveServer, api: Api) -> None:
    t = api.create(players=2)
    sock = Socket(server.ws_url, t["id"], t["token"])
    try:
        sock.recv()
        for raw, rid in (("not json", None), ('{"type": "action"}', None), ("[]", None),
                         ('{"type": "action", "request_id": "r1", "action": {"type": "fly"}}', "r1"),
                         ('{"type": "action", "request_id": "r2", "action": {"type": "turn", "cells": ["e5"]}}', "r2"),
                         ('{"type": "action", "request_id": "r3", "action": {"type": "turn", "cells": ["e5", "a1"]},'
                          ' "version": 999}', "r3")):
            sock.send(raw)
            err = sock.until(lambda m: m["type"] == "error")
            assert err["request_id"] == rid, (raw, err)
            expected = {"r2": "illegal_move", "r3": "stale_version"}.get(rid or "", "bad_request")
            assert err["error"]["code"] == expected, (raw, err)
        assert api.state(t["id"], t["token"])["game"]["history"] == []
    finally:
        sock.close()


@pytest.fixture
def clocked(db_url: str) -> Iterator[tuple[LiveServer, FakeClock]]:
    """A live server whose rate limits read a clock the test moves by hand."""
    clock = FakeClock()
    live = make_server(db_url, clock=clock)
    try:
        yield live, clock
    finally:
        live.stop()


def test_flood_and_oversize_are_refused_without_hurting_others(clocked: tuple[LiveServer, FakeClock]) -> None:
    server, clock = clocked
    api = Api(server.url)
    flood_table = api.create(players=2)
    calm_table = api.create(players=2)
    flooder = Socket(server.ws_url, flood_table["id"], flood_table["token"])
    calm = Socket(server.ws_url, calm_table["id"], calm_table["invites"]["1"])
    try:
        flooder.recv()
        calm.recv()
        flooder.send(json.dumps({"type": "ping", "pad": "x" * 5000}))
        err = flooder.until(lambda m: m["type"] == "error")
        assert err["error"]["code"] == "too_large"
        for _ in range(200):
            flooder.send({"type": "ping"})
        # While the flooder is refused, the calm table's move arrives promptly.
        start = time.monotonic()
        api.turn(calm_table["id"], calm_table["token"], ["e5", "a1"])
        ev = calm.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "turn", timeout=5)
        assert ev["event"]["cells"] == ["e5", "a1"] and time.monotonic() - start < 5
        answers = []
        while len(answers) < 200:
            m = flooder.recv()
            if m["type"] in ("pong", "error"):
                answers.append(m)
        pongs = sum(m["type"] == "pong" for m in answers)
        limited = [m for m in answers if m["type"] == "error"]
        assert 15 <= pongs < 100 and limited and {m["error"]["code"] for m in limited} == {"rate_limited"}
        # The flooder's own socket is still open and, after a pause, served again.
        flooder.conn.close_timeout = 1
        clock.advance(1.1)  # the rate limit is per second: let the bucket refill
        flooder.send({"type": "ping"})
        assert flooder.until(lambda m: m["type"] in ("pong", "error"))["type"] == "pong"
    finally:
        flooder.close()
        calm.close()
        api.close()


def _consistent(state: dict[str, Any]) -> bool:
    """A table state a client may see: "playing" with someone to move, or over with nobody."""
    g = state["game"]
    if state["status"] == "playing":
        return not g["over"] and g["to_move"] is not None and g["current_seat"] is not None and g["winner"] is None
    return state["status"] == "over" and g["over"] and g["to_move"] is None and g["winner"] is not None


def test_every_state_seen_is_consistent_at_the_end(server: LiveServer, api: Api) -> None:
    """The turn that fills the board (and the resignation that leaves one player) already
    carries an over state; the ``over`` event follows at the next version."""
    rng = random.Random(9)
    # 1. To the end of the board (2 players, side 5: 61 cells), watched live and replayed.
    t = api.create(players=2)
    tid, tokens = t["id"], [t["invites"]["0"], t["invites"]["1"]]
    spy = Socket(server.ws_url, tid, t["spectator_key"])
    try:
        assert spy.recv()["type"] == "sync"
        state = t["state"]
        while state["status"] == "playing":
            assert _consistent(state), state
            state = api.turn(tid, tokens[state["game"]["current_seat"]], random_turn(state, rng))["state"]
        assert _consistent(state)
        final = state["version"]
        seen = _events(spy, final)
    finally:
        spy.close()
    assert t["state"]["version"] == 1
    replayed = Socket(server.ws_url, tid, t["spectator_key"], base=t["state"])
    try:
        replay = [replayed.recv() for _ in range(final - 1)]
    finally:
        replayed.close()
    for feed in (seen, replay):
        assert all(_consistent(m["state"]) and m["state"]["version"] == m["version"] for m in feed), \
            [m["state"]["game"] for m in feed if not _consistent(m["state"])][:1]
        last_turn, over = feed[-2], feed[-1]
        assert last_turn["event"]["kind"] == "turn" and last_turn["state"]["status"] == "over"
        assert over["event"]["kind"] == "over" and over["version"] == last_turn["version"] + 1
        assert over["event"]["reason"] == "board_full" and over["event"]["winner"] == over["state"]["game"]["winner"]

    # 2. A resignation that leaves one player.
    t = api.create(players=2)
    spy = Socket(server.ws_url, t["id"], t["spectator_key"])
    try:
        spy.recv()
        api.turn(t["id"], t["token"], ["e5", "a1"])
        r = api.act(t["id"], t["invites"]["1"], {"type": "resign"})
        assert r.status_code == 200 and _consistent(r.json()["state"])
        feed = _events(spy, r.json()["version"] + 1)  # the answer's version is the resign event's
        assert all(_consistent(m["state"]) for m in feed)
        resign, over = feed[-2], feed[-1]
        assert resign["event"]["kind"] == "resign" and resign["state"]["status"] == "over"
        assert over["event"] == {**over["event"], "kind": "over", "reason": "resignation", "winner": "White"}
    finally:
        spy.close()


def _raw_socket(port: int, path: str, token: str) -> socket.socket:
    """A WebSocket opened by hand on a socket with a tiny receive buffer; after the handshake
    nothing reads it until the test says so (a client that stopped reading)."""
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    raw.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    raw.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                f"Sec-WebSocket-Protocol: omega.v1, omega.token.{token}\r\n\r\n".encode())
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        head += raw.recv(1)  # byte by byte: not one byte of the feed is read
    assert head.split(b"\r\n")[0].split()[1] == b"101", head
    return raw


def _read_frames(raw: socket.socket) -> tuple[list[dict[str, Any]], tuple[int, str] | None]:
    """Every text message up to the close frame (code, reason), or to the end of the stream."""
    raw.settimeout(30)
    data = bytearray()

    def take(n: int) -> bytes | None:
        while len(data) < n:
            chunk = raw.recv(1 << 16)
            if not chunk:
                return None
            data.extend(chunk)
        out = bytes(data[:n])
        del data[:n]
        return out

    messages = []
    while (head := take(2)) is not None:
        opcode, length = head[0] & 0x0F, head[1] & 0x7F
        if length >= 126:
            size = take(2 if length == 126 else 8)
            assert size is not None
            length = int.from_bytes(size, "big")
        payload = take(length)
        assert payload is not None, "the stream ended inside a frame"
        if opcode == 1:
            messages.append(json.loads(payload))
        elif opcode == 8:
            return messages, (int.from_bytes(payload[:2], "big"), payload[2:].decode())
    return messages, None


@pytest.mark.parametrize("limits", [Limits(http_rate=1e6, http_burst=10**6, ws_send_queue=16),
                                    Limits(http_rate=1e6, http_burst=10**6, ws_send_queue=10**5, ws_send_timeout=0.5)],
                         ids=["queue_full", "send_timeout"])
def test_a_client_that_stops_reading_is_closed_4408_and_catches_up_with_since(
        sqlite_url: str, limits: Limits) -> None:
    """A real slow client: the server closes it once 16 events wait for it (or once a message
    has waited 0.5 s), instead of buffering; the client finds the close code after the events
    it had not read, and reconnects with since."""
    live = make_server(sqlite_url, limits=limits, sndbuf=8192)
    api = Api(live.url)
    t = api.create(players=2, size=10)
    tid = t["id"]
    spy = Socket(live.ws_url, tid, t["spectator_key"])
    raw = _raw_socket(live.port, f"/ws/tables/{tid}", t["invites"]["1"])
    try:
        spy.recv()
        gone = None
        renames = 0
        while gone is None:
            assert renames < 5000, "the slow socket was never closed"
            r = api.http.post(f"/api/tables/{tid}/name", json={"name": f"Ann {renames}"},
                              headers={"authorization": f"Bearer {t['token']}"})
            assert r.status_code == 200, r.text
            renames += 1
            with contextlib.suppress(TimeoutError):
                while gone is None:
                    m = spy.recv(timeout=0)
                    if m["type"] == "presence" and m["seats"][1] is False:
                        gone = m["version"]
        # Only now does the client read: what it was sent, then the close code.
        messages, close = _read_frames(raw)
        assert close is not None and close[0] == 4408, close
        # Its own arrival (a presence message, no version of its own) aside, a gap-free feed.
        versions = [m["version"] for m in messages if m["type"] != "presence"]
        assert messages[0]["type"] == "sync" and versions == list(range(versions[0], versions[-1] + 1))
        assert len(messages) < renames and close[1] == f"too far behind; reconnect with since={versions[-1]}"
        # Reconnecting with since gets every event it missed, gap-free.
        held = next(m["state"] for m in reversed(messages) if "state" in m and m["version"] == versions[-1])
        again = Socket(live.ws_url, tid, t["invites"]["1"], base=held)
        try:
            caught_up = [again.recv() for _ in range(gone - versions[-1])]
            assert [m["version"] for m in caught_up] == list(range(versions[-1] + 1, gone + 1))
            assert caught_up[-1]["event"]["kind"] == "name"  # presence is no event: the renames were last
            # Then the live feed, gap-free, up to its own arrival.
            back = again.until(lambda m: m["type"] == "presence")
            assert back["seats"][1] is True
            events = [m["version"] for m in again.received if m["type"] == "event"]
            assert events == list(range(versions[-1] + 1, events[-1] + 1)) and back["version"] == events[-1]
        finally:
            again.close()
    finally:
        raw.close()
        spy.close()
        api.close()
        live.stop()
