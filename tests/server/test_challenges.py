"""Challenges (issue 32), through the real app on SQLite and PostgreSQL, on a fake clock: a
challenge seen live by the challenged player (the lobby socket) and told through the notify
feature; accepted into a table with both seated and the settings asked for; declined;
cancelled; expired by its due work; one open by link taken by whoever comes first; none
between two accounts where one blocked the other; refusals with clear codes that change
nothing; and nobody answers a challenge that is not theirs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from omega.server.challenges import service
from omega.server.challenges.service import WAITS_REALTIME
from omega.server.clock import FakeClock

from .server_helpers import JsonSocket, LiveServer
from .site_helpers import Browser, lobby_socket, rows, state_of, tables_stored

People = Callable[..., Browser]


def ok(r: httpx.Response, status: int = 200) -> dict[str, Any]:
    assert r.status_code == status, r.text
    return dict(r.json())


def refused(r: httpx.Response, status: int, code: str, words: str = "") -> None:
    assert r.status_code == status and r.json()["error"]["code"] == code, r.text
    assert words in r.json()["error"]["message"], r.text


def challenge(b: Browser, to: str | None, **body: Any) -> dict[str, Any]:
    return ok(b.post("/api/challenges", {"to": to, **body}), 201)


def answer(b: Browser, challenge_id: str, what: str) -> httpx.Response:
    return b.post(f"/api/challenges/{challenge_id}/{what}", {})


def stored(url: str) -> dict[str, Any]:
    """Every challenge as stored, and how many tables there are."""
    return {"challenges": sorted(rows(url, "SELECT id, status, table_id, accepted_by FROM challenges")),
            "tables": tables_stored(url)}


def news(sock: JsonSocket, status: str) -> dict[str, Any]:
    """The first challenge message of the lobby socket with ``status``."""
    msg = sock.until(lambda m: m["type"] == "challenge" and m["challenge"]["status"] == status)
    return dict(msg["challenge"])


def test_a_challenge_is_seen_live_and_accepted_into_a_table_with_both_seated(
        site: LiveServer, people: People, db_url: str) -> None:
    ann, bob = people("Ann"), people("Bob")
    ann_sock, bob_sock = lobby_socket(site, ann), lobby_socket(site, bob)
    try:
        for s in (ann_sock, bob_sock):
            s.until(lambda m: m["type"] == "lobby")
        sent = challenge(ann, "bob", size=6, pie=True, rated=True, time_control="5+05")
        assert sent["from"] == "Ann" and sent["to"] == "Bob" and sent["status"] == "pending" and sent["mine"]
        assert (sent["size"], sent["pie"], sent["rated"], sent["time_control"]) == (6, True, True, "5+5")
        seen = news(bob_sock, "pending")
        assert seen["id"] == sent["id"] and seen["from"] == "Ann" and not seen["mine"]
        assert seen["path"] == f"/challenges/{sent['id']}"
        # Told through the notify feature too (the bell's mail and push, as Bob chose).
        told = rows(db_url, f"SELECT kind, path FROM notify_deliveries WHERE key = 'challenge:{sent['id']}'")
        assert told and set(told) == {("challenge", f"/challenges/{sent['id']}")}
        mine = ok(bob.get("/api/challenges"))
        assert [c["id"] for c in mine["received"]] == [sent["id"]] and mine["sent"] == []
        assert [c["id"] for c in ok(ann.get("/api/challenges"))["sent"]] == [sent["id"]]

        accepted = ok(answer(bob, sent["id"], "accept"))
        table_id = accepted["table_id"]
        assert accepted["status"] == "accepted" and table_id
        # Both pages are sent to the table.
        assert news(ann_sock, "accepted")["table_id"] == table_id
        assert news(bob_sock, "accepted")["table_id"] == table_id
    finally:
        ann_sock.close()
        bob_sock.close()
    for b in (ann, bob):
        st = state_of(b, table_id)  # each opens it as the account that holds a seat
        assert st["you"]["seat"] in (0, 1) and st["status"] == "playing"
    st = state_of(ann, table_id)
    assert sorted(s["name"] for s in st["seats"]) == ["Ann", "Bob"] and st["size"] == 6 and st["players"] == 2
    assert st["pie_rule"] is True and st["rated"] is True and st["clock"]["control"] == "5+5"
    # The challenge is answered once: again, or by Ann, is refused and changes nothing.
    before = stored(db_url)
    refused(answer(bob, sent["id"], "accept"), 409, "challenge_over", "accepted already")
    refused(answer(ann, sent["id"], "cancel"), 409, "challenge_over")
    assert stored(db_url) == before


def test_decline_and_cancel_and_only_the_right_player_may_answer(site: LiveServer, people: People,
                                                                  db_url: str) -> None:
    ann, bob, cyd = people("Ann"), people("Bob"), people("Cyd")
    first = challenge(ann, "Bob")
    second = challenge(ann, "Bob", players=3, level=1)
    before = stored(db_url)
    # Another account sees nothing of it and answers nothing.
    for what in ("accept", "decline", "cancel"):
        refused(answer(cyd, first["id"], what), 404, "not_found")
    refused(cyd.get(f"/api/challenges/{first['id']}"), 404, "not_found")
    assert ok(cyd.get("/api/challenges")) == {"sent": [], "received": []}
    # The sender does not accept or decline; the challenged does not cancel.
    refused(answer(ann, first["id"], "accept"), 403, "forbidden", "your own challenge")
    refused(answer(ann, first["id"], "decline"), 403, "forbidden")
    refused(answer(bob, first["id"], "cancel"), 403, "forbidden", "only its sender")
    guest = Browser(site)
    try:
        refused(answer(guest, first["id"], "accept"), 401, "auth_required")
        refused(guest.get("/api/challenges"), 401, "auth_required")
        refused(guest.get(f"/api/challenges/{first['id']}"), 404, "not_found")
    finally:
        guest.close()
    refused(bob.post(f"/api/challenges/{first['id']}/accept", {}, origin="https://evil.example"), 403, "cross_site")
    assert stored(db_url) == before

    declined = ok(answer(bob, first["id"], "decline"))
    assert declined["status"] == "declined" and declined["table_id"] is None
    cancelled = ok(answer(ann, second["id"], "cancel"))
    assert cancelled["status"] == "cancelled"
    assert tables_stored(db_url) == before["tables"]
    assert rows(db_url, "SELECT count(*) FROM due WHERE kind = 'challenge'") == [(0,)]  # nothing left to expire
    assert sorted(c["status"] for c in ok(ann.get("/api/challenges"))["sent"]) == ["cancelled", "declined"]


def test_a_challenge_expires_when_its_time_is_up(site: LiveServer, people: People, clock: FakeClock,
                                                 db_url: str) -> None:
    ann, bob = people("Ann"), people("Bob")
    sock = lobby_socket(site, bob)
    try:
        sock.until(lambda m: m["type"] == "lobby")
        sent = challenge(ann, "Bob", time_control="3+2")
        news(sock, "pending")
        clock.advance(WAITS_REALTIME.total_seconds() + 1)
        assert news(sock, "expired")["id"] == sent["id"]  # the due work marked it, and told the page
    finally:
        sock.close()
    assert rows(db_url, "SELECT status, table_id FROM challenges") == [("expired", None)]
    refused(answer(bob, sent["id"], "accept"), 409, "challenge_over", "expired already")
    assert tables_stored(db_url) == 0
    # A turn-based challenge waits days.
    slow = challenge(ann, "Bob", time_control="1d")
    clock.advance(WAITS_REALTIME.total_seconds() + 1)
    assert ok(answer(bob, slow["id"], "accept"))["status"] == "accepted"


def test_a_challenge_open_by_link_goes_to_whoever_opens_it_first(site: LiveServer, people: People,
                                                                 db_url: str) -> None:
    ann, cyd, dan = people("Ann"), people("Cyd"), people("Dan")
    sent = challenge(ann, None, players=3, level=1)
    assert sent["to"] is None and sent["describe"].endswith("computer level 1")
    seen = ok(dan.get(f"/api/challenges/{sent['id']}"))  # anyone with the link reads it
    assert seen["from"] == "Ann" and seen["status"] == "pending" and seen["table_id"] is None
    refused(answer(dan, sent["id"], "decline"), 403, "forbidden", "open by link")
    accepted = ok(answer(cyd, sent["id"], "accept"))
    assert accepted["accepted_by"] == "Cyd" and accepted["table_id"]
    before = stored(db_url)
    refused(answer(dan, sent["id"], "accept"), 409, "challenge_over")
    assert stored(db_url) == before
    assert ok(dan.get(f"/api/challenges/{sent['id']}"))["table_id"] is None  # not Dan's table to open
    st = state_of(cyd, accepted["table_id"])
    assert st["players"] == 3 and [s["kind"] for s in st["seats"]][2] == "computer"
    assert sorted(s["name"] for s in st["seats"][:2]) == ["Ann", "Cyd"]


def test_no_challenge_between_a_blocked_pair(site: LiveServer, people: People, db_url: str) -> None:
    ann, bob = people("Ann"), people("Bob")
    waiting = challenge(ann, "Bob")
    open_one = challenge(ann, None)
    r = bob.http.put("/api/blocks/Ann", headers={"origin": bob.origin})
    assert r.status_code == 200, r.text
    before = stored(db_url)
    refused(ann.post("/api/challenges", {"to": "Bob"}), 403, "blocked", "one of you blocked the other")
    refused(bob.post("/api/challenges", {"to": "Ann"}), 403, "blocked")
    # Made before the block, neither can be taken after it.
    refused(answer(bob, waiting["id"], "accept"), 403, "blocked")
    refused(answer(bob, open_one["id"], "accept"), 403, "blocked")
    assert stored(db_url) == before
    assert ok(answer(bob, waiting["id"], "decline"))["status"] == "declined"  # saying no still works


def test_bad_challenges_are_refused_with_clear_codes_and_change_nothing(
        site: LiveServer, people: People, db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    ann = people("Ann")
    people("Bob")
    before = stored(db_url)
    bad = [
        ({"to": "Nobody"}, 404, "unknown_player", "no player named"),
        ({"to": "ann"}, 400, "not_yourself", "challenge yourself"),
        ({}, 400, "bad_request", "to"),
        ({"to": "Bob", "players": 5}, 400, "bad_request", "players"),
        ({"to": "Bob", "size": 11}, 400, "bad_request", "size"),
        ({"to": "Bob", "players": 3, "pie": True}, 400, "bad_request", "pie rule"),
        ({"to": "Bob", "level": 2}, 400, "bad_request", "level"),
        ({"to": "Bob", "players": 3, "rated": True, "time_control": "5+5"}, 400, "bad_request", "rated"),
        ({"to": "Bob", "rated": True}, 400, "clock_required", "time control"),
        ({"to": "Bob", "time_control": "0+5"}, 400, "bad_request", "base minutes"),
        ({"to": "Bob", "rated": "yes"}, 400, "bad_request", "rated"),
        ({"to": "Bob", "colour": "white"}, 400, "bad_request", "colour"),
    ]
    for body, status, code, words in bad:
        refused(ann.post("/api/challenges", body), status, code, words)
    refused(ann.post("/api/challenges", {"to": "Bob"}, origin="https://evil.example"), 403, "cross_site")
    refused(ann.post("/api/challenges/nope!/accept", {}), 404, "not_found")
    assert stored(db_url) == before
    monkeypatch.setattr(service, "MAX_PENDING", 1)
    challenge(ann, "Bob")
    before = stored(db_url)
    refused(ann.post("/api/challenges", {"to": "Bob"}), 429, "too_many_challenges", "1 challenges waiting")
    assert stored(db_url) == before
