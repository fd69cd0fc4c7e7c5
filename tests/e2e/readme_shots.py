"""Retake the README's screenshots: a 3-player table in play, on a desktop and on a phone.

Run from the repository root: ``python tests/e2e/readme_shots.py`` (the same server and
Chromium as the browser tests). Writes ``docs/screenshot.png`` and ``docs/screenshot-phone.png``.
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
)
from playwright.sync_api import expect, sync_playwright


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
                browser.close()
        finally:
            server.stop()


if __name__ == "__main__":
    main()
