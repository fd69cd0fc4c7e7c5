"""Helpers of the server tests that use the site as its people do: browsers with accounts
(their cookies, their Origin, their address), the lobby and rated games, the sockets the
page opens, rematches and reviews; and what the database stores of them.

Test modules import these from here, never from one another (``server_helpers`` has the
servers and the plain clients these stand on).
"""

from __future__ import annotations

import random
from typing import Any, Protocol

import httpx
from argon2 import PasswordHasher, profiles
from sqlalchemy import create_engine, select, text
from websockets.sync.client import connect

from omega.server.infra.limits import Limits
from omega.server.ratings.models import RatingRow
from omega.server.tables.state import MIN_RATED_TURNS

from .server_helpers import Api, JsonSocket, bearer, random_turn

#: Hashing at full strength costs about 0.1 s a password: the tests use argon2id's cheapest
#: parameters (one test checks that a hash made so is upgraded at the next log-in).
CHEAP = PasswordHasher.from_parameters(profiles.CHEAPEST)
PASSWORD = "correct horse battery"
#: Registrations are limited per address; these tests register dozens of players from one.
ROOMY = Limits(register_burst=100, register_user_burst=100, login_burst=100, http_burst=400,
               create_burst=100, ws_connect_burst=200)
#: The clock of the rated tables the tests open (every rated table has one).
RATED_CLOCK = "10+5"


# -- browsers -----------------------------------------------------------------------------------


class Served(Protocol):
    """Where a site is served: a :class:`LiveServer` in the test's process or an ``omega
    serve`` process (``server_helpers.ServeProcess``)."""

    @property
    def url(self) -> str: ...

    @property
    def ws_url(self) -> str: ...


class Browser:
    """A browser of the site: keeps its cookies and sends the site's Origin with writes."""

    def __init__(self, server: Served, origin: str | None = None) -> None:
        self.server = server
        self.origin = server.url if origin is None else origin
        self.http = httpx.Client(base_url=server.url, timeout=30)

    def close(self) -> None:
        self.http.close()

    def get(self, path: str, **kw: Any) -> httpx.Response:
        return self.http.get(path, **kw)

    def post(self, path: str, body: Any = None, *, origin: str | None = None, **kw: Any) -> httpx.Response:
        headers = dict(kw.pop("headers", {}))
        sent_origin = self.origin if origin is None else origin
        if sent_origin:
            headers["origin"] = sent_origin
        return self.http.post(path, json=body, headers=headers, **kw)

    def register(self, username: str, password: str = PASSWORD) -> httpx.Response:
        return self.post("/api/account/register", {"username": username, "password": password})

    def login(self, username: str, password: str = PASSWORD) -> httpx.Response:
        return self.post("/api/account/login", {"username": username, "password": password})

    def user(self) -> dict[str, Any] | None:
        r = self.get("/api/account")
        assert r.status_code == 200, r.text
        user: dict[str, Any] | None = r.json()["user"]
        return user

    @property
    def session(self) -> str | None:
        return self.http.cookies.get("omega_session")


def browser_at(server: Served, address: str, cookies: httpx.Cookies | None = None) -> Browser:
    """A browser whose requests come from ``address``, a loopback address other than
    127.0.0.1 (all of 127.0.0.0/8 reaches the server, which sees it as the client's), with a
    copy of ``cookies`` (the same session as another browser's)."""
    b = Browser(server)
    b.http.close()
    b.http = httpx.Client(base_url=server.url, timeout=30, cookies=cookies,
                          transport=httpx.HTTPTransport(local_address=address))
    return b


# -- tables, as a browser sees them ------------------------------------------------------------------


def open_table(b: Browser, **body: Any) -> dict[str, Any]:
    """A table ``b`` opens in the lobby (2 players unless told; a rated one on
    :data:`RATED_CLOCK` unless told)."""
    body.setdefault("players", 2)
    if body.get("rated"):
        body.setdefault("time_control", RATED_CLOCK)
    r = b.post("/api/lobby/tables", body)
    assert r.status_code == 201, r.text
    return dict(r.json())


def state_of(b: Browser, table_id: str) -> dict[str, Any]:
    """The table as ``b`` sees it now."""
    r = b.get(f"/api/tables/{table_id}")
    assert r.status_code == 200, r.text
    return dict(r.json())


def seats_by_user(players: list[Browser], table_id: str) -> list[Browser]:
    """``players`` in the order of the seats they hold at the table."""
    out: dict[int, Browser] = {}
    for b in players:
        out[state_of(b, table_id)["you"]["seat"]] = b
    return [out[i] for i in sorted(out)]


def rated_duel(host: Browser, guest: Browser) -> str:
    """A rated 2-player table ``host`` opens in the lobby and ``guest`` takes."""
    table_id = str(open_table(host, rated=True)["id"])
    r = guest.post(f"/api/lobby/tables/{table_id}/take", {})
    assert r.status_code == 200, r.text
    return table_id


def take_turns(players: list[Browser], table_id: str, turns: int, rng: random.Random) -> None:
    """The seat to move plays a random legal turn, ``turns`` times (``players`` by seat)."""
    for _ in range(turns):
        st = state_of(players[0], table_id)
        r = players[st["game"]["current_seat"]].post(
            f"/api/tables/{table_id}/actions",
            {"type": "turn", "cells": random_turn(st, rng), "request_id": f"t{rng.random()}"})
        assert r.status_code == 200, r.text


