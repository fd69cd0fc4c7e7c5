"""The creator's seat link opened on another device makes new links there: the new invite
seats a friend, the replaced invite and spectator links get a clear page."""

from __future__ import annotations

import pytest
from omega_page import Contexts, Server, TablePage, create_table
from playwright.sync_api import Locator, expect


def press(button: Locator) -> None:
    """Press a button of the side column from the keyboard (the column's sticky top, where
    messages show, may cover it for the mouse until one scrolls)."""
    button.focus()
    button.press("Enter")


@pytest.mark.slow
def test_new_links_made_on_another_device(server: Server, contexts: Contexts) -> None:
    ann = create_table(contexts.page(), server.base, players=2, seats=["human", "human"])
    expect(ann.page.locator(".invite-card")).to_be_visible()
    [old_invite] = ann.invite_links()
    old_watch = ann.spectator_link()

    # Ann's own seat link on a second device: no links there, but she may make new ones.
    elsewhere = TablePage(contexts.page())
    elsewhere.page.goto(ann.page.url)
    box = elsewhere.page.locator(".links")
    expect(box.locator(".no-links")).to_contain_text("You created it: you can make new ones here.")
    press(box.get_by_role("button", name="Make new invite links"))
    # The consequence is said before she confirms.
    expect(box.locator('.renew-confirm[data-renew="invites"]')).to_contain_text("The invite links sent before stop working")
    press(box.get_by_role("button", name="Make them"))
    expect(elsewhere.page.locator(".message")).to_contain_text("New invite links made")
    expect(elsewhere.page.locator(".invite-card")).to_be_visible()
    [new_invite] = elsewhere.invite_links()
    assert new_invite != old_invite and "#seat=" in new_invite

    press(box.get_by_role("button", name="New spectator link"))
    expect(box.locator('.renew-confirm[data-renew="spectator"]')).to_contain_text("people watching now keep watching")
    press(box.get_by_role("button", name="Make it"))
    expect(box.locator('.invites button[data-copy*="#watch="]')).to_have_count(1)
    new_watch = elsewhere.spectator_link()
    assert new_watch != old_watch
    # This device remembers them: a reload shows the same links without asking again.
    elsewhere.page.reload()
    expect(box.locator(".invites button[data-copy]")).to_have_count(2)
    assert elsewhere.invite_links() == [new_invite]

    # A friend joins with the new invite; Ann's first device sees them arrive.
    bo = TablePage(contexts.page())
    bo.page.goto(new_invite)
    expect(bo.cell("a1")).to_be_visible()
    expect(ann.page.locator(".invite-card")).to_be_hidden()
    watcher = TablePage(contexts.page())
    watcher.page.goto(new_watch)
    expect(watcher.cell("a1")).to_be_visible()

    # The replaced links open nothing: one clear page each.
    late = contexts.page()
    late.goto(old_invite)
    expect(late.locator('.problem[data-problem="forbidden"] h1')).to_have_text("This invite link does not work")
    late_watch = contexts.page()
    late_watch.goto(old_watch)
    expect(late_watch.locator('.problem[data-problem="forbidden"] h1')).to_have_text(
        "This spectator link does not work")
