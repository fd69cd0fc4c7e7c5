"""Tournaments through the real app: made, joined and left over HTTP, moved on by their due
work on a fake clock, their games played at real tables by the accounts that hold the seats,
and their pages told of each change by the tournament socket (SQLite and PostgreSQL)."""

from __future__ import annotations

import random
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest

from omega.server.accounts.roles import admin_main
from omega.server.clock import FakeClock, stamp
from omega.server.config import Settings
from omega.server.tournaments import store

from .server_helpers import JsonSocket, LiveServer, make_server
from .site_helpers import CHEAP, ROOMY, Browser, page_socket, resign, state_of, tables_stored

#: The scheduler looks at due work this often (real seconds), so a test waits briefly.
QUICK = Settings(sweep_interval=0.05, retry_delay=1.0)


@pytest.fixture
def site(db_url: str, clock: FakeClock) -> Iterator[LiveServer]:
    with make_server(db_url, clock=clock, password_hasher=CHEAP, limits=ROOMY, settings=QUICK) as live:
        yield live


def new_tournament(b: Browser, clock: FakeClock, **body: Any) -> dict[str, Any]:
    """A tournament ``b`` makes, starting in ten minutes unless told."""
    body.setdefault("name", "Test cup")
    body.setdefault("time_control", "5+5")
    body.setdefault("starts_at", stamp(clock.now() + timedelta(minutes=10)))
    r = b.post("/api/tournaments", body)
    assert r.status_code == 201, r.text
    return dict(r.json())


def join(b: Browser, tid: str) -> dict[str, Any]:
    r = b.post(f"/api/tournaments/{tid}/join")
    assert r.status_code == 200, r.text
    return dict(r.json())


def view(b: Browser, tid: str) -> dict[str, Any]:
    r = b.get(f"/api/tournaments/{tid}")
    assert r.status_code == 200, r.text
    return dict(r.json())


def watch(site: LiveServer, tid: str, b: Browser | None = None) -> JsonSocket:
    return page_socket(site, f"/ws/tournaments/{tid}", b)


def until(sock: JsonSocket, pred: Callable[[dict[str, Any]], bool], last: dict[str, Any] | None = None) -> dict[str, Any]:
    """``last`` (the view the socket sent last) if it satisfies ``pred``, else the first
    view the socket sends that does."""
    if last is not None and pred(last):
        return last
    return dict(sock.until(lambda m: m["type"] == "tournament" and pred(m["tournament"]))["tournament"])


def start(clock: FakeClock, sock: JsonSocket, t: dict[str, Any]) -> dict[str, Any]:
    """Move the clock to the tournament's start; the view once round 1 is paired."""
    clock.advance(11 * 60)
    return until(sock, lambda v: v["status"] != "upcoming" and (v["round"] >= 1 or v["status"] != "running"))


def players_by_name(people: list[Browser]) -> dict[str, Browser]:
    out = {}
    for b in people:
        user = b.user()
        assert user is not None
        out[user["username"]] = b
    return out


def finish_game(by_name: dict[str, Browser], game: dict[str, Any], loser_first: list[str]) -> None:
    """End ``game`` by resignations: each of ``loser_first`` resigns in turn until one is left."""
    for name in loser_first[:len(game["players"]) - 1]:
        resign(by_name[name], game["table"])


def open_games(v: dict[str, Any], round_number: int | None = None) -> list[dict[str, Any]]:
    return [g for g in v["games"] if g["places"] is None and (round_number is None or g["round"] == round_number)]


