"""Storage on SQLite and PostgreSQL: migrations, restarts, claims, and two servers on one database."""

from __future__ import annotations

import random
import subprocess
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import inspect, text
from sqlalchemy.exc import DBAPIError, IntegrityError

from omega.server.infra.db import make_engine, schema_head
from omega.server.infra.due import Due
from omega.server.tables.events import Event, Renamed
from omega.server.tables.identity import TableKeys
from omega.server.tables.state import COMPUTER_TURN, TIMEOUT, SeatConfig, TableConfig
from omega.server.tables.store import Repository, Write, Writer

from .server_helpers import Api, PgCluster, Socket, error_code, make_server, random_turn

pytestmark = pytest.mark.timeout(120)


def new_repository(db_url: str) -> tuple[Repository, datetime]:
    """A repository on ``db_url`` at the newest schema, and the time its tests start at."""
    repo = Repository(make_engine(db_url))
    repo.migrate()
    return repo, datetime(2026, 1, 1, tzinfo=UTC)


def test_migrations_are_idempotent_and_concurrent(blank_db_url: str) -> None:
    repos = [Repository(make_engine(blank_db_url)) for _ in range(3)]
    errors: list[BaseException] = []

    def migrate(repo: Repository) -> None:
        try:
            repo.migrate()
        except BaseException as e:  # collected and reported below
            errors.append(e)

    threads = [threading.Thread(target=migrate, args=(r,)) for r in repos]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    if blank_db_url.startswith("sqlite"):
        assert not errors or all("locked" in str(e) for e in errors)
        repos[0].migrate()
    else:
        assert errors == []
    names = set(inspect(repos[0].engine).get_table_names())
    assert {"tables", "seats", "events", "servers", "presence", "due", "reviews", "alembic_version", "ratings",
            "rated_games", "rating_changes", "quickplay"} <= names
    with repos[0].engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar_one() == schema_head()
    for r in repos:
        r.engine.dispose()


def test_claim_computer_turn_once(db_url: str) -> None:
    repo, now = new_repository(db_url)
    config = TableConfig("claimtbl", 2, 5, False, "2026-01-01T00:00:00+00:00",
                         (SeatConfig("computer", 1), SeatConfig("human")))
    repo.create_table(config, TableKeys((None, "h" * 64), "s" * 64), [(COMPUTER_TURN, now)])
    repo.register_server("a", now)
    repo.register_server("b", now)
    leases = {COMPUTER_TURN: None}
    with ThreadPoolExecutor(4) as pool:
        claims = list(pool.map(lambda sid: repo.claim_due(sid, now, 10, leases), ["a", "b", "a", "b"]))
    winners = {sid for sid, got in zip(["a", "b", "a", "b"], claims, strict=True) if got}
    assert len(winners) == 1 and [d.table_id for c in claims for d in c] == ["claimtbl"]
    loser = ({"a", "b"} - winners).pop()
    assert repo.claim_due(loser, now, 10, leases) == []
    assert repo.claim_due(loser, now - timedelta(seconds=1), 10, leases) == []  # not due yet then
    repo.forget_server(winners.pop())  # the claimer died: its turn may be taken over
    assert [d.table_id for d in repo.claim_due(loser, now, 10, leases)] == ["claimtbl"]
    repo.engine.dispose()


def test_a_clash_of_keys_in_the_driver_sql_is_sqlalchemys_and_undoes_one_write(db_url: str) -> None:
    # A turn's statements bypass SQLAlchemy (storage._DriverSql); their errors must still be
    # SQLAlchemy's (the action path reads IntegrityError as an answer, not a failure).
    repo, now = new_repository(db_url)
    tables = [TableConfig(f"clash{i}", 2, 5, False, "2026-01-01T00:00:00+00:00",
                          (SeatConfig("human"), SeatConfig("human"))) for i in range(2)]
    for config in tables:
        repo.create_table(config, TableKeys((None, None), "s" * 64))

    def named(request_id: str) -> Callable[[Writer | None], list[Event]]:
        def store(w: Writer | None) -> list[Event]:
            assert w is not None
            return w.append([Event(Renamed(0, "Ann"), at=now, seat=0, request_id=request_id)],
                            status="playing", to_move_seat=0)
        return store

    repo.write_many([Write("clash0", named("r1"), lambda _: None)])
    # Alone: the clash of (table, request id) comes out as SQLAlchemy's IntegrityError.
    with pytest.raises(IntegrityError):
        repo.write_many([Write("clash0", named("r1"), lambda _: None)])
    # In a batch: the clashing write alone is undone; the other one is stored.  (On
    # PostgreSQL the batch's events go in one trip at the end, and the clash comes back from
    # it: the batch is done again one savepoint a write, which tells whose it was.)
    results = repo.write_many([Write("clash0", named("r1"), lambda _: None),
                               Write("clash1", named("r1"), lambda _: None)])
    assert isinstance(results[0], IntegrityError) and not isinstance(results[1], Exception)
    assert [len(stored.events) for stored in map(repo.load, ["clash0", "clash1"]) if stored is not None] == [1, 1]
    repo.engine.dispose()


