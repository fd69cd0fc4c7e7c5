"""The review's who-cost-whom-what and its score scale in the page: a 3-player game against
two computers, ended by the person's resignation, reviewed; the account's table and picture
show the numbers the rules give (omega.costs), and the toggle puts the graph on the score
scale and back."""

from __future__ import annotations

import random

import pytest
from omega_page import QUICK, Contexts, Server, create_table, engine_order, shot
from playwright.sync_api import expect

from omega import Color
from omega.costs import account

REVIEW_WAIT_MS = 90_000  # the computer searches every position of the game


@pytest.mark.slow
def test_who_cost_whom_and_the_score_scale(server: Server, contexts: Contexts) -> None:
    rng = random.Random(33)
    page = contexts.page()
    table = create_table(page, server.base, players=3, seats=["human", QUICK, QUICK], name="Ann")
    first = table.play_turn(engine_order(3, 0), rng)
    table.wait_my_turn("White")
    # The second turn puts each colour's stone beside the first: each gains (a group of 2).
    game = server.game(table.table_id, table.token)
    beside = [next(game.board.cells[n] for n in game.board.neighbours[game.board.index(cell)]
                   if game.stone(game.board.cells[n]) is None) for cell in first]
    table.play_turn(engine_order(3, 0), rng, beside)
    table.wait_my_turn("White")
    page.get_by_role("button", name="Resign…").click()
    page.get_by_role("button", name="Yes, resign").click()  # no person left: the game ends

    review = page.locator("section.review")
    review.get_by_role("button", name="Review this game").click()
    graph = review.locator("svg.eval")
    expect(graph).to_be_visible(timeout=REVIEW_WAIT_MS)
    expect(graph).to_have_attribute("data-scale", "chance")

    # The table: a row per seat, a column per colour, the rules' own account of the game.
    game = server.game(table.table_id, table.token)
    assert len(game.history) == 6
    expected = account(game)
    costs = review.locator("table.review-costs")
    expect(costs).to_be_visible()
    expect(costs.locator("tbody tr[data-seat]")).to_have_count(3)
    expect(costs.locator("tr[data-seat='0'] th")).to_have_text("Ann (White)")
    for seat in range(3):
        for color in (Color.WHITE, Color.BLACK, Color.RED):
            net = expected.net[seat][color]
            text = "0.00" if f"{abs(net):.2f}" == "0.00" else f"{'−' if net < 0 else '+'}{abs(net):.2f}"
            expect(costs.locator(f"tr[data-seat='{seat}'] td[data-color='{color.label}']")).to_have_text(text)
    expect(costs.locator("tr.final td[data-color='Red']")).to_have_text(f"{expected.final[Color.RED]:.2f}")
    # The picture: one square for each seat and colour whose account is not 0.
    picture = review.locator("svg.costs-picture")
    expect(picture).to_be_visible()
    assert all(v > 0 for v in expected.gain[0])  # Ann's second turn
    expect(picture.locator("rect")).to_have_count(sum(1 for row in expected.net for v in row if v != 0))
    expect(picture.locator("rect[data-seat='0'][data-color='White']")).to_have_class("gain")

    # The toggle: the same lines on the score scale, then back to the win chance.
    chance = graph.locator("polyline.line-red").get_attribute("points")
    review.get_by_role("button", name="Score margin").click()
    expect(review.locator("svg.eval")).to_have_attribute("data-scale", "score")
    expect(review.get_by_role("button", name="Score margin")).to_have_attribute("aria-pressed", "true")
    score = review.locator("svg.eval polyline.line-red").get_attribute("points") or ""
    assert score != chance and len(score.split()) == 7  # the empty board, then six entries
    assert score.split()[0].endswith(",55")  # no stones, no margin: the middle line
    picture.scroll_into_view_if_needed()
    shot(page, "review-costs")
    review.get_by_role("button", name="Win chance").click()
    expect(review.locator("svg.eval")).to_have_attribute("data-scale", "chance")
    assert review.locator("svg.eval polyline.line-red").get_attribute("points") == chance
