"""A database written before accounts existed (schema 0003) upgrades to the newest schema,
and every table, seat link and record in it still works.

The rows come from ``fixtures/schema_0003.json``, written by the server as it was at
revision 0003 (``fixtures/make_schema_0003.py`` says how), with what that server answered
for each table.  They are loaded into a database migrated to 0003 only, then a server of
today starts on it (which migrates it to the head) and is asked everything again.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
from alembic import command
from sqlalchemy import MetaData, insert, text

from omega import Game
from omega.ai.levels import RENUMBERED, computer_name
from omega.server.infra.db import make_engine, schema_head

from .server_helpers import Socket, bearer, error_code, make_server, migrations
from .site_helpers import CHEAP, Browser

FIXTURE = Path(__file__).with_name("fixtures") / "schema_0003.json"
DATETIME_COLUMNS = {"created_at", "updated_at", "due_at", "claim_expires"}


def old_database(url: str, rows: dict[str, list[dict[str, Any]]]) -> None:
    """A database at schema 0003 holding ``rows``."""
    engine = make_engine(url)
    with engine.begin() as conn:
        command.upgrade(migrations(conn), "0003")
    meta = MetaData()
    meta.reflect(engine)
    assert "users" not in meta.tables and "user_id" not in meta.tables["seats"].columns
    with engine.begin() as conn:
        for name in ["tables", "seats", "events", "due"]:
            values = [{k: datetime.fromisoformat(v) if k in DATETIME_COLUMNS and v is not None else v
                       for k, v in row.items()} for row in rows[name]]
            conn.execute(insert(meta.tables[name]), values)
    engine.dispose()


OLD_COMPUTER = re.compile(r"Computer (\d+), level (\d+)")


def named_as_today(info: dict[str, Any]) -> dict[str, Any]:
    """A fixture table with its computers named as seats name them now (by their level in
    words, ``computer_name``; before, "Computer 2, level 1"): names are derived from the
    table's settings, not stored, so an old table shows today's; and its computers at the
    levels of the same budget today (migrations 0026 and 0027, ``RENUMBERED``); nothing else changes."""
    levels = Counter(level for _seat, level in set(OLD_COMPUTER.findall(info["record_txt"])))

    def today(m: re.Match[str]) -> str:
        seat, level = m.group(1), m.group(2)
        return computer_name(RENUMBERED[int(level)], seat=int(seat) if levels[level] > 1 else None)

    def renumbered(value: Any) -> Any:
        if isinstance(value, dict):
            out = {k: renumbered(v) for k, v in value.items()}
            if out.get("kind") == "computer" and isinstance(out.get("level"), int):
                out["level"] = RENUMBERED[out["level"]]
            return out
        return [renumbered(v) for v in value] if isinstance(value, list) else value

    return dict(renumbered(json.loads(OLD_COMPUTER.sub(today, json.dumps(info)))))


def keeps(new: Any, old: Any) -> bool:
    """Whether ``new`` says everything ``old`` said, the same way: later features may add
    fields (a table's time control, say) but never drop or change one."""
    if isinstance(old, dict):
        return isinstance(new, dict) and all(k in new and keeps(new[k], v) for k, v in old.items())
    if isinstance(old, list):
        return isinstance(new, list) and len(new) == len(old) and all(map(keeps, new, old))
    return bool(new == old)


def test_a_database_written_before_accounts_upgrades_and_every_table_works(blank_db_url: str) -> None:
    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))
    assert fixture["schema"] == "0003"
    old_database(blank_db_url, fixture["rows"])
    live = make_server(blank_db_url, bot="random", password_hasher=CHEAP)
    try:
        http = httpx.Client(base_url=live.url, timeout=30)
        assert http.get("/healthz").status_code == 200  # the server has started: migrated
        engine = make_engine(blank_db_url)
        with engine.connect() as conn:
            assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar_one() == schema_head()
            assert conn.execute(text("SELECT COUNT(*) FROM seats WHERE user_id IS NULL")).scalar_one() == 15
        engine.dispose()
        tables: dict[str, Any] = fixture["tables"]
        computer_table = next(t for t, info in tables.items() if "computer" in info["about"])
        for table_id, info in tables.items():
            info = named_as_today(info)
            spectator = bearer(info["spectator_key"])
            # The records first: every seat's first visit below stores a join.
            assert http.get(f"/api/tables/{table_id}/record.txt", headers=spectator).text == info["record_txt"]
            assert keeps(http.get(f"/api/tables/{table_id}/record.json", headers=spectator).json(), info["record_json"])
            state = http.get(f"/api/tables/{table_id}", headers=spectator).json()
            # Tables made before the lobby are neither listed in it nor rated (the view's
            # two fields since then); the rest of the view is as it was.
            assert state.pop("open") is False and state.pop("rated") is False
            if table_id != computer_table:  # its computer may have moved already
                assert keeps(state, info["state"]), info["about"]
            for seat, token in info["invites"].items():
                r = http.get(f"/api/tables/{table_id}", headers=bearer(token))
                assert r.status_code == 200 and r.json()["you"]["seat"] == int(seat), info["about"]
            length = len(info["state"]["game"]["history"])
            replay = http.get(f"/api/tables/{table_id}/replay?at={length}", headers=spectator).json()
            assert replay["stones"] == info["state"]["game"]["stones"]

        # The computer turn that was due when the old server stopped is played now.
        info = tables[computer_table]
        watcher = Socket(live.ws_url, computer_table, info["spectator_key"])
        watcher.until(lambda m: m["state"]["game"]["current_seat"] == 2 and m["state"]["game"]["turn_number"] >= 2)
        watcher.close()

        # Unfinished games go on: the seat to move plays with its old link.
        for table_id, info in tables.items():
            state = http.get(f"/api/tables/{table_id}", headers=bearer(info["spectator_key"])).json()
            if state["status"] != "playing":
                r = http.post(f"/api/tables/{table_id}/actions", headers=bearer(info["invites"]["0"]),
                              json={"type": "resign", "request_id": "after-upgrade"})
                assert r.status_code == 409 and error_code(r) == "game_over"
                continue
            seat = state["game"]["current_seat"]
            game = Game(players=state["players"], size=state["size"])
            empty = [c for c in game.cells if c not in state["game"]["stones"]][:state["players"]]
            r = http.post(f"/api/tables/{table_id}/actions", headers=bearer(info["invites"][str(seat)]),
                          json={"type": "turn", "cells": empty, "request_id": "after-upgrade",
                                "version": state["version"]})
            assert r.status_code == 200, (info["about"], r.text)

        # An account claims an old guest seat and finds the table among its own.
        first = next(iter(tables))
        browser = Browser(live)
        assert browser.register("Ann").status_code == 201
        r = browser.post("/api/account/claim", {"seats": [{"table_id": first, "token": tables[first]["invites"]["0"]}]})
        assert r.json()["seats"][0]["status"] == "claimed"
        listed = browser.get("/api/account/tables").json()["tables"] + browser.get("/api/account/history").json()["games"]
        assert [t["id"] for t in listed] == [first]
        browser.close()
        http.close()
    finally:
        live.stop()
