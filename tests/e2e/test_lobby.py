"""The lobby in two browsers: both register; one opens a rated table; the other sees it
appear without reloading, takes the free seat, and they play the game to its end by
clicking; both then see the rating change and the game in their history, and the profile
and leaderboard pages show them.  And the list's filters and pages, with tables pushed live
through the filters."""

from __future__ import annotations

import random
import re
from typing import Any

import httpx
import pytest
from omega_page import PHONE, Contexts, Server, TablePage, engine_order, open_lobby_table, shot
from playwright.sync_api import Locator, Page, expect
from test_accessibility import severe_violations
from test_accounts import PASSWORD, account_form

from omega import Game
from omega.server.tables.timecontrol import QUICKPLAY_DEFAULT, REALTIME_PRESETS


def play_to_the_end(server: Server, table_id: str, pages: dict[int, TablePage], rng: random.Random) -> dict[str, object]:
    """Click turns for whichever seat is to move until the server says the game is over."""
    while True:
        state = server.request("GET", f"/api/tables/{table_id}", None)  # a rated table: anyone may watch
        if state["status"] == "over":
            return dict(state)
        seat = state["game"]["current_seat"]
        mover = pages[seat]
        game = Game(players=2, size=state["size"])
        empty = [c for c in game.cells if c not in state["game"]["stones"]]
        mover.play_turn(engine_order(2, seat), rng, rng.sample(empty, 2))


#: The full Chromium: under the whole suite's load, twice in eight runs on the headless build,
#: a page's lobby list never showed a table it had opened (the filters test, 30 s); the full
#: browser never failed it, and neither build did when the module ran alone.
FULL_BROWSER = True


def lobby_row(page: Page, table_id: str) -> Locator:
    return page.locator(f'.open-table[data-open-table="{table_id}"]')