def test_a_swiss_of_four_runs_three_rounds_to_the_end_without_a_repeated_pairing(
        site: LiveServer, people: Callable[..., Browser], clock: FakeClock) -> None:
    names = ["ann", "bob", "cat", "dan"]
    crowd = [people(n) for n in names]
    by_name = players_by_name(crowd)
    t = new_tournament(crowd[0], clock, format="swiss", rounds=3, rated=False, gap_seconds=0)
    assert t["status"] == "upcoming" and t["describe"] == "Swiss, 3 rounds"
    for b in crowd:
        assert join(b, t["id"])["me"]["joined"]
    sock = watch(site, t["id"], crowd[0])
    v = start(clock, sock, t)
    rng = random.Random(3)
    for number in (1, 2, 3):
        v = until(sock, lambda v, n=number: v["round"] == n and len(open_games(v, n)) == 2, v)  # type: ignore[misc]
        for game in open_games(v, number):
            # Each player is sent to their own table: the account holds its seat.
            for name in game["players"]:
                assert view(by_name[name], t["id"])["me"]["table"] == game["table"]
                assert state_of(by_name[name], game["table"])["you"]["seat"] == game["players"].index(name)
            loser = rng.choice(game["players"])
            resign(by_name[loser], game["table"])
    v = until(sock, lambda v: v["status"] == "finished")
    pairs = [frozenset(g["players"]) for g in v["games"]]
    assert len(pairs) == 6 and len(set(pairs)) == 6  # 3 rounds of 4: everyone met everyone once
    whites = Counter(g["players"][0] for g in v["games"])
    assert all(1 <= whites[n] <= 2 for n in names)  # colours balanced: 3 games, 1 or 2 as White
    assert sum(s["points"] for s in v["standings"]) == 6  # one point per game
    assert [s["rank"] for s in v["standings"]] == sorted(s["rank"] for s in v["standings"])
    assert v["tiebreaks"][:1] == ["buchholz"]


def test_an_arena_pairs_players_again_as_their_games_end_and_stops_at_its_time(
        site: LiveServer, people: Callable[..., Browser], clock: FakeClock) -> None:
    crowd = [people(n) for n in ("ann", "bob", "cat")]
    by_name = players_by_name(crowd)
    t = new_tournament(crowd[0], clock, format="arena", minutes=30, time_control="3+2")
    for b in crowd:
        join(b, t["id"])
    sock = watch(site, t["id"])
    v = start(clock, sock, t)
    v = until(sock, lambda v: len(open_games(v)) == 1, v)
    first = open_games(v)[0]
    waiting = ({"ann", "bob", "cat"} - set(first["players"])).pop()
    # The player left over may pause: not paired while paused.
    r = by_name[waiting].post(f"/api/tournaments/{t['id']}/pause", {"paused": True})
    assert r.status_code == 200 and r.json()["me"]["paused"], r.text
    resign(by_name[first["players"][1]], first["table"])
    v = until(sock, lambda v: v["games"][0]["places"] is not None)
    clock.advance(10)
    v = until(sock, lambda v: len(open_games(v)) == 1)
    second = open_games(v)[0]
    assert waiting not in second["players"], "a paused player is not paired"
    assert set(second["players"]) == set(first["players"])
    by_name[waiting].post(f"/api/tournaments/{t['id']}/pause", {"paused": False})
    resign(by_name[second["players"][0]], second["table"])
    clock.advance(10)
    v = until(sock, lambda v: len(open_games(v)) == 1 and len(v["games"]) == 3)
    assert waiting in open_games(v)[0]["players"]
    clock.advance(31 * 60)  # the arena's time is up; the game being played ends it (on time)
    v = until(sock, lambda v: v["status"] == "finished")
    assert len(v["games"]) == 3
    top = v["standings"][0]
    assert top["points"] >= 2 and top["rank"] == 1


def test_a_round_robin_of_three_rotates_the_seats(site: LiveServer, people: Callable[..., Browser],
                                                  clock: FakeClock) -> None:
    crowd = [people(n) for n in ("ann", "bob", "cat")]
    by_name = players_by_name(crowd)
    t = new_tournament(crowd[0], clock, format="round_robin", players=3, size=5, gap_seconds=0, rated=False)
    for b in crowd:
        join(b, t["id"])
    sock = watch(site, t["id"])
    v = start(clock, sock, t)
    for number in (1, 2, 3):
        v = until(sock, lambda v, n=number: v["round"] == n and len(open_games(v, n)) == 1, v)  # type: ignore[misc]
        game = open_games(v, number)[0]
        finish_game(by_name, game, game["players"][:2])
    v = until(sock, lambda v: v["status"] == "finished")
    assert v["rounds"] == 3 and len(v["games"]) == 3
    for name in ("ann", "bob", "cat"):
        assert sorted(g["players"].index(name) for g in v["games"]) == [0, 1, 2], "each seat once"


