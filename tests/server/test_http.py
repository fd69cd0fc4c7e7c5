"""HTTP API round trips against a live server, on SQLite and on PostgreSQL."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from omega import Game
from omega.ai.levels import MAX_LEVEL
from omega.record import from_json

from .server_helpers import Api, LiveServer, Socket, error_code, make_server, random_turn

pytestmark = pytest.mark.timeout(120)


BAD_CREATE: list[Any] = [
    {},                                                           # players missing
    {"players": 1},
    {"players": 5},
    {"players": "2"},                                             # strings are not numbers
    {"players": 2, "size": 4},
    {"players": 2, "size": 11},
    {"players": 3, "pie_rule": True},                             # pie rule is 2-player only
    {"players": 2, "seats": [{"kind": "human"}]},                 # wrong number of seats
    {"players": 2, "seats": [{"kind": "computer", "level": 1}, {"kind": "computer", "level": 2}]},
    {"players": 2, "seats": [{"kind": "human"}, {"kind": "computer", "level": MAX_LEVEL + 1}]},
    {"players": 2, "seats": [{"kind": "human"}, {"kind": "robot"}]},
    {"players": 2, "seats": [{"kind": "human"}, {"kind": "computer"}]},   # level missing
    {"players": 2, "seats": [{"kind": "human"}, {"kind": "computer", "level": 1}], "creator_seat": 1},
    {"players": 2, "creator_seat": 2},
    {"players": 2, "name": ""},
    {"players": 2, "name": "x" * 41},
    {"players": 2, "name": "a\nb"},
    {"players": 2, "colour": "red"},                              # unknown field
    [1, 2],
    "players",
]


def test_create_validation(api: Api) -> None:
    for body in BAD_CREATE:
        r = api.http.post("/api/tables", json=body)
        assert r.status_code == 400 and error_code(r) == "bad_request", (body, r.text)
    r = api.http.post("/api/tables", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and error_code(r) == "bad_request"
    r = api.http.post("/api/tables", content=b'{"players": 2, "name": "' + b"x" * 5000 + b'"}')
    assert r.status_code == 413 and error_code(r) == "too_large"


def test_config_matches_what_create_accepts(api: Api) -> None:
    # The page builds its form from /api/config: every size and player count it lists is
    # accepted, and the ones just outside are refused.
    config = api.http.get("/api/config").json()
    sizes = [s["size"] for s in config["sizes"]]
    assert sizes == list(range(5, 11)) and config["sizes"][0]["cells"] == 61
    assert config["players"] == {"min": 2, "max": 4}
    assert [lv["level"] for lv in config["levels"]] == list(range(1, MAX_LEVEL + 1))
    for size in (sizes[0], sizes[-1]):
        assert api.http.post("/api/tables", json={"players": config["players"]["max"], "size": size}).status_code == 201
    for size in (sizes[0] - 1, sizes[-1] + 1):
        assert api.http.post("/api/tables", json={"players": 2, "size": size}).status_code == 400
    assert api.http.post("/api/tables", json={"players": 2, "name": "x" * config["name_max"]}).status_code == 201


@pytest.mark.parametrize("bad", ["a\u2028b", "a\u2029b", "a\x85b", "a\x0bb", "\u202eevil"])
def test_a_name_the_server_takes_can_always_be_written_in_a_record(api: Api, bad: str) -> None:
    # A line separator in a name once broke every record download of its table for good.
    r = api.http.post("/api/tables", json={"players": 2, "name": bad})
    assert r.status_code == 400 and error_code(r) == "bad_request"
    t = api.create(players=2, name="Ann")
    auth = {"authorization": f"Bearer {t['token']}"}
    r = api.http.post(f"/api/tables/{t['id']}/name", json={"name": bad}, headers=auth)
    assert r.status_code == 400 and error_code(r) == "bad_request"
    api.turn(t["id"], t["token"], ["e5", "a1"])
    text = api.http.get(f"/api/tables/{t['id']}/record.txt", headers=auth)
    assert text.status_code == 200 and Game.from_record(text.text).history == (("e5", "a1"),)
    assert "White: Ann" in text.text


def test_create_tokens_seats_and_reads(api: Api) -> None:
    t = api.create(players=3, size=6, seats=[{"kind": "computer", "level": 2}, {"kind": "human"}, {"kind": "human"}],
                   name="Ann")
    assert t["seat"] == 1  # the first human seat by default
    assert set(t["invites"]) == {"1", "2"} and t["invites"]["1"] == t["token"]
    tokens = [t["token"], t["invites"]["2"], t["spectator_key"]]
    assert len(set(tokens)) == 3 and all(len(x) >= 32 for x in tokens)
    state = t["state"]
    assert state["players"] == 3 and state["size"] == 6 and state["status"] == "playing"
    assert [s["color"] for s in state["seats"]] == ["White", "Black", "Red"]
    assert [s["kind"] for s in state["seats"]] == ["computer", "human", "human"]
    assert state["seats"][0]["level"] == 2 and state["seats"][1]["name"] == "Ann"
    assert state["you"] == {"seat": 1}

    tid = t["id"]
    assert api.state(tid, t["invites"]["2"])["you"] == {"seat": 2}
    assert api.state(tid, t["spectator_key"])["you"] == {"seat": None}
    r = api.get(tid, None)
    assert r.status_code == 401 and error_code(r) == "auth_required"
    r = api.get(tid, "not-a-token")
    assert r.status_code == 403 and error_code(r) == "forbidden"
    r = api.get("nosuchtable", t["token"])
    assert r.status_code == 404 and error_code(r) == "not_found"
    r = api.http.get("/api/nothing-here")
    assert r.status_code == 404 and error_code(r) == "not_found"

    # The second player's first visit is a join; a rename is an event too.
    joined = api.state(tid, t["invites"]["2"])
    assert joined["seats"][2]["joined"] is True
    r = api.http.post(f"/api/tables/{tid}/name", json={"name": "  Bo  "},
                      headers={"authorization": f"Bearer {t['invites']['2']}"})
    assert r.status_code == 200 and r.json()["seats"][2]["name"] == "Bo"
    r = api.http.post(f"/api/tables/{tid}/name", json={"name": ""}, headers={"authorization": f"Bearer {t['token']}"})
    assert r.status_code == 400 and error_code(r) == "bad_request"
    r = api.http.post(f"/api/tables/{tid}/name", json={"name": "Spy"},
                      headers={"authorization": f"Bearer {t['spectator_key']}"})
    assert r.status_code == 403 and error_code(r) == "forbidden"


def test_action_errors_and_idempotent_retry(api: Api) -> None:
    t = api.create(players=2)
    tid, white, black, spy = t["id"], t["invites"]["0"], t["invites"]["1"], t["spectator_key"]
    version = t["state"]["version"]

    def code(r: httpx.Response, status: int) -> str:
        assert r.status_code == status, r.text
        return error_code(r)

    turn = {"type": "turn", "cells": ["e5", "a1"]}
    assert code(api.act(tid, None, turn), 401) == "auth_required"
    assert code(api.act(tid, spy, turn), 403) == "forbidden"
    assert code(api.act(tid, black, turn), 409) == "not_your_turn"
    assert code(api.act(tid, white, {"type": "turn", "cells": ["e5", "e5"]}), 422) == "illegal_move"
    assert code(api.act(tid, white, {"type": "turn", "cells": ["e5"]}), 422) == "illegal_move"
    assert code(api.act(tid, white, {"type": "turn", "cells": ["e5", "z9"]}), 422) == "illegal_move"
    assert code(api.act(tid, white, {"type": "swap"}), 422) == "illegal_move"
    assert code(api.act(tid, white, turn, version=version + 5), 409) == "stale_version"
    assert code(api.act("nosuchtable", white, turn), 404) == "not_found"
    for bad in ({"type": "turn"}, {"type": "turn", "cells": "e5 a1"}, {"type": "jump"},
                {"type": "turn", "cells": ["e5", "a1", "b2", "c3", "d4"]}, {"type": "turn", "cells": [1, 2]}):
        assert code(api.act(tid, white, bad), 400) == "bad_request", bad
    r = api.http.post(f"/api/tables/{tid}/actions", json=turn, headers={"authorization": f"Bearer {white}"})
    assert code(r, 400) == "bad_request"  # no request_id
    # Nothing above changed the table.
    assert api.state(tid, white)["game"]["history"] == []

    first = api.turn(tid, white, ["e5", "a1"], request_id="req-1", version=api.state(tid, white)["version"])
    again = api.turn(tid, white, ["e5", "a1"], request_id="req-1")
    assert again["version"] == first["version"]
    assert again["state"]["game"]["history"] == [["e5", "a1"]]  # played once
    assert code(api.act(tid, white, {"type": "turn", "cells": ["b2", "b3"]}, request_id="req-1"), 409) == "conflict"
    assert code(api.act(tid, black, {"type": "turn", "cells": ["e5", "a1"]}, request_id="req-1"), 409) == "conflict"
    assert code(api.act(tid, black, {"type": "turn", "cells": ["e5", "b2"]}), 422) == "illegal_move"
    assert "occupied" in api.act(tid, black, {"type": "turn", "cells": ["e5", "b2"]}).json()["error"]["message"]

    # Play to the end; then every action is game_over.
    rng = random.Random(1)
    state = api.state(tid, white)
    while state["status"] == "playing":
        token = white if state["game"]["current_seat"] == 0 else black
        state = api.turn(tid, token, random_turn(state, rng))["state"]
    game = state["game"]
    assert game["over"] and game["to_move"] is None and game["winner"] == game["ranking"][0]
    assert game["turn_number"] == 30 and len(game["stones"]) == 60
    assert code(api.act(tid, white, turn), 409) == "game_over"
    assert code(api.act(tid, black, {"type": "resign"}), 409) == "game_over"

    # Records and replay.
    text = api.http.get(f"/api/tables/{tid}/record.txt", headers={"authorization": f"Bearer {spy}"}).text
    replayed = Game.from_record(text)
    assert [list(a) for a in replayed.history] == game["history"] and replayed.is_over
    assert "Result:" in text
    data = api.http.get(f"/api/tables/{tid}/record.json?token={black}").json()
    assert from_json(data).game == replayed and data["winner"] == game["winner"]
    assert game["scores"] == {c.label: str(s) for c, s in replayed.scores().items()}
    assert game["factors"] == {c.label: replayed.group_sizes(c) for c in replayed.colors}
    start = api.http.get(f"/api/tables/{tid}/replay?at=0", headers={"authorization": f"Bearer {white}"}).json()
    assert start["stones"] == {} and start["to_move"] == "White"
    mid = api.http.get(f"/api/tables/{tid}/replay?at=3", headers={"authorization": f"Bearer {white}"}).json()
    assert mid["history"] == game["history"][:3] and len(mid["stones"]) == 6
    end = api.http.get(f"/api/tables/{tid}/replay?at=30", headers={"authorization": f"Bearer {white}"}).json()
    assert end["ranking"] == game["ranking"] and end["over"]
    for bad_at in ("31", "-1", "x", ""):
        r = api.http.get(f"/api/tables/{tid}/replay?at={bad_at}", headers={"authorization": f"Bearer {white}"})
        assert code(r, 400) == "bad_request"


def test_pie_swap(api: Api) -> None:
    t = api.create(players=2, pie_rule=True)
    tid, p0, p1 = t["id"], t["invites"]["0"], t["invites"]["1"]
    api.turn(tid, p0, ["e5", "a1"])
    state = api.state(tid, p1)
    assert state["game"]["can_swap"] and state["game"]["current_seat"] == 1
    r = api.act(tid, p1, {"type": "swap"})
    assert r.status_code == 200, r.text
    state = r.json()["state"]
    assert [s["color"] for s in state["seats"]] == ["Black", "White"]
    assert state["game"]["history"] == [["e5", "a1"], "swap"]
    assert state["game"]["to_move"] == "Black" and state["game"]["current_seat"] == 0
    assert error_code(api.act(tid, p1, {"type": "swap"})) == "not_your_turn"
    assert error_code(api.act(tid, p0, {"type": "swap"})) == "illegal_move"
    api.turn(tid, p0, ["b2", "c3"])


def test_racing_confirms(api: Api) -> None:
    """Two requests for the same seat at once: exactly one turn is played, the other gets a clear error."""
    t = api.create(players=2)
    tid, tokens = t["id"], [t["invites"]["0"], t["invites"]["1"]]
    rng = random.Random(7)
    with ThreadPoolExecutor(8) as pool:
        for _ in range(6):
            state = api.state(tid, tokens[0])
            seat = state["game"]["current_seat"]
            a, b = random_turn(state, rng), random_turn(state, rng)
            while set(a) & set(b):
                b = random_turn(state, rng)
            futures = [pool.submit(api.act, tid, tokens[seat], {"type": "turn", "cells": cells})
                       for cells in (a, b, a, b)]
            answers = [f.result() for f in futures]
            ok = [r for r in answers if r.status_code == 200]
            assert len(ok) == 1, [r.text for r in answers]
            assert {error_code(r) for r in answers if r.status_code != 200} <= {"not_your_turn"}
            after = api.state(tid, tokens[0])
            assert len(after["game"]["history"]) == len(state["game"]["history"]) + 1
        # Same request_id from several clients at once: one move, the same answer for all.
        state = api.state(tid, tokens[0])
        seat = state["game"]["current_seat"]
        cells = random_turn(state, rng)
        answers = [f.result() for f in [pool.submit(api.act, tid, tokens[seat], {"type": "turn", "cells": cells},
                                                    "same-id") for _ in range(6)]]
        assert all(r.status_code == 200 for r in answers) and len({r.json()["version"] for r in answers}) == 1
        assert len(api.state(tid, tokens[0])["game"]["history"]) == len(state["game"]["history"]) + 1


def test_resign_two_players_ends_the_game(api: Api) -> None:
    t = api.create(players=2)
    tid, p0, p1 = t["id"], t["invites"]["0"], t["invites"]["1"]
    api.turn(tid, p0, ["e5", "a1"])
    r = api.act(tid, p0, {"type": "resign"})  # resigning out of turn is allowed
    assert r.status_code == 200, r.text
    state = r.json()["state"]
    assert state["status"] == "over" and state["seats"][0]["resigned"]
    assert state["game"]["ranking"] == ["Black", "White"] and state["game"]["winner"] == "Black"
    assert state["game"]["resigned"] == ["White"] and state["game"]["to_move"] is None
    assert error_code(api.act(tid, p1, {"type": "turn", "cells": ["b2", "c3"]})) == "game_over"
    text = api.http.get(f"/api/tables/{tid}/record.txt", headers={"authorization": f"Bearer {p1}"}).text
    assert "Outcome: Black wins by resignation" in text and "Resigned: White" in text
    assert Game.from_record(text).history == (("e5", "a1"),)


def test_resign_three_players_computer_plays_on(server: LiveServer, api: Api) -> None:
    t = api.create(players=3, seats=[{"kind": "human"}, {"kind": "human"}, {"kind": "computer", "level": 1}])
    tid, p0, p1 = t["id"], t["invites"]["0"], t["invites"]["1"]
    watch = Socket(server.ws_url, tid, t["spectator_key"])
    try:
        watch.until(lambda m: m["type"] == "sync")
        r = api.act(tid, p0, {"type": "resign"}, request_id="r")
        assert r.status_code == 200 and r.json()["state"]["status"] == "playing", r.text
        state = api.state(tid, p0)
        assert state["seats"][0]["resigned"] and state["status"] == "playing"
        assert error_code(api.act(tid, p0, {"type": "turn", "cells": ["e5", "a1", "b2"]})) == "forbidden"
        assert error_code(api.act(tid, p0, {"type": "resign"})) == "forbidden"
        # Seat 0 (resigned) and seat 2 (computer) are played by the computer; seat 1 by us.
        rng = random.Random(3)
        while True:
            msg = watch.until(lambda m: m["type"] == "event"
                              and (m["state"]["game"]["current_seat"] == 1 or m["state"]["status"] == "over"))
            if msg["state"]["status"] == "over":
                break
            r = api.act(tid, p1, {"type": "turn", "cells": random_turn(msg["state"], rng)}, version=msg["version"])
            assert r.status_code == 200 or error_code(r) == "stale_version", r.text
        final = api.state(tid, p1)
        game = final["game"]
        assert game["over"] and len(game["stones"]) == 61 - 7
        assert game["ranking"][-1] == "White" and game["resigned"] == ["White"]
        turns = [a for a in game["history"] if a != "swap"]
        assert len(turns) == 18
    finally:
        watch.close()


def test_a_game_with_no_person_left_ends(server: LiveServer, api: Api) -> None:
    """The only human resigns: the two computer seats do not play on by themselves (that
    once let anyone keep the computer players busy for nobody), the game ends at once."""
    t = api.create(players=3, size=5, seats=[{"kind": "computer", "level": 3}, {"kind": "human"},
                                             {"kind": "computer", "level": 5}])
    watch = Socket(server.ws_url, t["id"], t["spectator_key"])
    try:
        assert watch.recv()["type"] == "sync"
        assert api.act(t["id"], t["token"], {"type": "resign"}).status_code == 200
        msg = watch.until(lambda m: m.get("type") == "event" and m["event"]["kind"] == "over", timeout=60)
        assert msg["event"]["reason"] == "resignation" and msg["event"]["ranking"][-1] == "Black"
        state = api.state(t["id"], t["token"])
        assert state["status"] == "over" and state["game"]["over"] and state["game"]["winner"] is not None
        record = api.http.get(f"/api/tables/{t['id']}/record.txt?token={t['token']}").text
        assert "Outcome: " in record and "Ranking: " in record and Game.from_record(record).history == ()
    finally:
        watch.close()


def test_pages_and_rate_limit(sqlite_url: str) -> None:
    from omega.server.infra.limits import Limits

    live = make_server(sqlite_url, limits=Limits(http_rate=1.0, http_burst=5, create_burst=3, create_rate=0.01))
    api = Api(live.url)
    try:
        for path in ("/", "/t/abc123"):
            r = api.http.get(path)
            assert r.status_code == 200 and "text/html" in r.headers["content-type"]
            assert "Omega" in r.text
        assert api.http.get("/api/health").json() == {"ok": True}
        t = api.create(players=2)
        codes = [api.get(t["id"], t["token"]).status_code for _ in range(12)]
        assert codes[:5] == [200] * 5 and 429 in codes
        r = api.get(t["id"], t["token"])
        assert r.status_code == 429 and error_code(r) == "rate_limited"
        # Another player's token has its own budget.
        assert api.get(t["id"], t["invites"]["1"]).status_code == 200
        statuses = [api.http.post("/api/tables", json={"players": 2}).status_code for _ in range(3)]
        assert statuses[-1] == 429
    finally:
        api.close()
        live.stop()


def test_first_action_of_an_unseen_seat_accepts_the_version_it_was_shown(api: Api) -> None:
    """A player's first action also records their join, without making their version stale."""
    t = api.create(players=2, creator_seat=1)
    version = t["state"]["version"]
    assert t["state"]["seats"][0]["joined"] is False
    answer = api.turn(t["id"], t["invites"]["0"], ["e5", "a1"], version=version)
    assert answer["state"]["seats"][0]["joined"] is True
    assert answer["version"] == version + 2 == answer["state"]["version"]  # join, then the turn


