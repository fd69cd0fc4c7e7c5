"""Moderation (issue 32) over real HTTP and WebSocket round trips on SQLite and PostgreSQL,
on a fake clock: every moderators' route refuses everyone else and changes nothing; a
report keeps its evidence after the message is removed, the chat is gone and the reporter
deleted; a mute refuses chat until its end; a rated ban refuses rated tables, rated lobby
openings and rated quick play but not casual ones; a revert takes back a farmed game's
gain (and ``recompute`` replays it); every action is logged and shown to the player."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from omega.server.accounts.roles import grant
from omega.server.clock import FakeClock
from omega.server.infra.db import make_engine
from omega.server.ratings.service import recompute
from omega.server.tables.store import Repository

from .server_helpers import JsonSocket, LiveServer, make_server
from .site_helpers import (
    CHEAP,
    ROOMY,
    Browser,
    counted_duel,
    open_table,
    ratings_in,
    rows,
    state_of,
    table_socket,
)

#: Room for the tests' reports, and a cap small enough to reach.
LIMITS = replace(ROOMY, reports_open_per_reporter=3)


@pytest.fixture
def site(db_url: str, clock: FakeClock) -> Iterator[LiveServer]:
    with make_server(db_url, clock=clock, password_hasher=CHEAP, limits=LIMITS) as live:
        yield live


def give_role(url: str, username: str, role: str) -> None:
    """What ``omega admin grant`` does, on the test's database."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            assert grant(conn, username, role, datetime.now(UTC))
    finally:
        engine.dispose()


def casual_table(host: Browser, guest: Browser) -> str:
    """A casual 2-player lobby table ``host`` opens and ``guest`` takes."""
    table_id = str(open_table(host)["id"])
    r = guest.post(f"/api/lobby/tables/{table_id}/take", {})
    assert r.status_code == 200, r.text
    return table_id


def opened(site: LiveServer, b: Browser, table_id: str) -> JsonSocket:
    sock = table_socket(site, b, table_id)
    sock.until(lambda m: m["type"] == "sync")
    return sock


def say(sock: JsonSocket, words: str, rid: str) -> dict[str, Any]:
    """Send a chat message; the line stored, or the error that refused it."""
    sock.send({"type": "chat", "text": words, "request_id": rid})
    msg = sock.until(lambda m: (m["type"] == "chat" and not m["history"] and m["messages"][0]["text"] == words)
                     or (m["type"] == "error" and m["request_id"] == rid))
    return dict(msg["error"]) if msg["type"] == "error" else dict(msg["messages"][0])


def ok(r: Any, status: int = 200) -> dict[str, Any]:
    assert r.status_code == status, r.text
    return dict(r.json())


def refused(r: Any, status: int, code: str) -> None:
    assert r.status_code == status and r.json()["error"]["code"] == code, r.text


def act(mod: Browser, status: int = 201, **body: Any) -> dict[str, Any]:
    r = mod.post("/api/moderation/actions", body)
    assert r.status_code == status, r.text
    return dict(r.json())


def moderation_rows(url: str) -> list[Any]:
    """Everything moderation may change: reports, actions, roles, removed messages, ratings."""
    return [rows(url, "SELECT id, status, closed_by, action_id FROM reports ORDER BY id"),
            rows(url, "SELECT id, action, until, lifted_at FROM moderation_actions ORDER BY id"),
            rows(url, "SELECT user_id, role FROM user_roles ORDER BY user_id, role"),
            rows(url, "SELECT id FROM chat WHERE hidden_at IS NOT NULL ORDER BY id"),
            rows(url, "SELECT count(*) FROM rating_reverts"), ratings_in(url)]


