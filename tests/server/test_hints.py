"""Hints over real HTTP and WebSocket round trips: only where the creator allowed them, only
for the player to move; a hint is a legal turn, shown to the table, written in the record,
and the player may still play anything."""

from __future__ import annotations

import json

import pytest

from omega import Game
from omega.record import load

from .server_helpers import Api, Socket, error_code, make_server

#: The search's deadline here: a hint takes well under a second, but the first starts the
#: worker process, which on a loaded 2-core machine has taken more than the default's 15 s.
LOADED = 60.0

pytestmark = pytest.mark.timeout(120)


def hint(api: Api, table_id: str, token: str | None) -> object:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    return api.http.post(f"/api/tables/{table_id}/hint", headers=headers)


@pytest.mark.slow
def test_a_hint_is_a_legal_turn_seen_by_the_table_and_kept_in_the_record(db_url: str) -> None:
    live = make_server(db_url, computer_deadline=LOADED)
    api = Api(live.url)
    try:
        t = api.create(players=2, hints=True, name="Ann")
        assert t["state"]["hints"] is True
        black = t["invites"]["1"]
        other = Socket(live.ws_url, t["id"], black)
        try:
            other.recv()
            before = api.state(t["id"], t["token"])["version"]
            r = hint(api, t["id"], t["token"])
            assert r.status_code == 200, r.text
            cells = r.json()["hint"]
            game = Game()
            assert len(cells) == 2 and set(cells) <= set(game.cells) and cells[0] != cells[1]
            assert r.json()["version"] == before + 1
            assert r.json()["state"]["seats"][0]["hints_used"] == 1
            # The table sees who asked, on which turn; the cells stay the player's.
            seen = other.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "hint")
            assert seen["event"] == {"kind": "hint", "seat": 0, "color": "White", "turn": 1}
            assert "cells" not in seen["event"] and seen["state"]["seats"][0]["hints_used"] == 1
        finally:
            other.close()
        # The player may play anything, even with the version from before the hint.
        other_cells = [c for c in ("a1", "b2", "c3") if c not in cells][:2]
        api.turn(t["id"], t["token"], other_cells, version=before)
        # Not Black's hint to take on White's turn, nor a spectator's; and Black's own works.
        r = hint(api, t["id"], t["token"])
        assert r.status_code == 409 and error_code(r) == "not_your_turn"
        r = hint(api, t["id"], t["spectator_key"])
        assert r.status_code == 403 and error_code(r) == "forbidden"
        assert hint(api, t["id"], None).status_code == 401
        assert hint(api, t["id"], black).status_code == 200
        headers = {"authorization": f"Bearer {t['token']}"}
        text = api.http.get(f"/api/tables/{t['id']}/record.txt", headers=headers).text
        assert "Hints: White on turn 1, Black on turn 2" in text.splitlines()
        record = load(text)  # the record module reads the new tag like any other
        assert record.tags["Hints"] == "White on turn 1, Black on turn 2"
        assert record.game.history == (tuple(other_cells),)
        data = api.http.get(f"/api/tables/{t['id']}/record.json", headers=headers).json()
        assert load(json.dumps(data)).tags["Hints"] == "White on turn 1, Black on turn 2"
    finally:
        api.close()
        live.stop()


def test_no_hints_where_the_creator_did_not_allow_them(db_url: str) -> None:
    live = make_server(db_url, computer_deadline=LOADED)
    api = Api(live.url)
    try:
        t = api.create(players=2)
        assert t["state"]["hints"] is False
        before = api.state(t["id"], t["token"])
        r = hint(api, t["id"], t["token"])
        assert r.status_code == 403 and error_code(r) == "forbidden" and "not allowed" in r.json()["error"]["message"]
        assert api.state(t["id"], t["token"]) == before  # refused: nothing changed
        r = api.http.post("/api/tables", json={"players": 2, "hints": "yes"})
        assert r.status_code == 400 and error_code(r) == "bad_request"
    finally:
        api.close()
        live.stop()
