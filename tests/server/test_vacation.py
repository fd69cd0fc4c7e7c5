"""Vacation for turn-based games (issue 30), over real HTTP and WebSocket round trips on
SQLite and PostgreSQL, on a fake clock: a player on vacation does not flag, is charged for the
time away by the started hour, and comes back to the time the clock had; a vacation starts by
itself instead of a near flag, but not when the player turned that off, has no days left, or
at a table that forbids it; real-time games are not affected; the allowance renews each year;
bad input is refused with a clear code and changes nothing."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from omega.server.clock import FakeClock
from omega.server.config import Settings
from omega.server.vacation.allowance import ALLOWANCE_HOURS, AUTOMATIC_BEFORE

from .server_helpers import LiveServer, PgCluster, Socket, computer_turn, make_server
from .site_helpers import CHEAP, ROOMY, Browser, rows, state_of
from .worker_process import WorkerProcess

HOUR = 3600.0
#: Long enough that nothing but vacation ends a game or a log-in while the clock runs for weeks.
LONG = Settings(sweep_interval=0.05, session_lifetime=400 * 86400.0, abandon_after=400 * 86400.0)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2026, 6, 1, 9, tzinfo=UTC))


@pytest.fixture
def site(db_url: str, clock: FakeClock) -> Iterator[LiveServer]:
    with make_server(db_url, clock=clock, password_hasher=CHEAP, limits=ROOMY, settings=LONG) as live:
        yield live


def game_with_a_guest(host: Browser, control: str, *, running: bool = True, **body: Any) -> tuple[str, str]:
    """A 2-player table ``host`` creates (its seat 0, to move first) with a guest in seat 1
    who has opened it, so the host's clock runs (``running``: checked); its id and spectator key."""
    r = host.post("/api/tables", {"players": 2, "time_control": control, **body})
    assert r.status_code == 201, r.text
    made = r.json()
    guest = Browser(host.server)
    try:
        r = guest.get(f"/api/tables/{made['id']}", headers={"authorization": f"Bearer {made['invites']['1']}"})
        assert r.status_code == 200 and (r.json()["clock"]["running"] == 0 or not running), r.text
    finally:
        guest.close()
    return made["id"], made["spectator_key"]


def vacation(b: Browser) -> dict[str, Any]:
    r = b.get("/api/account/vacation")
    assert r.status_code == 200, r.text
    return dict(r.json())


def post(b: Browser, path: str, body: Any = None) -> dict[str, Any]:
    r = b.post(path, body if body is not None else {})
    assert r.status_code == 200, r.text
    return dict(r.json())


def event(sock: Socket, kind: str) -> dict[str, Any]:
    return sock.until(lambda m: m["type"] == "event" and m["event"]["kind"] == kind)


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def due_rows(url: str, table_id: str) -> list[str]:
    """The table's clock work that is due: a flag (``timeout``) and the lead before it
    (``flag_near``); other features' rows (a "your turn" notice) are not the clock's."""
    return sorted(r[0] for r in rows(url, f"SELECT kind FROM due WHERE table_id = '{table_id}' "
                                          "AND kind IN ('timeout', 'flag_near')"))