def test_processes_starting_together_make_one_site_wide_row(db_url: str) -> None:
    # Two server processes started at once both wrote the sweep's row: the second one
    # failed its start-up on the primary key.
    repo, now = new_repository(db_url)
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda _: repo.keep_due("sweep", "", 0, now), range(32)))
    repo.register_server("a", now)
    assert [(d.kind, d.table_id) for d in repo.claim_due("a", now, 10, {"sweep": 30.0})] == [("sweep", "")]
    repo.engine.dispose()


def test_restart_rebuilds_every_table(db_url: str) -> None:
    rng = random.Random(11)
    live = make_server(db_url)
    api = Api(live.url)
    tables = []
    try:
        for players in (2, 3, 4):
            t = api.create(players=players, size=5 + players, pie_rule=players == 2, name=f"P{players}")
            tokens = {int(k): v for k, v in t["invites"].items()}
            state = t["state"]
            for _ in range(5):
                seat = state["game"]["current_seat"]
                state = api.turn(t["id"], tokens[seat], random_turn(state, rng))["state"]
            if players == 3:
                state = api.act(t["id"], tokens[1], {"type": "resign"}).json()["state"]
            tables.append((t, api.state(t["id"], t["spectator_key"])))
    finally:
        api.close()
        live.stop()
    live = make_server(db_url)
    api = Api(live.url)
    try:
        for t, before in tables:
            after = api.state(t["id"], t["spectator_key"])
            for key in ("version", "players", "size", "pie_rule", "status", "game"):
                assert after[key] == before[key], key
            assert [s["name"] for s in after["seats"]] == [s["name"] for s in before["seats"]]
            assert [s["resigned"] for s in after["seats"]] == [s["resigned"] for s in before["seats"]]
    finally:
        api.close()
        live.stop()


def test_computer_seats_have_distinct_stable_names(sqlite_url: str) -> None:
    """Two computers of one level at a table are told apart, and keep their names on restart."""
    seats = [{"kind": "human"}, {"kind": "computer", "level": 1}, {"kind": "computer", "level": 1},
             {"kind": "computer", "level": 13}]
    names = []
    for _ in range(2):  # the second server is a restart on the same database
        live = make_server(sqlite_url, bot=None)
        api = Api(live.url)
        try:
            if not names:
                t = api.create(players=4, seats=seats)
            state = api.state(t["id"], t["spectator_key"])
            names.append([s["name"] for s in state["seats"]])
            record = api.http.get(f"/api/tables/{t['id']}/record.txt", params={"token": t["token"]}).text
        finally:
            api.close()
            live.stop()
    # Two computers of one level are told apart by their seats; the other is named by its level.
    assert names[0] == names[1] == ["Player 1", "Computer 2 (Beginner)", "Computer 3 (Beginner)",
                                     "Computer (Hard)"]
    assert "Black: Computer 2 (Beginner)\n" in record, record