def test_every_moderation_route_refuses_who_may_not_and_changes_nothing(
        site: LiveServer, people: Callable[..., Browser], db_url: str) -> None:
    mod, bob, eve = people("Mod"), people("Bob"), people("Eve")
    give_role(db_url, "Mod", "moderator")
    table_id = casual_table(mod, bob)
    with closing(opened(site, bob, table_id)) as sock:
        line = say(sock, "hello there", "c1")
    report = ok(eve.post("/api/reports", {"username": "Bob", "reason": "other", "text": "rude on his profile"}), 201)
    before = moderation_rows(db_url)
    guest = Browser(site)
    body = {"username": "Bob", "action": "warn", "reason": "be kind"}
    routes: list[tuple[str, str, Any]] = [
        ("GET", "/api/moderation/reports", None), ("POST", f"/api/moderation/reports/{report['id']}/dismiss",
                                                  {"reason": "no"}),
        ("GET", "/api/moderation/flags", None), ("GET", "/api/moderation/players/Bob", None),
        ("GET", "/api/moderation/actions", None), ("POST", "/api/moderation/actions", body),
        ("POST", "/api/moderation/actions", {**body, "action": "remove_message", "message_id": line["id"]}),
        ("POST", "/api/moderation/roles/Eve/moderator", None), ("DELETE", "/api/moderation/roles/Mod/moderator", None),
    ]
    try:
        for method, path, sent in routes:
            for who, status, code in ((eve, 403, "forbidden"), (guest, 401, "auth_required")):
                r = who.post(path, sent) if method == "POST" else \
                    who.http.request(method, path, headers={"origin": site.url})
                refused(r, status, code)
        # A moderator is no admin: the roles are refused to them too.
        refused(mod.post("/api/moderation/roles/Eve/moderator"), 403, "forbidden")
        refused(mod.http.request("DELETE", "/api/moderation/roles/Mod/moderator", headers={"origin": site.url}), 403,
                "forbidden")
        # A moderator's write from another site is refused before anything is read.
        refused(mod.post("/api/moderation/actions", body, origin="https://evil.example"), 403, "cross_site")
        assert moderation_rows(db_url) == before
        assert ok(mod.get("/api/moderation/reports"))["reports"][0]["id"] == report["id"]
    finally:
        guest.close()