@pytest.mark.slow
def test_two_players_meet_in_the_lobby_play_rated_and_see_their_ratings(server: Server, contexts: Contexts) -> None:
    rng = random.Random(11)
    # Without the CSP, so that the accessibility checker can be put into the pages.
    ann_page, bob_page = contexts.page(bypass_csp=True), contexts.page(bypass_csp=True)
    for page, name in [(ann_page, "Ann_lobby"), (bob_page, "Bob_lobby")]:
        page.goto(server.base + "/")
        account_form(page, "register", name)
        expect(page.get_by_role("group", name="Account").locator(".account-name")).to_have_text(name)
    expect(bob_page.get_by_role("list", name="Open tables")).to_contain_text("No open table")

    # Ann opens a rated table for two in the lobby with 20 minutes each.
    ann = open_lobby_table(ann_page, players=2, rated=True, clock="20+0")
    table_id = ann.table_id
    expect(ann.prompt).to_contain_text("Waiting for players")

    # Bob's lobby shows it without a reload: Ann seated with her provisional rating.
    row = bob_page.locator(f'.open-table[data-open-table="{table_id}"]')
    expect(row).to_contain_text("2 players · side 5 · rated · 20+0")
    expect(row).to_contain_text("Ann_lobby 1000?")
    expect(row).to_contain_text("1 free")
    assert severe_violations(bob_page) == []
    shot(bob_page, "lobby-open-table")
    row.get_by_role("button", name="Take a seat").click()
    expect(bob_page).to_have_url(re.compile(rf"/t/{table_id}$"))
    bob = TablePage(bob_page)
    expect(bob.panel("Black")).to_contain_text("Bob_lobby")
    # The game starts on Ann's page as soon as the last seat is taken.
    ann.wait_my_turn("White")
    expect(ann.panel("Black")).to_contain_text("Bob_lobby")

    final = play_to_the_end(server, table_id, {0: ann, 1: bob}, rng)
    for page in (ann_page, bob_page):
        expect(page.locator(".prompt")).to_contain_text("Game over")
    winner = final["game"]["winner"]  # type: ignore[index]
    shot(ann_page, "lobby-rated-game-over")

    # Back in the lobby: each sees their rating change and the game in their history.
    for page, color in [(ann_page, "White"), (bob_page, "Black")]:
        page.goto(server.base + "/")
        ratings = page.get_by_label("Your ratings")
        expect(ratings).to_contain_text("2 players:")
        expect(ratings).to_contain_text("1 game")
        expect(ratings).to_contain_text("last 1000 → ")
        expect(ratings).to_contain_text("(+" if winner == color else "(−")
        game_row = page.locator(f'.account-row[data-account-game="{table_id}"]')
        expect(game_row).to_be_visible()
        expect(game_row).to_contain_text("won" if winner == color else "2nd")
    shot(ann_page, "lobby-after-rated-game")

    # The profile: the record, the rating chart and the game linked to its replay.
    ann_page.get_by_role("link", name="Your profile").click()
    expect(ann_page).to_have_url(re.compile(r"/u/Ann_lobby$"))
    expect(ann_page.locator(".profile-record")).to_contain_text("1 game played, ")
    expect(ann_page.locator('svg.rating-chart[data-chart-players="2"] polyline')).to_have_attribute(
        "points", re.compile(r"^\S+ \S+$"))
    link = ann_page.locator(f'.recent-games li[data-game="{table_id}"] a[href="/t/{table_id}"]')
    game = ann_page.locator(f'.recent-games li[data-game="{table_id}"]')
    expect(game).to_contain_text("1000 → ")
    # The opponent, linked to their profile, and the result in the one form lists use.
    expect(game.locator("a.opponent")).to_have_text("Bob_lobby")
    expect(game.locator(".result")).to_have_text("won" if winner == "White" else "lost")
    assert severe_violations(ann_page) == []
    shot(ann_page, "lobby-profile")
    link.click()
    expect(ann_page).to_have_url(re.compile(rf"/t/{table_id}(#seat=[A-Za-z0-9_-]+)?$"))
    expect(ann_page.locator(".prompt")).to_contain_text("Game over")

    # The leaderboard of 2-player games lists both, the winner first.
    bob_page.goto(server.base + "/leaderboard/2")
    rows = bob_page.locator(".ratings-table tbody tr")
    expect(rows).to_have_count(2)
    first = "Ann_lobby" if winner == "White" else "Bob_lobby"
    expect(rows.first).to_have_attribute("data-player", first)
    assert severe_violations(bob_page) == []
    shot(bob_page, "lobby-leaderboard")


@pytest.mark.slow
def test_quick_play_matches_two_players_on_the_clock_they_chose(server: Server, contexts: Contexts) -> None:
    chosen = next(t for t in REALTIME_PRESETS if t != QUICKPLAY_DEFAULT)
    one, two = contexts.page(), contexts.page()
    for page, name in [(one, "Quick_one"), (two, "Quick_two")]:
        page.goto(server.base + "/")
        account_form(page, "register", name)
        expect(page.get_by_role("group", name="Account").locator(".account-name")).to_have_text(name)
        clock = page.locator(".quick-play").get_by_label("Quick play: clock")
        # The server's presets, its default first chosen.
        expect(clock.locator("option")).to_have_count(len(REALTIME_PRESETS))
        expect(clock).to_have_value(QUICKPLAY_DEFAULT)
        clock.select_option(chosen)
    # The choice is kept on the device: a reload offers it again.
    one.reload()
    expect(one.locator(".quick-play").get_by_label("Quick play: clock")).to_have_value(chosen)
    for page in (one, two):
        card = page.locator(".quick-play")
        card.get_by_label("Quick play: players").select_option("2")
        card.get_by_label("Quick play: board side").select_option("6")
    # One would rather play the computer than wait long; a person who comes first is matched.
    one.locator(".quick-play").get_by_label("or the computer at my level (casual), if nobody comes soon").check()
    one.locator(".quick-play").get_by_role("button", name="Play").click()
    expect(one.locator(".quick-status")).to_contain_text(f"Waiting for 1 other player · side 6 · {chosen} ·")
    expect(one.locator(".quick-status")).to_contain_text("· then the computer")
    # While waiting the choice stands: leaving the queue is how to change it.
    expect(one.locator(".quick-play").get_by_label("Quick play: clock")).to_be_disabled()
    two.locator(".quick-play").get_by_role("button", name="Play").click()
    for page in (one, two):
        expect(page).to_have_url(re.compile(r"/t/[A-Za-z0-9_-]+$"))
    assert one.url == two.url
    table = TablePage(one)
    expect(table.panel("White")).to_contain_text(re.compile("Quick_(one|two)"))
    expect(table.panel("Black")).to_contain_text(re.compile("Quick_(one|two)"))
    # The table has the clock both chose, on the page and on the server.
    minutes = chosen.split("+")[0]
    for page in (one, two):
        expect(page.locator(".table-title")).to_contain_text(chosen)
        expect(page.locator('.panel[data-color="Black"] .clock')).to_have_text(f"{minutes}:00")
    assert server.request("GET", f"/api/tables/{table.table_id}", None)["clock"]["control"] == chosen


