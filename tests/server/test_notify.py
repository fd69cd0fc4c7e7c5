"""Notices by mail over real parts: the site's HTTP API and table sockets, a real SMTP server
(aiosmtpd) receiving the mail, SQLite and PostgreSQL, time from a fake clock, and the due
work run by the server's own scheduler (:func:`drain` runs what is due now, to the end).

"Your turn" is mailed once per turn and not while the player has the table open; a digest
gathers the turns; a game lost on time is told to both players; a preference turned off
sends nothing; the unsubscribe link works by RFC 8058's POST without logging in; an SMTP
server that is down gets the mail later, by the back-off, once; a server killed with
kill -9 while it sends a mail sends it once after its restart.
"""

from __future__ import annotations

import asyncio
import http.server
import json
import os
import random
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, func, select, text

from omega.server.clock import FakeClock
from omega.server.infra.due import DueRow
from omega.server.notify.mail import DIGEST_WAIT
from omega.server.notify.mailer import MailSettings
from omega.server.notify.notices import KINDS, DeliveryFailed, Notice
from omega.server.notify.outbox import MAX_TRIES, queue_mail, retry_delay
from omega.server.notify.turns import YOUR_TURN_DELAY
from omega.server.push.channel import PushOptions

from .mail_helpers import SITE_URL, Received, SmtpSink, added, html_of, text_of
from .push_helpers import DeviceKeys, PushService, check_vapid
from .server_helpers import (
    Api,
    LiveServer,
    PgCluster,
    ServeProcess,
    Socket,
    free_port,
    make_server,
    random_turn,
)
from .site_helpers import CHEAP, PASSWORD, Browser
from .worker_process import WorkerProcess

#: Past the "your turn" delay.
LATER = YOUR_TURN_DELAY.total_seconds() + 1


@pytest.fixture
def site(db_url: str, sink: SmtpSink, clock: FakeClock) -> Iterator[LiveServer]:
    # Web Push to loopback endpoints too: the tests' push service is on this machine.
    live = make_server(db_url, bot=None, clock=clock, password_hasher=CHEAP,
                       mail=MailSettings(smtp_url=sink.url, site_url=SITE_URL),
                       push_options=PushOptions(subject="mailto:admin@omega.example", loopback=True))
    try:
        yield live
    finally:
        live.stop()


def drain(live: LiveServer) -> None:
    """Run the server's due work that is due by its clock now, and what that work makes due,
    until none is left and none runs (the scheduler's own claims, on its own loop)."""
    scheduler, core = live.app.state.scheduler, live.app.state.core
    assert live.loop is not None

    def due_now() -> int:
        with core.repo.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(DueRow)
                                    .where(DueRow.due_at <= core.clock.now())).scalar_one())

    async def run() -> None:
        while True:
            # Done when nothing runs and no row is due by now, claimed or not: a row the
            # scheduler's own loop has just claimed is not running yet, but it is there.
            await scheduler.claim()
            if not scheduler.running and not await core.db(due_now):
                return
            await asyncio.sleep(0)  # let the claimed work run

    asyncio.run_coroutine_threadsafe(asyncio.wait_for(run(), 30), live.loop).result(40)


class Player:
    """A registered player with a verified address."""

    def __init__(self, site: LiveServer, sink: SmtpSink, name: str) -> None:
        self.browser = Browser(site)
        assert self.browser.register(name).status_code == 201
        self.email = f"{name.lower()}@example.com"
        added(self.browser, sink, self.email)  # its verification is its first mail
        self.sink = sink

    def mails(self, subject: str = "") -> list[Received]:
        return [m for m in self.sink.to(self.email) if subject in str(m["Subject"])]

    def close(self) -> None:
        self.browser.close()


@pytest.fixture
def players(site: LiveServer, sink: SmtpSink) -> Iterator[Any]:
    made: list[Player] = []

    def new(name: str) -> Player:
        made.append(Player(site, sink, name))
        return made[-1]

    yield new
    for p in made:
        p.close()


