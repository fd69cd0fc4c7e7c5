"""The site as a visitor and a returning player find it (issue 34, first part), walked in
the browser at 1280x800 and on a 390x844 phone:

- after a quick-play match, going back to the lobby (from the leaderboard, say) shows the
  lobby: a match followed once, or whose game is over (a rematch was played), is not
  followed again;
- logging out with a table open (in another tab, or in this one) turns the table into what
  a visitor without that seat sees, at once, not a live table whose Confirm is refused;
- a spectator or invite link pasted into a tab that says "This table needs a link" opens
  the table (only the fragment changed: the page reads it again);
- the chat counts the characters left against the server's limit and refuses a longer
  message in words, never cutting it; the registration form says the username and
  password rules next to the fields, and a two-letter username is refused in the rule's
  words (the server's check, the one the page shows: no minlength of the browser's own);
- computers are named by their level in words, at the table and in the account's list;
- the lobby's My tables and History come before the New table form, and "Your tables"
  says where an account's tables are.
"""

from __future__ import annotations

import re

import httpx
from omega_page import QUICK, Contexts, Server, TablePage, create_table, shot
from playwright.sync_api import Page, expect
from test_accounts import PASSWORD, account_form

from omega.ai.levels import computer_name
from omega.names import USERNAME_RULE
from omega.server.accounts.passwords import PASSWORD_RULE
from omega.server.config import DEFAULT_LEVEL

TABLE_URL = re.compile(r"/t/([A-Za-z0-9_-]+)$")


def sentence(rule: str) -> str:
    return rule[0].upper() + rule[1:] + "."


def register(page: Page, base: str, name: str) -> None:
    page.goto(base + "/")
    account_form(page, "register", name)
    expect(page.get_by_role("group", name="Account").locator(".account-name")).to_have_text(name)


def lobby_settled(page: Page) -> None:
    """The lobby socket's first message has been drawn (the open tables and quick play's
    state come in it together)."""
    expect(page.get_by_role("list", name="Open tables")).to_contain_text(re.compile(r"\S"))
    expect(page.locator(".quick-status")).not_to_contain_text("Matched")


def above(page: Page, first: str, second: str) -> bool:
    """Whether the element ``first`` starts above ``second`` on the page (or level with it, to its left)."""
    a, b = page.locator(first).bounding_box(), page.locator(second).bounding_box()
    assert a and b, (first, second)
    return (a["y"], a["x"]) < (b["y"], b["x"])


def test_back_to_the_lobby_after_a_match_and_a_rematch_then_log_out_at_the_table(
        server: Server, contexts: Contexts) -> None:
    ann_page, bob_page = contexts.page(), contexts.phone()
    register(ann_page, server.base, "Ann_walk")
    register(bob_page, server.base, "Bob_walk")
    for page in (ann_page, bob_page):
        card = page.locator(".quick-play")
        card.get_by_label("Quick play: players").select_option("2")
        card.get_by_label("Quick play: board side").select_option("5")
    ann_page.locator(".quick-play").get_by_role("button", name="Play").click()
    expect(ann_page.locator(".quick-status")).to_contain_text("Waiting for 1 other player")
    bob_page.locator(".quick-play").get_by_role("button", name="Play").click()
    for page in (ann_page, bob_page):
        expect(page).to_have_url(TABLE_URL)
    first = TablePage(ann_page).table_id

    # Back to the lobby while the game is on: the lobby stays, with a way back to the game.
    ann_page.goto(server.base + "/")
    lobby_settled(ann_page)
    expect(ann_page.locator(".quick-status")).to_contain_text(f"Your quick-play game: Table {first}")
    expect(ann_page).to_have_url(server.base + "/")
    # My tables and History come before the New table form; "Your tables" (this device's
    # links) says where the account's tables are.
    expect(ann_page.locator(f'.account-row[data-account-table="{first}"]')).to_be_visible()
    assert above(ann_page, ".account-lists", ".new-table")
    expect(ann_page.get_by_role("list", name="Your tables on this device")).to_contain_text(
        "Your account's tables are under My tables")
    shot(ann_page, "visitor-lobby-returning")
    ann_page.locator(".quick-status").get_by_role("link").click()
    expect(ann_page).to_have_url(re.compile(rf"/t/{first}$"))

    # Bob resigns; Ann proposes a rematch, Bob accepts: both pages open the new table.
    bob_page.get_by_role("button", name="Resign…").click()
    bob_page.get_by_role("button", name="Yes, resign").click()
    expect(ann_page.locator(".gameover")).to_be_visible()
    ann_page.locator(".gameover").get_by_role("button", name="Rematch").click()
    bob_page.locator(".rematch").get_by_role("button", name="Accept rematch").click()
    for page in (ann_page, bob_page):
        expect(page).not_to_have_url(re.compile(rf"/t/{first}"))
        expect(page).to_have_url(TABLE_URL)
    second = TablePage(ann_page).table_id

    # The lobby opened again, from the leaderboard, within the two minutes the server
    # reports a match: both players see the lobby, not the finished first table.
    for page in (ann_page, bob_page):
        page.goto(server.base + "/leaderboard/2")
        page.get_by_role("link", name="Omega").first.click()
        expect(page).to_have_url(server.base + "/")
        lobby_settled(page)
        expect(page.locator(".quick-status")).not_to_contain_text(first)
        expect(page).to_have_url(server.base + "/")
        expect(page.locator(".account-lists")).to_be_visible()
        assert above(page, ".account-lists", ".new-table")
    shot(bob_page, "phone-visitor-lobby-returning")

    # Back at the rematch, opened by the account (no link): Ann logs out in another tab.
    for page in (ann_page, bob_page):
        page.locator(f'.account-row[data-account-table="{second}"] a').click()
        expect(page).to_have_url(re.compile(rf"/t/{second}$"))
    ann, bob = TablePage(ann_page), TablePage(bob_page)
    for player in (ann, bob):
        expect(player.prompt).to_contain_text(re.compile("Your turn|Waiting for"))
        expect(player.prompt).not_to_contain_text("watching")
    second_tab = Contexts.new_page(ann_page.context)
    second_tab.goto(server.base + "/")
    second_tab.get_by_role("group", name="Account").get_by_role("button", name="Log out").click()
    expect(second_tab.get_by_role("group", name="Account").locator('details[data-menu="register"]')).to_be_visible()
    # At once, without a reload: Ann's table is a visitor's (a rated table anyone may
    # watch): no seat, no Confirm, no "Your turn".
    expect(ann.prompt).to_contain_text("watching")
    expect(ann.prompt).not_to_contain_text("Your turn")
    expect(ann.confirm).to_have_count(0)
    expect(ann_page).not_to_have_title(re.compile("^●"))
    shot(ann_page, "visitor-logged-out-at-the-table")
    # Bob logs out at the table itself: the same.
    bob_page.get_by_role("group", name="Account").get_by_role("button", name="Log out").click()
    expect(bob.prompt).to_contain_text("watching")
    expect(bob.confirm).to_have_count(0)
    shot(bob_page, "phone-visitor-logged-out-at-the-table")


