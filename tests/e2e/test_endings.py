"""How each ending of a game reads on the table page, for both players, on a desktop and
on a phone: the board filled, a resignation, a flag that fell, a game aborted (a clock ran
out before its seat's first move) and a table abandoned unfinished.

An ending that counts names its winner, ranks the players and says where I finished; an
aborted game says it does not count and names no winner, no ranking and no tie-break (its
empty board scores 0 to 0, so the server still marks a tie).

And at a rated table, a resignation before the game counted aborts it the same way (the
players are two accounts who meet in the lobby, as anyone would).

The games are played through the HTTP API (what is under test is the page that shows how
they ended, each update arriving over the page's socket); the server runs on a clock the
test moves (``tests/server/clock_server.py``), so nobody waits a minute for a flag or a
month for a table to be abandoned.
"""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from omega_page import PHONE, ROOT, Contexts, Server, TablePage, open_lobby_table, shot
from playwright.sync_api import Page, expect
from test_accessibility import severe_violations
from test_accounts import account_form

from omega.server.config import Settings
from server.clock_server import advance
from server.server_helpers import Api, random_turn

CLOCK_SERVER = ROOT / "tests" / "server" / "clock_server.py"
# Turns each player makes before a game is resigned or flagged, so that it counts: past any
# minimum of turns under which an early resignation or flag aborts the game instead.
PLAYED_TURNS = 6


@pytest.fixture(scope="module")
def clock_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Path]]:
    tmp = tmp_path_factory.mktemp("omega-endings")
    clock_file = tmp / "clock"
    srv = Server(tmp / "endings.db", program=(sys.executable, str(CLOCK_SERVER), str(clock_file)))
    srv.start()
    yield srv, clock_file
    srv.stop()


@dataclass
class Game:
    """A two-player table of two guests, Ann (White) and Bo (Black), each with a page open:
    Ann's on a desktop, Bo's on a phone."""

    api: Api
    id: str
    tokens: list[str]
    ann: TablePage
    bo: TablePage
    rng: random.Random

    def turn(self, seat: int) -> dict[str, Any]:
        state = self.api.state(self.id, self.tokens[seat])
        return dict(self.api.turn(self.id, self.tokens[seat], random_turn(state, self.rng))["state"])

    def rounds(self, n: int) -> dict[str, Any]:
        """Ann and Bo each play ``n`` turns; the last state."""
        state: dict[str, Any] = {}
        for _ in range(n):
            self.turn(0)
            state = self.turn(1)
        return state

    @property
    def pages(self) -> tuple[Page, Page]:
        return self.ann.page, self.bo.page


@pytest.fixture
def new_game(clock_server: tuple[Server, Path], contexts: Contexts) -> Iterator[Any]:
    server, _ = clock_server
    api = Api(server.base)

    def make(time_control: str = "untimed") -> Game:
        created = api.create(players=2, seats=[{"kind": "human"}, {"kind": "human"}], name="Ann",
                             time_control=time_control)
        tid = created["id"]
        tokens = [created["invites"]["0"], created["invites"]["1"]]
        # bypass_csp: for the accessibility check's injected script only (test_accessibility.py).
        ann = TablePage(contexts.page(bypass_csp=True))
        bo = TablePage(contexts.page(PHONE, device_scale_factor=2, is_mobile=True, has_touch=True, bypass_csp=True))
        for table, token, name in ((ann, tokens[0], "Ann"), (bo, tokens[1], "Bo")):
            table.page.goto(f"{server.base}/t/{tid}#seat={token}")
            table.page.get_by_label("Your name").fill(name)
            table.page.get_by_role("button", name="Save").click()
            expect(table.page.locator(".message")).to_have_text("Name saved.")
        expect(ann.panel("Black")).to_contain_text("Bo")
        expect(ann.prompt).to_contain_text("Your turn")
        return Game(api, tid, tokens, ann, bo, random.Random(tid))

    yield make
    api.close()


def gameover(page: Page) -> Any:
    return page.locator(".gameover")


def check_counted(g: Game, winner: str, ending: str | None, how: str = "") -> None:
    """Both pages: the result names the winner and ranks both players, each player's place
    is theirs, and the ending is told (None: the board filled, which needs no words)."""
    loser = "Bo" if winner == "Ann" else "Ann"
    for page, me in ((g.ann.page, "Ann"), (g.bo.page, "Bo")):
        box = gameover(page)
        expect(box).to_be_visible()
        expect(box.locator("h2")).to_have_text("Game over")
        color = "White" if winner == "Ann" else "Black"
        expect(page.locator(".prompt")).to_contain_text(f"{color} ({winner}) wins{how}")
        expect(box.locator(".ranking .pname")).to_have_text([winner, loser])
        place = "You won! You finished 1st of 2." if me == winner else "You finished 2nd of 2."
        expect(box.locator(".my-place")).to_have_text(place)
        if ending is None:
            expect(box.locator(".ending")).to_have_count(0)
        else:
            expect(box.locator(".ending")).to_contain_text(ending)
        expect(box).not_to_contain_text("does not count")
        assert severe_violations(page) == []


def shots(g: Game, name: str) -> None:
    shot(g.ann.page, f"desktop-ending-{name}")
    shot(g.bo.page, f"phone-ending-{name}")


def test_the_board_fills(new_game: Any) -> None:
    g: Game = new_game()
    state: dict[str, Any] = {}
    while state.get("status") != "over":
        state = g.turn(state["game"]["current_seat"] if state else 0)
    assert state["end_reason"] == "board_full"
    check_counted(g, "Ann" if state["game"]["winner"] == "White" else "Bo", None)
    shots(g, "board-full")


