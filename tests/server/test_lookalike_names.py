"""Names people can trust, over real HTTP round trips on both databases: no account that reads
like another (``omega.names.username_skeleton``), no invisible characters in usernames or in
guests' seat names, and a database made before the skeleton (revision 0009) upgrading with
its look-alikes kept, the older one holding the skeleton.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from alembic import command
from sqlalchemy import MetaData, insert, select

from omega.names import username_key, username_skeleton
from omega.server.infra.db import make_engine
from omega.server.infra.limits import Limits

from .server_helpers import Api, LiveServer, error_code, make_server, migrations
from .site_helpers import CHEAP, PASSWORD, Browser

pytestmark = pytest.mark.timeout(120)

#: The look-alikes of ``farmer`` that finding 4 of issue 29 registered beside it.
CYRILLIC_A = "f\u0430rmer"            # fаrmer: a Cyrillic а
CYRILLIC_A_E = "f\u0430rm\u0435r"     # fаrmеr: Cyrillic а and е
CYRILLIC_GHE = "farme\u0433"          # farmeг: a Cyrillic г for the r
CLICK = "farmer\u01c0"                # farmerǀ: U+01C0 LATIN LETTER DENTAL CLICK, a vertical stroke


@pytest.fixture
def site(db_url: str) -> Iterator[LiveServer]:
    # Room for every registration of a test from the one address the tests come from.
    with make_server(db_url, password_hasher=CHEAP, limits=Limits(register_burst=50, register_user_burst=50)) as live:
        yield live


def accounts(url: str) -> list[tuple[str, str | None]]:
    """Every account's username and stored skeleton, oldest first."""
    engine = make_engine(url)
    meta = MetaData()
    meta.reflect(engine, only=["users"])
    users = meta.tables["users"]
    with engine.connect() as conn:
        rows = conn.execute(select(users.c.username, users.c.username_skeleton).order_by(users.c.id)).all()
    engine.dispose()
    return [(row[0], row[1]) for row in rows]


def refused_as_taken(r: httpx.Response) -> bool:
    return r.status_code == 409 and error_code(r) == "name_taken" and "not available" in r.json()["error"]["message"]


def test_a_look_alike_of_a_taken_username_is_refused_as_taken(site: LiveServer, db_url: str) -> None:
    farmer = Browser(site)
    assert farmer.register("farmer").status_code == 201
    before = accounts(db_url)
    for look_alike in [CYRILLIC_A, CYRILLIC_A_E, CYRILLIC_GHE, "FARMER", "Farmer"]:
        spoof = Browser(site)
        r = spoof.register(look_alike)
        if look_alike.isascii():
            assert refused_as_taken(r), (look_alike, r.text)  # the same name, in another case
        else:
            # Latin mixed with Cyrillic is refused before any account is looked at.
            assert r.status_code == 400 and error_code(r) == "bad_request", r.text
            assert "username" in r.json()["error"]["message"]
        # A refused registration changes nothing: no account, no session, no profile (the
        # name in another case logs in to farmer's own account, as it always did).
        assert spoof.session is None and spoof.user() is None
        assert spoof.login(look_alike).status_code == (200 if look_alike.isascii() else 401)
        spoof.close()
    assert accounts(db_url) == before == [("farmer", username_skeleton("farmer"))]
    r = httpx.get(f"{site.url}/api/users/{CYRILLIC_A}", timeout=30)
    assert r.status_code == 404 and error_code(r) == "not_found"  # /u/fаrmer is no one's page
    assert farmer.user() is not None and farmer.user() == {"id": 1, "username": "farmer"}
    farmer.close()


def test_a_whole_script_look_alike_is_refused_by_its_skeleton(site: LiveServer, db_url: str) -> None:
    # All-Cyrillic сосоа is one script, so a fine username of its own, until a Latin cocoa
    # exists: it reads the same. And farmerl is taken by farmerI, its capital I drawn as an l.
    assert Browser(site).register("cocoa").status_code == 201
    assert refused_as_taken(Browser(site).register("\u0441\u043e\u0441\u043e\u0430"))
    assert Browser(site).register("farmerI").status_code == 201
    assert refused_as_taken(Browser(site).register("farmerl"))
    assert refused_as_taken(Browser(site).register("farmer1"))  # the digit one is an l too
    assert Browser(site).register("\u0441\u043e\u0441\u043e").status_code == 201  # coco is not taken
    assert [name for name, _ in accounts(db_url)] == ["cocoa", "farmerI", "\u0441\u043e\u0441\u043e"]