def test_a_pasted_link_opens_the_table_and_the_chat_counts_what_is_left(server: Server, contexts: Contexts) -> None:
    host_page, visitor_page = contexts.page(), contexts.phone()
    host = create_table(host_page, server.base, players=3, seats=["human", "human", QUICK], name="Host")
    # The computer is named by its level in words, the same as the server names it.
    expect(host.panel("Red")).to_contain_text(computer_name(QUICK))
    expect(host.panel("Red")).not_to_contain_text(", level")
    invite = host.invite_links()[0]
    watch = host.spectator_link()

    # A bare address: the table needs a link. Pasting the spectator link changes only the
    # fragment; the page opens the table as a spectator without a reload.
    visitor_page.goto(f"{server.base}/t/{host.table_id}")
    expect(visitor_page.locator("[data-problem]")).to_contain_text("This table needs a link")
    shot(visitor_page, "phone-visitor-needs-a-link")
    visitor_page.evaluate("link => { location.href = link; }", watch)
    visitor = TablePage(visitor_page)
    expect(visitor.prompt).to_contain_text("watching")
    expect(visitor.panel("White")).to_contain_text("Host")
    # Then the invite: the same tab takes Black's seat (and is asked for a name).
    visitor_page.evaluate("link => { location.href = link; }", invite)
    expect(visitor_page.get_by_role("region", name="Choose a name")).to_be_visible()
    visitor_page.get_by_label("Name to play under").fill("Guest")
    visitor_page.get_by_role("button", name="Use this name").click()
    expect(host.panel("Black")).to_contain_text("Guest")
    expect(visitor.prompt).not_to_contain_text("watching")

    # The chat's counter against the server's limit; a longer message is refused in words
    # and kept whole (the page never cuts it).
    limit = int(server.request("GET", "/api/config", None)["chat_max"])
    chat = visitor_page.locator("section.chat")
    line = chat.locator(".chat-input")
    expect(chat.locator(".chat-count")).to_have_text(f"{limit} characters left")
    line.fill("hello")
    expect(chat.locator(".chat-count")).to_have_text(f"{limit - 5} characters left")
    too_long = "x" * (limit + 7)
    line.fill(too_long)
    expect(line).to_have_value(too_long)
    expect(chat.locator(".chat-count")).to_have_text(f"7 characters too many (at most {limit})")
    chat.get_by_role("button", name="Send").click()
    expect(chat.locator(".chat-error")).to_have_text(
        f"A message has at most {limit} characters; this one has {limit + 7}. Shorten it to send it.")
    expect(line).to_have_value(too_long)
    shot(visitor_page, "phone-visitor-chat-too-long")
    line.fill("x" * limit)
    expect(chat.locator(".chat-count")).to_have_text("0 characters left")
    chat.get_by_role("button", name="Send").click()
    expect(host_page.locator("section.chat .chat-lines li .chat-text")).to_have_text(["x" * limit])
    expect(host_page.locator("section.chat .chat-lines li")).to_have_count(1)