def test_a_resignation(new_game: Any) -> None:
    g: Game = new_game()
    g.rounds(PLAYED_TURNS)
    r = g.api.act(g.id, g.tokens[1], {"type": "resign"})
    assert r.status_code == 200 and r.json()["state"]["end_reason"] == "resignation", r.text
    check_counted(g, "Ann", "by resignation", how=" by resignation")
    expect(gameover(g.ann.page).locator('.ranking li[data-color="Black"] .tag')).to_have_text("resigned")
    shots(g, "resignation")


def test_a_flag_falls(new_game: Any, clock_server: tuple[Server, Path]) -> None:
    _, clock_file = clock_server
    g: Game = new_game("1+0")
    g.rounds(PLAYED_TURNS)
    # Ann (White) to move stops moving: her minute runs out on the server's clock.
    advance(clock_file, 61)
    check_counted(g, "Bo", "on time", how=" on time")
    expect(gameover(g.bo.page).locator('.ranking li[data-color="White"] .tag')).to_have_text("out of time")
    shots(g, "timeout")


def test_an_abandoned_table(new_game: Any, clock_server: tuple[Server, Path]) -> None:
    _, clock_file = clock_server
    g: Game = new_game()
    state = g.rounds(PLAYED_TURNS)
    # Nobody acts for longer than the site keeps an unfinished table: the next sweep closes it.
    advance(clock_file, Settings().abandon_after + Settings().abandon_check_every + 60)
    leader = state["game"]["ranking"][0]
    check_counted(g, "Ann" if leader == "White" else "Bo", "abandoned unfinished")
    shots(g, "abandoned")


def test_an_aborted_game_names_no_winner(new_game: Any, clock_server: tuple[Server, Path]) -> None:
    _, clock_file = clock_server
    g: Game = new_game("1+0")
    # Both have joined: White's first turn is on the clock, and Ann never makes it.
    advance(clock_file, 61)
    for page in g.pages:
        box = gameover(page)
        expect(box).to_be_visible()
        expect(box.locator("h2")).to_have_text("Game aborted")
        expect(box.locator(".ending")).to_contain_text("It does not count")
        expect(box.locator(".ending")).to_contain_text("clock ran out before")
        expect(page.locator(".prompt")).to_have_text(re.compile(r"^Game aborted\b.*does not count"))
        # Nobody won or lost: no winner, no ranking, no place, no tie-break.
        for nothing in (".ranking", ".my-place", ".tiebreak"):
            expect(box.locator(nothing)).to_have_count(0)
        for text in ("(Ann) wins", "(Bo) wins", "You won", "You finished", "Tie:", "resigned"):
            expect(page.locator("main")).not_to_contain_text(text)
        # What a player may still do: play again, or keep the record.
        expect(box.get_by_role("button", name="Rematch")).to_be_visible()
        expect(box.get_by_role("button", name="Download record (text)")).to_be_visible()
        # No turn was played: nothing to review (the server would refuse).
        expect(page.locator("section.review")).to_be_hidden()
        assert severe_violations(page) == []
    record = g.api.http.get(f"/api/tables/{g.id}/record.json", headers={"authorization": f"Bearer {g.tokens[0]}"})
    assert record.json()["table"]["end_reason"] == "aborted"
    shots(g, "aborted")


def test_a_rated_game_resigned_at_once_is_aborted(clock_server: tuple[Server, Path], contexts: Contexts) -> None:
    server, _ = clock_server
    ann_page = contexts.page(bypass_csp=True)
    bob_page = contexts.page(PHONE, device_scale_factor=2, is_mobile=True, has_touch=True, bypass_csp=True)
    for page, name in ((ann_page, "Ann_ends"), (bob_page, "Bob_ends")):
        page.goto(server.base + "/")
        account_form(page, "register", name)
        expect(page.get_by_role("group", name="Account").locator(".account-name")).to_have_text(name)
    table_id = open_lobby_table(ann_page, players=2, rated=True, clock="20+0").table_id
    bob_page.locator(f'.open-table[data-open-table="{table_id}"]').get_by_role("button", name="Take a seat").click()
    expect(bob_page).to_have_url(re.compile(rf"/t/{table_id}$"))
    # Bob resigns before anyone has moved: the game is aborted, not won by Ann.
    bob_page.get_by_role("button", name="Resign…").click()
    bob_page.get_by_role("button", name="Yes, resign").click()
    for page in (ann_page, bob_page):
        box = gameover(page)
        expect(box.locator("h2")).to_have_text("Game aborted")
        expect(box.locator(".ending")).to_have_text(
            "Black (Bob_ends) resigned before the game counted. It does not count: nobody wins or loses, and no rating changes.")
        expect(page.locator(".prompt")).to_have_text(re.compile(r"^Game aborted\b.*does not count"))
        for nothing in (".ranking", ".my-place", ".tiebreak"):
            expect(box.locator(nothing)).to_have_count(0)
        for text in ("(Ann_ends) wins", "You won", "You finished", "Tie:"):
            expect(page.locator("main")).not_to_contain_text(text)
        assert severe_violations(page) == []
    shot(ann_page, "desktop-ending-rated-aborted")
    shot(bob_page, "phone-ending-rated-aborted")
    # In each player's history the game reads as aborted, neither won nor placed.
    for page in (ann_page, bob_page):
        page.goto(server.base + "/")
        expect(page.locator(f'.account-row[data-account-game="{table_id}"] .status')).to_have_text("aborted")
