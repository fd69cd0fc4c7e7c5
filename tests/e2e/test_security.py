"""The page lives within its Content-Security-Policy: no inline script, no foreign source.

Chromium reports every blocked load or script as a ``securitypolicyviolation`` event; the
test records them from the first script on, through the lobby, a live table and the end of
a game, and expects none.
"""

from __future__ import annotations

import random

import pytest
from omega_page import QUICK, Contexts, Server, create_table
from playwright.sync_api import Page, expect

RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`);
});
"""


def violations(page: Page) -> list[str]:
    return list(page.evaluate("window.__cspViolations"))


@pytest.mark.slow
def test_the_page_raises_no_content_security_policy_violation(server: Server, contexts: Contexts) -> None:
    page = contexts.page()
    page.add_init_script(RECORD_VIOLATIONS)
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text) if "Content Security Policy" in m.text else None)
    response = page.goto(server.base + "/")
    assert response is not None and "script-src 'self'" in response.headers["content-security-policy"]
    expect(page.get_by_role("button", name="Create table")).to_be_visible()
    assert violations(page) == []
    table = create_table(page, server.base, players=2, seats=["human", QUICK])
    table.play_turn(["White", "Black"], random.Random(3))
    table.cell("a1").hover()
    assert violations(page) == []
    page.get_by_role("button", name="Resign…").click()
    page.get_by_role("button", name="Yes, resign").click()
    expect(page.locator(".gameover")).to_be_visible(timeout=30_000)
    assert violations(page) == [] and console == []
