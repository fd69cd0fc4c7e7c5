"""Chat and rematch in a real browser, two people in two browser contexts: messages go both
ways as plain text (markup in a message stays characters), a mute hides a person on this
browser only, and a rematch proposed by one and accepted by the other takes both pages to the
new table, each in its rotated seat."""

from __future__ import annotations

import re

import pytest
from omega_page import Contexts, Server, TablePage, create_table, shot
from playwright.sync_api import Page, expect

INJECTION = '<img src=x onerror="document.title=\'owned\'"><b>bold</b>'


def say(page: Page, words: str) -> None:
    box = page.locator("section.chat")
    box.get_by_role("textbox", name="Message").fill(words)
    box.get_by_role("button", name="Send").click()


def two_at_a_table(server: Server, contexts: Contexts) -> tuple[TablePage, TablePage]:
    ann = create_table(contexts.page(), server.base, players=2, seats=["human", "human"], name="Ann")
    bo = TablePage(contexts.page())
    bo.page.goto(ann.invite_links()[0])
    bo.page.get_by_label("Your name").fill("Bo")
    bo.page.get_by_role("button", name="Save").click()
    expect(ann.panel("Black")).to_contain_text("Bo")
    return ann, bo


@pytest.mark.slow
def test_chat_between_two_pages_is_plain_text_and_a_mute_is_mine(server: Server, contexts: Contexts) -> None:
    ann, bo = two_at_a_table(server, contexts)
    say(ann.page, "hello Bo")
    bo_lines = bo.page.locator("section.chat .chat-lines li")
    expect(bo_lines.last).to_contain_text("Ann")
    expect(bo_lines.last.locator(".chat-text")).to_have_text("hello Bo")
    say(bo.page, INJECTION)
    ann_lines = ann.page.locator("section.chat .chat-lines li")
    # The markup is shown as the characters it is: no image, no bold, no script ran.
    expect(ann_lines.last.locator(".chat-text")).to_have_text(INJECTION)
    for page in (ann.page, bo.page):
        expect(page.locator("section.chat img, section.chat b")).to_have_count(0)
        assert page.title() != "owned"
    # A message too long never leaves the page (test_visitor_walk: refused in words, never cut).
    # Bo mutes Ann: her messages are hidden on Bo's browser only, and it lasts a reload.
    bo_lines.filter(has_text="hello Bo").get_by_role("button", name="Mute").click()
    expect(bo_lines.filter(has_text="hello Bo")).to_have_count(0)
    expect(bo.page.locator(".chat-muted")).to_contain_text("Ann")
    say(ann.page, "are you there?")
    expect(ann_lines.last.locator(".chat-text")).to_have_text("are you there?")
    bo.page.reload()
    expect(bo.page.locator("section.chat .chat-lines li").filter(has_text=INJECTION)).to_have_count(1)
    expect(bo.page.locator("section.chat .chat-lines li").filter(has_text="are you there?")).to_have_count(0)
    bo.page.locator(".chat-muted").get_by_role("button", name="Unmute").click()
    expect(bo.page.locator("section.chat .chat-lines li").filter(has_text="are you there?")).to_have_count(1)
    # The history came back with the page (stored with the table).
    expect(bo.page.locator("section.chat .chat-lines li").filter(has_text="hello Bo")).to_have_count(1)
    shot(ann.page, "chat")


@pytest.mark.slow
def test_a_rematch_takes_both_pages_to_the_new_table(server: Server, contexts: Contexts) -> None:
    ann, bo = two_at_a_table(server, contexts)
    old = ann.table_id
    bo.page.get_by_role("button", name="Resign…").click()
    bo.page.get_by_role("button", name="Yes, resign").click()
    expect(ann.page.locator(".gameover")).to_be_visible()
    ann.page.locator(".gameover").get_by_role("button", name="Rematch").click()
    expect(bo.page.locator(".rematch")).to_contain_text("Ann proposed a rematch")
    expect(ann.page.locator(".rematch")).to_contain_text("Waiting for Bo")
    shot(bo.page, "rematch-asked")
    bo.page.locator(".rematch").get_by_role("button", name="Accept rematch").click()
    for page in (ann.page, bo.page):
        expect(page).not_to_have_url(re.compile(f"/t/{old}"))
        expect(page).to_have_url(re.compile(r"/t/[A-Za-z0-9_-]+#seat="))
    new_ann, new_bo = TablePage(ann.page), TablePage(bo.page)
    assert new_ann.table_id == new_bo.table_id != old
    # The seats moved one place on: Bo plays White now and moves first; Ann plays Black.
    expect(new_bo.panel("White")).to_have_class(re.compile(r"\bmine\b"))
    expect(new_ann.panel("Black")).to_have_class(re.compile(r"\bmine\b"))
    expect(new_ann.panel("White")).to_contain_text("Bo")
    new_bo.wait_my_turn("White")
    # The old table opened again stays where it is, and offers the way to the rematch.
    old_link = f"{server.base}/t/{old}#seat={new_ann.token}"
    ann.page.goto(old_link)
    expect(ann.page.locator(".rematch")).to_contain_text("The rematch has started.")
    expect(ann.page).to_have_url(old_link)
    ann.page.locator(".rematch").get_by_role("button", name="Open the rematch").click()
    expect(ann.page).to_have_url(re.compile(f"/t/{new_ann.table_id}#seat="))
