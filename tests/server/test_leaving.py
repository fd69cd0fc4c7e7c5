"""Leaving the site cleanly (issue 32) over real HTTP and WebSocket round trips on SQLite and
PostgreSQL, on a fake clock: the download holds the account's own data and nothing of
another's private data; closing logs out everywhere, refuses log-ins with a clear code and
until when the account may be reopened, keeps the username (and its look-alikes) from being
registered again; reopening before the grace period ends cancels the removal; after it the
personal rows are gone from the database while the others' games and ratings stay, and the
game records show "deleted player"; refusals (wrong password, another site, no session)
change nothing."""

from __future__ import annotations

import json
import logging
import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from omega.server.clock import FakeClock
from omega.server.config import Settings
from omega.server.infra.db import make_engine
from omega.server.leaving.service import DELETED_PLAYER, GRACE, close_account
from omega.server.tables.store import Repository

from .server_helpers import JsonSocket, LiveServer, make_server
from .site_helpers import CHEAP, PASSWORD, ROOMY, Browser, counted_duel, ratings_in, rows, table_socket

#: Sessions and idle tables outlive the weeks the clock is moved on.
LONG = Settings(sweep_interval=0.05, session_lifetime=400 * 86400.0, abandon_after=400 * 86400.0)
SAME_SITE = {"sec-fetch-site": "same-origin"}  # what a browser sends with the page's own download


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2027, 3, 1, 9, tzinfo=UTC))


@pytest.fixture
def site(db_url: str, clock: FakeClock) -> Iterator[LiveServer]:
    with make_server(db_url, clock=clock, password_hasher=CHEAP, limits=ROOMY, settings=LONG) as live:
        yield live


def export(b: Browser) -> dict[str, Any]:
    r = b.get("/api/account/export", headers=SAME_SITE)
    assert r.status_code == 200, r.text
    assert r.headers["content-disposition"].startswith('attachment; filename="omega-account-')
    assert r.headers["content-type"].startswith("application/json")
    return dict(json.loads(r.content))


def close(b: Browser, password: str = PASSWORD) -> Any:
    return b.post("/api/account/close", {"password": password})


def chat(sock: JsonSocket, words: str) -> None:
    sock.until(lambda m: m["type"] == "sync")
    sock.send({"type": "chat", "text": words, "request_id": words[:8]})
    sock.until(lambda m: m["type"] == "chat" and any(x["text"] == words for x in m["messages"]))


def user_id(url: str, key: str) -> int:
    return int(rows(url, f"SELECT id FROM users WHERE username_key = '{key}'")[0][0])