def duel(ann: Player, bob: Player, control: str = "1d") -> tuple[str, list[str]]:
    """A turn-based table of Ann (seat 0) and Bob (seat 1), both seats held by their accounts
    and joined: Ann is to move.  Returns its id and the seat tokens.  No vacation there: a
    flag falls when it is due (an automatic vacation would pause the clock instead)."""
    r = ann.browser.post("/api/tables", {"players": 2, "time_control": control, "pausable": False})
    assert r.status_code == 201, r.text
    made = r.json()
    claimed = bob.browser.post("/api/account/claim", {"seats": [{"table_id": made["id"], "token": made["invites"]["1"]}]})
    assert claimed.json()["seats"][0]["status"] == "claimed"
    assert bob.browser.get(f"/api/tables/{made['id']}").status_code == 200  # Bob joins
    return made["id"], [made["token"], made["invites"]["1"]]


def play(site: LiveServer, table_id: str, token: str, rng: random.Random) -> None:
    api = Api(site.url)
    try:
        api.turn(table_id, token, random_turn(api.state(table_id, token), rng))
    finally:
        api.close()


def rows(db_url: str, sql: str, **params: Any) -> list[Any]:
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            return list(conn.execute(text(sql), params).all())
    finally:
        engine.dispose()


def test_your_turn_is_mailed_once_per_turn_and_not_while_the_table_is_open(
        site: LiveServer, players: Any, clock: FakeClock) -> None:
    rng = random.Random(3)
    ann, bob = players("Ann"), players("Bob")
    table_id, tokens = duel(ann, bob)
    # Ann has the table open when her turn comes: she sees it, and gets no mail for it.
    sock = Socket(site.ws_url, table_id, tokens[0])
    try:
        sock.until(lambda m: m.get("type") == "presence" and m["seats"][0])
        clock.advance(LATER)
        drain(site)
        assert ann.mails("Your turn") == []
        play(site, table_id, tokens[0], rng)
    finally:
        sock.close()
    # Bob is away: one mail, however long his turn lasts.
    clock.advance(LATER)
    drain(site)
    clock.advance(3600)
    drain(site)
    [mail] = bob.mails("Your turn")
    assert mail["Subject"] == f"Your turn at table {table_id}"
    assert f"{SITE_URL}/t/{table_id}" in text_of(mail)
    assert f'<a href="{SITE_URL}/t/{table_id}">' in html_of(mail)
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert str(mail["List-Unsubscribe"]).startswith(f"<{SITE_URL}/mail/unsubscribe?t=")
    assert str(mail["Message-ID"]).startswith("<") and str(mail["Message-ID"]).endswith(">")
    # Ann, the table closed now, gets Bob's answer by mail: once.
    play(site, table_id, tokens[1], rng)
    clock.advance(LATER)
    drain(site)
    assert len(ann.mails("Your turn")) == 1 and len(bob.mails("Your turn")) == 1


def test_your_turn_reaches_the_players_devices_by_push_as_well_as_by_mail(
        site: LiveServer, players: Any, clock: FakeClock) -> None:
    # The whole path of a real turn: the tables' hook, the notifier, a delivery per channel,
    # the mail through SMTP and the push as a real encrypted, VAPID-signed request to the
    # device's push service (on loopback), decrypted here as the browser would.
    service = PushService()
    try:
        ann, bob = players("Ann"), players("Bob")
        phone = DeviceKeys()
        r = bob.browser.post("/api/push/subscriptions", phone.subscription(service.endpoint("bob-phone")))
        assert r.status_code == 200, r.text
        key = bob.browser.get("/api/push/key").json()["public_key"]
        table_id, tokens = duel(ann, bob)
        play(site, table_id, tokens[0], random.Random(6))
        clock.advance(LATER)
        drain(site)
        [message] = service.to("bob-phone")
        assert phone.decrypt(message) == {"title": f"Your turn at table {table_id}", "body": ANY_TEXT,
                                          "url": f"/t/{table_id}", "tag": ANY_TEXT}
        assert check_vapid(message, key)["aud"] == service.url
        assert len(bob.mails("Your turn")) == 1 and ann.mails("Your turn") == []
        # Once per turn on each channel, however long the turn lasts.
        clock.advance(3600)
        drain(site)
        assert len(service.to("bob-phone")) == 1 and len(bob.mails("Your turn")) == 1
    finally:
        service.stop()


