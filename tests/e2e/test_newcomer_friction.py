"""What slowed a new player down, each smoothed: inviting friends, feedback on a click off
turn, a side column that keeps the scores in view, a big board on a phone, the end of a
game, the settings, the keyboard on the board, and a layout that does not jump."""

from __future__ import annotations

import random
import re

import pytest
from omega_page import PHONE, QUICK, Contexts, Server, TablePage, create_table, engine_order, shot
from playwright.sync_api import Locator, Page, expect

LAPTOP = {"width": 1366, "height": 800}


def in_view(page: Page, locator: Locator) -> bool:
    box = locator.bounding_box()
    size = page.viewport_size
    assert box and size
    return box["y"] >= 0 and box["y"] + box["height"] <= size["height"] + 0.5


@pytest.mark.slow
def test_a_table_for_friends_waits_for_them_with_the_invite_in_view(server: Server, contexts: Contexts) -> None:
    page = contexts.phone()
    page.goto(server.base + "/")
    # The levels are described in words where they are chosen.
    expect(page.locator('.seat-row[data-seat="1"] .seat-note')).to_contain_text("Level 3: looks at a few turns")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]  # nothing wider than the phone
    page.get_by_label("Your name").fill("Ann")
    page.get_by_text("Friends (invite links)").click()
    expect(page.locator('select.seat-kind[data-seat="1"]')).to_have_value("human")
    expect(page.locator('.seat-row[data-seat="1"] .seat-note')).to_contain_text("invite link")
    page.get_by_role("button", name="Create table").click()
    ann = TablePage(page)
    expect(ann.cell("a1")).to_be_visible()

    # Inviting is the next step, on screen without scrolling; the first turn waits for Bo.
    card = page.locator(".invite-card")
    copy = card.get_by_role("button", name="Copy invite for Player 2")
    expect(copy).to_be_visible()
    assert in_view(page, copy)
    expect(ann.prompt).to_contain_text("Waiting for Player 2 to join.")
    ann.cell("e5").tap()
    expect(page.locator(".message")).to_contain_text("Waiting for Player 2 to join.")
    expect(page.locator("g.cell[data-staged]")).to_have_count(0)

    bo = TablePage(contexts.page())
    bo.page.goto(copy.get_attribute("data-copy") or "")
    expect(card).to_be_hidden()
    ann.wait_my_turn("White")
    # A click off one's turn says why nothing happens.
    bo.cell("e5").click()
    expect(bo.page.locator(".message")).to_have_text("It is not your turn: White (Ann) is to move.")

    # Ann's own link on another device: the links stay with the device that made the table.
    elsewhere = contexts.page()
    elsewhere.goto(page.url)
    expect(elsewhere.locator(".links .no-links")).to_contain_text("kept on the device that created this table")


@pytest.mark.slow
def test_the_side_column_keeps_scores_and_prompt_in_view(server: Server, contexts: Contexts) -> None:
    rng = random.Random(21)
    page = contexts.page(LAPTOP)
    table = create_table(page, server.base, players=4, seats=["human", QUICK, QUICK, QUICK])
    for _ in range(2):
        table.play_turn(engine_order(4, 0), rng)
    table.wait_my_turn("White")
    expect(table.log_entries()).to_have_count(8)
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    page.locator(".info").evaluate("el => el.scrollTop = el.scrollHeight")
    for color in ("White", "Black", "Red", "Blue"):
        assert in_view(page, table.panel(color)), color
    assert in_view(page, table.prompt)
    assert in_view(page, table.confirm)
    expect(page.get_by_label("Coordinates")).to_be_in_viewport()  # the rest scrolls under them


def tap(page: Page, cell: Locator, dx: float = 0, dy: float = 0) -> None:
    """A finger's tap at the centre of a cell, or ``dx, dy`` pixels from it."""
    box = cell.locator(".hex").bounding_box()
    assert box
    page.touchscreen.tap(box["x"] + box["width"] / 2 + dx, box["y"] + box["height"] / 2 + dy)


