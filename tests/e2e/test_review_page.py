"""The review of a finished game in the page: asked for by a player, its progress, the
evaluation graph (one line per colour; a click shows that position), the played and the best
turn together on the board, each player's mistakes; a spectator's page gets it live; and
axe-core finds no serious or critical violation on it (the review is one of the four pages
issue 34 names, with the lobby, the table and the profile: test_accessibility.py)."""

from __future__ import annotations

import random
import re

import pytest
from omega_page import QUICK, Contexts, Server, TablePage, create_table, engine_order, shot
from playwright.sync_api import expect
from test_accessibility import severe_violations

REVIEW_WAIT_MS = 90_000  # the computer searches every position of the game


@pytest.mark.slow
def test_review_after_the_game(server: Server, contexts: Contexts) -> None:
    rng = random.Random(13)
    page = contexts.page(bypass_csp=True)  # the accessibility checker is put into the page
    table = create_table(page, server.base, players=2, seats=["human", QUICK], name="Ann")
    watcher = TablePage(contexts.page())
    watcher.page.goto(f"{server.base}/t/{table.table_id}#watch={_spectator_key(table)}")
    review = page.locator("section.review")
    expect(review).to_be_hidden()  # no review while the game is on
    played = []
    for _ in range(3):
        played.append(table.play_turn(engine_order(2, 0), rng))
        table.wait_my_turn("White")
    page.get_by_role("button", name="Resign…").click()
    page.get_by_role("button", name="Yes, resign").click()

    # The game is over: a review can be asked for; the spectator sees the same section.
    expect(review).to_be_visible()
    ask = review.get_by_role("button", name="Review this game")
    expect(ask).to_be_visible()
    expect(watcher.page.locator("section.review")).to_be_visible()
    ask.click()
    expect(ask).to_be_hidden()
    graph = review.locator("svg.eval")
    expect(graph).to_be_visible(timeout=REVIEW_WAIT_MS)
    expect(graph.locator("polyline.line")).to_have_count(2)
    assert graph.locator("polyline.line-white").get_attribute("points")
    # The spectator's page was told by its socket, without a reload.
    expect(watcher.page.locator("section.review svg.eval polyline.line")).to_have_count(2, timeout=REVIEW_WAIT_MS)

    # Six turns (mine and the computer's): 7 points a line, the empty board first.
    points = (graph.locator("polyline.line-black").get_attribute("points") or "").split()
    assert len(points) == 7
    # Each player's mistakes (or none found), under the player's name.
    lists = review.locator(".review-player")
    expect(lists).to_have_count(2)
    expect(lists.nth(0).locator("h3")).to_have_text("Ann")

    # A click on the graph shows that position in the replay: after my first turn, with the
    # turn I played on the board and the best one found as ghost stones beside it.
    box = graph.bounding_box()
    assert box is not None
    x = box["width"] * (6 + 1 * (300 - 12) / 6) / 300
    graph.click(position={"x": x, "y": box["height"] / 2})
    expect(page.locator(".replay-pos")).to_have_text("After move 1 of 6")
    caption = review.locator(".review-turn")
    expect(caption).to_contain_text(re.compile(r"^Turn 1, White: played " + " ".join(played[0])))
    for cell, color in zip(played[0], ("White", "Black"), strict=True):
        expect(table.cell(cell)).to_have_attribute("data-stone", color)
    text = caption.text_content() or ""
    if "the best found" not in text:
        best = text.split("; best ")[1].split(" (")[0].split()
        for cell, color in zip(best, ("White", "Black"), strict=True):
            if cell not in played[0]:
                expect(table.cell(cell)).to_have_attribute("data-best", color)
        expect(page.locator("g.stone.ghost.best")).to_have_count(len(set(best) - set(played[0])))
    assert severe_violations(page) == []  # the graph, the lists and the best turn shown
    # Back to the end: the last turn and its own best.
    page.get_by_role("button", name="Live position").click()
    expect(caption).to_contain_text("Turn 6, Black")
    shot(page, "review")


def _spectator_key(table: TablePage) -> str:
    return table.spectator_link().split("#watch=")[1]