def test_only_a_change_of_play_makes_a_version_stale(api: Api) -> None:
    t = api.create(players=2)
    tid, white, black = t["id"], t["invites"]["0"], t["invites"]["1"]
    seen_by_white = api.state(tid, white)["version"]
    r = api.http.post(f"/api/tables/{tid}/name", json={"name": "Bo"},
                      headers={"authorization": f"Bearer {black}"})
    assert r.status_code == 200, r.text
    assert r.json()["version"] > seen_by_white  # the rename took a version ...
    answer = api.turn(tid, white, ["e5", "a1"], version=seen_by_white)  # ... but the play is the same
    seen_by_black = seen_by_white
    r = api.act(tid, black, {"type": "turn", "cells": ["b2", "c3"]}, version=seen_by_black)
    assert r.status_code == 409 and error_code(r) == "stale_version"  # White's turn came since
    assert api.state(tid, black)["game"]["history"] == [["e5", "a1"]]
    api.turn(tid, black, ["b2", "c3"], version=answer["version"])


def test_unknown_pages_answer_the_page_with_404_and_the_api_keeps_json(api: Api) -> None:
    """A person's browser on an address no route knows gets the page (which says "Page not
    found"), with status 404; API paths and other methods keep the JSON error."""
    for path in ("/t/", "/nonsense/path"):
        r = api.http.get(path)
        assert r.status_code == 404 and "text/html" in r.headers["content-type"] and "Omega" in r.text
        assert "script-src 'self'" in r.headers["content-security-policy"]
    assert api.http.head("/nonsense/path").status_code == 404
    for r in (api.http.get("/api/nothing-here"), api.http.get("/static/nothing.js"), api.http.post("/nonsense/path")):
        assert r.status_code in (404, 405) and error_code(r) in ("not_found", "method_not_allowed")


def test_the_page_is_sent_gzipped_and_the_api_never_is(sqlite_server: LiveServer) -> None:
    gzip = {"Accept-Encoding": "gzip"}
    with httpx.Client(base_url=sqlite_server.url) as http:
        page = http.get("/static/js/tablestate.js", headers=gzip)
        assert page.status_code == 200 and page.headers["content-encoding"] == "gzip"
        assert "export function" in page.text  # httpx unpacked it: the body is the module
        assert http.get("/t/abc", headers=gzip).headers.get("content-encoding") == "gzip"
        plain = http.get("/static/js/tablestate.js", headers={"Accept-Encoding": "identity"})
        assert "content-encoding" not in plain.headers and plain.text == page.text
        # An answer with secrets in it (seat tokens) next to a name the client chose.
        created = http.post("/api/tables", headers=gzip, json={
            "players": 2, "size": 5, "seats": [{"kind": "human"}, {"kind": "human"}], "name": "Ann"})
        assert created.status_code == 201 and "content-encoding" not in created.headers
        assert "content-encoding" not in http.get("/api/config", headers=gzip).headers