def test_usernames_with_invisible_or_out_of_use_characters_are_refused(site: LiveServer, db_url: str) -> None:
    b = Browser(site)
    for text in ["farm\u200ber", "farmer\u3164", "\u3164\u3164\u3164", "far\u00admer", CLICK, "\u13aann"]:
        r = b.register(text)
        assert r.status_code == 400 and error_code(r) == "bad_request", (text, r.text)
        assert "username" in r.json()["error"]["message"]
    assert accounts(db_url) == [] and b.user() is None
    b.close()


@pytest.mark.parametrize("hidden", ["a\u200bb", "Ann\u2060", "\ufeffAnn", "An\u00adn", "\u3164", "\u2800", "Ann\u200d"])
def test_a_guest_seat_name_with_an_invisible_character_is_refused(server: LiveServer, hidden: str) -> None:
    api = Api(server.url)
    try:
        r = api.http.post("/api/tables", json={"players": 2, "name": hidden})
        assert r.status_code == 400 and error_code(r) == "bad_request", r.text
        t = api.create(players=2, name="Ann")
        before = api.state(t["id"], t["token"])
        r = api.http.post(f"/api/tables/{t['id']}/name", json={"name": hidden},
                          headers={"authorization": f"Bearer {t['token']}"})
        assert r.status_code == 400 and error_code(r) == "bad_request", r.text
        after = api.state(t["id"], t["token"])
        assert after == before and after["seats"][0]["name"] == "Ann"  # refused: nothing changed
        # An emoji sequence keeps its joiners.
        family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
        r = api.http.post(f"/api/tables/{t['id']}/name", json={"name": family},
                          headers={"authorization": f"Bearer {t['token']}"})
        assert r.status_code == 200 and r.json()["seats"][0]["name"] == family
    finally:
        api.close()


# -- the upgrade: accounts made before revision 0010 -------------------------------------------

def database_at_0009(url: str, users: list[str]) -> None:
    """A database at schema 0009 holding accounts of these usernames (password PASSWORD),
    registered in that order."""
    engine = make_engine(url)
    with engine.begin() as conn:
        command.upgrade(migrations(conn), "0009")
    meta = MetaData()
    meta.reflect(engine, only=["users"])
    assert "username_skeleton" not in meta.tables["users"].columns
    now = datetime(2026, 11, 1, tzinfo=UTC)
    rows: list[dict[str, Any]] = [{"username": name, "username_key": username_key(name),
                                   "password_hash": CHEAP.hash(PASSWORD), "created_at": now} for name in users]
    with engine.begin() as conn:
        conn.execute(insert(meta.tables["users"]), rows)
    engine.dispose()


def test_accounts_made_before_the_skeleton_upgrade_and_the_older_look_alike_keeps_it(blank_db_url: str) -> None:
    database_at_0009(blank_db_url, ["farmer", CYRILLIC_A, "Bob", CYRILLIC_A_E, "b\u043eb"])
    live = make_server(blank_db_url, password_hasher=CHEAP)
    try:
        assert httpx.get(f"{live.url}/healthz", timeout=30).status_code == 200  # started: migrated
        assert accounts(blank_db_url) == [("farmer", "farrner"), (CYRILLIC_A, None), ("Bob", "bob"),
                                    (CYRILLIC_A_E, None), ("b\u043eb", None)]
        # Every old account still logs in, the look-alikes too: none was renamed or closed.
        for name in ["farmer", CYRILLIC_A, "Bob", CYRILLIC_A_E]:
            b = Browser(live)
            assert b.login(name).status_code == 200, name
            user = b.user()
            assert user is not None and user["username"] == name
            b.close()
        # And the older account's skeleton refuses each new look-alike of both.
        for name in ["farrner", "FARMER", "B0b"]:
            assert refused_as_taken(Browser(live).register(name)), name
        assert Browser(live).register("Bea").status_code == 201
        assert [name for name, _ in accounts(blank_db_url)][-1] == "Bea"
    finally:
        live.stop()
