"""The site as a visitor and a returning player find it, through the real app on both
databases: a quick-play match whose game is over is news no more (the lobby stops sending
its players back to the finished table); a table socket opened by a session cookie acts no
more once that session has ended (a log-out here or on another device), and what it tried
changes nothing; computers are named by their level in words, the same in a seat, the
lobby's list and the account's list."""

from __future__ import annotations

from typing import Any

from omega import Game
from omega.ai.levels import computer_name, level
from omega.server.errors import SESSION_ENDED
from omega.server.lobby.quickplay import MATCH_SHOWN

from .server_helpers import LiveServer
from .site_helpers import Browser, lobby_socket, open_table, resign, state_of, table_socket


def matched_pair(ann: Browser, bob: Browser) -> tuple[str, dict[str, Any]]:
    """Ann and Bob matched by quick play: the table, and the answer Bob got."""
    assert ann.post("/api/quickplay", {"players": 2, "size": 5}).json()["status"] == "waiting"
    r = bob.post("/api/quickplay", {"players": 2, "size": 5}).json()
    assert r["status"] == "matched", r
    return str(r["table_id"]), r


def test_a_finished_quick_play_match_is_news_no_more(site: LiveServer, people: Any) -> None:
    ann, bob = people("Ann"), people("Bob")
    table_id, answer = matched_pair(ann, bob)
    # While the game is on, the match is reported (a page that missed the socket's news
    # finds its table), by HTTP and in the lobby socket's first message.
    assert ann.get("/api/quickplay").json() == {"status": "matched", "table_id": table_id, "seat": 1 - answer["seat"]}
    sock = lobby_socket(site, ann)
    assert sock.recv()["quickplay"]["status"] == "matched"
    sock.close()
    # The game ends (well within MATCH_SHOWN): the lobby is the lobby again, for both.
    assert MATCH_SHOWN > 60
    assert resign(bob, table_id)["status"] == "over"
    for b in (ann, bob):
        assert b.get("/api/quickplay").json() == {"status": "idle"}
        sock = lobby_socket(site, b)
        assert sock.recv()["quickplay"] == {"status": "idle"}
        sock.close()
    # Each may queue again and be matched into a new table, reported as before.
    second, _ = matched_pair(bob, ann)
    assert second != table_id
    assert ann.get("/api/quickplay").json()["table_id"] == second


def test_a_socket_whose_session_ended_acts_no_more(site: LiveServer, people: Any) -> None:
    ann, bob = people("Ann"), people("Bob")
    table_id, _ = matched_pair(ann, bob)
    seats = {state_of(b, table_id)["you"]["seat"]: b for b in (ann, bob)}
    mover = seats[state_of(ann, table_id)["game"]["current_seat"]]
    other = bob if mover is ann else ann
    # The mover's page has two sockets open by its session cookie (two tabs), the other's one.
    tabs = [table_socket(site, mover, table_id) for _ in range(2)]
    watcher = table_socket(site, other, table_id)
    for sock in (*tabs, watcher):
        sock.until(lambda m: m["type"] == "sync")
    before = state_of(other, table_id)
    # Logged out (in a third tab, say): the sockets the session opened act no more.
    assert mover.post("/api/account/logout").status_code == 200
    cells = [c for c in Game(players=2, size=5).cells if c not in before["game"]["stones"]][:2]
    tabs[0].send({"type": "action", "request_id": "t1", "version": before["version"],
                  "action": {"type": "turn", "cells": cells}})
    tabs[1].send({"type": "chat", "text": "still here?", "request_id": "c1"})
    for sock in tabs:
        refused = sock.until(lambda m: m["type"] == "error")
        assert refused["error"] == {"code": "auth_required", "message": SESSION_ENDED}
        assert sock.conn.close_code is None or sock.conn.close_code == 4401
    # Nothing changed: the same table, and no chat line reached the other player, whose
    # own line comes next.
    after = state_of(other, table_id)
    assert after["version"] == before["version"] and after["game"] == before["game"]
    watcher.send({"type": "chat", "text": "hello", "request_id": "c2"})
    line = watcher.until(lambda m: m["type"] == "chat" and not m.get("history"))
    assert [m["text"] for m in line["messages"]] == ["hello"]
    # A socket opened by a session that holds: its actions go on (a ping is not an action).
    watcher.send({"type": "ping"})
    assert watcher.until(lambda m: m["type"] == "pong")
    for sock in (*tabs, watcher):
        sock.close()


def test_computers_are_named_by_their_level_everywhere(site: LiveServer, people: Any) -> None:
    ann = people("Ann")
    # A table of Ann's with two computers of one level and one of another.
    r = ann.post("/api/tables", {"players": 4, "size": 5, "seats": [
        {"kind": "human"}, {"kind": "computer", "level": 1}, {"kind": "computer", "level": 1},
        {"kind": "computer", "level": 6}], "name": "Ann"})
    assert r.status_code == 201, r.text
    table_id = r.json()["id"]
    named = [s["name"] for s in state_of(ann, table_id)["seats"]]
    assert named == ["Ann", "Computer 2 (Beginner)", "Computer 3 (Beginner)", "Computer (Easy)"]
    assert computer_name(6) == f"Computer ({level(6).name})"
    # The account's list names them the same (people by their usernames).
    mine = next(t for t in ann.get("/api/account/tables").json()["tables"] if t["id"] == table_id)
    assert [s["name"] for s in mine["seats"]] == [None, *named[1:]]
    # An open table of the lobby with a computer lists it by the same name.
    listed = open_table(ann, players=3, seats=[{"kind": "human"}, {"kind": "human"}, {"kind": "computer", "level": 10}])
    row = next(t for t in ann.get("/api/lobby").json()["tables"] if t["id"] == listed["id"])
    assert [s.get("name") for s in row["seats"]] == [None, None, "Computer (Medium)"]
