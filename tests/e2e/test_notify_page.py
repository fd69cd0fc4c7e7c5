"""Notification settings in the page: a logged-in player turns a kind of mail off and chooses
the digest on the account panel, which the server keeps (a reload shows them); then the
unsubscribe link of a mail, opened in a browser that is not logged in, asks first and
turns the kind off with its button."""

from __future__ import annotations

import pytest
from omega_page import Contexts, Server
from playwright.sync_api import Locator, Page, expect
from sqlalchemy import create_engine, text
from test_accounts import account_form

from omega.server.infra.db import Database
from omega.server.infra.keys import SITE_KEY, site_key
from omega.server.notify.service import unsubscribe_token


def open_settings(page: Page) -> Locator:
    area = page.get_by_role("group", name="Account")
    area.locator('details[data-menu="account"] > summary').click()
    section = area.locator('details[data-section="notifications"]')
    section.locator("> summary").click()
    return section


@pytest.mark.slow
def test_settings_are_kept_and_an_unsubscribe_link_turns_its_kind_off(server: Server, contexts: Contexts) -> None:
    page = contexts.page()
    page.goto(server.base + "/")
    account_form(page, "register", "Nia_notes")
    expect(page.get_by_role("group", name="Account").locator(".account-name")).to_have_text("Nia_notes")
    section = open_settings(page)
    challenge = section.locator('input[data-kind="challenge"][data-channel="mail"]')
    expect(challenge).to_be_checked()  # every kind is on until turned off
    challenge.uncheck()
    expect(section.locator(".account-note")).to_have_text("Saved.")
    section.locator("input[data-digest]").check()
    expect(section.locator(".account-note")).to_have_text("Saved.")
    page.reload()
    section = open_settings(page)
    expect(section.locator('input[data-kind="challenge"][data-channel="mail"]')).not_to_be_checked()
    expect(section.locator("input[data-digest]")).to_be_checked()
    your_turn = section.locator('input[data-kind="your_turn"][data-channel="mail"]')
    expect(your_turn).to_be_checked()

    # The link a "your turn" mail carries (signed with the site's own key), in a browser
    # that is logged in nowhere: a page that asks, then the button.
    engine = create_engine(f"sqlite:///{server.db_path}")
    try:
        with engine.connect() as conn:
            user_id = conn.execute(text("SELECT id FROM users WHERE username = 'Nia_notes'")).scalar_one()
        token = unsubscribe_token(site_key(Database(engine), SITE_KEY), user_id, "your_turn")
    finally:
        engine.dispose()
    stranger = contexts.page()
    stranger.goto(f"{server.base}/mail/unsubscribe?t={token}")
    expect(stranger.locator("body")).to_contain_text("Stop the mails about: It is your turn in a turn-based game?")
    stranger.get_by_role("button", name="Unsubscribe").click()
    expect(stranger.locator("body")).to_contain_text("You will get no more mails about")
    page.reload()
    section = open_settings(page)
    expect(section.locator('input[data-kind="your_turn"][data-channel="mail"]')).not_to_be_checked()
