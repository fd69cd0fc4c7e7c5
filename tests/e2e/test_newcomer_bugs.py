"""What broke when the page was tried as a new player would, one test per bug.

Each test reproduces the walk that found the bug: a pie swap seen from the creator's side,
a server that comes back, links that cannot open a table, addresses that are no page, the
wording of a few lines, and the move log's colours.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest
from omega_page import Contexts, Server, TablePage, create_table
from playwright.sync_api import Page, expect


def act(server: Server, table_id: str, token: str, action: dict[str, Any], rid: str) -> Any:
    return server.request("POST", f"/api/tables/{table_id}/actions", token, {**action, "request_id": rid})


def humans(server: Server, players: int, **kw: Any) -> tuple[str, dict[str, str]]:
    """A table of people only, made through the API: its id and every seat's token."""
    created = server.request("POST", "/api/tables", None, {
        "players": players, "seats": [{"kind": "human"}] * players, "name": "Ann", **kw})
    return created["id"], created["invites"]


@pytest.mark.slow
def test_the_links_box_follows_a_pie_swap(server: Server, contexts: Contexts) -> None:
    """Bug 1: after a swap the creator's Links box named seat 2 by its old colour."""
    ann = create_table(contexts.page(), server.base, players=2, seats=["human", "human"], pie=True)
    bo_token = ann.invite_links()[0].split("#seat=")[1]
    server.request("GET", f"/api/tables/{ann.table_id}", bo_token)  # Bo opens his invite
    line = ann.page.locator(".links .invites li").first
    expect(line).to_contain_text("Invite for seat 2 (Black, Player 2)")
    act(server, ann.table_id, ann.token, {"type": "turn", "cells": ["e5", "a1"]}, "t1")
    act(server, ann.table_id, bo_token, {"type": "swap"}, "s1")
    expect(ann.panel("White")).to_contain_text("Player 2")
    expect(line).to_contain_text("Invite for seat 2 (White, Player 2)")
    # ... and the creator is told what the swap did to her.
    expect(ann.page.locator(".message")).to_have_text("Player 2 swapped colours: you now play Black.")
    server.request("POST", f"/api/tables/{ann.table_id}/name", bo_token, {"name": "Bo"})
    expect(line).to_contain_text("Invite for seat 2 (White, Bo)")


@pytest.mark.slow
def test_a_cannot_reach_the_server_error_goes_once_the_page_is_live_again(
    own_server: Server, contexts: Contexts
) -> None:
    """Bug 2: the error stayed on screen after the reconnection, until the next Confirm.
    Nor does the banner that says the connection is lost push the page down."""
    table = create_table(contexts.page(), own_server.base, players=2, seats=["human", "human"])
    page = table.page
    expect(page.locator(".conn")).to_have_attribute("data-state", "live")
    table.start_now()
    table.cell("e5").click()
    table.cell("b2").click()
    layout = page.locator(".layout").bounding_box()
    own_server.stop()
    expect(page.locator(".banner")).to_be_visible()
    during = page.locator(".layout").bounding_box()
    table.confirm.click()
    message = page.locator(".message")
    expect(message).to_contain_text("Cannot reach the server")
    own_server.start()
    expect(page.locator(".conn")).to_have_attribute("data-state", "live", timeout=30_000)
    expect(message).to_be_hidden()
    assert table.staged() == {"e5": "White", "b2": "Black"}
    assert during == layout


def expect_problem_page(page: Page, title: str, *, avoid: str | None = None) -> None:
    """One clear page: a title, a sentence and the way back; no table frame around it."""
    problem = page.locator(".problem")
    expect(problem.locator("h1")).to_have_text(title)
    expect(problem.get_by_role("link", name="Back to the lobby")).to_be_visible()
    expect(page.locator(".panel")).to_have_count(0)
    expect(page.locator(".conn")).to_have_count(0)
    if avoid:
        expect(problem).not_to_contain_text(avoid)


