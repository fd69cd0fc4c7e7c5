"""Moderation in the page: a player reports another's chat message from the table, a
moderator (granted with ``omega admin grant``) finds it in the console at /mod with the
message, mutes the writer for 10 minutes, and the writer's next message is refused with
"muted until ..."; a report from a profile, and the console refused to a player."""

from __future__ import annotations

import subprocess
import sys

from omega_page import ROOT, Contexts, Server
from playwright.sync_api import Page, expect


def registered(contexts: Contexts, server: Server, username: str) -> Page:
    """A browser logged in as the new account ``username`` (registered by the page's own
    request, which keeps the cookie)."""
    page = contexts.page()
    r = page.request.post(server.base + "/api/account/register", headers={"origin": server.base},
                          data={"username": username, "password": "correct horse battery"})
    assert r.status == 201, r.text()
    return page


def post(page: Page, server: Server, path: str, body: object = None) -> dict[str, object]:
    r = page.request.post(server.base + path, headers={"origin": server.base}, data=body if body is not None else {})
    assert r.status in (200, 201), r.text()
    return dict(r.json())


def test_a_reported_chat_message_reaches_the_console_and_the_mute_reaches_the_writer(
        server: Server, contexts: Contexts) -> None:
    ann, bob, mod = (registered(contexts, server, n) for n in ("Ann_mod", "Bob_mod", "Mod_mod"))
    granted = subprocess.run([sys.executable, "-m", "omega.cli", "admin", "grant", "Mod_mod", "moderator",
                              "--db", f"sqlite:///{server.db_path}"], capture_output=True, text=True, cwd=ROOT)
    assert granted.returncode == 0, granted.stderr
    table_id = post(ann, server, "/api/lobby/tables", {"players": 2})["id"]
    post(bob, server, f"/api/lobby/tables/{table_id}/take")

    bob.goto(f"{server.base}/t/{table_id}")
    expect(bob.locator(".conn")).to_have_attribute("data-state", "live")
    bob_chat = bob.get_by_role("region", name="Chat")
    bob_chat.get_by_role("textbox", name="Message").fill("you play like a potato")
    bob_chat.get_by_role("button", name="Send").click()
    expect(bob_chat.locator(".chat-lines li.mine .chat-text")).to_have_text("you play like a potato")

    ann.goto(f"{server.base}/t/{table_id}")
    ann_chat = ann.get_by_role("region", name="Chat")
    line = ann_chat.locator(".chat-lines li", has_text="you play like a potato")
    line.get_by_role("button", name="Report").click()
    form = ann_chat.get_by_role("form", name="Report Bob_mod's message")
    expect(form.get_by_label("Reason")).to_have_value("chat_abuse")
    form.get_by_label("What happened").fill("insults at the table")
    form.get_by_role("button", name="Send report").click()
    expect(form.get_by_role("status")).to_have_text("Reported. A moderator will look at it.")

    # A moderator finds the console in the account panel.
    mod.goto(f"{server.base}/")
    mod.get_by_role("group", name="Account").get_by_text("Account", exact=True).click()
    mod.get_by_role("link", name="Moderators' console").click()
    expect(mod).to_have_url(f"{server.base}/mod")
    report = mod.locator(".report-item[data-status=open]", has_text="Bob_mod")
    expect(report.locator(".report-message")).to_have_text("Bob_mod: you play like a potato")
    expect(report.locator(".report-words")).to_have_text("“insults at the table”")
    act = report.locator("form.mod-act")
    act.get_by_label("Action").select_option("mute")
    act.get_by_label("Minutes").fill("10")
    act.get_by_label("Reason").fill("insults")
    act.get_by_role("button", name="Do it").click()
    expect(mod.locator(".report-item[data-status=actioned]", has_text="Bob_mod")).to_contain_text("actioned by Mod_mod")
    expect(mod.locator(".action-log")).to_contain_text("Mod_mod: mute Bob_mod until")

    bob_chat.get_by_role("textbox", name="Message").fill("sorry")
    bob_chat.get_by_role("button", name="Send").click()
    expect(bob_chat.locator(".chat-error")).to_contain_text("You are muted until")
    expect(bob_chat.get_by_role("textbox", name="Message")).to_have_value("sorry")  # the message comes back to the line
    # The account panel says so too, until when.
    bob.get_by_role("group", name="Account").get_by_text("Account", exact=True).click()
    expect(bob.locator(".account-standing")).to_contain_text("You are muted until")


def test_a_report_from_a_profile_and_the_console_refused_to_a_player(server: Server, contexts: Contexts) -> None:
    registered(contexts, server, "Dan_mod").close()
    eve = registered(contexts, server, "Eve_mod")
    eve.goto(f"{server.base}/u/Dan_mod")
    eve.get_by_role("button", name="Report").click()
    form = eve.get_by_role("form", name="Report Dan_mod")
    form.get_by_label("Reason").select_option("stalling")
    form.get_by_label("What happened").fill("lets his clock run in every lost game")
    form.get_by_role("button", name="Send report").click()
    expect(form.get_by_role("status")).to_have_text("Reported. A moderator will look at it.")
    eve.goto(f"{server.base}/mod")
    expect(eve.locator("[data-problem=refused]")).to_contain_text("only moderators may do this")