def test_on_vacation_no_flag_falls_days_are_charged_and_the_clock_resumes_with_its_time(
        site: LiveServer, people: Any, clock: FakeClock, db_url: str) -> None:
    ann = people("Ann")
    slow, slow_key = game_with_a_guest(ann, "12h")
    clock.advance(2 * HOUR)
    fast, fast_key = game_with_a_guest(ann, "5+5")
    watch, watch_fast = Socket(site.ws_url, slow, slow_key), Socket(site.ws_url, fast, fast_key)
    watch_late: Socket | None = None
    try:
        watch.until(lambda m: m["type"] == "sync")
        watch_fast.until(lambda m: m["type"] == "sync")
        started = post(ann, "/api/account/vacation", {"until": None})
        assert started["on_vacation"] and started["since"] is not None and not started["started_automatically"]
        paused = event(watch, "pause")
        assert paused["event"] == {"kind": "pause", "seat": 0, "reason": "vacation"}
        seat, clocks = paused["state"]["seats"][0], paused["state"]["clock"]
        assert seat["paused"] == "vacation" and clocks["running"] is None and clocks["flag_at"] is None
        assert clocks["left_ms"][0] == 10 * HOUR * 1000  # 12 hours a move, 2 used
        assert due_rows(db_url, slow) == []              # no flag can fall: none is due
        # The real-time game goes on: its clock runs, and it flags.
        fast_state = state_of(ann, fast)
        assert fast_state["seats"][0]["paused"] is None and fast_state["clock"]["running"] == 0
        # A game begun during the vacation is paused, at the latest, when its flag is near.
        # (Its pause may come at once too: the vacation's work runs after the start.)
        late, late_key = game_with_a_guest(ann, "12h", running=False)
        watch_late = Socket(site.ws_url, late, late_key)
        late_state = watch_late.until(lambda m: m["type"] == "sync")["state"]
        clock.advance(3 * 24 * HOUR)
        assert event(watch_fast, "timeout")["event"]["seat"] == 0
        if late_state["seats"][0]["paused"] is None:
            late_state = event(watch_late, "pause")["state"]
        assert late_state["status"] == "playing" and late_state["seats"][0]["paused"] == "vacation"
        assert state_of(ann, slow)["status"] == "playing" and due_rows(db_url, slow) == []
        assert vacation(ann)["left_hours"] == ALLOWANCE_HOURS - 72
        clock.advance(60)  # a started hour counts whole
        back = post(ann, "/api/account/vacation/end")
        assert not back["on_vacation"] and back["used_hours"] == 73 and back["left_hours"] == ALLOWANCE_HOURS - 73
        resumed = event(watch, "resume")["state"]
        assert resumed["seats"][0]["paused"] is None and resumed["clock"]["running"] == 0
        assert at(resumed["clock"]["flag_at"]) == clock.now() + timedelta(hours=10)
        assert due_rows(db_url, slow) == ["flag_near", "timeout"]
        # Back with a clock near its flag, the player plays it: no vacation starts again at once.
        left = event(watch_late, "resume")["state"]["clock"]["left_ms"][0]
        assert 0 < left <= 12 * HOUR * 1000  # 12 h, or under 3 h if it was paused when its flag was near
        clock.advance(left / 1000 + 1)
        assert event(watch_late, "over")["event"]["reason"] == "aborted"
        assert not vacation(ann)["on_vacation"]
    finally:
        watch.close()
        watch_fast.close()
        if watch_late is not None:
            watch_late.close()


def test_a_vacation_with_an_end_ends_by_itself(site: LiveServer, people: Any, clock: FakeClock) -> None:
    ann = people("Ann")
    table, key = game_with_a_guest(ann, "1d")
    until = clock.now() + timedelta(days=2, minutes=30)
    watch = Socket(site.ws_url, table, key)
    try:
        watch.until(lambda m: m["type"] == "sync")
        assert at(post(ann, "/api/account/vacation", {"until": until.isoformat()})["ends_at"]) == until
        event(watch, "pause")
        clock.advance(3 * 24 * HOUR)  # past the end: it is charged to its end, not to when it was seen
        event(watch, "resume")
        v = vacation(ann)
        assert not v["on_vacation"] and v["used_hours"] == 49
    finally:
        watch.close()


