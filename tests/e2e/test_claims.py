"""Claiming an absent player's seat, in the browser: at an untimed casual table whose
player to move has closed the table, the player kept waiting gets a button once the
server's wait (``CLAIM_AFTER``) is over, not a moment before; with two players the claim
wins the game, with three it resigns the absent colour and the game goes on with the
computer playing it. A timed table never offers it: its clock settles an absence.

The tables are made and their turns played through the HTTP API; what is under test is the
page of the player who stayed. The server runs on a clock the test moves
(``tests/server/clock_server.py``) and each page on Playwright's clock, moved by the same
amount: nobody waits ten minutes.
"""

from __future__ import annotations

import random
import re
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from omega_page import BOT_WAIT_MS, COLORS, ROOT, Contexts, Server, TablePage, shot
from playwright.sync_api import Locator, Page, expect

from omega.server.tables.state import CLAIM_AFTER
from server.clock_server import advance
from server.server_helpers import Api, error_code, random_turn

CLOCK_SERVER = ROOT / "tests" / "server" / "clock_server.py"
NAMES = ["Ann", "Bo", "Cy"]
WAIT_S = CLAIM_AFTER.total_seconds()


@pytest.fixture(scope="module")
def clock_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Path]]:
    tmp = tmp_path_factory.mktemp("omega-claims")
    clock_file = tmp / "clock"
    srv = Server(tmp / "claims.db", program=(sys.executable, str(CLOCK_SERVER), str(clock_file)))
    srv.start()
    yield srv, clock_file
    srv.stop()


@dataclass
class Table:
    """A table of guests, each with a page open on Playwright's clock (seat order: Ann
    White, Bo Black, Cy Red)."""

    api: Api
    id: str
    tokens: list[str]
    pages: list[TablePage]
    clock_file: Path

    def turn(self, seat: int) -> None:
        state = self.api.state(self.id, self.tokens[seat])
        self.api.turn(self.id, self.tokens[seat], random_turn(state, random.Random(self.id)))

    def leave(self, seat: int) -> None:
        """The seat's player closes the table; the others see them go."""
        self.pages[seat].page.close()
        for table in self.pages:
            if not table.page.is_closed():
                expect(table.panel(COLORS[seat]).locator(".dot")).to_have_attribute("aria-label", "offline")

    def wait(self, seconds: float) -> None:
        """``seconds`` pass for the server and for every open page."""
        advance(self.clock_file, seconds)
        for table in self.pages:
            if not table.page.is_closed():
                table.page.clock.fast_forward(int(seconds * 1000))

    def claim(self, seat: int) -> dict[str, Any]:
        """A claim through the API (the server's answer, for comparing with the page)."""
        r = self.api.act(self.id, self.tokens[seat], {"type": "claim"})
        return {"status": r.status_code, "code": error_code(r) if r.status_code >= 400 else None}


@pytest.fixture
def seated(clock_server: tuple[Server, Path], contexts: Contexts) -> Iterator[Any]:
    server, clock_file = clock_server
    api = Api(server.base)

    def make(players: int, time_control: str = "untimed") -> Table:
        created = api.create(players=players, seats=[{"kind": "human"}] * players, name=NAMES[0],
                             time_control=time_control)
        tokens = [created["invites"][str(i)] for i in range(players)]
        pages = []
        for token, name in zip(tokens, NAMES, strict=False):
            page = contexts.page()
            page.clock.install(time=time.time())
            page.goto(f"{server.base}/t/{created['id']}#seat={token}")
            page.get_by_label("Your name").fill(name)
            page.get_by_role("button", name="Save").click()
            expect(page.locator(".message")).to_have_text("Name saved.")
            pages.append(TablePage(page))
        for table in pages:
            for i in range(players):
                expect(table.page.locator(".panel").nth(i)).to_contain_text(NAMES[i])
        return Table(api, created["id"], tokens, pages, clock_file)

    yield make
    api.close()


