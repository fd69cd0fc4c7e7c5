"""Follows and blocks (issue 32), through the real app on SQLite and PostgreSQL: following
and unfollowing, the friends list (online, and the game to watch), a block that ends the
follows both ways and keeps the two apart (quick play never pairs them, neither reads the
other's chat messages, live or in the history); refusals with clear codes that change
nothing; and who may call what."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from omega.server.relations import service

from .server_helpers import JsonSocket, LiveServer
from .site_helpers import Browser, lobby_socket, open_table, rated_duel, rows, table_socket

People = Callable[..., Browser]


def send(b: Browser, method: str, path: str, *, origin: str | None = None) -> httpx.Response:
    """A write of the page's (PUT or DELETE), from the site's origin unless told."""
    return b.http.request(method, path, headers={"origin": b.origin if origin is None else origin})


def ok(r: httpx.Response) -> dict[str, Any]:
    assert r.status_code == 200, r.text
    return dict(r.json())


def refused(r: httpx.Response, status: int, code: str, words: str = "") -> None:
    assert r.status_code == status and r.json()["error"]["code"] == code, r.text
    assert words in r.json()["error"]["message"], r.text


def relations_in(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every follow and block stored (without their times)."""
    return {"follows": sorted(rows(url, "SELECT follower_id, followed_id FROM follows")),
            "blocks": sorted(rows(url, "SELECT blocker_id, blocked_id FROM blocks"))}


def friends(b: Browser) -> list[dict[str, Any]]:
    return list(ok(b.get("/api/friends"))["friends"])


def test_follow_unfollow_and_the_friends_list_says_who_is_online_and_where_they_play(
        site: LiveServer, people: People, db_url: str) -> None:
    ann, bob, cyd = people("Ann"), people("Bob"), people("Cyd")
    assert friends(ann) == []
    followed = ok(send(ann, "PUT", "/api/follows/bob"))  # the name as the account rule compares it
    assert followed == {"user": "Bob", "following": True, "follows_you": False, "blocking": False, "blocked": False}
    assert ok(send(ann, "PUT", "/api/follows/Bob")) == followed  # again: nothing changes
    ok(send(ann, "PUT", "/api/follows/Cyd"))
    assert len(rows(db_url, "SELECT * FROM follows")) == 2
    listed = friends(ann)
    assert [(f["user"], f["online"], f["playing"]) for f in listed] == [("Bob", False, None), ("Cyd", False, None)]
    assert ok(bob.get("/api/relations/Ann"))["follows_you"] is True

    # Bob opens the lobby: online.  Then a rated game (anyone may watch it): playing there.
    sock = lobby_socket(site, bob)
    try:
        sock.until(lambda m: m["type"] == "lobby")
        assert [f["online"] for f in friends(ann)] == [True, False]
    finally:
        sock.close()
    table_id = rated_duel(bob, cyd)
    watch = table_socket(site, cyd, table_id)
    try:
        # Counted once the table says so (its presence message: Cyd's seat is there).
        watch.until(lambda m: m["type"] == "presence" and any(m["seats"]))
        bob_now, cyd_now = friends(ann)
        assert bob_now["playing"] == cyd_now["playing"] == table_id and cyd_now["online"] is True
    finally:
        watch.close()
    # A private casual table is not shown: nobody could watch it.
    r = bob.post("/api/tables", {"players": 2})
    assert r.status_code == 201
    assert friends(ann)[0]["playing"] == table_id

    unfollowed = ok(send(ann, "DELETE", "/api/follows/Bob"))
    assert unfollowed["following"] is False
    assert ok(send(ann, "DELETE", "/api/follows/Bob")) == unfollowed  # not following is no error
    assert [f["user"] for f in friends(ann)] == ["Cyd"]


def test_a_block_ends_the_follows_both_ways_and_stops_new_ones(site: LiveServer, people: People,
                                                               db_url: str) -> None:
    ann, bob = people("Ann"), people("Bob")
    ok(send(ann, "PUT", "/api/follows/Bob"))
    ok(send(bob, "PUT", "/api/follows/Ann"))
    blocked = ok(send(ann, "PUT", "/api/blocks/Bob"))
    assert blocked == {"user": "Bob", "following": False, "follows_you": False, "blocking": True, "blocked": True}
    assert relations_in(db_url) == {"follows": [], "blocks": [(1, 2)]}
    assert [b["user"] for b in ok(ann.get("/api/blocks"))["blocks"]] == ["Bob"]
    assert ok(bob.get("/api/blocks"))["blocks"] == []
    # Neither follows the other while the block holds, whoever asks.
    before = relations_in(db_url)
    refused(send(bob, "PUT", "/api/follows/Ann"), 403, "blocked", "one of you blocked the other")
    refused(send(ann, "PUT", "/api/follows/Bob"), 403, "blocked")
    assert relations_in(db_url) == before
    assert ok(bob.get("/api/relations/Ann")) == {"user": "Ann", "following": False, "follows_you": False,
                                                 "blocking": False, "blocked": True}
    # Bob cannot lift Ann's block; Ann can.
    ok(send(bob, "DELETE", "/api/blocks/Ann"))
    assert relations_in(db_url) == before
    ok(send(ann, "DELETE", "/api/blocks/Bob"))
    assert ok(send(bob, "PUT", "/api/follows/Ann"))["following"] is True