@contextmanager
def told(words: str) -> Iterator[threading.Event]:
    """An event set when the server logs a line holding ``words`` (its due work says so once
    it has committed what it did), to wait on instead of reading the database again and again."""
    said = threading.Event()

    class Listen(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if words in record.getMessage():
                said.set()

    logger, handler = logging.getLogger("omega.server"), Listen()
    level = logger.level
    logger.setLevel(logging.INFO)
    logger.addHandler(handler)
    try:
        yield said
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def test_the_download_holds_the_account_s_own_data_and_nothing_private_of_others(
        site: LiveServer, people: Any) -> None:
    ann, bob = people("Ann"), people("Bob")
    assert ann.post("/api/account/email", {"email": "ann@example.org", "password": PASSWORD}).status_code == 202
    assert bob.post("/api/account/email", {"email": "bob@example.org", "password": PASSWORD}).status_code == 202
    assert ann.post("/api/account/notifications", {"digest": True}).status_code == 200
    assert ann.post("/api/account/watch", {"listed": False}).status_code == 200
    table_id = counted_duel(ann, bob, random.Random(7))
    ann_sock, bob_sock = table_socket(site, ann, table_id), table_socket(site, bob, table_id)
    try:
        chat(ann_sock, "good game, Bob")
        chat(bob_sock, "thanks Ann, my secret is 4711")
    finally:
        ann_sock.close()
        bob_sock.close()

    data = export(ann)
    assert data["account"]["username"] == "Ann" and data["account"]["email_pending"] == "ann@example.org"
    assert data["account"]["created_at"].startswith("2027-03-01")
    assert data["preferences"]["notifications"]["digest"] is True
    assert data["preferences"]["watch"] == {"listed": False}
    assert [g["id"] for g in data["games"]] == [table_id]
    record = data["games"][0]["record"]
    assert record["table"]["status"] == "over" and set(record["tags"].values()) >= {"Ann", "Bob"}
    assert data["ratings"]["2"]["games"] == 1 and [c["table_id"] for c in data["rating_history"]] == [table_id]
    assert [line["text"] for line in data["chat"]] == ["good game, Bob"]
    assert len(data["sessions"]) == 1 and data["notifications"] == [] and data["push_devices"] == []
    text = json.dumps(data)
    # Nothing of Bob's own: his address, his chat, his ratings (only the game's public record names him).
    assert "bob@example.org" not in text and "4711" not in text and "Bob" not in json.dumps(data["ratings"])

    # Only the logged-in account, and only from the site's own page.
    anyone = Browser(site)
    r = anyone.get("/api/account/export", headers=SAME_SITE)
    assert r.status_code == 401 and r.json()["error"]["code"] == "auth_required"
    r = ann.get("/api/account/export", headers={"origin": "https://evil.example"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "cross_site"
    assert ann.get("/api/account/export", headers={"sec-fetch-site": "cross-site"}).status_code == 403
    anyone.close()


def test_closing_logs_out_everywhere_refuses_log_ins_and_keeps_the_username(
        site: LiveServer, people: Any, clock: FakeClock, db_url: str) -> None:
    hal = people("Hal")
    elsewhere = Browser(site)
    assert elsewhere.login("Hal").status_code == 200 and elsewhere.user() is not None
    anyone = Browser(site)
    # Refused: no session, another site's page, the wrong password; none of them closes anything.
    assert anyone.post("/api/account/close", {"password": PASSWORD}).json()["error"]["code"] == "auth_required"
    r = hal.post("/api/account/close", {"password": PASSWORD}, origin="https://evil.example")
    assert r.status_code == 403 and r.json()["error"]["code"] == "cross_site"
    r = close(hal, "not the password")
    assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
    for body in ({}, {"password": 5}, {"password": PASSWORD, "now": True}):
        assert hal.post("/api/account/close", body).json()["error"]["code"] == "bad_request"
    assert hal.user() is not None and elsewhere.user() is not None
    assert rows(db_url, "SELECT count(*) FROM account_closures") == [(0,)]

    closed_at = clock.now()
    r = close(hal)
    assert r.status_code == 200, r.text
    until_text = (closed_at + GRACE).isoformat().replace("+00:00", "Z")
    assert r.json() == {"user": None, "closed_at": closed_at.isoformat().replace("+00:00", "Z"),
                        "reopen_until": until_text}
    assert hal.user() is None and elsewhere.user() is None  # every session ended
    assert rows(db_url, f"SELECT count(*) FROM sessions WHERE user_id = {user_id(db_url, 'hal')}") == [(0,)]

    r = anyone.login("Hal")
    assert r.status_code == 403 and r.json()["error"]["code"] == "account_closed", r.text
    assert r.json()["error"]["reopen_until"] == until_text and until_text in r.json()["error"]["message"]
    assert anyone.session is None
    # A wrong password says no more than any failed log-in.
    assert anyone.login("Hal", "wrong password!").json()["error"]["code"] == "login_failed"
    # The name, and what looks like it, cannot be registered again.
    for name in ("Hal", "HAL", "HaI", "Ha1", "\uff28al"):  # l as I or 1, a fullwidth Ｈ
        r = Browser(site).register(name)
        assert r.status_code == 409 and r.json()["error"]["code"] == "name_taken", (name, r.text)
    # Nobody sees the profile of a closed account.
    assert anyone.get("/api/users/Hal").json()["error"]["code"] == "not_found"
    assert anyone.get("/api/users/Hal/ratings").json()["error"]["code"] == "not_found"
    assert anyone.get("/api/users/Hal/live").json()["error"]["code"] == "not_found"
    elsewhere.close()
    anyone.close()


def test_reopening_before_the_grace_period_ends_cancels_the_removal(
        site: LiveServer, people: Any, clock: FakeClock, db_url: str) -> None:
    ann = people("Ann")
    assert ann.post("/api/account/watch", {"listed": False}).status_code == 200
    assert close(ann).status_code == 200
    key = user_id(db_url, "ann")
    assert rows(db_url, f"SELECT kind FROM due WHERE table_id = 'user:{key}'") == [("leaving",)]
    clock.advance(GRACE.total_seconds() - 3600)
    anyone = Browser(site)
    r = anyone.post("/api/account/reopen", {"username": "Ann", "password": "wrong password!"})
    assert r.status_code == 401 and r.json()["error"]["code"] == "login_failed"
    r = anyone.post("/api/account/reopen", {"username": "Ann", "password": PASSWORD}, origin="https://evil.example")
    assert r.json()["error"]["code"] == "cross_site"
    assert anyone.login("Ann").json()["error"]["code"] == "account_closed"  # the refusals reopened nothing
    r = anyone.post("/api/account/reopen", {"username": "ann", "password": PASSWORD})
    assert r.status_code == 200 and r.json() == {"reopened": True, "username": "Ann"}, r.text
    assert anyone.login("Ann").status_code == 200 and anyone.user() == {"id": key, "username": "Ann"}
    assert anyone.get("/api/account/watch").json() == {"listed": False}  # everything as it was
    assert rows(db_url, f"SELECT count(*) FROM due WHERE table_id = 'user:{key}'") == [(0,)]
    r = anyone.post("/api/account/reopen", {"username": "Ann", "password": PASSWORD})
    assert r.status_code == 409 and r.json()["error"]["code"] == "not_closed"
    # Past the old removal time nothing is removed.
    clock.advance(2 * 86400)
    assert anyone.get("/api/account/export", headers=SAME_SITE).status_code == 200
    assert rows(db_url, f"SELECT password_hash != '', username FROM users WHERE id = {key}") == [(True, "Ann")]
    anyone.close()


def test_after_the_grace_period_the_personal_data_is_removed_and_the_games_stay(
        site: LiveServer, people: Any, clock: FakeClock, db_url: str) -> None:
    ann, bob = people("Ann"), people("Bob")
    assert ann.post("/api/account/email", {"email": "ann@example.org", "password": PASSWORD}).status_code == 202
    assert ann.post("/api/account/notifications", {"digest": True}).status_code == 200
    assert ann.post("/api/account/watch", {"listed": False}).status_code == 200
    table_id = counted_duel(ann, bob, random.Random(11))
    ann_sock = table_socket(site, ann, table_id)
    bob_sock = table_socket(site, bob, table_id)
    try:
        chat(ann_sock, "my phone is 555-0100")
        chat(bob_sock, "well played")
    finally:
        ann_sock.close()
    key = user_id(db_url, "ann")
    bob_id = user_id(db_url, "bob")
    ratings_before = ratings_in(db_url)
    assert close(ann).status_code == 200

    clock.advance(GRACE.total_seconds() - 60)  # not yet
    assert rows(db_url, f"SELECT removed_at FROM account_closures WHERE user_id = {key}") == [(None,)]
    with told(f"closed account {key} was removed") as removed:
        try:
            clock.advance(120)
            renamed = bob_sock.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "name", timeout=30)
            assert renamed["event"]["name"] == DELETED_PLAYER
        finally:
            bob_sock.close()
        assert removed.wait(30), "the due work did not remove the data"
    assert rows(db_url, f"SELECT removed_at FROM account_closures WHERE user_id = {key}")[0][0] is not None

    # The account's row stays, reserving the name; what made it a person's is gone.
    assert rows(db_url, f"SELECT username, username_key, password_hash, email, email_pending, origin "
                        f"FROM users WHERE id = {key}") == [(DELETED_PLAYER, "ann", "", None, None, None)]
    for table in ("sessions", "notify_settings", "watch_settings", "ratings", "push_subscriptions", "vacations"):
        assert rows(db_url, f"SELECT count(*) FROM {table} WHERE user_id = {key}") == [(0,)], table
    assert rows(db_url, "SELECT count(*) FROM outbox WHERE to_address = 'ann@example.org'") == [(0,)]
    assert sorted(rows(db_url, f"SELECT name, text, username FROM chat WHERE table_id = '{table_id}'")) == sorted(
        [(DELETED_PLAYER, "", None), ("Bob", "well played", "Bob")])
    assert "Ann" not in json.dumps(rows(db_url, f"SELECT data FROM events WHERE table_id = '{table_id}'"))
    # The game, the other player's rating and both rating changes stay as they were.
    # (ratings_in: each rating, its user id first; then each rating change, its table id first)
    kept = [r for r in ratings_before if r[0] == bob_id or isinstance(r[0], str)]
    assert ratings_in(db_url) == kept  # Bob's rating, and every rating change; Ann's rating is gone
    assert any(r[0] == key for r in ratings_before)
    assert rows(db_url, f"SELECT count(*) FROM rating_changes WHERE table_id = '{table_id}'") == [(2,)]
    record = bob.get(f"/api/tables/{table_id}/record.json").json()
    assert sorted(record["tags"][c] for c in ("White", "Black")) == sorted(["Bob", DELETED_PLAYER])
    assert record["table"]["status"] == "over"
    assert DELETED_PLAYER in bob.get(f"/api/tables/{table_id}/record.txt").text
    games = bob.get("/api/users/Bob/ratings").json()["games"]
    assert [(g["id"], g["opponents"][0]["username"]) for g in games] == [(table_id, DELETED_PLAYER)]
    # Nobody logs in or reopens it any more, and the name stays taken.
    anyone = Browser(site)
    for password in (PASSWORD, "anything at all"):
        r = anyone.login("Ann", password)
        assert r.status_code == 403 and r.json()["error"] == {
            "code": "account_closed", "message": r.json()["error"]["message"], "reopen_until": None}
        assert anyone.post("/api/account/reopen", {"username": "Ann", "password": password}
                           ).json()["error"]["code"] == "account_closed"
    assert anyone.register("ann").json()["error"]["code"] == "name_taken"
    assert anyone.get(f"/api/users/{DELETED_PLAYER}").json()["error"]["code"] == "not_found"
    anyone.close()


def test_another_feature_closes_an_account_through_the_service(site: LiveServer, people: Any, db_url: str,
                                                                clock: FakeClock) -> None:
    """``close_account`` as a moderator's action calls it: the account is closed, its owner
    logged out, and the first closing stands when it is closed again."""
    ann = people("Ann")
    repo = Repository(make_engine(db_url))
    try:
        first = close_account(repo, user_id(db_url, "ann"), clock.now(), by="moderator:Mo")
        again = close_account(repo, user_id(db_url, "ann"), clock.now() + timedelta(days=1), by="self")
    finally:
        repo.engine.dispose()
    assert first == again and first.by == "moderator:Mo"
    assert ann.user() is None
    assert Browser(site).login("Ann").json()["error"]["code"] == "account_closed"
    with pytest.raises(ValueError):
        close_account(repo, 1, clock.now(), by="")