def test_the_registration_form_says_the_rules_and_page_and_server_agree(server: Server, contexts: Contexts) -> None:
    page = contexts.page()
    page.goto(server.base + "/")
    # A visitor's first screen says how to play a person now and the computer, each a way there.
    now = page.locator(".play-now")
    for way in ("Quick play", "Open tables"):
        expect(now.get_by_role("link", name=way)).to_be_visible()
    for way in ("Invite a friend", "Play the computer"):
        expect(now.get_by_role("button", name=way)).to_be_visible()
    # Quick play's choice is there for a guest too, Play off with the reason beside it.
    quick = page.locator(".quick-play")
    expect(quick.get_by_label("Quick play: players")).to_be_visible()
    expect(quick.get_by_role("button", name="Play")).to_be_disabled()
    expect(quick.locator(".quick-status")).to_have_text("Log in to play rated games.")
    # One create form with every option; what a guest cannot choose is off, with the reason.
    create_form = page.get_by_role("form", name="New table")
    expect(create_form.locator("#rated")).to_be_disabled()
    expect(create_form.locator(".rated-row")).to_contain_text("log in to play rated")
    expect(create_form.get_by_label("Anyone (an open table in the lobby)")).to_be_disabled()
    expect(create_form.locator(".guest-note")).to_contain_text("A guest plays friends by invite link, or the computer.")
    for option in ("Players", "Board side", "Pie rule", "Clock", "Allow hints", "Seats"):
        expect(create_form).to_contain_text(option)
    now.get_by_role("button", name="Invite a friend").click()
    expect(page.locator('select.seat-kind[data-seat="1"]')).to_have_value("human")
    expect(create_form.get_by_role("button", name="Create table")).to_be_focused()
    shot(page, "visitor-lobby-guest")
    area = page.get_by_role("group", name="Account")
    area.locator('details[data-menu="register"] > summary').click()
    form = area.locator('form[data-form="register"]')
    # The rules, in the server's words (GET /api/config), beside their fields.
    expect(form.locator('[data-rule="username"]')).to_have_text(sentence(USERNAME_RULE))
    expect(form.locator('[data-rule="password"]')).to_have_text(sentence(PASSWORD_RULE))
    shot(page, "visitor-register-rules")
    # Two letters: the rule says 3 at least. No minlength stops the form in the browser's
    # words: the server refuses it in the rule's words, which the form says.
    form.get_by_label("Username").fill("ab")
    form.get_by_label("Password").fill(PASSWORD)
    form.get_by_role("button", name="Register").click()
    expect(form.locator(".account-note")).to_contain_text(USERNAME_RULE)
    expect(area.locator(".account-name")).to_have_count(0)
    r = httpx.post(f"{server.base}/api/account/register", json={"username": "ab", "password": PASSWORD},
                   headers={"origin": server.base})
    assert r.status_code == 400 and USERNAME_RULE in r.json()["error"]["message"], r.text
    # A short password likewise; then a good pair registers.
    form.get_by_label("Username").fill("Ada")
    form.get_by_label("Password").fill("short")
    form.get_by_role("button", name="Register").click()
    expect(form.locator(".account-note")).to_contain_text(PASSWORD_RULE)
    form.get_by_label("Password").fill(PASSWORD)
    form.get_by_role("button", name="Register").click()
    expect(area.locator(".account-name")).to_have_text("Ada")
    # Logged in with no table yet: the lobby's lists say so, before the New table form.
    expect(page.get_by_role("list", name="My tables")).to_contain_text("No unfinished tables")
    assert above(page, ".account-lists", ".new-table")
    # Logged in, the same form offers the lobby and rated games; Play is on.
    expect(create_form.locator("#rated")).to_be_enabled()
    expect(create_form.get_by_label("Anyone (an open table in the lobby)")).to_be_enabled()
    expect(create_form.locator(".guest-note")).to_be_hidden()
    expect(quick.get_by_role("button", name="Play")).to_be_enabled()
    # A table against the computer (the default level): its name in words at the table and in My tables.
    now.get_by_role("button", name="Play the computer").click()
    create = page.get_by_role("button", name="Create table")
    create.click()
    expect(page).to_have_url(re.compile(r"/t/[A-Za-z0-9_-]+#seat="))
    table = TablePage(page)
    expect(table.panel("Black")).to_contain_text(computer_name(DEFAULT_LEVEL))
    table_id = table.table_id
    page.goto(server.base + "/")
    expect(page.locator(f'.account-row[data-account-table="{table_id}"]')).to_contain_text(
        f"White with {computer_name(DEFAULT_LEVEL)}")
    shot(page, "visitor-lobby-logged-in")