class Host:
    """An account that opens tables through the API, from a loopback address of its own
    (registrations and the open tables' cap are counted per address)."""

    def __init__(self, server: Server, name: str, address: str) -> None:
        self.http = httpx.Client(base_url=server.base, timeout=30, headers={"origin": server.base},
                                 transport=httpx.HTTPTransport(local_address=address))
        r = self.http.post("/api/account/register", json={"username": name, "password": PASSWORD})
        assert r.status_code == 201, r.text
        self.opened: list[str] = []

    def open(self, **body: Any) -> str:
        r = self.http.post("/api/lobby/tables", json={"players": 2, **body})
        assert r.status_code == 201, r.text
        self.opened.append(r.json()["id"])
        return self.opened[-1]

    def cancel_all(self) -> None:
        for table_id in self.opened:
            self.http.post(f"/api/lobby/tables/{table_id}/cancel")
        self.http.close()


def open_in_form(page: Page, base: str, players: int, size: int, rated: bool, clock: str,
                 opened: list[str] | None = None) -> str:
    """Open a table through the lobby's form, as its player would; back in the lobby after.
    Returns the table's id (appended to ``opened`` too)."""
    page.goto(base + "/")
    table_id = open_lobby_table(page, players, size, rated, clock).table_id
    if opened is not None:
        opened.append(table_id)
    page.goto(base + "/")
    return table_id