def redraw(table: TablePage) -> None:
    """Make the page draw itself again now (pointing at a player's panel), so that what it
    shows is what it makes of this moment, not of its last news."""
    table.panel("White").hover()
    expect(table.panel("White")).to_have_class(re.compile("hovered"))


def claim_row(page: Page) -> Locator:
    return page.locator(".claim-row")


def test_a_player_left_waiting_claims_the_win_once_the_wait_is_over(seated: Any) -> None:
    t: Table = seated(2)
    ann = t.pages[0]
    t.turn(0)
    t.pages[1].wait_my_turn("Black")
    t.leave(1)
    # Bo may still come back: no button, and the server would say it is too early.
    t.wait(WAIT_S - 30)
    redraw(ann)
    expect(claim_row(ann.page)).to_be_hidden()
    assert t.claim(0) == {"status": 409, "code": "too_early"}
    # The wait is over by the server's clock: the page offers the claim, unasked.
    t.wait(31)
    row = claim_row(ann.page)
    expect(row).to_be_visible()
    expect(row).to_contain_text("Bo (Black) has left the table and kept you waiting.")
    shot(ann.page, "desktop-claim-offered")
    row.get_by_role("button", name="Claim the win").click()
    # The server resigned Bo's seat for him: the game is over and Ann won it, by a claim
    # (Bo left; he did not give up).
    expect(ann.prompt).to_contain_text("White (Ann) wins by claim")
    box = ann.page.locator(".gameover")
    expect(box.locator(".my-place")).to_have_text("You won! You finished 1st of 2.")
    expect(box.locator(".ending")).to_have_text(
        "The game ended by a claim: Black (Bo) left the table and kept the others waiting.")
    expect(box.locator('.ranking li[data-color="Black"] .tag')).to_have_text("left")
    expect(row).to_be_hidden()
    state = t.api.state(t.id, t.tokens[0])
    assert (state["status"], state["end_reason"], state["game"]["winner"]) == ("over", "resignation", "White")
    assert [(s["resigned"], s["claimed"]) for s in state["seats"]] == [(False, False), (True, True)]


def test_with_three_players_a_claim_resigns_the_absent_colour_and_the_game_goes_on(seated: Any) -> None:
    t: Table = seated(3)
    ann, cy = t.pages[0], t.pages[2]
    t.turn(0)
    t.pages[1].wait_my_turn("Black")
    t.leave(1)
    t.wait(WAIT_S + 1)
    # Both players kept waiting are offered it; with others left, the game goes on.
    for table in (ann, cy):
        expect(claim_row(table.page).get_by_role("button", name="Resign Black for them")).to_be_visible()
    claim_row(cy.page).get_by_role("button", name="Resign Black for them").click()
    for table in (ann, cy):
        expect(table.panel("Black")).to_contain_text("left")
        expect(claim_row(table.page)).to_be_hidden()
    # The computer plays Black's stones; then it is Red's turn, Cy's.
    cy.wait_my_turn("Red")
    expect(ann.prompt).to_contain_text(re.compile(r"Red \(Cy\)"), timeout=BOT_WAIT_MS)
    state = t.api.state(t.id, t.tokens[2])
    assert state["status"] == "playing" and state["game"]["resigned"] == ["Black"]


def test_a_timed_table_offers_no_claim(seated: Any) -> None:
    t: Table = seated(2, time_control="20+0")
    ann = t.pages[0]
    t.turn(0)
    t.pages[1].wait_my_turn("Black")
    t.leave(1)
    # Longer than the untimed wait: Bo's own clock runs down instead, from 20 minutes.
    t.wait(WAIT_S + 60)
    expect(ann.panel("Black").locator(".clock")).to_have_text(re.compile(r"^(8|9):\d\d$"))
    redraw(ann)
    expect(claim_row(ann.page)).to_be_hidden()
    assert t.claim(0) == {"status": 403, "code": "forbidden"}
