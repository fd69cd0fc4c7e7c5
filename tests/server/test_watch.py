"""The live list (issue 32, "watch") over real HTTP round trips on SQLite and PostgreSQL: the
public games being played now, highest rated first, filtered by a player, side, rated and
player count; a player who keeps their games off it hides the game from the list and from
the profiles; a spectator opened from the list sees the board but cannot act; a private
table, a finished game and bad filters are refused with a clear code; the profile's recent
games name their opponents and say each result in one form."""

from __future__ import annotations

import random
from typing import Any

from omega.server.ratings.service import RatingStore

from .server_helpers import LiveServer, random_turn
from .site_helpers import Browser, counted_duel, open_table, rated_duel, resign, seats_by_user, state_of

NEWCOMER = RatingStore.unrated()["display"]


def live(b: Browser, **filters: Any) -> list[dict[str, Any]]:
    r = b.get("/api/games/live", params=filters)
    assert r.status_code == 200, r.text
    return list(r.json()["games"])


def ids(games: list[dict[str, Any]]) -> list[str]:
    return [g["id"] for g in games]


def casual_game(host: Browser, *others: Browser, **body: Any) -> str:
    """A casual lobby table ``host`` opens and ``others`` take, so it is being played."""
    table_id = str(open_table(host, players=1 + len(others), **body)["id"])
    for b in others:
        r = b.post(f"/api/lobby/tables/{table_id}/take", {})
        assert r.status_code == 200, r.text
    return table_id


def set_listed(b: Browser, listed: bool) -> None:
    r = b.post("/api/account/watch", {"listed": listed})
    assert r.status_code == 200 and r.json() == {"listed": listed}, r.text


def test_the_live_list_holds_public_games_being_played_highest_rated_first(site: LiveServer, people: Any) -> None:
    ann, bob, cy, dee, eve, fay = (people(n) for n in ("Ann", "Bob", "Cyd", "Dee", "Eve", "Fay"))
    # Ann beats Bob in a rated game that counts: her rating is above a newcomer's, his below.
    finished = counted_duel(ann, bob, random.Random(1))
    assert live(ann) == []  # over: not on the list
    strong = rated_duel(ann, cy)            # Ann (high) and a newcomer
    newcomers = casual_game(dee, eve, size=7)  # two newcomers, casual, side 7
    weak = rated_duel(bob, fay)             # Bob (low) and a newcomer
    three = casual_game(people("Gus"), people("Hal"), people("Ida"))
    # A private table two people play by its links is never listed.
    made = ann.post("/api/tables", {"players": 2}).json()
    guest = Browser(site)
    assert guest.get(f"/api/tables/{made['id']}", headers={"authorization": f"Bearer {made['invites']['1']}"}
                     ).status_code == 200
    # A lobby table still waiting for its players is not being played yet.
    waiting = open_table(people("Jon"), players=2)["id"]

    games = live(guest)
    assert set(ids(games)) == {strong, newcomers, weak, three}
    assert finished not in ids(games) and made["id"] not in ids(games) and waiting not in ids(games)
    ratings = [g["rating"] for g in games]
    assert ratings == sorted(ratings, reverse=True)
    assert ids(games)[0] == strong and ids(games)[-1] == weak
    first = games[0]
    assert [s["username"] for s in first["seats"]] == ["Ann", "Cyd"] or [s["username"] for s in first["seats"]] == ["Cyd", "Ann"]
    by_name = {s["username"]: s["rating"] for s in first["seats"]}
    assert by_name["Cyd"] == NEWCOMER and by_name["Ann"] > NEWCOMER
    assert first["rating"] == round((by_name["Ann"] + by_name["Cyd"]) / 2)
    assert first["path"] == f"/t/{strong}" and first["rated"] is True and first["players"] == 2
    assert "user_id" not in first["seats"][0]  # the list shows usernames, never account ids

    # The filters, each alone and together.
    assert set(ids(live(guest, rated="true"))) == {strong, weak}
    assert set(ids(live(guest, rated="false"))) == {newcomers, three}
    assert ids(live(guest, players="3")) == [three]
    assert ids(live(guest, size="7")) == [newcomers]
    assert ids(live(guest, username="ann")) == [strong]      # a username as anyone writes it
    assert ids(live(guest, username="Bob", rated="true")) == [weak]
    assert live(guest, username="Bob", rated="false") == [] and live(guest, username="Nobody") == []
    guest.close()


def test_bad_filters_and_unlisted_games_are_refused_with_a_clear_code(site: LiveServer, people: Any) -> None:
    ann = people("Ann")
    made = ann.post("/api/tables", {"players": 2}).json()
    for params, word in (({"players": "9"}, "players"), ({"players": "2.0"}, "players"), ({"size": "99"}, "size"),
                         ({"rated": "yes"}, "rated"), ({"colour": "red"}, "colour"),
                         ({"username": "x" * 40}, "username")):
        r = ann.get("/api/games/live", params=params)
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request", (params, r.text)
        assert word in r.json()["error"]["message"]
    for table_id in (made["id"], "nosuchtable", "x" * 40):
        r = ann.get(f"/api/games/live/{table_id}")
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found", r.text


