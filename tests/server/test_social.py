"""Table chat and rematch over real WebSocket and HTTP round trips, on SQLite and PostgreSQL:
the chat's limits, rate limit, spectators, storage (beside the table, never in its log or
record) and history; rematch proposals, acceptance, decline, departure, races and the move of
every page to the new table, within one process and across two."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text

from omega.server.clock import FakeClock
from omega.server.infra.limits import Limits
from omega.server.social.chat_text import CHAT_MAX
from omega.server.tables.identity import SeatHolder

from .server_helpers import Api, LiveServer, Socket, make_server
from .site_helpers import rematch, rematch_until

LIMITS = Limits(chat_rate=0.5, chat_burst=5)


@pytest.fixture
def site(db_url: str, clock: FakeClock) -> Iterator[LiveServer]:
    with make_server(db_url, clock=clock, limits=LIMITS) as live:
        yield live


def opened(site: LiveServer, table_id: str, token: str | None) -> Socket:
    """A socket of the table, past its sync (the tests open sockets before anyone chats, so
    no history follows it)."""
    sock = Socket(site.ws_url, table_id, token)
    sock.until(lambda m: m["type"] == "sync")
    return sock


def chat(sock: Socket, words: str, rid: str = "c1") -> None:
    sock.send({"type": "chat", "text": words, "request_id": rid})


def next_chat(sock: Socket) -> dict[str, Any]:
    msg = sock.until(lambda m: m["type"] in ("chat", "error"))
    assert msg["type"] == "chat", msg
    assert len(msg["messages"]) == 1
    return dict(msg["messages"][0])


def refused(sock: Socket, rid: str) -> dict[str, Any]:
    """The error answering request ``rid`` (what was stored is checked in the history)."""
    msg = sock.until(lambda m: m["type"] == "error")
    assert msg["request_id"] == rid, msg
    return dict(msg["error"])


def history(site: LiveServer, table_id: str, token: str) -> list[dict[str, Any]]:
    sock = Socket(site.ws_url, table_id, token)
    try:
        sock.until(lambda m: m["type"] == "sync")
        msg = sock.until(lambda m: m["type"] == "chat")
        assert msg["history"] is True
        return list(msg["messages"])
    finally:
        sock.close()


# -- chat ------------------------------------------------------------------------------------------

def test_players_and_spectators_chat_and_the_history_is_stored_beside_the_table(
        site: LiveServer, client: Api, db_url: str) -> None:
    t = client.create(players=2, name="Ann")
    ann = opened(site, t["id"], t["token"])
    bob = opened(site, t["id"], t["invites"]["1"])
    watcher = opened(site, t["id"], t["spectator_key"])
    version = client.state(t["id"], t["token"])["version"]
    chat(ann, "  good luck  ")
    for sock in (ann, bob, watcher):
        line = next_chat(sock)
        assert (line["seat"], line["name"], line["user"], line["text"]) == (0, "Ann", None, "good luck")
    chat(watcher, "<b>go</b> & win")
    for sock in (ann, bob, watcher):
        line = next_chat(sock)
        assert (line["seat"], line["name"], line["text"]) == (None, "Spectator", "<b>go</b> & win")
    # Chat is not an event: the version did not move, and the record does not hold it.
    assert client.state(t["id"], t["token"])["version"] == version
    record = client.http.get(f"/api/tables/{t['id']}/record.txt", params={"token": t["token"]}).text
    assert "good luck" not in record and "win" not in record
    with create_engine(db_url).connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM events WHERE data LIKE '%luck%'")).scalar_one() == 0
        assert conn.execute(text("SELECT count(*) FROM chat")).scalar_one() == 2
    for sock in (ann, bob, watcher):
        sock.close()
    # A socket that opens later gets the history, oldest first; so does one of a new process.
    assert [m["text"] for m in history(site, t["id"], t["invites"]["1"])] == ["good luck", "<b>go</b> & win"]
    site.stop()
    again = make_server(db_url)
    try:
        assert [m["text"] for m in history(again, t["id"], t["token"])] == ["good luck", "<b>go</b> & win"]
    finally:
        again.stop()


def test_a_line_stored_while_a_socket_opens_reaches_it_once(site: LiveServer, client: Api) -> None:
    """A socket subscribes to the table before it reads the chat history, so that nothing
    stored meanwhile is lost; a line stored in between is then in both, and goes out once."""
    t = client.create(players=2, name="Ann")
    chat_ = site.app.state.social.chat
    read = chat_.history

    async def history_after_a_line(table_id: str, seat: int | None = None) -> Any:
        chat_.history = read
        await chat_.post(table_id, SeatHolder(0), "127.0.0.1", "just in time")  # stored and sent
        return await read(table_id, seat)

    chat_.history = history_after_a_line
    sock = Socket(site.ws_url, t["id"], t["invites"]["1"])
    try:
        sock.until(lambda m: m["type"] == "sync")
        sock.send({"type": "ping"})
        sock.until(lambda m: m["type"] == "pong")
        lines = [line["text"] for m in sock.received if m["type"] == "chat" for line in m["messages"]]
        assert lines == ["just in time"]
    finally:
        sock.close()


def test_bad_messages_get_a_clear_error_and_change_nothing(site: LiveServer, client: Api) -> None:
    assert client.http.get("/api/config").json()["chat_max"] == CHAT_MAX == 300
    t = client.create(players=2)
    ann = opened(site, t["id"], t["token"])
    chat(ann, "x" * CHAT_MAX, "long-ok")
    assert next_chat(ann)["text"] == "x" * CHAT_MAX
    cases = {
        "too-long": ("y" * (CHAT_MAX + 1), "at most 300 characters"),
        "empty": ("   ", "cannot be empty"),
        "two-lines": ("a\nb", "one line"),
        "override": ("abc\u202edef", "one line"),
    }
    for rid, (words, says) in cases.items():
        chat(ann, words, rid)
        error = refused(ann, rid)
        assert error["code"] == "bad_request" and says in error["message"], error
    ann.send({"type": "chat", "text": 5, "request_id": "not-text"})
    assert refused(ann, "not-text")["code"] == "bad_request"
    ann.send({"type": "chat", "text": "hi", "color": "red", "request_id": "extra"})
    assert refused(ann, "extra")["code"] == "bad_request"
    assert [m["text"] for m in history(site, t["id"], t["token"])] == ["x" * CHAT_MAX]


def test_chat_is_rate_limited_per_seat(site: LiveServer, client: Api, clock: FakeClock) -> None:
    t = client.create(players=2)
    first = opened(site, t["id"], t["token"])
    second = opened(site, t["id"], t["token"])  # the same seat in another tab shares the budget
    bob = opened(site, t["id"], t["invites"]["1"])
    for i in range(LIMITS.chat_burst):
        chat(first if i % 2 else second, f"m{i}", f"r{i}")
        assert next_chat(bob)["text"] == f"m{i}"
    chat(first, "one too many", "over")
    assert refused(first, "over")["code"] == "rate_limited"
    chat(bob, "mine still go", "bob")  # another seat has its own budget
    assert next_chat(bob)["text"] == "mine still go"
    clock.advance(1 / LIMITS.chat_rate)
    chat(first, "after a pause", "later")
    assert next_chat(bob)["text"] == "after a pause"
    assert "one too many" not in [m["text"] for m in history(site, t["id"], t["token"])]


def test_spectators_cannot_chat_at_a_rated_table(site: LiveServer, client: Api) -> None:
    t = client.create(players=2)
    # Rated tables come from the lobby; here the table's settings are made rated in place.
    core = site.app.state.core
    cached = core._cache[t["id"]]
    cached.state.config = replace(cached.state.config, rated=True)
    watcher = opened(site, t["id"], t["spectator_key"])
    ann = opened(site, t["id"], t["token"])
    chat(watcher, "hello", "w")
    error = refused(watcher, "w")
    assert error["code"] == "forbidden" and "rated" in error["message"]
    chat(ann, "players still talk", "a")
    assert next_chat(watcher)["text"] == "players still talk"
    assert [m["text"] for m in history(site, t["id"], t["token"])] == ["players still talk"]


# -- rematch ---------------------------------------------------------------------------------------

def finished(client: Api, players: int = 2, **body: Any) -> dict[str, Any]:
    """A table whose game ended: its human seats resigned, one after the other, until it did."""
    t = client.create(players=players, **body)
    for i in sorted(t["invites"]):
        r = client.act(t["id"], t["invites"][i], {"type": "resign"})
        assert r.status_code == 200, r.text
        if r.json()["state"]["status"] == "over":
            return t
    raise AssertionError("the game did not end")


def next_rematch(sock: Socket) -> dict[str, Any]:
    """The next rematch state the socket is told, skipping a repeat of the one before: a
    change made while the socket opened reaches it twice, read at its opening and as the
    change, which the page takes as the same state (the newest always comes last)."""
    while True:
        msg = sock.until(lambda m: m["type"] in ("rematch", "error"))
        assert msg["type"] == "rematch", msg
        if msg["rematch"] != getattr(sock, "last_rematch", None):
            sock.last_rematch = msg["rematch"]  # type: ignore[attr-defined]
            return dict(msg["rematch"])


def test_a_rematch_proposed_and_accepted_moves_every_page_to_the_new_table(site: LiveServer, client: Api) -> None:
    t = finished(client, players=3, name="Ann", seats=[{"kind": "human"}, {"kind": "human"},
                                                       {"kind": "computer", "level": 6}])
    client.http.post(f"/api/tables/{t['id']}/name", json={"name": "Bob"},
                     headers={"authorization": f"Bearer {t['invites']['1']}"})
    ann = opened(site, t["id"], t["token"])
    bob = opened(site, t["id"], t["invites"]["1"])
    watcher = opened(site, t["id"], t["spectator_key"])
    rematch(bob, "propose")
    for sock in (ann, bob, watcher):
        r = next_rematch(sock)
        assert (r["status"], r["proposer"], r["accepted"], r["waiting"], r["table"]) == ("proposed", 1, [1], [0], None)
    rematch(ann, "accept")
    seats = {}
    for name, sock in (("ann", ann), ("bob", bob), ("watcher", watcher)):
        r = next_rematch(sock)
        assert r["status"] == "started" and r["waiting"] == []
        seats[name] = r["table"]
    new_id = seats["ann"]["id"]
    assert new_id != t["id"] and {s["id"] for s in seats.values()} == {new_id}
    # Seats rotate: old seat i sits at (i + 1) % 3, so the computer (old seat 2) moves first.
    assert (seats["ann"]["seat"], seats["bob"]["seat"], seats["watcher"]["seat"]) == (1, 2, None)
    new = client.state(new_id, t["token"])
    assert new["you"] == {"seat": 1} and client.state(new_id, t["invites"]["1"])["you"] == {"seat": 2}
    assert client.state(new_id, t["spectator_key"])["you"] == {"seat": None}
    assert (new["players"], new["size"], new["pie_rule"], new["status"]) == (3, 5, False, "playing")
    assert [(s["kind"], s["level"], s["name"]) for s in new["seats"]] == [
        ("computer", 6, "Computer (Easy)"), ("human", None, "Ann"), ("human", None, "Bob")]
    # The old table stays as it was, and says where its rematch went to pages that come later.
    late = Socket(site.ws_url, t["id"], t["invites"]["1"])
    assert late.until(lambda m: m["type"] == "rematch")["rematch"]["table"] == {"id": new_id, "seat": 2}
    for sock in (ann, bob, watcher, late):
        sock.close()


def test_declining_cancels_and_a_new_proposal_may_follow(site: LiveServer, client: Api) -> None:
    t = finished(client)
    ann = opened(site, t["id"], t["token"])
    bob = opened(site, t["id"], t["invites"]["1"])
    rematch(ann, "propose")
    next_rematch(bob)
    rematch(bob, "decline")
    for sock in (ann, bob):
        r = rematch_until(sock, "declined")
        assert (r["status"], r["ended_by"], r["table"]) == ("declined", 1, None)
    rematch(bob, "accept", "late")
    msg = bob.until(lambda m: m["type"] == "error")
    assert msg["request_id"] == "late" and msg["error"]["code"] == "conflict"
    rematch(bob, "propose")
    r = next_rematch(ann)
    assert (r["status"], r["proposer"], r["waiting"]) == ("proposed", 1, [0])
    ann.close()
    bob.close()


def test_leaving_cancels_the_proposal(site: LiveServer, client: Api) -> None:
    t = finished(client)
    ann = opened(site, t["id"], t["token"])
    bob = opened(site, t["id"], t["invites"]["1"])
    bob_again = opened(site, t["id"], t["invites"]["1"])
    rematch(ann, "propose")
    next_rematch(bob)
    bob_again.close()  # Bob still has a page open: nothing happens
    bob.close()
    r = rematch_until(ann, "cancelled")
    assert (r["status"], r["ended_by"]) == ("cancelled", 1)
    ann.close()


def test_who_may_propose(site: LiveServer, client: Api) -> None:
    t = client.create(players=2)
    ann = opened(site, t["id"], t["token"])
    rematch(ann, "propose", "early")
    msg = ann.until(lambda m: m["type"] == "error")
    assert msg["request_id"] == "early" and msg["error"]["code"] == "conflict"
    client.act(t["id"], t["token"], {"type": "resign"})
    watcher = opened(site, t["id"], t["spectator_key"])
    rematch(watcher, "propose", "w")
    msg = watcher.until(lambda m: m["type"] == "error")
    assert msg["request_id"] == "w" and msg["error"]["code"] == "forbidden"
    rematch(ann, "accept", "nothing")
    assert ann.until(lambda m: m["type"] == "error")["error"]["code"] == "conflict"
    with site.app.state.core.repo.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM rematches")).scalar_one() == 0
    ann.close()
    watcher.close()


def test_alone_with_computers_a_proposal_starts_at_once(site: LiveServer, client: Api) -> None:
    t = client.create(players=2, seats=[{"kind": "human"}, {"kind": "computer", "level": 1}])
    client.act(t["id"], t["token"], {"type": "resign"})
    ann = opened(site, t["id"], t["token"])
    rematch(ann, "propose")
    r = next_rematch(ann)
    assert r["status"] == "started" and r["table"]["seat"] == 1
    assert client.state(r["table"]["id"], t["token"])["you"] == {"seat": 1}
    ann.close()


def propose_at_once(socks: list[Socket]) -> None:
    barrier = threading.Barrier(len(socks))

    def go(sock: Socket) -> None:
        barrier.wait()
        rematch(sock, "propose")

    threads = [threading.Thread(target=go, args=(s,)) for s in socks]
    for th in threads:
        th.start()
    for th in threads:
        th.join()


def test_two_players_proposing_at_once_make_one_proposal(site: LiveServer, client: Api, db_url: str) -> None:
    for _ in range(3):
        t = finished(client, players=3)
        a, b, c = (opened(site, t["id"], t["invites"][str(i)]) for i in range(3))
        propose_at_once([a, b])
        # C hears of the proposal as it grows (the same state may come twice: once when its
        # socket opened, once as the change), but of one proposal, never of two.
        seen = [next_rematch(c)]
        while seen[-1]["accepted"] != [0, 1]:
            seen.append(next_rematch(c))
        assert all(r["status"] == "proposed" and r["proposer"] == seen[0]["proposer"] for r in seen), seen
        assert seen[-1]["waiting"] == [2]
        rematch(c, "accept")
        assert rematch_until(c, "started")["accepted"] == [0, 1, 2]
        for sock in (a, b, c):
            sock.close()
    with create_engine(db_url).connect() as conn:
        # Three finished tables, three rematches: one new table each.
        assert conn.execute(text("SELECT count(*) FROM tables")).scalar_one() == 6
        assert conn.execute(text("SELECT count(DISTINCT new_table_id) FROM rematches")).scalar_one() == 3


def test_an_account_holds_its_rotated_seat(site: LiveServer, client: Api) -> None:
    ann = httpx.Client(base_url=site.url, timeout=30, headers={"origin": site.url})
    try:
        assert ann.post("/api/account/register", json={"username": "Ann", "password": "correct horse"}).status_code == 201
        t = ann.post("/api/tables", json={"players": 2}).json()
        client.act(t["id"], t["invites"]["1"], {"type": "resign"})
        a, b = opened(site, t["id"], t["token"]), opened(site, t["id"], t["invites"]["1"])
        rematch(a, "propose")
        assert next_rematch(b)["status"] == "proposed"
        rematch(b, "accept")
        started = next_rematch(b)
        assert started["status"] == "started"
        new_id = started["table"]["id"]
        # Without any link, the session opens Ann's new seat.
        assert ann.get(f"/api/tables/{new_id}").json()["you"] == {"seat": 1}
        a.close()
        b.close()
    finally:
        ann.close()


# -- across server processes -----------------------------------------------------------------------

def test_chat_and_rematch_reach_the_pages_of_another_process(pg: Any) -> None:
    url = pg.new_database()
    one, two = make_server(url), make_server(url)
    api = Api(one.url)
    try:
        t = finished(api)
        ann = opened(one, t["id"], t["token"])
        bob = opened(two, t["id"], t["invites"]["1"])
        watcher = opened(two, t["id"], t["spectator_key"])
        chat(ann, "from one")
        assert next_chat(ann)["text"] == "from one"
        assert next_chat(bob)["text"] == "from one" and next_chat(watcher)["text"] == "from one"
        chat(bob, "from two")
        assert next_chat(ann)["text"] == "from two"
        rematch(bob, "propose")
        assert rematch_until(ann, "proposed")["proposer"] == 1
        propose_at_once([ann])  # a proposal meeting the other one: an acceptance
        tables = {name: rematch_until(s, "started") for name, s in (("ann", ann), ("bob", bob))}
        w = rematch_until(watcher, "started")
        assert tables["ann"]["table"]["seat"] == 1 and tables["bob"]["table"]["seat"] == 0
        assert w["table"] == {"id": tables["ann"]["table"]["id"], "seat": None}
        for sock in (ann, bob, watcher):
            sock.close()
    finally:
        api.close()
        one.stop()
        two.stop()