def test_two_servers_on_one_postgres(pg: PgCluster) -> None:
    """A move made through server A reaches a socket on server B; racing confirms sent to both
    servers at once play exactly one turn."""
    url = pg.new_database()
    a, b = make_server(url), make_server(url)
    api_a, api_b = Api(a.url), Api(b.url)
    try:
        t = api_a.create(players=2)
        tid, p0, p1 = t["id"], t["invites"]["0"], t["invites"]["1"]
        watch = Socket(b.ws_url, tid, p1)
        try:
            assert watch.recv()["type"] == "sync"
            api_a.turn(tid, p0, ["e5", "a1"])
            ev = watch.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "turn")
            assert ev["event"]["cells"] == ["e5", "a1"] and ev["state"]["game"]["current_seat"] == 1
            # B answers reads with A's move too.
            assert api_b.state(tid, p0)["game"]["history"] == [["e5", "a1"]]
            rng = random.Random(4)
            with ThreadPoolExecutor(4) as pool:
                for _ in range(5):
                    state = api_b.state(tid, p0)
                    seat = state["game"]["current_seat"]
                    token = (p0, p1)[seat]
                    cells = [random_turn(state, rng) for _ in range(2)]
                    answers = list(pool.map(
                        lambda pair, token=token: pair[0].act(tid, token, {"type": "turn", "cells": pair[1]}),
                        [(api_a, cells[0]), (api_b, cells[1])]))
                    assert sorted(r.status_code for r in answers) == [200, 409], [r.text for r in answers]
                    assert error_code(next(r for r in answers if r.status_code == 409)) == "not_your_turn"
            final = api_a.state(tid, p0)
            assert len(final["game"]["history"]) == 6
            events = watch.until(lambda m: m["type"] == "event" and m["version"] == final["version"])
            assert events["state"]["game"]["history"] == final["game"]["history"]
            versions = [m["version"] for m in watch.received if m["type"] == "event"]
            assert versions == list(range(versions[0], final["version"] + 1))
            # Presence crosses processes too: seat 0 connects to A, then A shuts down.
            seat0 = Socket(a.ws_url, tid, p0)
            seat0.recv()
            on = watch.until(lambda m: m["type"] == "presence" and m["seats"][0])
            assert on == {"type": "presence", "version": final["version"], "seats": [True, True]}
            assert api_b.state(tid, p1)["seats"][0]["connected"] is True
            a.stop()
            off = watch.until(lambda m: m["type"] == "presence")
            assert off["seats"] == [False, True] and off["version"] == final["version"]
            assert api_b.state(tid, p1)["seats"][0]["connected"] is False
        finally:
            watch.close()
    finally:
        api_a.close()
        api_b.close()
        a.stop()
        b.stop()


def test_tables_forgotten_by_a_small_cache_come_back_from_their_events(sqlite_url: str) -> None:
    from omega.server.config import Settings

    live = make_server(sqlite_url, settings=Settings(cache_size=2))
    api = Api(live.url)
    rng = random.Random(8)
    try:
        tables = [api.create(players=2) for _ in range(5)]
        for _ in range(3):
            for t in tables:
                state = api.state(t["id"], t["token"])
                token = t["invites"][str(state["game"]["current_seat"])]
                api.turn(t["id"], token, random_turn(state, rng), version=state["version"])
        for t in tables:
            assert len(api.state(t["id"], t["spectator_key"])["game"]["history"]) == 3
        assert live.app.state.core.cached_tables <= 2
    finally:
        api.close()
        live.stop()


def test_serve_refuses_a_bad_database_url(tmp_path: Path) -> None:
    # A URL that cannot be read, one whose driver is missing, and (for both commands) one
    # with a password and a bad port: one line each, never the password.
    for command, url, words in (("serve", "nonsense://x", "bad database URL"),
                                ("serve", "mysql://ann:secret@db/omega", "missing driver"),
                                ("serve", "postgresql://ann:secret@db:noport/omega", "bad database URL"),
                                ("worker", "postgresql://ann:secret@db:noport/omega", "bad database URL")):
        r = subprocess.run([sys.executable, "-m", "omega.cli", command, "--db", url], capture_output=True,
                           text=True, timeout=60, cwd=tmp_path)
        assert r.returncode == 2 and words in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert "secret" not in r.stderr


def test_database_outage_answers_unavailable_then_recovers(pg: PgCluster) -> None:
    import psycopg

    url = pg.new_database()
    name = url.rsplit("/", 1)[1]
    live = make_server(url)
    api = Api(live.url)
    admin = psycopg.connect(f"host=127.0.0.1 port={pg.port} user=postgres dbname=postgres", autocommit=True)
    try:
        t = api.create(players=2)
        api.turn(t["id"], t["token"], ["e5", "a1"])
        admin.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,))
        r = api.act(t["id"], t["invites"]["1"], {"type": "turn", "cells": ["b2", "c3"]}, request_id="during")
        assert r.status_code == 503 and error_code(r) == "unavailable", r.text
        admin.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
        answer = api.turn(t["id"], t["invites"]["1"], ["b2", "c3"], request_id="during")
        assert answer["state"]["game"]["history"] == [["e5", "a1"], ["b2", "c3"]]
    finally:
        admin.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
        admin.close()
        api.close()
        live.stop()