class _AnyText(str):
    """Equal to any non-empty string (for the fields whose words another test pins)."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and bool(other)

    __hash__ = str.__hash__


ANY_TEXT = _AnyText()


def test_a_digest_gathers_the_turns_still_waiting_into_one_mail(
        site: LiveServer, players: Any, clock: FakeClock) -> None:
    rng = random.Random(4)
    ann, bob = players("Ann"), players("Bob")
    r = bob.browser.post("/api/account/notifications", {"digest": True})
    assert r.status_code == 200 and r.json()["digest"] is True
    tables = [duel(ann, bob) for _ in range(3)]
    for table_id, tokens in tables:
        play(site, table_id, tokens[0], rng)
    clock.advance(LATER)
    drain(site)
    assert bob.mails("Your turn") == []  # waiting for the others
    played, *waiting = tables
    play(site, played[0], played[1][1], rng)  # Bob answers one on the site meanwhile
    clock.advance(DIGEST_WAIT.total_seconds())
    drain(site)
    mails = bob.mails("Your turn")
    assert len(mails) == 1, [(str(m["Subject"]), str(m["Message-ID"])) for m in mails]
    [digest] = mails
    assert digest["Subject"] == "Your turn in 2 games"
    body = text_of(digest)
    assert all(f"{SITE_URL}/t/{table_id}" in body for table_id, _ in waiting)
    assert f"{SITE_URL}/t/{played[0]}" not in body  # no news: he has played it
    assert digest["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    # Ann chose no digest: her turns come one mail each.
    for table_id, tokens in waiting:
        play(site, table_id, tokens[1], rng)
    clock.advance(LATER)
    drain(site)
    assert len(ann.mails("Your turn at table")) == 3
    clock.advance(DIGEST_WAIT.total_seconds())
    drain(site)
    assert len(bob.mails("Your turn")) == 1  # nothing waits for him: no second digest


def test_a_game_lost_on_time_is_told_to_both_players(site: LiveServer, players: Any, clock: FakeClock) -> None:
    ann, bob = players("Ann"), players("Bob")
    table_id, tokens = duel(ann, bob, "12h")
    rng = random.Random(5)
    for seat in (0, 1, 0):
        play(site, table_id, tokens[seat], rng)
    clock.advance(timedelta(hours=12, seconds=1).total_seconds())  # Bob never answers
    drain(site)
    for player in (ann, bob):
        [mail] = player.mails("on time")
        assert "ended on time: Player 2's clock ran out" in text_of(mail)  # Bob's seat


def test_a_preference_turned_off_sends_nothing(site: LiveServer, players: Any, clock: FakeClock, db_url: str) -> None:
    ann, bob = players("Ann"), players("Bob")
    off = bob.browser.post("/api/account/notifications", {"on": {"your_turn": []}})
    assert off.status_code == 200 and off.json()["on"]["your_turn"] == []
    prefs = bob.browser.get("/api/account/notifications").json()
    # Only that kind was turned off, on every channel; every other kind stays on everywhere.
    assert prefs["on"] == {kind: [] if kind == "your_turn" else prefs["channels"] for kind in KINDS}
    table_id, tokens = duel(ann, bob)
    play(site, table_id, tokens[0], random.Random(6))
    clock.advance(LATER)
    drain(site)
    assert bob.mails("Your turn") == []
    assert rows(db_url, "SELECT count(*) FROM notify_deliveries WHERE kind = 'your_turn'")[0][0] == 0


def test_bad_preferences_are_refused_and_change_nothing(site: LiveServer, players: Any) -> None:
    bob = players("Bob")
    before = bob.browser.get("/api/account/notifications").json()
    for body in ({"on": {"gossip": ["mail"]}}, {"on": {"your_turn": ["pigeon"]}}, {"digest": "yes"},
                 {"on": {"your_turn": "mail"}}, {"colour": "red"}):
        r = bob.browser.post("/api/account/notifications", body)
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request", (body, r.text)
    assert bob.browser.get("/api/account/notifications").json() == before
    # A cookie write from another site is refused (CSRF), and so is one without a login.
    other = bob.browser.post("/api/account/notifications", {"digest": True}, origin="https://evil.example")
    assert other.status_code == 403 and other.json()["error"]["code"] == "cross_site"
    with httpx.Client(base_url=site.url) as anonymous:
        assert anonymous.post("/api/account/notifications", json={}).status_code == 401
    assert bob.browser.get("/api/account/notifications").json() == before


def test_unsubscribe_by_one_click_post_without_logging_in(site: LiveServer, players: Any, clock: FakeClock) -> None:
    rng = random.Random(7)
    ann, bob = players("Ann"), players("Bob")
    table_id, tokens = duel(ann, bob)
    play(site, table_id, tokens[0], rng)
    clock.advance(LATER)
    drain(site)
    [mail] = bob.mails("Your turn")
    link = str(mail["List-Unsubscribe"]).strip("<>").replace(SITE_URL, site.url)
    assert link in text_of(mail).replace(SITE_URL, site.url)  # the same link is in the text
    with httpx.Client(timeout=30) as provider:  # a mail provider: no cookie, no Origin
        page = provider.get(link)  # a GET only asks (scanners open links)
        assert page.status_code == 200 and "<form method=\"post\"" in page.text
        assert bob.browser.get("/api/account/notifications").json()["on"]["your_turn"] == ["mail", "push"]
        forged = provider.post(link.replace("?t=", "?t=1"), content=b"List-Unsubscribe=One-Click",
                               headers={"content-type": "application/x-www-form-urlencoded"})
        assert forged.status_code == 400
        assert bob.browser.get("/api/account/notifications").json()["on"]["your_turn"] == ["mail", "push"]
        done = provider.post(link, content=b"List-Unsubscribe=One-Click",
                             headers={"content-type": "application/x-www-form-urlencoded"})
        assert done.status_code == 200 and "no more mails" in done.text
    prefs = bob.browser.get("/api/account/notifications").json()["on"]
    # Mail of that kind only: its pushes, and mail of the other kinds, stay on.
    assert prefs["your_turn"] == ["push"] and prefs["ended_on_time"] == ["mail", "push"]
    play(site, table_id, tokens[1], rng)
    play(site, table_id, tokens[0], rng)
    clock.advance(LATER)
    drain(site)
    assert len(bob.mails("Your turn")) == 1


def test_a_mail_waits_out_an_smtp_outage_with_back_off_and_is_sent_once(
        site: LiveServer, players: Any, clock: FakeClock, sink: SmtpSink, db_url: str) -> None:
    ann, bob = players("Ann"), players("Bob")
    table_id, tokens = duel(ann, bob)
    sink.stop()
    play(site, table_id, tokens[0], random.Random(8))
    clock.advance(LATER)
    drain(site)

    def tries() -> list[tuple[int, bool]]:
        return [(r[0], r[1] is not None) for r in rows(
            db_url, "SELECT tries, sent_at FROM outbox WHERE to_address = :to AND subject LIKE 'Your turn%'",
            to=bob.email)]

    assert tries() == [(1, False)]
    clock.advance(retry_delay(1).total_seconds() - 1)
    drain(site)
    assert tries() == [(1, False)]  # not before its time
    clock.advance(1)
    drain(site)
    assert tries() == [(2, False)]
    sink.start()
    clock.advance(retry_delay(2).total_seconds())
    drain(site)
    assert tries() == [(3, True)]
    clock.advance(3600)
    drain(site)
    assert len(bob.mails("Your turn")) == 1
    assert rows(db_url, "SELECT count(*) FROM due WHERE kind = 'mail'")[0][0] == 0


def test_a_server_killed_while_sending_sends_the_mail_once_after_restart(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'data' / 'omega.sqlite3'}"
    hanging = _hanging_smtp()
    port = hanging.getsockname()[1]
    env = {**os.environ, "OMEGA_SMTP_URL": f"smtp://127.0.0.1:{port}", "OMEGA_SITE_URL": SITE_URL}
    serve = ServeProcess(db, env=env)
    sink = SmtpSink(port)
    try:
        serve.ready()
        with httpx.Client(base_url=serve.url, timeout=30, headers={"origin": serve.url}) as b:
            assert b.post("/api/account/register", json={"username": "Ann", "password": PASSWORD}).status_code == 201
            asked = b.post("/api/account/email", json={"email": "ann@example.com", "password": PASSWORD})
            assert asked.status_code == 202, asked.text
        caught, _ = hanging.accept()  # the mail is being sent now
        serve.kill()
        caught.close()
        hanging.close()
        sink.start()
        serve = ServeProcess(db, env=env)
        serve.ready()
        serve.wait_for_line(lambda line: re.search(r"mail \d+ sent", line) is not None)
        [mail] = sink.to("ann@example.com")
        assert mail["Subject"] and str(mail["Message-ID"]).endswith("@localhost>")
        assert rows(db, "SELECT count(*) FROM outbox WHERE sent_at IS NULL")[0][0] == 0
        assert rows(db, "SELECT count(*) FROM due WHERE kind = 'mail'")[0][0] == 0
    finally:
        serve.kill()
        sink.stop()
        hanging.close()


def test_without_smtp_mail_is_written_to_files_and_the_log_says_where(
        sqlite_url: str, tmp_path: Path, clock: FakeClock, caplog: pytest.LogCaptureFixture) -> None:
    directory = tmp_path / "mail"
    live = make_server(sqlite_url, bot=None, clock=clock, password_hasher=CHEAP,
                       mail=MailSettings(directory=directory, site_url=SITE_URL))
    try:
        with caplog.at_level("INFO", logger="omega.server"):
            b = Browser(live)
            assert b.register("Ann").status_code == 201
            assert b.post("/api/account/email", {"email": "ann@example.com", "password": PASSWORD}).status_code == 202
            drain(live)
            b.close()
        [eml] = directory.glob("*.eml")
        message = eml.read_text()
        assert "To: ann@example.com" in message and f"{SITE_URL}/#verify-email=" in message
        [line] = [r.getMessage() for r in caplog.records if "written to" in r.getMessage()]
        assert str(eml) in line and "verify-email" not in line and "ann@example.com" not in line
    finally:
        live.stop()


def test_a_mail_is_given_up_after_its_tries_with_one_line_and_no_secret(
        site: LiveServer, players: Any, clock: FakeClock, sink: SmtpSink, db_url: str,
        caplog: pytest.LogCaptureFixture) -> None:
    ann, bob = players("Ann"), players("Bob")
    table_id, tokens = duel(ann, bob)
    sink.stop()
    play(site, table_id, tokens[0], random.Random(9))
    clock.advance(LATER)
    with caplog.at_level("INFO", logger="omega.server"):
        drain(site)
        for tries in range(1, MAX_TRIES):
            clock.advance(retry_delay(tries).total_seconds())
            drain(site)
    given_up = [r for r in caplog.records if "given up" in r.getMessage()]
    assert len(given_up) == 1 and given_up[0].levelname == "WARNING"
    assert f"after {MAX_TRIES} tries" in given_up[0].getMessage()
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "unsubscribe?t=" not in logged and bob.email not in logged and "Your turn" not in logged
    [(tries, sent, given, body)] = rows(
        db_url, "SELECT tries, sent_at, given_up_at, text FROM outbox WHERE to_address = :to AND subject LIKE 'Your%'",
        to=bob.email)
    assert (tries, sent, given is not None, body) == (MAX_TRIES, None, True, "")  # its text is gone too
    sink.start()
    clock.advance(86400)
    drain(site)
    assert bob.mails("Your turn") == []


def _hanging_smtp() -> socket.socket:
    """An SMTP port that accepts connections and never answers: a sender is caught in the
    middle of sending, to be killed there."""
    hanging = socket.socket()
    hanging.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    hanging.bind(("127.0.0.1", 0))
    hanging.listen(8)
    hanging.settimeout(30)
    return hanging


@pytest.mark.slow
def test_a_worker_killed_while_sending_leaves_the_mail_to_the_next_worker_once(pg: PgCluster) -> None:
    db = pg.new_database()
    hanging = _hanging_smtp()
    port = hanging.getsockname()[1]
    env = {**os.environ, "OMEGA_SMTP_URL": f"smtp://127.0.0.1:{port}", "OMEGA_SITE_URL": SITE_URL}
    quick = {"dead_after": 3.0, "sweep_interval": 0.5, "env": env}
    first = WorkerProcess(db, ("--ai-workers", "1"), bot="random", **quick)  # type: ignore[arg-type]
    second: WorkerProcess | None = None
    sink = SmtpSink(port)
    try:
        first.ready()  # it has migrated the database
        engine = create_engine(db)
        try:
            with engine.begin() as conn:
                mail_id = queue_mail(conn, to="ann@example.com", subject="A mail", text="Hello", now=datetime.now(UTC))
        finally:
            engine.dispose()
        caught, _ = hanging.accept()  # the first worker is sending it now
        first.kill()
        caught.close()
        hanging.close()
        sink.start()
        second = WorkerProcess(db, ("--ai-workers", "1"), bot="random", **quick)  # type: ignore[arg-type]
        second.ready()
        # Once the sweep has found the first worker dead (3 s), its claim is free.
        [mail] = sink.wait_for(1, timeout=60)
        assert mail["Subject"] == "A mail" and mail.recipients == ["ann@example.com"]
        # The SMTP server has it before the worker's commit marks it sent: the worker says
        # so in its log once that commit holds.
        while True:
            line = second.lines.get(timeout=60)
            assert line is not None, "omega worker exited:\n" + "".join(second.log)
            if f"mail {mail_id} sent" in line:
                break
        assert rows(db, "SELECT count(*) FROM outbox WHERE id = :id AND sent_at IS NOT NULL", id=mail_id)[0][0] == 1
        assert rows(db, "SELECT count(*) FROM due WHERE kind = 'mail'")[0][0] == 0
        assert len(sink.mails) == 1
    finally:
        first.kill()
        if second is not None:
            second.kill()
        sink.stop()
        hanging.close()


def test_a_bad_smtp_url_stops_omega_serve_without_repeating_it(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'omega.sqlite3'}"
    for args, env in ((("--smtp", "ftp://ann:s3cret@mail.example"), {}),
                      ((), {"OMEGA_SMTP_URL": "smtp://ann:s3cret@mail.example:99999"})):
        done = subprocess.run([sys.executable, "-m", "omega.cli", "serve", "--db", db, *args],
                              env={**os.environ, **env}, capture_output=True, text=True, timeout=60)
        assert done.returncode == 2, done.stderr
        assert "OMEGA_SMTP_URL" in done.stderr and "s3cret" not in done.stderr + done.stdout


class _Inbox(http.server.BaseHTTPRequestHandler):
    """A loopback endpoint that keeps each notice posted to it (``server.notices``)."""

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["content-length"]))
        self.server.notices.append(json.loads(body))  # type: ignore[attr-defined]
        self.send_response(201)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


class HttpChannel:
    """A second channel, as Web Push will be one: each notice POSTed as JSON to an endpoint,
    :class:`DeliveryFailed` when the endpoint cannot be reached."""

    name = "push"

    def __init__(self, url: str) -> None:
        self.url = url

    async def deliver(self, notice: Notice) -> None:
        try:
            async with httpx.AsyncClient(timeout=10) as client:
                r = await client.post(self.url, json={"user": notice.user_id, "key": notice.key, "text": notice.text})
        except httpx.TransportError as e:
            raise DeliveryFailed(f"endpoint unreachable ({type(e).__name__})") from None
        if r.status_code >= 500:
            raise DeliveryFailed(f"endpoint answered {r.status_code}")


def test_another_channel_plugs_in_and_a_failed_delivery_is_retried_with_back_off(
        site: LiveServer, players: Any, clock: FakeClock) -> None:
    port = free_port()
    site.app.state.notify.add_channel(HttpChannel(f"http://127.0.0.1:{port}/notices"))
    ann, bob = players("Ann"), players("Bob")
    prefs = bob.browser.get("/api/account/notifications").json()
    assert prefs["channels"] == ["mail", "push"] and prefs["on"]["your_turn"] == ["mail", "push"]
    table_id, tokens = duel(ann, bob)
    play(site, table_id, tokens[0], random.Random(10))
    clock.advance(LATER)
    drain(site)  # the endpoint is down: mail goes, the push waits
    assert len(bob.mails("Your turn")) == 1
    endpoint = http.server.ThreadingHTTPServer(("127.0.0.1", port), _Inbox)
    endpoint.notices = []  # type: ignore[attr-defined]
    threading.Thread(target=endpoint.serve_forever, daemon=True).start()
    try:
        clock.advance(retry_delay(1).total_seconds() - 1)
        drain(site)
        assert endpoint.notices == []  # type: ignore[attr-defined]  # not before its time
        clock.advance(1)
        drain(site)
        clock.advance(3600)
        drain(site)
        [notice] = endpoint.notices  # type: ignore[attr-defined]
        assert notice["key"].startswith(f"your_turn:{table_id}:") and "your turn" in notice["text"]
    finally:
        endpoint.shutdown()
        endpoint.server_close()
