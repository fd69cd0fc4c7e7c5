"""Watching and leaving in the page: a third browser opens /watch, finds the game two accounts
play, opens it as a spectator and sees their next turn arrive live; the account panel
downloads the account's data and closes the account, after which the log-in says it is
closed and offers to reopen it, which logs in again."""

from __future__ import annotations

import json
import re

from omega_page import Contexts, Server, TablePage
from playwright.sync_api import Page, expect
from test_accounts import PASSWORD, account_form

from omega import Game


def registered(page: Page, base: str, username: str) -> None:
    """``page``'s browser registers ``username`` (its session cookie kept by the browser)."""
    r = page.request.post(base + "/api/account/register", headers={"origin": base},
                          data={"username": username, "password": PASSWORD})
    assert r.status == 201, r.text()


def post(page: Page, base: str, path: str, body: object) -> dict[str, object]:
    r = page.request.post(base + path, headers={"origin": base}, data=body)
    assert r.status in (200, 201), r.text()
    return dict(r.json())


def test_a_third_browser_watches_a_game_from_the_live_list(server: Server, contexts: Contexts) -> None:
    base = server.base
    ann, bob, viewer = contexts.page(), contexts.page(), contexts.page()
    registered(ann, base, "Ann_watch")
    registered(bob, base, "Bob_watch")
    table_id = str(post(ann, base, "/api/lobby/tables", {"players": 2, "size": 5})["id"])
    post(bob, base, f"/api/lobby/tables/{table_id}/take", {})

    viewer.goto(base + "/watch")
    row = viewer.locator(f'li[data-live="{table_id}"]')
    expect(row).to_contain_text("Ann_watch")
    expect(row).to_contain_text("Bob_watch")
    # The filters ask the server again: a side the game is not played on leaves it out.
    viewer.get_by_label("Side").select_option("7")
    expect(row).to_have_count(0)
    viewer.get_by_label("Side").select_option("5")
    row.get_by_role("link", name="Watch").click()
    expect(viewer).to_have_url(re.compile(rf"/t/{table_id}$"))
    table = TablePage(viewer)
    expect(viewer.locator(".conn")).to_have_attribute("data-state", "live")
    expect(table.panel("White")).to_contain_text("Ann_watch")

    # The seat to move plays a turn; the spectator's board shows it without a reload.
    state = ann.request.get(f"{base}/api/tables/{table_id}").json()
    mover = ann if state["you"]["seat"] == state["game"]["current_seat"] else bob
    game = Game(players=2, size=5)
    cells = game.empty_cells()[:2]
    post(mover, base, f"/api/tables/{table_id}/actions", {"type": "turn", "cells": cells, "request_id": "w1"})
    expect(table.cell(cells[0])).to_have_attribute("data-stone", "White")
    expect(table.cell(cells[1])).to_have_attribute("data-stone", "Black")
    expect(table.confirm).to_be_hidden()  # a spectator has nothing to play


def test_the_account_panel_downloads_the_data_and_closes_the_account(server: Server, contexts: Contexts) -> None:
    page = contexts.page()
    page.goto(server.base + "/")
    account_form(page, "register", "Cyd_leave")
    area = page.get_by_role("group", name="Account")
    expect(area.locator(".account-name")).to_have_text("Cyd_leave")
    area.locator('details[data-menu="account"] > summary').click()
    data_part = page.get_by_role("region", name="Your data")
    expect(data_part.get_by_role("checkbox")).to_be_checked()  # listed until turned off

    with page.expect_download() as download:
        data_part.get_by_role("link", name="Download my data").click()
    path = download.value.path()
    assert download.value.suggested_filename.startswith("omega-account-")
    exported = json.loads(path.read_text(encoding="utf-8"))
    assert exported["account"]["username"] == "Cyd_leave" and exported["games"] == []

    data_part.locator("details.close-account > summary").click()
    expect(data_part.locator(".closing-text")).to_contain_text("For 14 days you can reopen it")
    data_part.get_by_label("Password").fill(PASSWORD)
    data_part.get_by_role("button", name="Close my account").click()
    expect(page.locator("[data-closed]")).to_contain_text("Your account is closed")
    expect(area.locator('details[data-menu="login"]')).to_be_visible()

    account_form(page, "login", "Cyd_leave")
    login = area.locator('form[data-form="login"]')
    expect(login.locator(".account-note")).to_contain_text("closed")
    expect(login.locator(".account-note")).to_contain_text("can be reopened")
    login.get_by_role("button", name="Reopen my account").click()
    expect(area.locator(".account-name")).to_have_text("Cyd_leave")
