"""Vacation in the page, on a phone: the account panel's vacation section (the days left,
going on vacation and coming back, the automatic setting) and the table's "on vacation" mark
on the seat whose clock it paused, live as it starts and ends; a table that forbids vacation
says so beside its time control."""

from __future__ import annotations

import re

from omega_page import PHONE, Contexts, Server, TablePage, shot
from playwright.sync_api import Page, expect
from test_accessibility import severe_violations
from test_accounts import account_form


def open_vacation(page: Page) -> None:
    area = page.get_by_role("group", name="Account")
    menu = area.locator('details[data-menu="account"]')
    if menu.get_attribute("open") is None:
        menu.locator("> summary").click()
    expect(page.get_by_role("region", name="Vacation")).to_be_visible()


def turn_based_table(page: Page, base: str, **body: object) -> str:
    """A 1-day-a-move table against the computer, made with the page's own session cookie."""
    r = page.request.post(base + "/api/tables", headers={"origin": base},
                          data={"players": 2, "time_control": "1d", "seats": [{"kind": "human"},
                                                                             {"kind": "computer", "level": 1}],
                                **body})
    assert r.status == 201, r.text()
    return str(r.json()["id"])


def test_vacation_from_the_account_panel_marks_the_seat_at_the_table(server: Server, contexts: Contexts) -> None:
    # A phone (390x844), with axe allowed in past the page's script policy.
    page = contexts.page(PHONE, device_scale_factor=2, is_mobile=True, has_touch=True, bypass_csp=True)
    page.goto(server.base + "/")
    account_form(page, "register", "Vic_e2e")
    expect(page.get_by_role("group", name="Account").locator(".account-name")).to_have_text("Vic_e2e")
    table_id = turn_based_table(page, server.base)

    page.goto(f"{server.base}/t/{table_id}")
    table = TablePage(page)
    expect(page.locator(".conn")).to_have_attribute("data-state", "live")
    expect(table.panel("White")).not_to_contain_text("on vacation")
    open_vacation(page)
    section = page.get_by_role("region", name="Vacation")
    expect(section.locator('[data-vacation="left"]')).to_have_text(re.compile(r"30 days left of 30 days in \d{4}"))
    expect(section.get_by_role("checkbox")).to_be_checked()
    section.get_by_role("button", name="Start vacation").click()
    expect(section.locator('[data-vacation="on"]')).to_contain_text("until you come back")
    # The pause reaches the table over its socket: the seat is marked, its clock stopped.
    expect(table.panel("White").locator(".tag.paused")).to_have_text("on vacation")
    expect(table.panel("White").locator(".clock")).not_to_have_class(re.compile(r"\brunning\b"))
    shot(page, "phone-vacation-account")
    assert severe_violations(page) == []
    page.locator('details[data-menu="account"] > summary').click()  # closed, to see the table
    shot(page, "phone-vacation-table")

    open_vacation(page)
    section.get_by_role("button", name="End vacation").click()
    expect(section.get_by_role("button", name="Start vacation")).to_be_visible()
    assert severe_violations(page) == []  # the section as it is before a vacation, too
    expect(table.panel("White").locator(".tag.paused")).to_have_count(0)
    expect(table.panel("White").locator(".clock")).to_have_class(re.compile(r"\brunning\b"))
    # The setting is the server's once it answers (a reload before then may cancel the request).
    with page.expect_response(lambda r: r.url.endswith("/api/account/vacation/settings") and r.ok):
        section.get_by_role("checkbox").uncheck()
    page.reload()
    open_vacation(page)
    expect(page.get_by_role("region", name="Vacation").get_by_role("checkbox")).not_to_be_checked()

    # A table made in the lobby form may forbid vacation; it says so beside its clock.
    page.goto(server.base + "/")
    page.select_option("#clock", "1d")
    page.locator("#clock-pausable").uncheck()
    page.get_by_role("button", name="Create table").click()
    expect(page).to_have_url(re.compile(r"/t/[A-Za-z0-9_-]+#seat="))
    expect(page.locator(".table-title")).to_contain_text("1d · no vacation")
    assert page.request.get(page.url.split("#")[0].replace("/t/", "/api/tables/")).json()["clock"]["pausable"] is False