def test_the_lobby_list_filters_and_pages_and_shows_new_tables_live(server: Server, contexts: Contexts) -> None:
    # Cleo opens her tables in her browser; Dan, on his phone, filters the list and pages through it.
    cleo = contexts.page()
    dan = contexts.page(PHONE, device_scale_factor=2, is_mobile=True, has_touch=True, bypass_csp=True)
    crowd = [Host(server, f"Fil_crowd{i}", f"127.0.0.{40 + i}") for i in range(4)]
    mine: list[str] = []  # Cleo's tables
    try:
        for page, name in ((cleo, "Fil_cleo"), (dan, "Fil_dan")):
            page.goto(server.base + "/")
            account_form(page, "register", name)
            expect(page.get_by_role("group", name="Account").locator(".account-name")).to_have_text(name)
        for host in crowd:
            for _ in range(5):
                host.open(players=4, size=8)
        # A rated table's clock starts on quick play's default (the server's, from /api/config).
        form = cleo.get_by_role("form", name="New table")
        form.get_by_text("Anyone (an open table in the lobby)").click()
        form.locator("#rated").check()
        expect(form.get_by_label("Clock", exact=True)).to_have_value(QUICKPLAY_DEFAULT)
        rated_duel = open_in_form(cleo, server.base, 2, 5, rated=True, clock=QUICKPLAY_DEFAULT, opened=mine)
        trio = open_in_form(cleo, server.base, 3, 7, rated=False, clock="untimed", opened=mine)
        daily = open_in_form(cleo, server.base, 2, 6, rated=False, clock="1d", opened=mine)

        rows = dan.locator(".open-table")
        pager = dan.get_by_role("navigation", name="Pages of open tables")
        # On the phone every field of the lobby's cards stays inside its card.
        assert dan.evaluate("""() => [...document.querySelectorAll('.lobby-grid .card')].every((card) => {
            const edge = card.getBoundingClientRect().right;
            return [...card.querySelectorAll('select, button, input')].every((el) => el.getBoundingClientRect().right <= edge);
        })""")
        # Cleo's tables came to Dan's list as she opened them, the newest on top.
        expect(rows.first).to_have_attribute("data-open-table", daily)
        expect(rows).to_have_count(20)
        expect(pager).to_contain_text("Tables 1–20 of 23")
        pager.get_by_role("button", name="Next").click()
        expect(pager).to_contain_text("Tables 21–23 of 23")
        expect(rows).to_have_count(3)
        # The shorter page is scrolled to its top, not left above the phone's screen.
        assert dan.evaluate("document.querySelector('.lobby-tables').getBoundingClientRect().top") > -1  # to the pixel
        expect(pager.get_by_role("button", name="Next")).to_be_disabled()
        pager.get_by_role("button", name="Previous").click()
        expect(rows).to_have_count(20)

        filters = dan.get_by_role("search", name="Filter open tables")
        filters.get_by_label("Show tables for players").select_option("2")
        expect(rows).to_have_count(2)
        expect(pager).to_be_hidden()
        filters.get_by_label("Show rated or casual tables").select_option("true")
        expect(rows).to_have_count(1)
        expect(lobby_row(dan, rated_duel)).to_contain_text(f"2 players · side 5 · rated · {QUICKPLAY_DEFAULT}")
        expect(lobby_row(dan, rated_duel)).to_contain_text("Fil_cleo 1000?")
        filters.get_by_label("Show tables with clock").select_option("untimed")
        expect(dan.get_by_role("list", name="Open tables")).to_contain_text("No open table matches these filters")
        filters.get_by_label("Show tables for players").select_option("")
        filters.get_by_label("Show rated or casual tables").select_option("")
        filters.get_by_label("Show tables with clock").select_option("turn_based")
        expect(rows).to_have_count(1)
        expect(lobby_row(dan, daily)).to_contain_text("2 players · side 6 · casual · 1d")
        assert severe_violations(dan) == []
        filters.scroll_into_view_if_needed()
        shot(dan, "lobby-filters")

        # New tables are pushed live: shown at once when they pass the filters, not otherwise
        # (the one that does not pass is opened first, so its news has come when the other shows).
        filters.get_by_label("Show tables with clock").select_option("")
        filters.get_by_label("Show tables of board side").select_option("7")
        expect(rows).to_have_count(1)
        expect(rows.first).to_have_attribute("data-open-table", trio)
        open_in_form(cleo, server.base, 3, 6, rated=False, clock="untimed", opened=mine)
        another = open_in_form(cleo, server.base, 4, 7, rated=False, clock="untimed", opened=mine)
        expect(rows.first).to_have_attribute("data-open-table", another)  # the newest on top
        expect(rows).to_have_count(2)
        # Cleo cancels her trio in her lobby: it leaves Dan's list.
        lobby_row(cleo, trio).get_by_role("button", name="Cancel").click()
        expect(rows).to_have_count(1)
        expect(rows.first).to_have_attribute("data-open-table", another)
        # The tables her browser remembers say where each stands.
        cleo.reload()
        expect(cleo.locator(f'.table-row[data-table="{trio}"] .status')).to_have_text("cancelled")
        expect(cleo.locator(f'.table-row[data-table="{another}"] .status')).to_have_text("waiting for players")
    finally:
        for host in crowd:
            host.cancel_all()
        # Cleo's too (with her browser's cookie), so that other tests of this server find the
        # lobby as they left it.
        for table_id in mine:
            cleo.request.post(f"{server.base}/api/lobby/tables/{table_id}/cancel", headers={"origin": server.base})