def test_a_player_who_misses_games_is_withdrawn_and_paired_no_more(
        site: LiveServer, people: Callable[..., Browser], clock: FakeClock) -> None:
    crowd = [people(n) for n in ("ann", "bob", "cat")]
    by_name = players_by_name(crowd)
    t = new_tournament(crowd[0], clock, format="swiss", rounds=3, time_control="1+0", max_missed=1, gap_seconds=0,
                       rated=False)
    for b in crowd:
        join(b, t["id"])
    sock = watch(site, t["id"])
    v = start(clock, sock, t)
    v = until(sock, lambda v: len(open_games(v, 1)) == 1, v)
    game = open_games(v, 1)[0]
    absent = game["players"][0]  # White never moves: the clock runs out
    clock.advance(61)
    v = until(sock, lambda v: v["round"] == 2)
    gone = next(s for s in v["standings"] if s["user"] == absent)
    assert gone["withdrawn"] and gone["points"] == 0
    assert all(absent not in g["players"] for g in v["games"] if g["round"] == 2)
    r = by_name[absent].post(f"/api/tournaments/{t['id']}/join")
    assert r.status_code == 409 and "missing games" in r.json()["error"]["message"]


def test_refusals_change_nothing(site: LiveServer, people: Callable[..., Browser], clock: FakeClock,
                                 db_url: str) -> None:
    ann, bob = people("ann"), people("bob")
    starts = stamp(clock.now() + timedelta(hours=1))
    base = {"name": "Cup", "format": "swiss", "rounds": 3, "time_control": "5+5", "starts_at": starts}
    for body, code in [
        ({**base, "public": True}, "forbidden"),
        ({**base, "time_control": "untimed"}, "bad_request"),
        ({**base, "rounds": None}, "bad_request"),
        ({**base, "format": "arena"}, "bad_request"),
        ({**base, "starts_at": "tomorrow"}, "bad_request"),
        ({**base, "starts_at": stamp(clock.now() - timedelta(hours=1))}, "bad_request"),
        ({**base, "players": 5}, "bad_request"),
        ({**base, "extra": 1}, "bad_request"),
    ]:
        r = ann.post("/api/tournaments", body)
        assert r.json()["error"]["code"] == code, (body, r.text)
    assert ann.get("/api/tournaments").json()["tournaments"] == {"upcoming": [], "running": [], "finished": []}
    assert Browser(site).post("/api/tournaments", base).status_code == 401
    assert bob.post("/api/tournaments/nope/join").status_code == 404
    # A moderator may make a public one; everyone sees it listed.
    assert admin_main("grant", "ann", "moderator", db_url) == 0
    public = ann.post("/api/tournaments", {**base, "public": True})
    assert public.status_code == 201, public.text
    private = new_tournament(bob, clock, format="swiss", rounds=2)
    listed = Browser(site).get("/api/tournaments").json()["tournaments"]["upcoming"]
    assert [x["id"] for x in listed] == [public.json()["id"]], "a private tournament is reached by its link only"
    assert view(ann, private["id"])["name"] == "Test cup"
    tid = public.json()["id"]
    join(bob, tid)
    before = view(bob, tid)
    r = bob.post(f"/api/tournaments/{tid}/pause", {"paused": True})
    assert r.status_code == 409 and "only an arena" in r.json()["error"]["message"]
    assert view(bob, tid) == before
    assert join(bob, tid) == before, "joining twice is joining once"
    r = bob.post(f"/api/tournaments/{tid}/withdraw")
    assert r.status_code == 200 and r.json()["me"] is None and r.json()["entrants"] == 0
    r = bob.post(f"/api/tournaments/{tid}/withdraw")
    assert r.status_code == 409


def test_too_few_players_cancel_it(site: LiveServer, people: Callable[..., Browser], clock: FakeClock) -> None:
    ann = people("ann")
    t = new_tournament(ann, clock, format="swiss", rounds=3)
    join(ann, t["id"])
    sock = watch(site, t["id"])
    clock.advance(11 * 60)
    v = until(sock, lambda v: v["status"] == "cancelled")
    assert v["games"] == [] and v["may_join"] is False