def counted_duel(host: Browser, guest: Browser, rng: random.Random) -> str:
    """A rated duel that counts: ``host`` opens it, ``guest`` takes it, each plays
    ``MIN_RATED_TURNS`` turns, then ``guest`` resigns."""
    table_id = rated_duel(host, guest)
    take_turns(seats_by_user([host, guest], table_id), table_id, 2 * MIN_RATED_TURNS, rng)
    resign(guest, table_id)
    return table_id


def resign(b: Browser, table_id: str) -> dict[str, Any]:
    """``b`` resigns its seat; the table after it."""
    r = b.post(f"/api/tables/{table_id}/actions", {"type": "resign", "request_id": f"r{random.random()}"})
    assert r.status_code == 200, r.text
    return dict(r.json()["state"])


# -- the sockets the page opens --------------------------------------------------------------------


def page_socket(server: Served, path: str, browser: Browser | None = None) -> JsonSocket:
    """The socket at ``path`` as the site's page opens it: from the site's origin, with the
    browser's session cookie (none for a guest), speaking ``omega.v1``."""
    headers = {"origin": server.url}
    if browser is not None and browser.session:
        headers["cookie"] = f"omega_session={browser.session}"
    return JsonSocket(connect(f"{server.ws_url}{path}", subprotocols=["omega.v1"],  # type: ignore[list-item]
                              additional_headers=headers, open_timeout=30).__enter__())


def table_socket(server: Served, b: Browser, table_id: str) -> JsonSocket:
    """The table's socket as the logged-in browser's page opens it (by its session cookie)."""
    return page_socket(server, f"/ws/tables/{table_id}", b)


def lobby_socket(server: Served, browser: Browser | None = None) -> JsonSocket:
    """The lobby's socket as a logged-in browser (or a guest) opens it."""
    return page_socket(server, "/ws/lobby", browser)


# -- rematches ------------------------------------------------------------------------------------------


def rematch(sock: JsonSocket, op: str, rid: str = "m") -> None:
    """Send a rematch ``op`` (``propose``, ``accept``, ``decline``) on a table's socket."""
    sock.send({"type": "rematch", "op": op, "request_id": rid})


def rematch_until(sock: JsonSocket, status: str) -> dict[str, Any]:
    """The first rematch message with ``status`` (earlier ones passed over)."""
    return dict(sock.until(lambda m: m["type"] == "rematch" and m["rematch"]["status"] == status)["rematch"])


def agreed_rematch(proposer: JsonSocket, accepter: JsonSocket) -> dict[str, Any]:
    """The rematch of a finished 2-player table, proposed on one seat's socket and accepted
    on the other's: the ``started`` rematch the proposer is told (its ``table``).  Both
    sockets are closed after it."""
    try:
        rematch(proposer, "propose", "p")
        rematch_until(accepter, "proposed")
        rematch(accepter, "accept", "q")
        return rematch_until(proposer, "started")
    finally:
        proposer.close()
        accepter.close()


# -- reviews ------------------------------------------------------------------------------------------------


def finished_table(api: Api, turns: int = 3) -> dict[str, Any]:
    """A table of two people who play ``turns`` turns each; then White resigns (the game is over)."""
    t = api.create(players=2, name="Ann")
    black = t["invites"]["1"]
    rng = random.Random(turns)
    for _ in range(turns):
        for token in (t["token"], black):
            state = api.state(t["id"], token)
            api.turn(t["id"], token, random_turn(state, rng))
    r = api.act(t["id"], t["token"], {"type": "resign"})
    assert r.status_code == 200 and r.json()["state"]["status"] == "over"
    t["black"] = black
    return t


def ask_review(api: Api, table_id: str, token: str | None, method: str = "POST") -> httpx.Response:
    """Ask for the table's review (``POST``) or read where it stands (``GET``)."""
    return api.http.request(method, f"/api/tables/{table_id}/review", headers=bearer(token))


# -- what the database stores ----------------------------------------------------------------------------------


def rows(url: str, query: str) -> list[tuple[Any, ...]]:
    """The rows ``query`` reads from the database at ``url``."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(text(query))]
    finally:
        engine.dispose()


def tables_stored(url: str) -> int:
    """How many tables the database at ``url`` holds."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return int(conn.execute(text("SELECT count(*) FROM tables")).scalar_one())
    finally:
        engine.dispose()


def ratings_in(url: str) -> list[tuple[Any, ...]]:
    """Every rating and every rating change the database at ``url`` holds, in a fixed order."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            ratings = [tuple(r) for r in conn.execute(select(
                RatingRow.user_id, RatingRow.players, RatingRow.mu, RatingRow.sigma, RatingRow.games, RatingRow.wins)
                .order_by(RatingRow.user_id, RatingRow.players))]
            changes = [tuple(r) for r in conn.execute(text(
                "SELECT table_id, user_id, place, mu_before, sigma_before, mu, sigma, games "
                "FROM rating_changes ORDER BY table_id, user_id"))]
        return ratings + changes
    finally:
        engine.dispose()