def test_a_report_keeps_its_evidence_after_the_message_is_removed_the_chat_is_gone_and_the_reporter_deleted(
        site: LiveServer, people: Callable[..., Browser], db_url: str) -> None:
    ann, bob, mod, eve = people("Ann"), people("Bob"), people("Mod"), people("Eve")
    give_role(db_url, "Mod", "moderator")
    table_id = casual_table(ann, bob)
    ann_sock, bob_sock = opened(site, ann, table_id), opened(site, bob, table_id)
    try:
        say(ann_sock, "good luck", "a1")
        insult = say(bob_sock, "you play like a potato", "b1")
        # Refused reports change nothing: oneself, a message of someone else, no such message,
        # a table the reporter neither plays at nor may watch.
        before = moderation_rows(db_url)
        refused(ann.post("/api/reports", {"username": "Ann", "reason": "other", "table_id": table_id}), 400,
                "bad_request")
        refused(ann.post("/api/reports", {"username": "Ann", "reason": "chat_abuse", "message_id": insult["id"]}),
                400, "bad_request")
        refused(bob.post("/api/reports", {"username": "Ann", "reason": "chat_abuse", "message_id": insult["id"]}),
                400, "bad_request")
        refused(ann.post("/api/reports", {"username": "Bob", "reason": "chat_abuse", "message_id": 10**9}), 404,
                "not_found")
        refused(ann.post("/api/reports", {"username": "Bob", "reason": "rude", "message_id": insult["id"]}), 400,
                "bad_request")
        private = ok(bob.post("/api/tables", {"players": 2}), 201)["id"]
        refused(eve.post("/api/reports", {"username": "Bob", "reason": "stalling", "table_id": private}), 403,
                "forbidden")
        assert moderation_rows(db_url) == before

        report = ok(ann.post("/api/reports", {"username": "bob", "reason": "chat_abuse", "message_id": insult["id"],
                                              "text": "insults"}), 201)
        refused(ann.post("/api/reports", {"username": "Bob", "reason": "chat_abuse", "message_id": insult["id"]}),
                409, "conflict")  # the same report twice
        queue = ok(mod.get("/api/moderation/reports"))["reports"]
        assert [(r["id"], r["status"], r["reporter"], r["username"]) for r in queue] == \
            [(report["id"], "open", "Ann", "Bob")]
        evidence = queue[0]["evidence"]
        assert evidence["message"]["text"] == "you play like a potato" and evidence["message"]["user"] == "Bob"
        assert [m["text"] for m in evidence["messages"]] == ["you play like a potato"]  # Bob's, not Ann's
        assert evidence["table"]["id"] == table_id and "Ann" in evidence["record"] and "Bob" in evidence["record"]

        # The moderator removes the message, closing the report: hidden for everyone at once.
        done = act(mod, username="Bob", action="remove_message", reason="insult", message_id=insult["id"],
                   report_id=report["id"])
        assert done["action"] == "remove_message" and done["detail"]["message"]["text"] == "you play like a potato"
        assert ann_sock.until(lambda m: m["type"] == "chat_removed") == {"type": "chat_removed", "id": insult["id"]}
        refused(mod.post("/api/moderation/actions", {"username": "Bob", "action": "remove_message", "reason": "again",
                                                     "message_id": insult["id"]}), 409, "conflict")
    finally:
        ann_sock.close()
        bob_sock.close()
    assert [m["text"] for m in again_history(site, ann, table_id)] == ["good luck"]

    # The reporter's rows and the table's chat go: the report, as it was copied, stays.
    ann_id = rows(db_url, "SELECT id FROM users WHERE username = 'Ann'")[0][0]
    engine = create_engine(db_url)
    try:
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM chat WHERE table_id = :t"), {"t": table_id})
            conn.execute(text("UPDATE seats SET user_id = NULL WHERE user_id = :u"), {"u": ann_id})
            conn.execute(text("DELETE FROM users WHERE id = :u"), {"u": ann_id})
    finally:
        engine.dispose()
    kept = ok(mod.get("/api/moderation/reports"))["reports"][0]
    assert kept["reporter"] == "Ann" and kept["status"] == "actioned" and kept["action_id"] == done["id"]
    assert kept["closed_by"] == "Mod" and kept["evidence"] == evidence and kept["text"] == "insults"
    assert ok(mod.get("/api/moderation/players/Bob"))["reports_on"][0]["evidence"]["message"]["text"] == \
        "you play like a potato"


def again_history(site: LiveServer, b: Browser, table_id: str) -> list[dict[str, Any]]:
    """The chat history a socket of the table gets when it opens now."""
    sock = table_socket(site, b, table_id)
    try:
        sock.until(lambda m: m["type"] == "sync")
        sock.send({"type": "ping"})
        msg = sock.until(lambda m: (m["type"] == "chat" and m["history"]) or m["type"] == "pong")
        return list(msg["messages"]) if msg["type"] == "chat" else []
    finally:
        sock.close()


def test_a_reporter_has_a_few_reports_open_at_most(site: LiveServer, people: Callable[..., Browser],
                                                    db_url: str) -> None:
    ann = people("Ann")
    for name in ("Bea", "Ben", "Bix", "Bud"):
        people(name)
    for name in ("Bea", "Ben", "Bix"):
        ok(ann.post("/api/reports", {"username": name, "reason": "other", "text": "spam"}), 201)
    before = moderation_rows(db_url)
    refused(ann.post("/api/reports", {"username": "Bud", "reason": "other", "text": "spam"}), 429, "too_many_reports")
    assert moderation_rows(db_url) == before


