"""Several people at one table, each in their own browser context.

Two humans with the pie swap (played partly by keyboard), and 3- and 4-player tables that
mix human and computer seats, played to the end; every staging order follows RULES.md.
"""

from __future__ import annotations

import random

import pytest
from omega_page import COLORS, QUICK, Contexts, Server, TablePage, create_table, engine_order, factors, shot
from playwright.sync_api import expect

from omega import Color


@pytest.mark.slow
def test_two_humans_with_the_pie_swap(server: Server, contexts: Contexts) -> None:
    rng = random.Random(11)
    ann = create_table(contexts.page(), server.base, players=2, seats=["human", "human"], pie=True, name="Ann")
    invites = ann.invite_links()
    assert len(invites) == 1 and "#seat=" in invites[0]
    bo = TablePage(contexts.page())
    bo.page.goto(invites[0])
    bo.page.get_by_label("Your name").fill("Bo")
    bo.page.get_by_role("button", name="Save").click()
    expect(ann.panel("Black")).to_contain_text("Bo")  # live, through Ann's socket
    expect(ann.panel("Black").locator(".dot")).to_have_class("dot on")
    expect(bo.prompt).to_contain_text("Waiting for White (Ann)")
    expect(bo.confirm).to_be_disabled()

    # Turn 1 by keyboard: a cell name + Enter stages, Backspace undoes, Enter confirms.
    ann.wait_my_turn("White")
    ann.page.keyboard.type("e5")
    expect(ann.prompt.locator(".typed kbd")).to_have_text("e5")
    ann.page.keyboard.press("Enter")
    expect(ann.cell("e5")).to_have_attribute("data-staged", "White")
    ann.page.keyboard.type("C3")
    ann.page.keyboard.press("Enter")
    expect(ann.cell("c3")).to_have_attribute("data-staged", "Black")
    ann.page.keyboard.press("Backspace")
    expect(ann.cell("c3")).not_to_have_attribute("data-staged", "Black")
    ann.page.keyboard.type("z9")
    ann.page.keyboard.press("Enter")
    expect(ann.page.locator(".message")).to_contain_text('"z9" is not a cell')
    ann.page.keyboard.type("a1")
    ann.page.keyboard.press("Enter")
    expect(ann.cell("a1")).to_have_attribute("data-staged", "Black")
    ann.undo.click()  # the Undo button keeps the focus ...
    expect(ann.cell("a1")).not_to_have_attribute("data-staged", "Black")
    ann.page.keyboard.type("a1")
    ann.page.keyboard.press("Enter")
    expect(ann.cell("a1")).to_have_attribute("data-staged", "Black")
    ann.page.keyboard.press("Enter")  # ... yet Enter with every stone placed confirms
    expect(bo.cell("e5")).to_have_attribute("data-stone", "White")
    expect(bo.cell("a1")).to_have_attribute("data-stone", "Black")

    # Bo is offered the pie; Ann is not. Bo swaps and now holds White.
    offer = bo.page.locator(".pie-offer")
    expect(offer).to_contain_text("swap colours")
    expect(ann.page.locator(".pie-offer")).to_be_hidden()
    # Staging a stone sets the offer aside; taking it back brings the offer back.
    bo.cell("b2").click()
    expect(offer).to_be_hidden()
    bo.undo.click()
    expect(offer).to_be_visible()
    offer.get_by_role("button", name="Swap colours").click()
    expect(offer).to_be_hidden()
    expect(bo.panel("White")).to_contain_text("Bo")
    expect(ann.panel("Black")).to_contain_text("Ann")
    expect(ann.page.locator('.log li[data-entry="2"]')).to_contain_text("swap")

    # Still Black's turn, now Ann's: Black first, then White; the API gets colour order.
    ann.play_turn(["Black", "White"], rng, cells=["c3", "d4"])
    game = server.game(ann.table_id, ann.token)
    assert game.swapped and game.history[-1] == ("d4", "c3")
    assert game.player_of(0) == 1
    bo.play_turn(["White", "Black"], rng)
    expect(bo.page.locator(".pie-offer")).to_be_hidden()
    ann.play_turn(["Black", "White"], rng)
    game = server.game(ann.table_id, ann.token)
    assert ann.stones() == bo.stones() == {cell: c.label for cell, c in game.stones().items()}
    assert bo.shown_scores() == {c.label: v for c, v in game.scores().items()}