def test_two_servers_on_postgres_start_each_round_once(pg: Any, clock: FakeClock) -> None:
    url = pg.new_database()
    with make_server(url, clock=clock, password_hasher=CHEAP, limits=ROOMY, settings=QUICK) as one, \
            make_server(url, clock=clock, password_hasher=CHEAP, limits=ROOMY, settings=QUICK) as two:
        crowd = [Browser(one if i % 2 else two) for i in range(6)]
        for i, b in enumerate(crowd):
            assert b.register(f"player{i}").status_code == 201
        t = new_tournament(crowd[0], clock, format="swiss", rounds=2, rated=False, gap_seconds=0)
        for b in crowd:
            join(b, t["id"])
        by_name = players_by_name(crowd)
        socks = [watch(one, t["id"]), watch(two, t["id"])]
        clock.advance(11 * 60)
        last: dict[int, dict[str, Any]] = {}
        for number in (1, 2):
            views = [until(s, lambda v, n=number: v["round"] == n and len(open_games(v, n)) == 3, last.get(i))  # type: ignore[misc]
                     for i, s in enumerate(socks)]
            last = dict(enumerate(views))
            assert views[0]["games"] == views[1]["games"]
            for game in open_games(views[0], number):
                resign(by_name[game["players"][0]], game["table"])
        v = until(socks[1], lambda v: v["status"] == "finished")
        seats = [p for g in v["games"] for p in g["players"]]
        assert len(v["games"]) == 6 and Counter(seats) == Counter({f"player{i}": 2 for i in range(6)})
        rounds = {(g["round"], p) for g in v["games"] for p in g["players"]}
        assert len(rounds) == 12, "nobody plays twice in a round"
        assert len({frozenset(g["players"]) for g in v["games"]}) == 6