def test_a_mute_refuses_chat_until_its_end_then_allows_it(
        site: LiveServer, people: Callable[..., Browser], db_url: str, clock: FakeClock) -> None:
    ann, bob, mod = people("Ann"), people("Bob"), people("Mod")
    give_role(db_url, "Mod", "moderator")
    table_id = casual_table(ann, bob)
    # Bad actions are refused and change nothing: a mute without its length, oneself.
    before = moderation_rows(db_url)
    refused(mod.post("/api/moderation/actions", {"username": "Bob", "action": "mute", "reason": "x"}), 400,
            "bad_request")
    refused(mod.post("/api/moderation/actions", {"username": "Mod", "action": "warn", "reason": "x"}), 400,
            "bad_request")
    refused(mod.post("/api/moderation/actions", {"username": "Nobody", "action": "warn", "reason": "x"}), 404,
            "not_found")
    refused(mod.post("/api/moderation/actions", {"username": "Bob", "action": "lift", "reason": "x"}), 409,
            "conflict")
    assert moderation_rows(db_url) == before

    muted = act(mod, username="Bob", action="mute", reason="insults", minutes=10)
    assert muted["until"] == "2026-01-01T00:10:00Z" and muted["moderator"] == "Mod"
    with closing(opened(site, bob, table_id)) as sock:
        error = say(sock, "still here", "m1")
        assert error["code"] == "muted" and error["until"] == "2026-01-01T00:10:00Z"
        assert "muted until 2026-01-01 00:10 UTC" in error["message"]
        clock.advance(10 * 60 - 1)
        assert say(sock, "still here", "m2")["code"] == "muted"
        clock.advance(1)
        assert say(sock, "sorry", "m3")["text"] == "sorry"
    assert rows(db_url, "SELECT text FROM chat ORDER BY id") == [("sorry",)]  # nothing of the muted stored
    standing = ok(bob.get("/api/account/standing"))
    assert standing["muted_until"] is None and standing["in_force"] == []
    assert [(a["action"], a["reason"], a["until"]) for a in standing["actions"]] == \
        [("mute", "insults", "2026-01-01T00:10:00Z")]


def test_a_rated_ban_refuses_rated_tables_and_quick_play_but_allows_casual_ones(
        site: LiveServer, people: Callable[..., Browser], db_url: str) -> None:
    ann, bob, carol, mod = people("Ann"), people("Bob"), people("Carol"), people("Mod")
    give_role(db_url, "Mod", "moderator")
    ok(bob.post("/api/quickplay", {"players": 2, "size": 5}))  # waiting when the ban comes
    rated = str(open_table(ann, rated=True)["id"])
    act(mod, username="Bob", action="rated_ban", reason="farming")
    assert ok(bob.get("/api/account/standing"))["rated_ban"] == {"until": None}
    before = state_of(ann, rated)
    refused(bob.post(f"/api/lobby/tables/{rated}/take", {}), 403, "rated_banned")
    assert state_of(ann, rated) == before
    refused(bob.post("/api/lobby/tables", {"players": 2, "rated": True, "time_control": "10+5"}), 403, "rated_banned")
    refused(bob.post("/api/quickplay", {"players": 2, "size": 5}), 403, "rated_banned")
    # The queue he was in does not match him.
    ok(carol.post("/api/quickplay", {"players": 2, "size": 5}))
    assert ok(carol.get("/api/quickplay"))["status"] == "waiting"
    assert ok(bob.get("/api/quickplay"))["status"] == "idle"
    # Nor a rated challenge, sent or accepted: the one Ann sent before stays unanswered.
    body = {"players": 2, "size": 5, "rated": True, "time_control": "10+5"}
    sent = ok(ann.post("/api/challenges", {"to": "Bob", **body}), 201)
    refused(bob.post("/api/challenges", {"to": "Ann", **body}), 403, "rated_banned")
    refused(bob.post(f"/api/challenges/{sent['id']}/accept", {}), 403, "rated_banned")
    assert ok(ann.get(f"/api/challenges/{sent['id']}"))["status"] == "pending"
    assert rows(db_url, "SELECT count(*) FROM tables WHERE rated") == [(1,)]
    # Casual tables are open to him.
    casual = str(open_table(bob)["id"])
    ok(ann.post(f"/api/lobby/tables/{casual}/take", {}))
    casual_table(ann, bob)
    # Lifted, he plays rated again.
    act(mod, username="Bob", action="lift", reason="served")
    ok(bob.post(f"/api/lobby/tables/{rated}/take", {}))