@pytest.mark.slow
def test_boards_of_side_5_8_and_10_on_a_phone_take_stones_by_taps_without_a_zoom(server: Server, contexts: Contexts) -> None:
    page = contexts.phone()
    for size in (5, 8, 10):
        table = create_table(page, server.base, players=2, seats=["human", QUICK], size=size)
        # The header keeps the table's name and its state whole on the phone.
        head = page.locator(".topbar")
        expect(head.locator(".table-title")).to_contain_text(f"Table {table.table_id} · side {size} · 2 players")
        expect(head.locator(".conn")).to_have_text("live")
        for part in (".table-title", ".conn"):
            assert head.locator(part).evaluate("el => el.scrollWidth <= el.clientWidth + 1"), (size, part)
        assert in_view(page, head)
        near, far = table.cell("a1"), table.cell(f"{chr(96 + 2 * size - 1)}{2 * size - 1}")
        box = near.locator(".hex").bounding_box()
        assert box
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], size
        aim = page.locator(".aim-bar")
        if box["width"] >= 36:  # side 5: a cell is a finger's target, a tap places
            tap(page, near)
            tap(page, far)
        else:
            # Smaller cells: a tap marks the cell, a second tap near it (off its centre by
            # more than a small cell's half, on a neighbour) or the Place button places.
            tap(page, near)
            expect(near).to_have_class(re.compile(r"\baimed\b"))
            expect(near).not_to_have_attribute("data-staged", re.compile("."))
            expect(aim).to_contain_text("a1: tap it again to place")
            tap(page, near, dx=box["width"] * 0.6)
            expect(near).to_have_attribute("data-staged", "White")
            tap(page, far)
            expect(far).to_have_class(re.compile(r"\baimed\b"))
            aim.get_by_role("button", name=re.compile("^Place ")).tap()
        expect(near).to_have_attribute("data-staged", "White")
        expect(far).to_have_attribute("data-staged", "Black")
        expect(aim).not_to_contain_text("tap it again")
        shot(page, f"phone-board-{size}-staged")
        table.confirm.tap()
        expect(near).to_have_attribute("data-stone", "White")
        expect(far).to_have_attribute("data-stone", "Black")


def test_the_end_says_where_i_finished_and_offers_the_next_game(server: Server, contexts: Contexts) -> None:
    page = contexts.page()
    table = create_table(page, server.base, players=3, seats=["human", QUICK, 2])
    table.play_turn(engine_order(3, 0), random.Random(5))
    table.wait_my_turn("White")
    page.get_by_role("button", name="Resign…").click()
    page.get_by_role("button", name="Yes, resign").click()
    gameover = page.locator(".gameover")
    expect(gameover.locator(".my-place")).to_have_text("You finished 3rd of 3.")
    expect(gameover.locator(".my-place")).to_be_in_viewport()  # the column scrolls back to it
    expect(gameover.locator("li.mine")).to_have_attribute("data-color", "White")
    expect(gameover.locator("li.mine .me-tag")).to_have_text("you")
    finished = page.url
    gameover.get_by_role("button", name="Rematch").click()
    expect(page).not_to_have_url(finished)
    rematch = TablePage(page)
    # The seats moved one place on (alone with computers, nobody else had to accept): the
    # level-2 computer of seat 3 opens as White, I play Black, the level-1 computer Red.
    expect(rematch.panel("White")).to_contain_text("computer · level 2")
    expect(rematch.panel("Red")).to_contain_text(f"computer · level {QUICK}")
    expect(rematch.panel("Black")).to_have_class(re.compile(r"\bmine\b"))
    rematch.wait_my_turn("Black")
    page.goto(finished)
    page.reload()
    page.locator(".gameover").get_by_role("button", name="New game").click()
    expect(page).to_have_url(server.base + "/")


