"""An automatic accessibility check (axe-core) of the lobby, a live table and a finished game.

axe-core comes from npm as a development dependency and is put into the test's page by the
test itself; the page's own files never load it. The test's browser context ignores the
page's Content-Security-Policy for that one injected script (the page's CSP is checked in
test_security.py).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from omega_page import QUICK, ROOT, Contexts, Server, create_table
from playwright.sync_api import Page, expect

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
SEVERE = {"serious", "critical"}


def severe_violations(page: Page) -> list[str]:
    """Every serious or critical violation axe finds on the page as it is now."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        # make test (and make e2e) install it with npm ci; without it this fails, never skips.
        assert AXE.is_file(), f"{AXE} is missing: run npm ci (make test does)"
        page.add_script_tag(path=str(AXE))
    result: dict[str, Any] = page.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes'][:3]]}"
        for v in result["violations"] if v["impact"] in SEVERE
    ]


@pytest.mark.slow
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_no_serious_violation_on_the_lobby_a_live_table_and_the_end(
    server: Server, contexts: Contexts, theme: str
) -> None:
    page = contexts.page(bypass_csp=True, color_scheme=theme)
    page.goto(server.base + "/")
    expect(page.get_by_role("button", name="Create table")).to_be_enabled()
    assert severe_violations(page) == []

    table = create_table(page, server.base, players=3, seats=["human", QUICK, "human"])
    expect(page.locator(".invite-card")).to_be_visible()
    assert severe_violations(page) == []
    table.start_now()
    table.play_turn(["White", "Black", "Red"], random.Random(2))
    table.cell("e5").hover()
    assert severe_violations(page) == []

    # A finished game: the only person at a table with a computer resigns, which ends it.
    create_table(page, server.base, players=2, seats=["human", QUICK])
    page.get_by_role("button", name="Resign…").click()
    page.get_by_role("button", name="Yes, resign").click()
    expect(page.locator(".gameover")).to_be_visible(timeout=30_000)
    assert severe_violations(page) == []


def test_no_serious_violation_on_the_community_pages(server: Server, contexts: Contexts) -> None:
    """A profile seen by another player (follow, block, challenge, report), the live list,
    the tournaments, the account panel, and the moderators' console."""
    from datetime import UTC, datetime

    from sqlalchemy import create_engine
    from test_accounts import PASSWORD

    from omega.server.accounts.roles import grant

    pages = {}
    for name in ("Axe_ann", "Axe_mod"):
        page = contexts.page(bypass_csp=True)
        page.goto(server.base + "/")
        answer = page.request.post(f"{server.base}/api/account/register", data={"username": name, "password": PASSWORD},
                                   headers={"Origin": server.base})
        assert answer.status == 201, answer.text()
        pages[name] = page
    engine = create_engine(f"sqlite:///{server.db_path}")
    with engine.begin() as conn:
        grant(conn, "Axe_mod", "moderator", datetime.now(UTC))
    engine.dispose()
    ann, mod = pages["Axe_ann"], pages["Axe_mod"]
    ann.goto(f"{server.base}/u/Axe_mod")
    expect(ann.get_by_role("group", name="You and Axe_mod")).to_be_visible()
    ann.get_by_role("button", name="Challenge").first.click()
    assert severe_violations(ann) == []
    for path, ready in (("/watch", "Watch"), ("/tournaments", "Tournaments"), ("/puzzles", "Puzzles")):
        ann.goto(server.base + path)
        expect(ann.get_by_role("heading", name=ready).first).to_be_visible()
        assert severe_violations(ann) == [], path
    ann.goto(server.base + "/")
    area = ann.get_by_role("group", name="Account")
    expect(area.locator(".account-name")).to_have_text("Axe_ann")
    area.get_by_text("Account", exact=True).click()
    expect(ann.get_by_text("Download my data")).to_be_visible()
    assert severe_violations(ann) == []
    mod.goto(server.base + "/mod")
    expect(mod.get_by_role("heading", name="Moderation")).to_be_visible()
    assert severe_violations(mod) == []