@pytest.mark.slow
def test_bad_links_each_get_one_clear_page(server: Server, contexts: Contexts) -> None:
    """Bug 3: bad links squeezed their message beside empty cards and a "connecting" that
    never ended, and some said the wrong thing."""
    table_id, _ = humans(server, 2)
    cases = [
        (f"/t/{table_id}#seat=garbage-garbage-garbage-garbage", "This invite link does not work", None),
        (f"/t/{table_id}#watch=garbage-garbage-garbage-garbage", "This spectator link does not work", "belongs to no seat"),
        ("/t/nosuchtab#seat=garbage-garbage-garbage-garbage", "No such table", None),
        ("/t/nosuchtab", "No such table", "needs an invite link"),
        (f"/t/{table_id}", "This table needs a link", None),
    ]
    for path, title, avoid in cases:
        page = contexts.page()  # a device that remembers no link
        page.goto(server.base + path)
        expect_problem_page(page, title, avoid=avoid)
    expect(page.locator(".problem")).to_contain_text("needs an invite link")


def test_unknown_paths_show_a_page_and_the_api_keeps_json(server: Server, contexts: Contexts) -> None:
    """Bug 4: /t/ and /nonsense/path answered raw JSON."""
    page = contexts.page()
    for path in ("/t/", "/nonsense/path", "/t/not.an.id"):
        response = page.goto(server.base + path)
        assert response is not None
        if path != "/t/not.an.id":  # the page's own address form, served as the page
            assert response.status == 404 and response.headers["content-type"].startswith("text/html")
        expect_problem_page(page, "Page not found")
    try:
        urllib.request.urlopen(server.base + "/api/nothing-here", timeout=10)
        raise AssertionError("an unknown API path answered")
    except urllib.error.HTTPError as e:
        assert e.code == 404 and json.load(e)["error"]["code"] == "not_found"


def one_turn_table(server: Server, contexts: Contexts) -> TablePage:
    """Two people, White's first turn played (e5, a1), opened by White."""
    table_id, tokens = humans(server, 2)
    act(server, table_id, tokens["0"], {"type": "turn", "cells": ["e5", "a1"]}, "t1")
    page = contexts.page()
    page.goto(f"{server.base}/t/{table_id}#seat={tokens['0']}")
    return TablePage(page)


def test_wording_one_move(server: Server, contexts: Contexts) -> None:
    """Bug 5a: "Live: 1 moves"."""
    table = one_turn_table(server, contexts)
    expect(table.page.locator(".replay-pos")).to_have_text("Live: 1 move (← → step through)")


def test_wording_one_group(server: Server, contexts: Contexts) -> None:
    """Bug 5b: a one-group score read as a product, "1 = 1"."""
    table = one_turn_table(server, contexts)
    table.panel("White").hover()
    expect(table.panel("White").locator(".factors")).to_have_text("1 (one group)")


def test_wording_a_win_by_resignation(server: Server, contexts: Contexts) -> None:
    """Bug 5c: a game won by resignation said only "Black ... wins"."""
    table = one_turn_table(server, contexts)
    table.page.get_by_role("button", name="Resign…").click()
    table.page.get_by_role("button", name="Yes, resign").click()
    expect(table.prompt).to_have_text("Game over — Black (Player 2) wins by resignation")
    expect(table.page.locator(".gameover .ending")).to_have_text("The game ended by resignation.")


def test_the_move_log_shows_each_cell_as_a_stone_of_its_colour(server: Server, contexts: Contexts) -> None:
    """Bug 6: the log listed cells White-first whoever moved, told apart by faint underlines."""
    table_id, tokens = humans(server, 3)
    act(server, table_id, tokens["0"], {"type": "turn", "cells": ["e5", "a1", "c3"]}, "t1")
    act(server, table_id, tokens["1"], {"type": "turn", "cells": ["e4", "a2", "c4"]}, "t2")
    page = contexts.page()
    page.goto(f"{server.base}/t/{table_id}#seat={tokens['2']}")
    # Black's turn: Black's stone first, then Red's, then White's, each a stone of its colour.
    cells = page.locator('.log li[data-entry="2"] .cell')
    expect(cells).to_have_count(3)
    assert [c.get_attribute("data-color") for c in cells.all()] == ["Black", "Red", "White"]
    expect(cells.locator(".at")).to_have_text(["a2", "c4", "e4"])
    for color in ("black", "red", "white"):
        expect(page.locator(f'.log li[data-entry="2"] .cell.c-{color} .swatch.stone-{color}')).to_have_count(1)
    first = page.locator('.log li[data-entry="1"] .cell')
    assert [c.get_attribute("data-color") for c in first.all()] == ["White", "Black", "Red"]
