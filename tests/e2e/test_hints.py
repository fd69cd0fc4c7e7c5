"""Hints in the page: a table created with hints allowed shows a Hint button on my turn; it
stages the computer's turn, which I may change before confirming; the table sees that I
used a hint. A table without them has no button."""

from __future__ import annotations

import re

import pytest
from omega_page import BOT_WAIT_MS, QUICK, Contexts, Server, TablePage, choose, create_table
from playwright.sync_api import Page, expect


def create_with_hints(page: Page, base: str) -> TablePage:
    page.goto(base + "/")
    page.get_by_label("Your name").fill("Ann")
    choose(page, "players", 2)
    page.select_option('select.seat-kind[data-seat="1"]', "computer")
    page.select_option('select.seat-level[data-seat="1"]', "1")
    page.get_by_label("I play seat 1").check()
    page.locator("#hints").check()
    page.get_by_role("button", name="Create table").click()
    expect(page).to_have_url(re.compile(r"/t/[A-Za-z0-9_-]+#seat="))
    return TablePage(page)


@pytest.mark.slow
def test_a_hint_is_staged_and_can_be_changed(server: Server, contexts: Contexts) -> None:
    page = contexts.page()
    table = create_with_hints(page, server.base)
    watcher = TablePage(contexts.page())
    watcher.page.goto(f"{server.base}/t/{table.table_id}#watch={table.spectator_link().split('#watch=')[1]}")
    table.wait_my_turn("White")
    hint = page.get_by_role("button", name="Hint")
    expect(hint).to_be_visible()
    expect(watcher.page.get_by_role("button", name="Hint")).to_be_hidden()  # a spectator has no turn
    hint.click()
    staged = page.locator("g.cell[data-staged]")
    # The hint may be this server's first search: the worker pool starts on first use.
    expect(staged).to_have_count(2, timeout=BOT_WAIT_MS)
    expect(page.locator("g.cell[data-staged='White']")).to_have_count(1)
    expect(page.locator("g.cell[data-staged='Black']")).to_have_count(1)
    expect(table.prompt).to_contain_text("All stones placed")
    # The table sees it: my panel says so, on my page and on the spectator's.
    expect(table.panel("White").locator(".tag.hints")).to_have_text("1 hint")
    expect(watcher.panel("White").locator(".tag.hints")).to_have_text("1 hint")
    # I change the hinted Black stone before confirming.
    hinted = table.staged()
    table.undo.click()
    empty = next(c for c in table.empty_cells() if c not in hinted)
    table.cell(empty).click()
    expect(table.cell(empty)).to_have_attribute("data-staged", "Black")
    table.confirm.click()
    white = next(c for c, col in hinted.items() if col == "White")
    expect(table.cell(white)).to_have_attribute("data-stone", "White")
    expect(table.cell(empty)).to_have_attribute("data-stone", "Black")
    # The computer answers; on my next turn the button is there again.
    expect(table.log_entries()).to_have_count(2)
    table.wait_my_turn("White")
    expect(hint).to_be_enabled()


def test_no_hint_button_without_hints(server: Server, contexts: Contexts) -> None:
    page = contexts.page()
    table = create_table(page, server.base, players=2, seats=["human", QUICK])
    table.wait_my_turn("White")
    expect(page.locator("button.hint")).to_have_count(1)
    expect(page.locator("button.hint")).to_be_hidden()