def test_refusals_have_clear_codes_and_change_nothing(site: LiveServer, people: People, db_url: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    ann = people("Ann")
    for name in ("Bob", "Cyd", "Dan"):
        people(name)
    ok(send(ann, "PUT", "/api/follows/Bob"))
    ok(send(ann, "PUT", "/api/blocks/Cyd"))
    before = relations_in(db_url)
    guest = Browser(site)
    try:
        for method, path in (("PUT", "/api/follows/Bob"), ("DELETE", "/api/follows/Bob"), ("PUT", "/api/blocks/Bob"),
                             ("DELETE", "/api/blocks/Cyd")):
            refused(send(guest, method, path), 401, "auth_required")
        for path in ("/api/friends", "/api/blocks", "/api/relations/Bob"):
            refused(guest.get(path), 401, "auth_required")
    finally:
        guest.close()
    for method in ("PUT", "DELETE"):
        for kind in ("follows", "blocks"):
            refused(send(ann, method, f"/api/{kind}/Nobody"), 404, "unknown_player", "no player named 'Nobody'")
            refused(send(ann, method, f"/api/{kind}/{'x' * 70}"), 404, "unknown_player")
            refused(send(ann, method, f"/api/{kind}/ann"), 400, "not_yourself", "yourself")
            # From another site, with the cookie: refused before anything is read.
            refused(send(ann, method, f"/api/{kind}/Dan", origin="https://evil.example"), 403, "cross_site")
    refused(ann.get("/api/relations/Nobody"), 404, "unknown_player")
    assert relations_in(db_url) == before
    # The limits, as the one home says them (lowered here to what a test can reach).
    monkeypatch.setattr(service, "MAX_FOLLOWS", 1)
    monkeypatch.setattr(service, "MAX_BLOCKS", 1)
    refused(send(ann, "PUT", "/api/follows/Dan"), 409, "too_many_follows", "you follow 1 players")
    refused(send(ann, "PUT", "/api/blocks/Dan"), 409, "too_many_blocks", "you block 1 players")
    assert relations_in(db_url) == before
    assert ok(send(ann, "PUT", "/api/follows/Bob"))["following"] is True  # one already made: still fine


def test_quick_play_never_pairs_two_accounts_where_one_blocked_the_other(site: LiveServer, people: People) -> None:
    ann, bob, cyd = people("Ann"), people("Bob"), people("Cyd")
    ok(send(bob, "PUT", "/api/blocks/Ann"))
    wanted = {"players": 2, "size": 5}
    assert ok(ann.post("/api/quickplay", wanted))["status"] == "waiting"
    assert ok(bob.post("/api/quickplay", wanted))["status"] == "waiting"  # the one other waiting is Ann
    assert ok(ann.get("/api/quickplay"))["status"] == "waiting"
    matched = ok(cyd.post("/api/quickplay", wanted))
    assert matched["status"] == "matched"
    # Cyd goes to Ann (waiting longest); Bob still waits, never seated with Ann.
    seated = ok(ann.get("/api/quickplay"))
    assert seated["status"] == "matched" and seated["table_id"] == matched["table_id"]
    assert ok(bob.get("/api/quickplay"))["status"] == "waiting"


def chat(sock: JsonSocket, words: str) -> None:
    sock.send({"type": "chat", "text": words, "request_id": words})


def next_words(sock: JsonSocket) -> str:
    msg = sock.until(lambda m: m["type"] in ("chat", "error"))
    assert msg["type"] == "chat" and not msg["history"], msg
    return str(msg["messages"][0]["text"])


def test_chat_between_a_blocker_and_the_blocked_is_hidden_both_ways(site: LiveServer, people: People) -> None:
    ann, bob, cyd = people("Ann"), people("Bob"), people("Cyd")
    table_id = open_table(ann, players=3)["id"]
    for b in (bob, cyd):
        assert b.post(f"/api/lobby/tables/{table_id}/take", {}).status_code == 200
    ok(send(ann, "PUT", "/api/blocks/Bob"))
    socks = {name: table_socket(site, b, table_id) for name, b in (("ann", ann), ("bob", bob), ("cyd", cyd))}
    try:
        for s in socks.values():
            s.until(lambda m: m["type"] == "sync")
        chat(socks["bob"], "from bob")
        assert next_words(socks["bob"]) == next_words(socks["cyd"]) == "from bob"
        chat(socks["ann"], "from ann")
        assert next_words(socks["ann"]) == next_words(socks["cyd"]) == "from ann"
        chat(socks["cyd"], "from cyd")
        # Messages come in order: each of the two got Cyd's next, never the other's.
        assert next_words(socks["ann"]) == "from cyd"
        assert next_words(socks["bob"]) == "from cyd"
        assert next_words(socks["cyd"]) == "from cyd"
    finally:
        for s in socks.values():
            s.close()
    # The history a socket opens with leaves them out too; Cyd's has all three.
    for b, shown in ((ann, ["from ann", "from cyd"]), (bob, ["from bob", "from cyd"]),
                     (cyd, ["from bob", "from ann", "from cyd"])):
        sock = table_socket(site, b, table_id)
        try:
            history = sock.until(lambda m: m["type"] == "chat")
            assert history["history"] and [m["text"] for m in history["messages"]] == shown
        finally:
            sock.close()
    # Unblocked, each reads the other's again (the history is read afresh).
    ok(send(ann, "DELETE", "/api/blocks/Bob"))
    sock = table_socket(site, ann, table_id)
    try:
        assert [m["text"] for m in sock.until(lambda m: m["type"] == "chat")["messages"]] == [
            "from bob", "from ann", "from cyd"]
    finally:
        sock.close()