def test_omega_admin_grants_lists_and_revokes_roles(site: LiveServer, people: Callable[..., Browser], db_url: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from omega.cli import main

    people("ann")
    assert main(["admin", "list", "--db", db_url]) == 0
    assert capsys.readouterr().out == "nobody holds a role\n"
    assert main(["admin", "grant", "ANN", "moderator", "--db", db_url]) == 0
    assert main(["admin", "grant", "ann", "moderator", "--db", db_url]) == 0
    assert capsys.readouterr().out == "ANN is moderator now\nann was already moderator\n"
    assert main(["admin", "list", "--db", db_url]) == 0
    assert capsys.readouterr().out == "ann\tmoderator\n"
    assert main(["admin", "grant", "nobody", "moderator", "--db", db_url]) == 2
    assert main(["admin", "grant", "ann", "king", "--db", db_url]) == 2
    assert main(["admin", "grant", "ann", "--db", db_url]) == 2
    err = capsys.readouterr().err
    assert "there is no account named 'nobody'" in err and "a role is one of admin, moderator, not 'king'" in err
    assert "name the account and the role" in err
    assert main(["admin", "revoke", "ann", "moderator", "--db", db_url]) == 0
    assert capsys.readouterr().out == "ann is no longer moderator\n"


def test_a_round_that_fails_half_way_is_stored_whole_or_not_at_all(
        site: LiveServer, people: Callable[..., Browser], clock: FakeClock, db_url: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    crowd = [people(n) for n in ("ann", "bob", "cat", "dan")]
    t = new_tournament(crowd[0], clock, format="swiss", rounds=2, rated=False)
    for b in crowd:
        join(b, t["id"])
    real, calls, crashed = store.insert_game, [], threading.Event()

    def crash_on_the_second_table(*args: Any, **kw: Any) -> None:
        calls.append(args)
        if len(calls) == 2:
            crashed.set()
            raise RuntimeError("the process died here")  # as a kill -9 would, inside the round's commit
        real(*args, **kw)

    monkeypatch.setattr(store, "insert_game", crash_on_the_second_table)
    sock = watch(site, t["id"])
    clock.advance(11 * 60)
    assert crashed.wait(30)
    v = view(crowd[0], t["id"])  # the start, the round and its first table went back together
    assert (v["status"], v["round"], v["games"], tables_stored(db_url)) == ("upcoming", 0, [], 0)
    clock.advance(QUICK.retry_delay + 1)  # the work is tried again
    v = until(sock, lambda v: v["round"] == 1)
    assert len(v["games"]) == 2 and tables_stored(db_url) == 2
    assert len(calls) == 4, "the second try stored both tables"


def test_a_turn_based_round_ends_at_its_deadline_and_who_still_plays_sits_the_next_one_out(
        site: LiveServer, people: Callable[..., Browser], clock: FakeClock) -> None:
    names = [f"player{i}" for i in range(6)]
    crowd = [people(n) for n in names]
    by_name = players_by_name(crowd)
    t = new_tournament(crowd[0], clock, format="swiss", rounds=3, time_control="3d", round_minutes=24 * 60,
                       vacation=True, rated=False)
    assert t["round_minutes"] == 24 * 60 and t["gap_seconds"] == 0 and t["vacation"]
    for b in crowd:
        join(b, t["id"])
    sock = watch(site, t["id"])
    v = start(clock, sock, t)
    v = until(sock, lambda v: len(open_games(v, 1)) == 3, v)
    first, second, slow = open_games(v, 1)
    table = state_of(by_name[slow["players"][0]], slow["table"])
    assert table["clock"]["pausable"], "a tournament that allows vacation lets its clocks pause"
    for game in (first, second):
        resign(by_name[game["players"][1]], game["table"])
    clock.advance(3600)
    v = until(sock, lambda v: sum(g["places"] is not None for g in v["games"]) == 2)
    assert v["round"] == 1, "a round with a deadline waits for it"
    clock.advance(23 * 3600 + 1)  # the round's day is over: round 2 starts without the slow game's players
    v = until(sock, lambda v: v["round"] == 2)
    round_two = [g for g in v["games"] if g["round"] == 2]
    assert len(round_two) == 2 and not set(slow["players"]) & {p for g in round_two for p in g["players"]}
    assert not {frozenset(g["players"]) for g in round_two} & {frozenset(first["players"]), frozenset(second["players"])}
    assert [g["places"] for g in v["games"] if g["table"] == slow["table"]] == [None], "the slow game goes on"
    resign(by_name[slow["players"][0]], slow["table"])
    v = until(sock, lambda v: all(g["places"] is not None for g in v["games"] if g["round"] == 1))
    winner = next(s for s in v["standings"] if s["user"] == slow["players"][1])
    assert winner["points"] == 1 and winner["games"] == 1, "a game that ended late counts"


def test_a_player_barred_from_rated_play_after_joining_is_withdrawn_before_the_next_round(
        site: LiveServer, people: Callable[..., Browser], clock: FakeClock, db_url: str) -> None:
    from omega.server.accounts.roles import grant
    from omega.server.infra.db import make_engine

    crowd = [people(n) for n in ("ann", "bob", "cat", "dan", "eve")]
    mod = people("mod")
    engine = make_engine(db_url)
    with engine.begin() as conn:
        grant(conn, "mod", "moderator", clock.now())
    engine.dispose()
    t = new_tournament(crowd[0], clock, format="swiss", rounds=2, rated=True, gap_seconds=0)
    for b in crowd[:4]:
        join(b, t["id"])
    # Eve joins, then a moderator bars her from rated play before the first round.
    join(crowd[4], t["id"])
    r = mod.post("/api/moderation/actions", {"username": "eve", "action": "rated_ban", "reason": "farming"})
    assert r.status_code == 201, r.text
    sock = watch(site, t["id"], crowd[0])
    v = start(clock, sock, t)
    v = until(sock, lambda v: v["round"] == 1 and len(open_games(v, 1)) == 2, v)
    seated = {p for g in open_games(v, 1) for p in g["players"]}
    assert seated == {"ann", "bob", "cat", "dan"}, "the barred player is never seated at a rated table"
    eve = next(s for s in v["standings"] if s["user"] == "eve")
    assert eve["withdrawn"]
    assert view(crowd[4], t["id"])["me"]["withdrawn"]