def test_a_vacation_starts_by_itself_instead_of_a_flag(site: LiveServer, people: Any, clock: FakeClock,
                                                      caplog: pytest.LogCaptureFixture, db_url: str) -> None:
    ann = people("Ann")
    table, key = game_with_a_guest(ann, "12h")
    other, other_key = game_with_a_guest(ann, "3d")
    flag = at(state_of(ann, table)["clock"]["flag_at"])
    watch, watch_other = Socket(site.ws_url, table, key), Socket(site.ws_url, other, other_key)
    try:
        watch.until(lambda m: m["type"] == "sync")
        watch_other.until(lambda m: m["type"] == "sync")
        with caplog.at_level(logging.INFO, logger="omega.server"):
            clock.advance((flag - AUTOMATIC_BEFORE - clock.now()).total_seconds() + 1)
            paused = event(watch, "pause")["state"]
            # Every turn-based clock of the player pauses, not only the one near its flag.
            assert event(watch_other, "pause")["state"]["seats"][0]["paused"] == "vacation"
        assert paused["seats"][0]["paused"] == "vacation" and paused["status"] == "playing"
        assert paused["clock"]["left_ms"][0] == AUTOMATIC_BEFORE.total_seconds() * 1000 - 1000
        v = vacation(ann)
        assert v["on_vacation"] and v["started_automatically"] and v["until"] is None
        # The player is told through the notify service: a delivery per channel they allow.
        told = rows(db_url, "SELECT kind, channel, subject FROM notify_deliveries WHERE kind = 'vacation_started'"
                            " ORDER BY channel")
        assert [(kind, channel) for kind, channel, _ in told] == [("vacation_started", "mail"), ("vacation_started", "push")]
        assert "Your vacation started" in told[0][2]
        assert due_rows(db_url, table) == []  # no flag is due: none can fall
        clock.advance(24 * HOUR)  # far past the flag
        assert state_of(ann, table)["status"] == "playing" and state_of(ann, table)["clock"]["flag_at"] is None
    finally:
        watch.close()
        watch_other.close()


def test_no_automatic_vacation_when_turned_off_out_of_days_or_forbidden(
        site: LiveServer, people: Any, clock: FakeClock) -> None:
    ann, cyd, dan = people("Ann"), people("Cyd"), people("Dan")
    off = post(ann, "/api/account/vacation/settings", {"automatic": False})
    assert off["automatic"] is False and not off["on_vacation"]
    # Dan spends the whole allowance: the vacation ends by itself when it runs out.
    post(dan, "/api/account/vacation")
    clock.advance(ALLOWANCE_HOURS * HOUR + 5)
    spent = vacation(dan)
    assert not spent["on_vacation"] and spent["left_hours"] == 0
    r = dan.post("/api/account/vacation", {})
    assert r.status_code == 409 and r.json()["error"]["code"] == "no_vacation_left"
    tables = [game_with_a_guest(ann, "12h"), game_with_a_guest(dan, "12h"),
              game_with_a_guest(cyd, "12h", pausable=False)]
    assert state_of(cyd, tables[2][0])["clock"]["pausable"] is False
    socks = [Socket(site.ws_url, t, k) for t, k in tables]
    try:
        for s in socks:
            s.until(lambda m: m["type"] == "sync")
        # Cyd is on vacation, but this table forbids it: her clock there runs on.
        assert post(cyd, "/api/account/vacation")["on_vacation"]
        clock.advance(12 * HOUR)
        for s in socks:
            out = event(s, "over")
            assert out["event"]["reason"] == "aborted" and out["state"]["seats"][0]["paused"] is None
            assert [m["event"]["kind"] for m in s.received if m["type"] == "event"] == ["timeout", "over"]
        assert vacation(ann)["left_hours"] == ALLOWANCE_HOURS and not vacation(ann)["on_vacation"]
    finally:
        for s in socks:
            s.close()


def test_the_allowance_renews_each_year(site: LiveServer, people: Any, clock: FakeClock) -> None:
    ann = people("Ann")
    post(ann, "/api/account/vacation")
    clock.advance(10 * HOUR)
    assert post(ann, "/api/account/vacation/end")["left_hours"] == ALLOWANCE_HOURS - 10
    # To 20:00 on 31 December, then a vacation into the new year: only its new-year part counts.
    clock.advance((datetime(2026, 12, 31, 20, tzinfo=UTC) - clock.now()).total_seconds())
    assert vacation(ann)["used_hours"] == 10
    post(ann, "/api/account/vacation")
    clock.advance(9 * HOUR)
    back = post(ann, "/api/account/vacation/end")
    assert back["year"] == 2027 and back["used_hours"] == 5 and back["left"] == "29 days 19 hours"


