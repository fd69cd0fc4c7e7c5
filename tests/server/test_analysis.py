"""The analysis board (issue 33) over real HTTP round trips on SQLite and PostgreSQL: a board
made empty or from a finished game, its tree saved by its owner only (an account, or a
guest's key), read by anyone with the link, copied, exported as a record with variations;
each position evaluated by the computer players' workers, cached per position; refusals
change nothing.  Then the evaluations' fair share of the workers, without a server: a newer
request of a board replaces one still waiting, an owner has at most two at once, and
another owner's work finds a worker however many boards the first one opens."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from omega import Game
from omega.game import Action
from omega.record import parse_tree
from omega.server.analysis import service
from omega.server.analysis.evaluate import EVAL_TAG, EVALUATE, PER_OWNER, Evaluations, position_key
from omega.server.app import create_app
from omega.server.clock import FakeClock
from omega.server.infra.db import make_engine
from omega.server.infra.due import Due
from omega.server.tables.store import Repository
from omega.server.work.computers import FairSlots

from .server_helpers import Api, Changes, LiveServer, PgCluster, bearer
from .site_helpers import Browser, finished_table, rows
from .worker_process import WorkerProcess

#: A search the tests can afford (the site's is level 4's, bench/analysis.py measures it).
QUICK = (300, 0.5)


def quick(site: LiveServer) -> None:
    site.app.state.analysis.evaluations.budget = QUICK


def made(r: httpx.Response) -> dict[str, Any]:
    assert r.status_code == 201, r.text
    return dict(r.json())


def code(r: httpx.Response) -> str:
    return str(r.json()["error"]["code"])


def read(b: Browser, board_id: str, key: str | None = None) -> dict[str, Any]:
    r = b.get(f"/api/analysis/{board_id}", headers=bearer(key))
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_a_guest_board_is_changed_by_its_key_and_read_by_its_link(site: LiveServer, people: Any) -> None:
    guest, other = Browser(site), people("Ann")
    answer = made(guest.post("/api/analysis", {"players": 2, "size": 5}))
    board, key = answer["board"], answer["key"]
    assert board["editable"] and board["nodes"] == [] and board["path"] == f"/analysis/{board['id']}"
    assert len(board["id"]) >= 20  # the link is the secret: not guessable
    nodes = [[0, ["e5", "a1"]], [1, ["c3", "d4"]], [0, ["b2", "b3"]], [1, ["c4", "c5"]]]
    r = guest.post(f"/api/analysis/{board['id']}", {"nodes": nodes, "version": 1}, headers=bearer(key))
    assert r.status_code == 200 and r.json() == {"version": 2}, r.text
    # Anyone holding the link reads it; only the key changes it.
    seen = read(other, board["id"])
    assert seen["nodes"] == [[0, ["e5", "a1"]], [1, ["c3", "d4"]], [1, ["c4", "c5"]], [0, ["b2", "b3"]]]
    assert not seen["editable"] and read(guest, board["id"], key)["editable"]
    refusals = [
        (other.post(f"/api/analysis/{board['id']}", {"nodes": [], "version": 2}), "forbidden"),
        (guest.post(f"/api/analysis/{board['id']}", {"nodes": [], "version": 2}, headers=bearer("nope")), "forbidden"),
        (guest.post(f"/api/analysis/{board['id']}", {"nodes": [], "version": 1}, headers=bearer(key)), "stale_version"),
        (guest.post(f"/api/analysis/{board['id']}", {"nodes": [[0, ["e5", "e5"]]], "version": 2},
                    headers=bearer(key)), "bad_request"),
        (guest.post(f"/api/analysis/{board['id']}", {"nodes": [[1, ["e5", "a1"]]], "version": 2},
                    headers=bearer(key)), "bad_request"),
        (guest.post(f"/api/analysis/{board['id']}", {"nodes": "x", "version": 2}, headers=bearer(key)), "bad_request"),
        (guest.post("/api/analysis", {"players": 5, "size": 5}), "bad_request"),
        (guest.post("/api/analysis", {"players": 3, "size": 5, "pie_rule": True}), "bad_request"),
        (guest.get("/api/analysis/nothing-here"), "not_found"),
    ]
    for r, expected in refusals:
        assert code(r) == expected, r.text
    assert read(other, board["id"]) == seen  # none of them changed anything
    # A copy is its copier's own board, the original unchanged.
    copied = made(other.post(f"/api/analysis/{board['id']}/copy"))["board"]
    assert copied["editable"] and copied["nodes"] == seen["nodes"] and copied["id"] != board["id"]
    assert other.post(f"/api/analysis/{copied['id']}", {"nodes": [], "version": 1}).status_code == 200
    assert read(guest, board["id"])["nodes"] == seen["nodes"]
    # The export is a record with variations, read back to the same tree.
    r = guest.get(f"/api/analysis/{board['id']}/record.txt")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    tree = parse_tree(r.text)
    assert tree.nodes() == seen["nodes"] and tree.tags["Board"] == board["id"]
    assert "(\n  1. b2 b3\n)" in r.text


def test_an_account_board_follows_the_account_not_the_address(site: LiveServer, people: Any) -> None:
    ann = people("Ann")
    board = made(ann.post("/api/analysis", {"players": 3, "size": 6}))["board"]
    assert read(ann, board["id"])["editable"]  # the session is enough, no key shown
    r = ann.post(f"/api/analysis/{board['id']}", {"nodes": [[0, ["a1", "a2", "a3"]]], "version": 1})
    assert r.status_code == 200, r.text
    # A write with the cookie from another site is refused, and changes nothing.
    r = ann.post(f"/api/analysis/{board['id']}", {"nodes": [], "version": 2}, origin="https://evil.example")
    assert code(r) == "cross_site"
    assert read(ann, board["id"])["nodes"] == [[0, ["a1", "a2", "a3"]]]
    # The account's data download holds its boards (closing it removes them with the rest).
    r = ann.get("/api/account/export", headers={"origin": site.url})
    assert r.status_code == 200, r.text
    assert [b["id"] for b in r.json()["analysis_boards"]] == [board["id"]]


def test_an_owner_keeps_a_bounded_number_of_boards(site: LiveServer, db_url: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service, "BOARDS_PER_OWNER", 2)
    guest = Browser(site)
    first = made(guest.post("/api/analysis", {"players": 2, "size": 5}))["board"]
    made(guest.post(f"/api/analysis/{first['id']}/copy"))
    for r in (guest.post("/api/analysis", {"players": 2, "size": 5}), guest.post(f"/api/analysis/{first['id']}/copy")):
        assert r.status_code == 429 and code(r) == "too_many_boards", r.text
    # Counted by a digest: no guest's address is kept with a board.
    assert rows(db_url, "SELECT count(*), min(owner) FROM analysis_boards")[0][0] == 2
    assert "127.0.0.1" not in str(rows(db_url, "SELECT owner FROM analysis_boards"))


def test_a_finished_game_opens_at_its_position(site: LiveServer) -> None:
    api = Api(site.url)
    try:
        t = finished_table(api, turns=2)
        history = api.state(t["id"], t["token"])["game"]["history"]
        guest = Browser(site)
        board = made(guest.post(f"/api/tables/{t['id']}/analysis", {"ply": 2}, headers=bearer(t["token"])))["board"]
        assert board["start"] == 2 and board["source_table"] == t["id"]
        assert [a for _, a in board["nodes"]] == history
        assert [p for p, _ in board["nodes"]] == list(range(len(history)))
        whole = made(guest.post(f"/api/tables/{t['id']}/analysis", {}, headers=bearer(t["token"])))["board"]
        assert whole["start"] == len(history)
        # A game still being played is not for the analysis board; a ply past the end is bad.
        live = api.create(players=2)
        before = api.state(live["id"], live["token"])
        assert code(guest.post(f"/api/tables/{live['id']}/analysis", {}, headers=bearer(live["token"]))) == "forbidden"
        assert api.state(live["id"], live["token"]) == before
        assert code(guest.post(f"/api/tables/{t['id']}/analysis", {"ply": 99}, headers=bearer(t["token"]))) == \
            "bad_request"
        assert code(guest.post(f"/api/tables/{t['id']}/analysis", {})) in ("auth_required", "forbidden")
    finally:
        api.close()


def evaluate(b: Browser, actions: list[Any], **body: Any) -> httpx.Response:
    return b.post("/api/analysis/evaluate", {"players": 2, "size": 5, "actions": actions, **body})


def test_positions_are_evaluated_and_cached_per_position(site: LiveServer) -> None:
    quick(site)
    guest = Browser(site)
    r = evaluate(guest, [["e5", "a1"]], stream="b1")
    assert r.status_code == 200, r.text
    first = r.json()
    assert first["to_move"] == "Black" and not first["cached"] and first["iterations"] > 0
    assert abs(sum(first["values"].values()) - 1) < 0.05 and first["scores"] == {"White": "1", "Black": "1"}
    best = first["best"]
    assert len(best) == 2 and not {"e5", "a1"} & set(best)
    # The same position again, by another way or another caller: the cache answers, the same.
    again = evaluate(Browser(site), [["E5", "A1"]]).json()
    assert again["cached"] and again["best"] == best and again["key"] == first["key"]
    # A finished position needs no search: its winner has everything.
    game = Game(size=5)
    while not game.is_over:
        game.play(list(game.empty_cells()[:2]))
    over = evaluate(guest, [list(a) for a in game.history]).json()
    assert over["over"] and over["best"] is None and over["values"][game.winner.label] == 1.0  # type: ignore[union-attr]
    for r, expected in [(evaluate(guest, [["e5", "e5"]]), "illegal_move"),
                        (evaluate(guest, [["e5", "a1"], "swap"]), "illegal_move"),
                        (evaluate(guest, [5]), "illegal_move"),
                        (evaluate(guest, [], players=9), "bad_request"),
                        (evaluate(guest, [], stream="x" * 99), "bad_request"),
                        (guest.post("/api/analysis/evaluate", "junk"), "bad_request")]:
        assert code(r) == expected, r.text


# -- servers without computer players (PostgreSQL): a worker process evaluates --------------------


def test_a_position_nobody_searches_answers_busy_and_waits_as_due_work(pg: PgCluster) -> None:
    url = pg.new_database()
    live = LiveServer(create_app(url, bot_factory=None))  # as --no-workers, and no worker runs
    live.app.state.analysis.evaluations.wait = 0.3
    try:
        guest = Browser(live)
        r = evaluate(guest, [["e5", "a1"]], stream="b1")
        assert code(r) == "busy" and "too long" in r.json()["error"]["message"]
        # The position waits for a worker in the asker's name (the workers claim owners in turn).
        assert rows(url, f"SELECT owner FROM due WHERE kind = '{EVALUATE}'") == [("127.0.0.1",)]
        # A second board of the same owner may ask too; a third is past the owner's share.
        assert code(evaluate(guest, [["c3", "a1"]], stream="b2")) == "busy"
        r = evaluate(guest, [["d4", "a1"]], stream="b3")
        assert code(r) == "busy" and f"{PER_OWNER} positions" in r.json()["error"]["message"]
        assert len(rows(url, f"SELECT table_id FROM due WHERE kind = '{EVALUATE}'")) == 2
    finally:
        live.stop()


@pytest.mark.slow
def test_a_worker_evaluates_for_a_server_without_computer_players(pg: PgCluster) -> None:
    url = pg.new_database()
    worker = WorkerProcess(url, ("--ai-workers", "1"), bot="random")
    live = None
    try:
        worker.ready()
        live = LiveServer(create_app(url, bot_factory=None))
        # The worker's answer takes well under a second, but on a loaded 2-core machine its
        # claim and note have taken more than the server's 10 s wait.
        live.app.state.analysis.evaluations.wait = 60.0
        guest = Browser(live)
        r = evaluate(guest, [["e5", "a1"]], stream="b1")
        assert r.status_code == 200, r.text
        first = r.json()
        assert not first["cached"] and first["iterations"] > 0 and len(first["best"]) == 2
        assert rows(url, f"SELECT count(*) FROM due WHERE kind = '{EVALUATE}'") == [(0,)]
        # Stored for every process: another server (here, the same one's memory cleared)
        # answers from the database without a search.
        live.app.state.analysis.evaluations._cache.clear()
        again = evaluate(guest, [["e5", "a1"]]).json()
        assert again["best"] == first["best"] and again["values"] == first["values"]
    finally:
        if live is not None:
            live.stop()
        worker.stop()


# -- the fair share of the workers, without a server ------------------------------------------------


class Workers:
    """The computer players as the evaluations see them, on real :class:`FairSlots`; a search
    lasts until the test lets it end."""

    def __init__(self, size: int) -> None:
        self.slots = FairSlots(size)
        self.gate = asyncio.Event()
        self.started: list[str] = []
        #: Said when a search asks for a worker (its place in the queue is taken at once) and
        #: when one starts.
        self.changes = Changes()

    def status(self) -> dict[str, Any]:
        return {"waiting": self.slots.waiting}

    async def work(self, owner: str, fn: Any, game: Game, *args: Any, deadline: float, on_start: Any) -> Any:
        self.changes.changed()
        slot = await self.slots.acquire(owner)
        try:
            on_start()
            self.started.append(owner)
            self.changes.changed()
            await self.gate.wait()
            return (tuple(0.5 for _ in game.colors), None, 1, 0.0)
        finally:
            self.slots.release(slot, 1.0)


def position(*actions: Action) -> Game:
    return Game.from_history(actions, 2, 5)



def test_a_newer_position_replaces_one_still_waiting_and_owners_share_the_workers() -> None:
    async def scene() -> None:
        workers = Workers(4)  # at most 2 of one owner's at once, one kept for quick turns
        evals = Evaluations(Core(), workers, queue=64)  # type: ignore[arg-type]
        # Someone else holds two workers: ann's first board takes the third.
        others = [await workers.slots.acquire("bob"), await workers.slots.acquire("bob")]
        first = asyncio.create_task(evals.evaluate("ann", "board1", position(("e5", "a1"))))
        await workers.changes.until(lambda: bool(workers.started))
        assert workers.started == ["ann"]
        # On her second board she steps from one position to the next: the one still
        # waiting for a worker is replaced, and says so.
        waiting = asyncio.create_task(evals.evaluate("ann", "board2", position(("c3", "a1"))))
        await workers.changes.until(lambda: workers.slots.waiting == 1)  # no worker free for her
        newer = asyncio.create_task(evals.evaluate("ann", "board2", position(("c3", "a2"))))
        await asyncio.wait([waiting])
        with pytest.raises(Exception, match="newer position") as caught:
            await waiting
        assert getattr(caught.value, "code", None) == "superseded" and evals.superseded == 1
        # A third board's position is refused while two of hers wait or search.
        with pytest.raises(Exception, match=f"{PER_OWNER} positions"):
            await evals.evaluate("ann", "board3", position(("d4", "a1")))
        # Cy's computer turn is quick: it takes the worker kept for quick turns at once,
        # however many boards ann has open.
        quick_turn = await asyncio.wait_for(workers.slots.acquire("cy", quick=True), 1)
        workers.slots.release(quick_turn, 0.0)
        for slot in others:
            workers.slots.release(slot, 5.0)
        await workers.changes.until(lambda: len(workers.started) == 2)  # the newer position's search
        workers.gate.set()
        assert (await first)["values"] == {"White": 0.5, "Black": 0.5}
        assert not (await newer)["cached"]
        # The position asked again comes from the cache; no search is left behind.
        again = await evals.evaluate("carl", "x", position(("e5", "a1")))
        assert again["cached"] and again["key"] == position_key(position(("e5", "a1")))
        assert evals.searched == 2 and evals.waiting("ann") == 0

    asyncio.run(scene())


class Core:
    """What the evaluations use of a server's table core: its database (SQLite in memory,
    the work run at once), its notes to other processes (kept), and a clock."""

    def __init__(self) -> None:
        self.repo = Repository(make_engine("sqlite://"))
        self.repo.migrate()
        self.server_id = "core1"  # whose claims it finishes
        self.clock = FakeClock()
        self.notes: list[tuple[str, str]] = []
        self.changes = Changes()  # said at each note

    async def db(self, fn: Any, *args: Any) -> Any:
        return fn(*args)

    async def note(self, table_id: str, tag: str) -> None:
        self.notes.append((table_id, tag))
        self.changes.changed()


def test_a_server_without_computer_players_asks_a_worker_through_the_database() -> None:
    """The protocol of ``evaluate`` due work, both sides in one process on one database: the
    server stores the position and its work in the asker's name and waits; a newer position
    of the same board replaces it (its unclaimed work dropped); a worker's process searches
    the newer one, keeps the answer and notes it; the server answers from the database."""
    async def scene() -> None:
        core = Core()
        server = Evaluations(core, None, queue=64)  # type: ignore[arg-type]
        server.elsewhere = True  # as on PostgreSQL, where the others' notes are heard
        workers = Workers(2)
        worker = Evaluations(core, workers, queue=64)  # type: ignore[arg-type]
        first = asyncio.create_task(server.evaluate("ann", "board1", position(("e5", "a1"))))
        await core.changes.until(lambda: bool(core.notes))  # stored, and the workers told
        due = core.repo.due_count(EVALUATE)
        assert due == 1 and core.notes[-1][1] == "w"  # the workers are woken
        newer = asyncio.create_task(server.evaluate("ann", "board1", position(("c3", "a1"))))
        await asyncio.wait([first])
        with pytest.raises(Exception, match="newer position"):
            await first
        assert core.repo.due_count(EVALUATE) == 1  # the first position's work is gone
        digest = core.notes[-1][0]
        workers.gate.set()
        await worker.run(Due(EVALUATE, digest, 0))
        assert workers.started == ["ann"] and core.notes[-1] == (digest, EVAL_TAG)
        assert server.remote(digest, EVAL_TAG)
        answer = await newer
        assert answer["values"] == {"White": 0.5, "Black": 0.5} and not answer["cached"]
        # Asked again, by anyone: the cache; and the stored answer, for a process without it.
        assert (await server.evaluate("bob", "x", position(("c3", "a1"))))["cached"]
        server._cache.clear()
        assert (await server.evaluate("bob", "x", position(("c3", "a1"))))["best"] is None
        assert len(workers.started) == 1  # no second search

    asyncio.run(scene())