def test_settings_are_kept_on_this_device(server: Server, contexts: Contexts) -> None:
    rng = random.Random(6)
    page = contexts.page()
    table = create_table(page, server.base, players=3, seats=["human", QUICK, QUICK])
    table.play_turn(engine_order(3, 0), rng)
    table.wait_my_turn("White")
    # Every turn since mine is marked with its number (the two computers' turns), mine not.
    expect(page.locator("g.cell[data-turn]")).to_have_count(6)
    assert sorted(set(page.eval_on_selector_all("g.cell[data-turn]", "els => els.map(e => e.dataset.turn)"))) == ["2", "3"]
    page.get_by_label("Marks since my last turn").uncheck()
    expect(page.locator("g.cell[data-turn]")).to_have_count(0)
    expect(page.locator("g.cell.last")).to_have_count(3)

    page.get_by_label("Sending a turn").select_option("auto")
    page.get_by_label("Theme").select_option("dark")
    page.get_by_label("Sound").check()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    free = table.empty_cells()[:3]
    for cell in free:
        table.cell(cell).click()
    # The last stone sent the turn: no Confirm.
    expect(table.cell(free[2])).to_have_attribute("data-stone", "Red")

    page.reload()
    expect(page.get_by_label("Marks since my last turn")).not_to_be_checked()
    expect(page.get_by_label("Sound")).to_be_checked()
    expect(page.get_by_label("Sending a turn")).to_have_value("auto")
    expect(page.get_by_label("Theme")).to_have_value("dark")
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    page.goto(server.base + "/")
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")


def test_tab_and_the_arrow_keys_move_between_named_cells(server: Server, contexts: Contexts) -> None:
    page = contexts.page()
    table = create_table(page, server.base, players=2, seats=["human", QUICK])
    table.wait_my_turn("White")
    focused = "document.activeElement.dataset.cell || null"
    for _ in range(6):
        page.keyboard.press("Tab")
        if page.evaluate(focused):
            break
    assert page.evaluate(focused) == "e5"
    expect(table.cell("e5")).to_have_attribute("aria-label", "e5, empty")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowUp")
    assert page.evaluate(focused) == "d6"
    page.keyboard.press("Enter")
    expect(table.cell("d6")).to_have_attribute("aria-label", "d6, White stone staged")
    page.keyboard.press("ArrowDown")
    assert page.evaluate(focused) == "e6"
    page.keyboard.press(" ")
    expect(table.cell("e6")).to_have_attribute("data-staged", "Black")
    page.keyboard.press("Enter")  # every stone placed: Enter confirms
    expect(table.cell("d6")).to_have_attribute("aria-label", re.compile(r"^d6, White stone"))
    expect(table.cell("d6")).to_have_attribute("data-stone", "White")
    # A cell clicked with the mouse leaves Enter its usual meaning (no second click there).
    table.wait_my_turn("White")
    free = table.empty_cells()[0]
    table.cell(free).click()
    page.keyboard.press("Enter")
    expect(table.cell(free)).to_have_attribute("data-staged", "White")


def test_a_phone_shows_whole_names_and_no_keys(server: Server, contexts: Contexts) -> None:
    page = contexts.phone()
    table = create_table(page, server.base, players=4, seats=["human", QUICK, QUICK, QUICK], name="Newcomer Longname")
    name = table.panel("White").locator(".pname")
    expect(name).to_have_text("Newcomer Longname")
    assert name.evaluate("el => el.scrollWidth <= el.clientWidth && el.scrollHeight <= el.clientHeight + 1")
    for cell in table.empty_cells()[:4]:
        table.cell(cell).tap()
    expect(table.prompt).to_have_text("All stones placed. Confirm to send the turn, or Undo.")
    expect(page.locator(".keys")).to_have_count(0)


def test_the_layout_does_not_jump(server: Server, contexts: Contexts) -> None:
    page = contexts.page()
    table = create_table(page, server.base, players=2, seats=["human", QUICK])
    table.wait_my_turn("White")
    # The replay box is there before the first move, so nothing below it moves later.
    expect(page.locator(".replay")).to_be_visible()
    expect(page.get_by_role("button", name="Start")).to_be_disabled()
    board = page.locator(".board").bounding_box()
    controls = page.locator(".controls").bounding_box()
    log = page.locator(".log-box").bounding_box()
    table.panel("White").hover()  # the factors line appears in a line kept for it
    expect(table.panel("White").locator(".factors")).to_be_visible()
    assert page.locator(".controls").bounding_box() == controls
    page.mouse.move(0, 0)
    table.play_turn(["White", "Black"], random.Random(1))
    expect(page.get_by_role("button", name="Start")).to_be_enabled()
    assert page.locator(".board").bounding_box() == board
    after = page.locator(".log-box").bounding_box()
    assert log and after and after["y"] == log["y"]  # the log grows downwards only