def test_bad_input_is_refused_with_clear_codes_and_changes_nothing(site: LiveServer, people: Any,
                                                                  clock: FakeClock) -> None:
    guest = Browser(site)
    try:
        for path in ("/api/account/vacation", "/api/account/vacation/end", "/api/account/vacation/settings"):
            r = guest.post(path, {})
            assert r.status_code == 401 and r.json()["error"]["code"] == "auth_required"
        assert guest.get("/api/account/vacation").json()["error"]["code"] == "auth_required"
        r = guest.post("/api/tables", {"players": 2, "time_control": "1d", "pausable": "yes"})
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request"
    finally:
        guest.close()
    ann = people("Ann")
    before = vacation(ann)
    refused = [
        ("/api/account/vacation", {"until": "soon"}, "bad_request", "until"),
        ("/api/account/vacation", {"until": "2026-06-10T00:00:00"}, "bad_request", "offset"),
        ("/api/account/vacation", {"until": (clock.now() - timedelta(hours=1)).isoformat()}, "bad_request", "later"),
        ("/api/account/vacation", {"until": (clock.now() + timedelta(days=31)).isoformat()}, "vacation_too_long",
         "30 days"),
        ("/api/account/vacation", {"days": 3}, "bad_request", "days"),
        ("/api/account/vacation/end", {}, "not_on_vacation", "not on vacation"),
        ("/api/account/vacation/settings", {"automatic": "no"}, "bad_request", "automatic"),
        ("/api/account/vacation/settings", {}, "bad_request", "automatic"),
    ]
    for path, body, code, words in refused:
        r = ann.post(path, body)
        assert r.json()["error"]["code"] == code and words in r.json()["error"]["message"], (body, r.text)
        assert vacation(ann) == before
    # From another site, with the cookie: refused before anything is read.
    r = ann.post("/api/account/vacation", {}, origin="https://evil.example")
    assert r.status_code == 403 and r.json()["error"]["code"] == "cross_site" and vacation(ann) == before
    on = post(ann, "/api/account/vacation")
    r = ann.post("/api/account/vacation", {})
    assert r.status_code == 409 and r.json()["error"]["code"] == "on_vacation" and vacation(ann) == on


def test_two_processes_on_postgres_agree(pg: PgCluster, clock: FakeClock) -> None:
    url = pg.new_database()
    one, two = (make_server(url, clock=clock, password_hasher=CHEAP, limits=ROOMY, settings=LONG) for _ in range(2))
    ann_one, ann_two = Browser(one), Browser(two)
    socks: list[Socket] = []
    try:
        assert ann_one.register("Ann").status_code == 201 and ann_two.login("Ann").status_code == 200
        (a, a_key), (b, b_key) = game_with_a_guest(ann_one, "12h"), game_with_a_guest(ann_one, "1d")
        socks = [Socket(one.ws_url, a, a_key), Socket(two.ws_url, b, b_key)]
        for s in socks:
            s.until(lambda m: m["type"] == "sync")
        # Near the flag both processes look; one vacation starts, one pause per table.
        flag = at(state_of(ann_one, a)["clock"]["flag_at"])
        clock.advance((flag - AUTOMATIC_BEFORE - clock.now()).total_seconds() + 1)
        for s in socks:
            event(s, "pause")
        assert vacation(ann_two)["started_automatically"]
        # Ended in one process, taken in the other: the sockets of both hear of each.
        post(ann_one, "/api/account/vacation/end")
        for s in socks:
            event(s, "resume")
        post(ann_two, "/api/account/vacation")
        for s in socks:
            event(s, "pause")
        clock.advance(24 * HOUR)
        assert state_of(ann_two, a)["status"] == state_of(ann_one, b)["status"] == "playing"
        assert rows(url, "SELECT changes FROM vacations") == [(3,)]  # started by itself, ended, started
        pauses = rows(url, "SELECT table_id, count(*) FROM events WHERE kind = 'pause' GROUP BY table_id")
        assert sorted(pauses) == sorted([(a, 2), (b, 2)])
    finally:
        for s in socks:
            s.close()
        ann_one.close()
        ann_two.close()
        one.stop()
        two.stop()