def test_a_revert_takes_back_a_farmed_games_gain_and_recompute_replays_it(
        site: LiveServer, people: Callable[..., Browser], db_url: str) -> None:
    farmer, feeder, mod = people("Farmer"), people("Feeder"), people("Mod")
    give_role(db_url, "Mod", "moderator")
    start = ratings_in(db_url)
    table_id = counted_duel(farmer, feeder, random.Random(7))  # the feeder resigns
    # Registered from one address within a week, logged in from it: flagged for moderators.
    flags = ok(mod.get("/api/moderation/flags"))["flags"]
    assert sorted((f["table_id"], f["users"], f["reason"]) for f in flags) == [
        (table_id, ["Farmer", "Feeder"], "made_together"), (table_id, ["Farmer", "Feeder"], "same_address")]
    farmer_id, feeder_id = (rows(db_url, f"SELECT id FROM users WHERE username = '{n}'")[0][0]
                            for n in ("Farmer", "Feeder"))
    skill = "SELECT mu, sigma FROM ratings WHERE user_id = {} AND players = 2"
    (mu_before, sigma_before), = rows(db_url, "SELECT mu_before, sigma_before FROM rating_changes "
                                              f"WHERE user_id = {farmer_id}")
    (gained, _), = rows(db_url, skill.format(farmer_id))
    assert gained > mu_before and start == []
    feeder_after = rows(db_url, skill.format(feeder_id))

    done = act(mod, username="Farmer", action="revert_ratings", reason="farmed off a second account")
    assert [g["table_id"] for g in done["detail"]["games"]] == [table_id]
    (mu, sigma), = rows(db_url, skill.format(farmer_id))
    assert mu == pytest.approx(mu_before) and sigma == pytest.approx(sigma_before)
    assert rows(db_url, skill.format(feeder_id)) == feeder_after  # a loss is left alone
    # Twice: nothing left to take back, and nothing changes.
    before = moderation_rows(db_url)
    refused(mod.post("/api/moderation/actions", {"username": "Farmer", "action": "revert_ratings", "reason": "x"}),
            409, "conflict")
    refused(mod.post("/api/moderation/actions", {"username": "Feeder", "action": "revert_ratings", "reason": "x"}),
            409, "conflict")
    assert moderation_rows(db_url) == before
    history = ok(mod.get("/api/moderation/players/Farmer"))
    assert [r["table_id"] for r in history["reverts"]] == [table_id]
    assert [g["id"] for g in history["games"]] == [table_id] and history["flags"][0]["table_id"] == table_id
    # Rebuilding every rating from the log replays the revert where it was made.
    kept = ratings_in(db_url)
    repo = Repository(make_engine(db_url))
    try:
        assert recompute(repo) == 1
    finally:
        repo.engine.dispose()
    got = ratings_in(db_url)
    assert len(got) == len(kept)
    for row, want in zip(got, kept, strict=True):
        assert [pytest.approx(x) if isinstance(x, float) else x for x in row] == list(want)


