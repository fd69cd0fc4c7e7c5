"""A whole 2-player game against the computer, played by clicking cells.

Checks staging (colour order, the prompt, Undo), Confirm, the scores the page shows against
the engine replaying the server's record, and the final ranking; saves screenshots.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from omega_page import Contexts, Server, TablePage, create_table, engine_order, factors, shot
from playwright.sync_api import expect

from omega import Color, Game
from omega.ai.levels import level
from omega.record import from_json


@pytest.mark.slow
def test_two_player_game_against_computer_to_the_end(server: Server, contexts: Contexts) -> None:
    rng = random.Random(5)
    page = contexts.page()
    table = create_table(page, server.base, players=2, seats=["human", 1], name="Ann")
    phone = TablePage(contexts.phone())
    phone.page.goto(page.url)
    expect(phone.cell("e5")).to_be_visible()

    # The start: White to move, my panel marked, nothing staged yet.
    table.wait_my_turn("White")
    expect(table.panel("White")).to_contain_text("Ann")
    expect(table.panel("White")).to_have_class(re.compile(r"\bto-move\b.*\bmine\b"))
    expect(table.panel("Black")).to_contain_text(f"computer · level 1 · rating {level(1).rating}")
    expect(table.confirm).to_be_disabled()
    expect(table.undo).to_be_disabled()
    shot(page, "desktop-start")
    shot(phone.page, "phone-start")

    # Staging: own colour first, then the opponent's; Undo takes back the last one.
    table.cell("e5").click()
    expect(table.cell("e5")).to_have_attribute("data-staged", "White")
    expect(table.prompt.locator(".next-color")).to_have_text("Black")
    expect(table.panel("White").locator(".preview")).to_have_text("→ 1")
    table.cell("a1").click()
    expect(table.cell("a1")).to_have_attribute("data-staged", "Black")
    expect(table.prompt).to_contain_text("All stones placed")
    expect(table.confirm).to_be_enabled()
    table.undo.click()
    expect(table.cell("a1")).not_to_have_attribute("data-staged", "Black")
    expect(table.cell("e5")).to_have_attribute("data-staged", "White")
    expect(table.confirm).to_be_disabled()
    table.cell("a2").click()
    table.confirm.click()
    expect(table.log_entries()).to_have_count(1)
    expect(table.cell("e5")).to_have_attribute("data-stone", "White")
    expect(table.cell("a2")).to_have_attribute("data-stone", "Black")
    # The stones just played are marked as the last turn until the computer answers.
    expect(table.page.locator("g.cell.last")).to_have_count(2)

    for turn in range(2, 16):  # 15 rounds on side 5: my turns 2 to 15
        table.wait_my_turn("White")
        game = server.game(table.table_id, table.token)
        # What the page shows equals the engine's view of the same record.
        assert table.stones() == {cell: c.label for cell, c in game.stones().items()}
        assert table.shown_scores() == {c.label: v for c, v in game.scores().items()}
        if turn == 8:
            table.panel("White").hover()
            expect(table.panel("White").locator(".factors")).to_have_text(factors(game, Color.WHITE))
            shot(page, "desktop-mid")
            phone.page.reload()
            expect(phone.cell("e5")).to_have_attribute("data-stone", "White")
            shot(phone.page, "phone-mid")
            page.mouse.move(0, 0)
        table.play_turn(engine_order(2, 0), rng)

    # Game over after 15 rounds: ranking and scores as the engine has them.
    gameover = page.locator(".gameover")
    expect(gameover).to_be_visible(timeout=60_000)
    expect(table.prompt).to_contain_text("Game over")
    game = server.game(table.table_id, table.token)
    assert game.is_over and game.turns_played == 30
    ranking = [c.label for c in game.ranking()]
    expect(gameover.locator(".ranking li")).to_have_count(2)
    assert [li.get_attribute("data-color") for li in gameover.locator(".ranking li").all()] == ranking
    for color in game.colors:
        expect(gameover.locator(f'.ranking li[data-color="{color.label}"] .final')).to_have_text(factors(game, color))
    assert table.shown_scores() == {c.label: v for c, v in game.scores().items()}
    expect(table.confirm).to_be_hidden()
    expect(table.log_entries()).to_have_count(30)
    shot(page, "desktop-over")
    phone.page.reload()
    expect(phone.page.locator(".gameover")).to_be_visible()
    shot(phone.page, "phone-over")

    # The record downloads as text, and the replay slider steps back through the game.
    with page.expect_download() as info:
        gameover.get_by_role("button", name="Download record (text)").click()
    assert Game.from_record(Path(info.value.path()).read_text(encoding="utf-8")) == game
    with page.expect_download() as info:
        gameover.get_by_role("button", name="Download record (JSON)").click()
    assert from_json(Path(info.value.path()).read_text(encoding="utf-8")).game == game
    assert info.value.suggested_filename == f"omega-{table.table_id}.json"
    page.get_by_role("button", name="Start").click()
    expect(table.prompt).to_contain_text("position after 0 of 30")
    expect(page.locator("g.cell[data-stone]")).to_have_count(0)
    page.keyboard.press("ArrowRight")
    expect(page.locator("g.cell[data-stone]")).to_have_count(2)
    page.locator('.log li[data-entry="10"] button').click()
    expect(page.locator("g.cell[data-stone]")).to_have_count(20)
    page.get_by_role("button", name="Back to live").click()
    expect(page.locator("g.cell[data-stone]")).to_have_count(60)