def test_computer_turns_are_claimed_owners_in_turn_and_capped_per_owner(db_url: str) -> None:
    # One owner with ten computer turns due before another's one: the other's turn is
    # claimed in the first round, and one process never holds more than the cap of an
    # owner's turns (the rest stay for other processes); a clock's flag comes first.
    repo, now = new_repository(db_url)
    for i in range(10):
        repo.keep_due(COMPUTER_TURN, f"flood{i}", 1, now - timedelta(seconds=60 - i), owner="203.0.113.9")
    repo.keep_due(COMPUTER_TURN, "victim", 1, now, owner="user:7")
    repo.keep_due(TIMEOUT, "flag", 1, now)
    for server in ("a", "b"):
        repo.register_server(server, now)
    leases: dict[str, float | None] = {COMPUTER_TURN: None, TIMEOUT: None}
    caps = {COMPUTER_TURN: 2}
    first = [d.table_id for d in repo.claim_due("a", now, 10, leases, caps)]
    assert first == ["flag", "flood0", "victim", "flood1"]
    assert repo.claim_due("a", now, 10, leases, caps) == []  # a holds its cap of the flood's turns
    assert [d.table_id for d in repo.claim_due("b", now, 10, leases, caps)] == ["flood2", "flood3"]
    repo.finish_due(Due(COMPUTER_TURN, "flood0", 1), "a")
    assert [d.table_id for d in repo.claim_due("a", now, 10, leases, caps)] == ["flood4"]
    repo.engine.dispose()


def test_an_error_never_shows_the_statements_parameters(db_url: str) -> None:
    # An error's text reaches the log; the values bound to the statement (digests of sessions
    # and resets, addresses) must not ride along with it.
    engine = make_engine(db_url)
    secret = "a-secret-digest-0123456789"
    try:
        with pytest.raises(DBAPIError) as raised, engine.connect() as conn:
            conn.execute(text("SELECT * FROM no_such_table WHERE x = :x"), {"x": secret})
        assert secret not in str(raised.value) and "hidden due to hide_parameters" in str(raised.value)
    finally:
        engine.dispose()


def at_once(*actions: Callable[[], object]) -> None:
    """Run ``actions`` in threads of their own, let go together (a barrier), and wait for all."""
    barrier = threading.Barrier(len(actions))

    def run(action: Callable[[], object]) -> None:
        barrier.wait()
        action()

    threads = [threading.Thread(target=run, args=(action,)) for action in actions]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def test_a_row_claimed_by_threads_at_once_is_claimed_once(db_url: str) -> None:
    # Claims racing in one process (the scheduler's own round and a wake-up): on PostgreSQL a
    # claim whose ranking saw a row free, then locked it just after another claim committed,
    # took it again when the row's conditions were checked only in the ranking: a mail was
    # sent twice.  Without the fix, 31 of 300 such rounds claimed a row twice.
    repo, now = new_repository(db_url)
    repo.register_server("a", now)
    twice = []
    for i in range(150):
        repo.keep_due("mail", str(i), 0, now)
        got: list[Due] = []

        def claim(got: list[Due] = got) -> None:
            got.extend(repo.claim_due("a", now, 8, {"mail": 120.0}))

        at_once(claim, claim, claim)
        if len(got) != 1:
            twice.append((i, len(got)))
    repo.engine.dispose()
    assert twice == []


def test_new_work_stored_while_its_claimant_finishes_is_never_lost(db_url: str) -> None:
    # A tournament's work (version 2) finishes in one process while a game's end makes it due
    # again (version 3) in another: the new version must stay.  When keep_due_row inserted
    # (finding the row) and then updated it in two statements, a finish committed between
    # them deleted the row, the update found nothing, and the tournament waited forever for
    # its next round (seen in the two-server tournament test under load).
    repo, now = new_repository(db_url)
    repo.register_server("a", now)
    lost = []
    for i in range(150):
        repo.keep_due("tournament", str(i), 2, now)
        [due] = repo.claim_due("a", now, 1, {"tournament": None})

        at_once(lambda due=due: repo.finish_due(due, "a"), lambda table=str(i): repo.keep_due("tournament", table, 3, now))
        if repo.due_version("tournament", str(i)) != 3:
            lost.append(i)
    repo.engine.dispose()
    assert lost == []
