"""The puzzle page in a browser: a logged-in player opens /puzzles from the lobby, solves the
puzzle by placing its answer's stones and sees their puzzle rating rise, then misses the next
one and sees it fall, with the answer and the engine's line shown after each."""

from __future__ import annotations

import re

from omega_page import Contexts, Server
from playwright.sync_api import Page, expect
from test_watch_page import registered

from omega.puzzles.format import Puzzle, shipped_puzzles

SHIPPED = {p.id: p for p in shipped_puzzles()}


def placing_order(p: Puzzle) -> list[int]:
    """The colours the player places, as the page asks for them: their own first."""
    mover = len(p.moves) % p.players
    order = [(mover + i) % p.players for i in range(p.players)]
    return [c for c in order if p.given[c] is None]


def shown_puzzle(page: Page) -> Puzzle:
    task = page.locator("[data-puzzle-task]")
    expect(task).to_have_attribute("data-puzzle", re.compile(r"."))
    return SHIPPED[str(task.get_attribute("data-puzzle"))]


def play(page: Page, p: Puzzle, turn: list[str]) -> None:
    for color in placing_order(p):
        page.locator(f'g.cell[data-cell="{turn[color]}"]').click()
    page.get_by_role("button", name="Play this turn").click()


def rating(page: Page) -> int:
    return int(str(page.locator("[data-puzzle-rating]").get_attribute("data-rating")))


def test_solve_one_and_miss_one_and_see_the_rating_move(server: Server, contexts: Contexts) -> None:
    page = contexts.page()
    registered(page, server.base, "Ann_puzzles")
    page.goto(server.base + "/")
    page.get_by_role("link", name="Puzzles").click()
    expect(page).to_have_url(re.compile(r"/puzzles/[0-9a-f]+$"))
    p = shown_puzzle(page)
    expect(page.locator("[data-puzzle-rating]")).to_have_attribute("data-rating", "1500")
    expect(page.locator("[data-puzzle-task]")).to_contain_text(f"{p.to_move} to move")

    play(page, p, list(p.answer))
    expect(page.locator(".puzzle-verdict")).to_have_attribute("data-verdict", "right")
    expect(page.locator(".puzzle-line")).to_contain_text("The engine's line")
    expect(page.locator("[data-puzzle-rating]")).not_to_have_attribute("data-rating", "1500")
    solved = rating(page)
    assert solved > 1500
    expect(page.locator("[data-puzzle-rating]")).to_contain_text("+")

    page.get_by_role("button", name="Next puzzle").click()
    expect(page.locator("[data-puzzle-task]")).not_to_have_attribute("data-puzzle", p.id)
    q = shown_puzzle(page)
    # The first stone to find put on a cell the answer leaves empty (the last turn of a game
    # leaves only one).
    free = next(c for c in q.game().empty_cells() if c not in q.answer)
    wrong = [free if i == placing_order(q)[0] else cell for i, cell in enumerate(q.answer)]
    play(page, q, wrong)
    expect(page.locator(".puzzle-verdict")).to_have_attribute("data-verdict", "wrong")
    expect(page.locator("[data-puzzle-rating]")).not_to_have_attribute("data-rating", str(solved))
    assert rating(page) < solved
    # The answer is drawn on the board beside the stones the player placed.
    expect(page.locator("[data-puzzle-rating]")).to_contain_text("−")