def test_a_spectator_opened_from_the_list_sees_the_board_but_cannot_act(site: LiveServer, people: Any) -> None:
    ann, bob, cy = people("Ann"), people("Bob"), people("Cyd")
    table_id = rated_duel(ann, bob)
    players = seats_by_user([ann, bob], table_id)
    st = state_of(players[0], table_id)
    r = players[0].post(f"/api/tables/{table_id}/actions",
                        {"type": "turn", "cells": random_turn(st, random.Random(3)), "request_id": "t1"})
    assert r.status_code == 200, r.text
    anonymous = Browser(site)
    for viewer in (anonymous, cy):  # anonymous, and an account holding no seat there
        r = viewer.get(f"/api/games/live/{table_id}")
        assert r.status_code == 200, r.text
        game = r.json()["game"]
        assert game["id"] == table_id and game["state"]["you"]["seat"] is None
        assert game["state"]["game"]["stones"] and game["state"]["version"] == state_of(ann, table_id)["version"]
        seen = state_of(viewer, table_id)  # the page then opens /t/<id> with no link at all
        assert seen["you"]["seat"] is None and seen["game"]["stones"] == game["state"]["game"]["stones"]
        before = state_of(ann, table_id)
        to_move = before["game"]["current_seat"]
        assert to_move is not None
        for action in ({"type": "turn", "cells": random_turn(before, random.Random(4)), "request_id": "s1"},
                       {"type": "resign", "request_id": "s2"}):
            r = viewer.post(f"/api/tables/{table_id}/actions", action)
            assert r.status_code in (401, 403), r.text
            assert r.json()["error"]["code"] in ("auth_required", "forbidden")
        assert state_of(ann, table_id) == before  # the refusals changed nothing
    anonymous.close()


def test_a_player_who_turns_listing_off_hides_the_game_from_the_list_and_the_profiles(
        site: LiveServer, people: Any) -> None:
    ann, bob, cy, dee = people("Ann"), people("Bob"), people("Cyd"), people("Dee")
    duel = rated_duel(ann, bob)
    other = casual_game(cy, dee)
    anyone = Browser(site)
    for name in ("Ann", "bob"):
        r = anyone.get(f"/api/users/{name}/live")
        assert r.status_code == 200 and r.json()["game"]["id"] == duel, r.text
    assert ann.get("/api/account/watch").json() == {"listed": True}  # listed until said otherwise

    set_listed(bob, False)
    assert bob.get("/api/account/watch").json() == {"listed": False}
    assert ids(live(anyone)) == [other]
    # Neither player's profile shows it: one player's no hides the game for both.
    for name in ("Ann", "Bob"):
        assert anyone.get(f"/api/users/{name}/live").json()["game"] is None
    assert anyone.get(f"/api/games/live/{duel}").status_code == 404
    assert anyone.get("/api/users/Cyd/live").json()["game"]["id"] == other
    # The game itself stays as watchable as before: only the list and the profiles leave it out.
    assert state_of(anyone, duel)["you"]["seat"] is None

    set_listed(bob, True)
    assert set(ids(live(anyone))) == {duel, other}
    # Once the game is over it leaves the list and the profile.
    resign(bob, duel)
    assert ids(live(anyone)) == [other] and anyone.get("/api/users/Ann/live").json()["game"] is None
    assert anyone.get("/api/users/Nobody/live").json()["error"]["code"] == "not_found"
    anyone.close()


def test_the_setting_needs_its_account_and_the_site_s_own_page(site: LiveServer, people: Any) -> None:
    ann = people("Ann")
    anyone = Browser(site)
    r = anyone.post("/api/account/watch", {"listed": False})
    assert r.status_code == 401 and r.json()["error"]["code"] == "auth_required"
    assert anyone.get("/api/account/watch").json()["error"]["code"] == "auth_required"
    r = ann.post("/api/account/watch", {"listed": False}, origin="https://evil.example")
    assert r.status_code == 403 and r.json()["error"]["code"] == "cross_site"
    for body in ({"listed": "no"}, {"listed": 0}, {}, {"listed": False, "more": 1}):
        r = ann.post("/api/account/watch", body)
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request", body
    assert ann.get("/api/account/watch").json() == {"listed": True}  # nothing refused changed it
    anyone.close()


def test_the_profile_s_recent_games_name_the_opponents_and_say_the_result_in_one_form(
        site: LiveServer, people: Any) -> None:
    ann, bob, cy = people("Ann"), people("Bob"), people("Cyd")
    duel = counted_duel(ann, bob, random.Random(5))  # Bob resigns: Ann won, Bob lost
    three = casual_game(ann, bob, cy)
    # Two resign in turn: the first to resign is last, the second is second.
    order = seats_by_user([ann, bob, cy], three)
    resign(order[0], three)
    resign(order[1], three)
    games = {g["id"]: g for g in ann.get("/api/users/Ann/ratings").json()["games"]}
    assert games[duel]["result"] == "won" and games[duel]["place"] == 1
    assert [(o["username"], o["place"]) for o in games[duel]["opponents"]] == [("Bob", 2)]
    bob_games = {g["id"]: g for g in ann.get("/api/users/Bob/ratings").json()["games"]}
    assert bob_games[duel]["result"] == "lost" and bob_games[duel]["opponents"][0]["username"] == "Ann"
    expected = {order[0]: "3rd of 3", order[1]: "2nd of 3", order[2]: "won"}
    for b, name in ((ann, "Ann"), (bob, "Bob"), (cy, "Cyd")):
        mine = {g["id"]: g for g in ann.get(f"/api/users/{name}/ratings").json()["games"]}[three]
        assert mine["result"] == expected[b], (name, mine)
        assert sorted(o["username"] for o in mine["opponents"]) == sorted({"Ann", "Bob", "Cyd"} - {name})
