"""The lobby names, rates and describes every computer level, from the one list of levels."""

from __future__ import annotations

import pytest
from omega_page import Contexts, Server
from playwright.sync_api import expect

from omega.ai.levels import LEVELS


@pytest.mark.slow
def test_each_level_is_named_and_described_in_the_lobby(server: Server, contexts: Contexts) -> None:
    page = contexts.page()
    page.goto(server.base + "/")
    page.select_option('select.seat-kind[data-seat="1"]', "computer")
    level = page.locator('select.seat-level[data-seat="1"]')
    options = level.locator("option")
    expect(options).to_have_count(len(LEVELS))
    note = page.locator('.seat-row[data-seat="1"] .seat-note')
    for lv, option in zip(LEVELS, options.all(), strict=True):
        expect(option).to_have_text(f"level {lv.number} · {lv.name} · rating {lv.rating}")
        expect(option).to_have_attribute("title", lv.description)
        level.select_option(str(lv.number))
        expect(note).to_have_text(f"Level {lv.number}: {lv.description}")
