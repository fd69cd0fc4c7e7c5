"""Retake the README's screenshots: a 3-player table in play, on a desktop and on a phone;
the lobby with an open rated table; a profile after a rated game.

Run from the repository root: ``python tests/e2e/readme_shots.py`` (the same server and
Chromium as the browser tests). Writes ``docs/screenshot.png``, ``docs/screenshot-phone.png``,
``docs/screenshot-lobby.png`` and ``docs/screenshot-profile.png``.
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

from omega_page import (
    CHROMIUM,
    CHROMIUM_ARGS,
    DESKTOP,
    PHONE,
    ROOT,
    Server,
    TablePage,
    create_table,
    engine_order,
    open_lobby_table,
)
from playwright.sync_api import Browser, expect, sync_playwright
from test_accounts import account_form
from test_lobby import play_to_the_end


def main() -> None:
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp) / "shots.db")
        server.start()
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                desk = browser.new_context(viewport=DESKTOP, device_scale_factor=1).new_page()
                ann = create_table(desk, server.base, players=3, seats=["human", 2, 1], name="Ann")
                for _ in range(5):
                    ann.play_turn(engine_order(3, 0), rng)
                ann.wait_my_turn("White")
                # Mid-turn: two stones staged, a group outlined under the pointer.
                for cell in ann.empty_cells()[:2]:
                    ann.cell(cell).click()
                ann.panel("Red").hover()
                desk.mouse.move(0, 0)
                ann.panel("White").hover()
                desk.screenshot(path=str(ROOT / "docs" / "screenshot.png"))

                phone = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True).new_page()
                phone.goto(desk.url)
                on_phone = TablePage(phone)
                expect(on_phone.prompt).to_contain_text("Your turn")
                phone.screenshot(path=str(ROOT / "docs" / "screenshot-phone.png"))
                lobby_shots(browser, server, rng)
                browser.close()
        finally:
            server.stop()


def lobby_shots(browser: Browser, server: Server, rng: random.Random) -> None:
    """Two players meet in the lobby: the list with Mia's rated table as Leo sees it, and
    Mia's profile once they have played it."""
    pages = []
    for name in ("Mia", "Leo"):
        page = browser.new_context(viewport=DESKTOP, device_scale_factor=1).new_page()
        page.goto(server.base + "/")
        account_form(page, "register", name)
        expect(page.get_by_role("group", name="Account").locator(".account-name")).to_have_text(name)
        pages.append(page)
    mia, leo = pages
    mia_table = open_lobby_table(mia)
    expect(mia_table.prompt).to_contain_text("Waiting for players")
    row = leo.locator(f'.open-table[data-open-table="{mia_table.table_id}"]')
    expect(row).to_contain_text("Mia 1000?")
    leo.screenshot(path=str(ROOT / "docs" / "screenshot-lobby.png"))
    row.get_by_role("button", name="Take a seat").click()
    expect(leo).to_have_url(f"{server.base}/t/{mia_table.table_id}")
    play_to_the_end(server, mia_table.table_id, {0: mia_table, 1: TablePage(leo)}, rng)
    mia.goto(f"{server.base}/u/Mia")
    expect(mia.locator("svg.rating-chart")).to_be_visible()
    mia.screenshot(path=str(ROOT / "docs" / "screenshot-profile.png"))


if __name__ == "__main__":
    main()