def test_actions_are_logged_shown_to_the_player_and_admins_change_roles(
        site: LiveServer, people: Callable[..., Browser], db_url: str) -> None:
    admin, mod, bob, carol = people("Root"), people("Mod"), people("Bob"), people("Carol")
    give_role(db_url, "Root", "admin")
    give_role(db_url, "Mod", "moderator")
    assert ok(mod.get("/api/account"))["roles"] == ["moderator"] and ok(bob.get("/api/account"))["roles"] == []
    report = ok(carol.post("/api/reports", {"username": "Bob", "reason": "stalling", "text": "lets his clock run"}),
                201)
    warned = act(mod, username="Bob", action="warn", reason="do not stall", report_id=report["id"])
    # A moderator does not act on a moderator; an admin does.
    before = moderation_rows(db_url)
    refused(mod.post("/api/moderation/actions", {"username": "Root", "action": "warn", "reason": "x"}), 403,
            "forbidden")
    refused(mod.post(f"/api/moderation/reports/{report['id']}/dismiss", {"reason": "closed already"}), 409,
            "conflict")
    assert moderation_rows(db_url) == before
    act(admin, username="Mod", action="warn", reason="be gentle")

    standing = ok(bob.get("/api/account/standing"))
    assert [(a["action"], a["reason"]) for a in standing["actions"]] == [("warn", "do not stall")]
    assert "moderator" not in standing["actions"][0]  # the player is not told who
    told = rows(db_url, "SELECT d.subject, d.text FROM notify_deliveries d JOIN users u ON u.id = d.user_id "
                        "WHERE u.username = 'Bob' AND d.kind = 'moderation'")
    assert told and all(s == "A warning from the moderators" and "do not stall" in t for s, t in told)
    log = ok(mod.get("/api/moderation/actions"))["actions"]
    assert [(a["action"], a["username"], a["moderator"]) for a in log] == [("warn", "Mod", "Root"),
                                                                          ("warn", "Bob", "Mod")]
    history = ok(mod.get("/api/moderation/players/bob"))
    assert history["username"] == "Bob" and [a["id"] for a in history["actions"]] == [warned["id"]]
    assert history["reports_on"][0]["status"] == "actioned" and history["reports_on"][0]["action_id"] == warned["id"]
    assert ok(mod.get("/api/moderation/players/Carol"))["reports_by"][0]["id"] == report["id"]

    # Admins grant and revoke the moderator role on the site, logged; only that role.
    refused(admin.post("/api/moderation/roles/Carol/admin"), 400, "bad_request")
    granted = ok(admin.post("/api/moderation/roles/carol/moderator"))
    assert granted["roles"] == ["moderator"] and ok(carol.get("/api/account"))["roles"] == ["moderator"]
    refused(admin.post("/api/moderation/roles/Carol/moderator"), 409, "conflict")
    assert ok(carol.get("/api/moderation/reports"))["reports"][0]["id"] == report["id"]
    ok(admin.http.request("DELETE", "/api/moderation/roles/Carol/moderator", headers={"origin": site.url}))
    refused(carol.get("/api/moderation/reports"), 403, "forbidden")
    assert [a["action"] for a in ok(admin.get("/api/moderation/actions"))["actions"][:2]] == \
        ["revoke_role", "grant_role"]


def test_a_moderator_closes_an_account_which_its_owner_may_reopen(
        site: LiveServer, people: Callable[..., Browser], db_url: str) -> None:
    mod, bob = people("Mod"), people("Bob")
    give_role(db_url, "Mod", "moderator")
    closed = act(mod, username="Bob", action="close_account", reason="threats in chat")
    assert closed["action"] == "close_account" and closed["detail"]["reopen_until"]
    assert bob.user() is None  # logged out at once
    told = rows(db_url, "SELECT d.subject FROM notify_deliveries d JOIN users u ON u.id = d.user_id "
                        "WHERE u.username = 'Bob' AND d.kind = 'moderation'")
    assert told and all(s == "Your account was closed" for (s,) in told)
    again = Browser(site)
    r = again.login("Bob")
    assert r.status_code == 403 and r.json()["error"]["code"] == "account_closed"
    assert r.json()["error"]["reopen_until"] == closed["detail"]["reopen_until"]
    assert rows(db_url, "SELECT by FROM account_closures") == [("moderator:Mod",)]