def play_to_the_end(server: Server, humans: dict[int, TablePage], players: int, rounds: int, rng: random.Random) -> None:
    """Each human seat plays its turns by clicking, in the order the rules give it."""
    for _ in range(rounds):
        for seat, table in humans.items():
            table.play_turn(engine_order(players, seat), rng)


def check_game_over(server: Server, tables: list[TablePage]) -> None:
    game = server.game(tables[0].table_id, tables[0].token)
    assert game.is_over
    ranking = [c.label for c in game.ranking()]
    for table in tables:
        gameover = table.page.locator(".gameover")
        expect(gameover).to_be_visible(timeout=60_000)
        expect(gameover.locator(".ranking li")).to_have_count(game.players)
        assert [li.get_attribute("data-color") for li in gameover.locator(".ranking li").all()] == ranking
        for color in game.colors:
            expect(gameover.locator(f'li[data-color="{color.label}"] .final')).to_have_text(factors(game, color))
        assert table.shown_scores() == {c.label: v for c, v in game.scores().items()}


@pytest.mark.slow
def test_three_players_two_humans_and_a_computer(server: Server, contexts: Contexts) -> None:
    rng = random.Random(3)
    ann = create_table(contexts.page(), server.base, players=3, seats=["human", QUICK, "human"], name="Ann")
    [invite] = ann.invite_links()
    cy = TablePage(contexts.page())
    cy.page.goto(invite)
    expect(cy.panel("Red")).to_have_class("panel mine")
    expect(cy.panel("Black")).to_contain_text(f"computer · level {QUICK}")
    expect(cy.page.locator(".panel")).to_have_count(3)
    # Red's turn in 3 players stages Red, then White, then Black.
    play_to_the_end(server, {0: ann, 2: cy}, 3, 3, rng)
    # Halfway: Ann stages two of her three stones and looks at one of Red's groups.
    ann.wait_my_turn("White")
    staged = ann.empty_cells()[:2]
    for cell in staged:
        ann.cell(cell).click()
    expect(ann.prompt.locator(".next-color")).to_have_text("Red")
    game = server.game(ann.table_id, ann.token)
    red = max(game.groups(Color.RED), key=len)
    ann.cell(sorted(red)[0]).hover()
    expect(ann.page.locator(".tooltip")).to_have_text(f"Red group of {len(red)}")
    shot(ann.page, "desktop-3p-staging")
    ann.undo.click()
    ann.undo.click()
    expect(ann.page.locator("g.cell[data-staged]")).to_have_count(0)
    play_to_the_end(server, {0: ann, 2: cy}, 3, 3, rng)
    check_game_over(server, [ann, cy])


@pytest.mark.slow
def test_four_players_two_humans_and_two_computers(server: Server, contexts: Contexts) -> None:
    rng = random.Random(4)
    ann = create_table(contexts.page(), server.base, players=4, seats=["human", QUICK, QUICK, "human"], name="Ann")
    [invite] = ann.invite_links()
    di = TablePage(contexts.page())
    di.page.goto(invite)
    expect(di.page.locator(".panel")).to_have_count(4)
    assert [p.get_attribute("data-color") for p in di.page.locator(".panel").all()] == COLORS
    # Blue's turn stages Blue, White, Black, Red; 3 rounds fill side 5 for 4 players.
    play_to_the_end(server, {0: ann, 3: di}, 4, 3, rng)
    check_game_over(server, [ann, di])
    game = server.game(ann.table_id, ann.token)
    assert game.turns_played == 12 and game.empty_count == 13
    phone = TablePage(contexts.phone())
    phone.page.goto(invite)
    expect(phone.page.locator(".gameover")).to_be_visible()
    shot(phone.page, "phone-4p-over")
