"""Friends and challenges in the page (issue 32): Ann follows Bob and challenges him from his
profile; Bob, in the lobby, sees the challenge come in live and accepts it, and both land at
the new table; then Bob blocks Ann, and her next challenge is refused with the reason said
under the buttons."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from omega_page import Contexts, Server, shot
from playwright.sync_api import Page, Playwright, expect
from test_accounts import PASSWORD

ANN, BOB = "ann_fr", "bob_fr"


@pytest.fixture(scope="module")
def accounts(server: Server, playwright_instance: Playwright) -> Iterator[dict[str, Any]]:
    """Each account's cookies, registered once for the module; each test's pages start
    from them, logged in."""
    states: dict[str, Any] = {}
    for name in (ANN, BOB):
        request = playwright_instance.request.new_context(base_url=server.base,
                                                          extra_http_headers={"Origin": server.base})
        answer = request.post("/api/account/register", data={"username": name, "password": PASSWORD})
        assert answer.status == 201, answer.text()
        states[name] = request.storage_state()
        request.dispose()
    yield states


def profile_of(page: Page, server: Server, name: str) -> Any:
    """Open ``name``'s profile; its bar of buttons for the viewer."""
    page.goto(f"{server.base}/u/{name}")
    bar = page.get_by_role("group", name=f"You and {name}")
    expect(bar).to_be_visible()
    return bar


def test_a_challenge_from_a_profile_is_accepted_from_the_live_notice_and_both_land_at_the_table(
        server: Server, contexts: Contexts, accounts: dict[str, Any]) -> None:
    ann = contexts.page(storage_state=accounts[ANN])
    bob = contexts.page(storage_state=accounts[BOB])
    bob.goto(server.base + "/")
    challenges = bob.get_by_role("list", name="Challenges")
    expect(challenges).to_contain_text("No challenge waiting")

    bar = profile_of(ann, server, BOB)
    bar.get_by_role("button", name="Follow").click()
    expect(bar.get_by_role("button", name="Unfollow")).to_be_visible()
    expect(bar.get_by_role("status")).to_have_text(f"You follow {BOB}.")
    bar.get_by_role("button", name="Challenge").click()
    form = ann.get_by_role("form", name=f"Challenge {BOB}")
    form.get_by_label("Challenge: board side").select_option("6")
    form.get_by_label("Pie rule").check()
    form.get_by_role("button", name="Send challenge").click()
    expect(bar.get_by_role("status")).to_contain_text(f"waiting for {BOB} to answer")

    # Bob's lobby hears of it on its socket: no reload.
    row = challenges.locator("[data-challenge]")
    expect(row).to_contain_text(f"{ANN} challenges you: 2 players · side 6 · untimed · casual · pie rule")
    shot(bob, "friends-challenge-received")
    row.get_by_role("button", name="Accept").click()
    expect(bob).to_have_url(re.compile(r"/t/[A-Za-z0-9_-]+$"))
    expect(ann).to_have_url(bob.url)  # the challenger's page is sent there too
    for page in (ann, bob):
        expect(page.locator(".conn")).to_have_attribute("data-state", "live")
    # Ann's friends list has Bob, playing that table, with a Watch link.
    ann.goto(server.base + "/")
    friend = ann.get_by_role("list", name="Friends").locator(f'[data-friend="{BOB}"]')
    expect(friend.get_by_role("link", name="Watch")).to_have_attribute("href", bob.url.replace(server.base, ""))


def test_a_blocked_player_s_challenge_is_refused_with_the_reason_shown(
        server: Server, contexts: Contexts, accounts: dict[str, Any]) -> None:
    bob = contexts.page(storage_state=accounts[BOB])
    bar = profile_of(bob, server, ANN)
    bar.get_by_role("button", name="Block").click()
    expect(bar.get_by_role("button", name="Unblock")).to_be_visible()

    ann = contexts.page(storage_state=accounts[ANN])
    bar = profile_of(ann, server, BOB)
    expect(bar.get_by_role("button", name="Follow")).to_be_visible()  # the block ended her follow
    bar.get_by_role("button", name="Challenge").click()
    ann.get_by_role("form", name=f"Challenge {BOB}").get_by_role("button", name="Send challenge").click()
    expect(bar.get_by_role("alert")).to_have_text(
        f"Blocked: you cannot challenge {BOB}: one of you blocked the other")
    shot(ann, "friends-challenge-blocked")