def test_a_vacation_stored_just_before_a_crash_still_pauses_the_clocks(db_url: str, clock: FakeClock) -> None:
    site = make_server(db_url, clock=clock, password_hasher=CHEAP, limits=ROOMY, settings=LONG)
    ann = Browser(site)
    try:
        assert ann.register("Ann").status_code == 201
        user = ann.user()
        assert user is not None
        table, key = game_with_a_guest(ann, "12h")
    finally:
        ann.close()
        site.stop()
    # What a process killed right after a start's commit leaves: the account on vacation and
    # its due work, and no table paused yet.
    since = clock.now().isoformat(sep=" ")
    engine = create_engine(db_url)
    try:
        with engine.begin() as conn:
            conn.execute(text(
                "INSERT INTO vacations (user_id, automatic, year, used_hours, since, until, started_automatically,"
                " changes, back_at) VALUES (:u, true, 2026, 0, :since, NULL, false, 1, NULL)"), {"u": user["id"], "since": since})
            conn.execute(text("INSERT INTO due (kind, table_id, version, due_at) VALUES ('vacation', :t, 1, :at)"),
                         {"t": f"user:{user['id']}", "at": since})
    finally:
        engine.dispose()
    clock.advance(HOUR)
    again = make_server(db_url, clock=clock, password_hasher=CHEAP, limits=ROOMY, settings=LONG)
    watch = Socket(again.ws_url, table, key)
    try:
        state = watch.until(lambda m: m["type"] == "sync")["state"]
        if state["seats"][0]["paused"] is None:  # not brought yet when the socket opened
            state = event(watch, "pause")["state"]
        assert state["seats"][0]["paused"] == "vacation" and state["clock"]["flag_at"] is None
    finally:
        watch.close()
        again.stop()


@pytest.mark.slow
def test_a_turn_a_worker_starts_can_still_pause_by_itself(pg: PgCluster) -> None:
    """``omega worker`` stores a computer's move that starts a person's turn-based clock; the
    clock's ``flag_near`` work is kept due with it, so the server still pauses it in time."""
    url = pg.new_database()
    clock = FakeClock(datetime.now(UTC))  # the worker stamps its move by the real clock
    site = make_server(url, bot=None, clock=clock, password_hasher=CHEAP, limits=ROOMY, settings=LONG)
    worker = WorkerProcess(url, ("--ai-workers", "1"), bot="random")
    ann = Browser(site)
    try:
        worker.ready()
        assert ann.register("Ann").status_code == 201
        r = ann.post("/api/tables", {"players": 2, "time_control": "12h", "creator_seat": 1,
                                     "seats": [{"kind": "computer", "level": 1}, {"kind": "human"}]})
        assert r.status_code == 201, r.text
        table, key = r.json()["id"], r.json()["spectator_key"]
        watch = Socket(site.ws_url, table, key)
        try:
            state = watch.until(computer_turn, timeout=90)["state"]
            assert state["clock"]["running"] == 1 and due_rows(url, table) == ["flag_near", "timeout"]
            clock.advance((at(state["clock"]["flag_at"]) - AUTOMATIC_BEFORE - clock.now()).total_seconds() + 1)
            assert event(watch, "pause")["event"] == {"kind": "pause", "seat": 1, "reason": "vacation"}
        finally:
            watch.close()
    finally:
        ann.close()
        worker.kill()
        site.stop()
