"""The analysis board in the page (issue 33): a finished game (made through the HTTP API, to
keep it quick) opens on the board from its game-over panel; a variation of two branches is
played from its position, each position shows the computer's evaluation, and the board's
link opened in a second browser shows the same tree, read-only, with its own evaluation."""

from __future__ import annotations

import re

import pytest
from omega_page import Contexts, Server, TablePage, shot
from playwright.sync_api import Page, expect

from omega import Game

#: The first evaluation waits for the computer's worker to start (a level-11 search is
#: well under a second once it runs).
EVAL_WAIT_MS = 60_000


def finished_game(server: Server) -> tuple[str, str]:
    """A table of two people who each play two turns, then White resigns."""
    made = server.request("POST", "/api/tables", None, {"players": 2, "size": 5, "name": "Ann"})
    tokens = [made["token"], made["invites"]["1"]]
    game = Game(players=2, size=5)
    for turn in (["e5", "a1"], ["c3", "i9"], ["b2", "h8"], ["g7", "d4"]):
        token = tokens[game.current_player or 0]
        server.request("POST", f"/api/tables/{made['id']}/actions", token,
                       {"type": "turn", "cells": turn, "request_id": f"t{game.turns_played}"})
        game.play(turn)
    server.request("POST", f"/api/tables/{made['id']}/actions", tokens[0], {"type": "resign", "request_id": "r"})
    return made["id"], tokens[0]


def evaluated(page: Page) -> None:
    """The evaluation of the position shown is on the page: a win chance for each colour."""
    values = page.locator(".analysis-values")
    expect(values).to_be_visible(timeout=EVAL_WAIT_MS)
    expect(values.locator("li")).to_have_count(2)
    expect(values.locator('li[data-color="White"]')).to_contain_text(re.compile(r"\d+% to win"))
    expect(page.locator(".analysis-best")).to_contain_text(re.compile(r"Best turn: [a-i]\d \w\d"))


def click(page: Page, *cells: str) -> None:
    for cell in cells:
        page.locator(f'g.cell[data-cell="{cell}"]').click()


@pytest.mark.slow
def test_a_finished_game_opens_on_the_analysis_board_and_is_shared(server: Server, contexts: Contexts) -> None:
    table_id, token = finished_game(server)
    page = contexts.page()
    page.goto(f"{server.base}/t/{table_id}#seat={token}")
    table = TablePage(page)
    expect(table.cell("e5")).to_have_attribute("data-stone", "White")
    page.locator('button[data-analyse="gameover"]').click()
    expect(page).to_have_url(re.compile(r"/analysis/[A-Za-z0-9_-]{20,}$"))
    board_url = page.url
    # The game's end: its four turns in the move list, the last one current, evaluated.
    moves = page.locator(".analysis-moves button.move")
    expect(moves).to_have_count(4)
    expect(moves.nth(3)).to_have_attribute("aria-current", "true")
    evaluated(page)

    # Back two entries (after 2. c3 i9 ... White to move) and play a line of two turns: White
    # places White then Black, then Black places Black then White.
    page.get_by_role("button", name="Back", exact=True).click()
    page.get_by_role("button", name="Back", exact=True).click()
    expect(moves.nth(1)).to_have_attribute("aria-current", "true")
    click(page, "f6", "a2")
    evaluated(page)
    click(page, "b3", "e4")  # Black's turn: Black b3, White e4 -> "4. e4 b3"
    evaluated(page)
    # A second branch from the same position, after Back: Black plays elsewhere.
    page.get_by_role("button", name="Back", exact=True).click()
    click(page, "c4", "f5")
    evaluated(page)
    rows = page.locator(".analysis-moves li")
    expect(rows).to_have_text(["1. e5 a1", "2. c3 i9", "3. b2 h8", "(", "3. f6 a2", "4. e4 b3", "(", "4. f5 c4", ")",
                               ")", "4. g7 d4"])
    # Each position of the branches was evaluated on its own (a cached one answers at once).
    page.locator(".analysis-moves button.move", has_text="4. e4 b3").click()
    evaluated(page)
    expect(page.locator(".analysis-status")).to_have_text("Saved.", timeout=10_000)
    shot(page, "analysis-board")

    # The link in a second browser: the same tree, read-only, evaluated there too.
    link = page.locator("input.share-link").input_value()
    assert link == board_url
    other = contexts.page()
    other.goto(link)
    expect(other.locator(".analysis-moves li")).to_have_text(
        ["1. e5 a1", "2. c3 i9", "3. b2 h8", "(", "3. f6 a2", "4. e4 b3", "(", "4. f5 c4", ")", ")", "4. g7 d4"])
    expect(other.locator(".analysis-status")).to_contain_text("Read-only")
    evaluated(other)
    # The record with variations, as the server exports it.
    board_id = board_url.rsplit("/", 1)[1]
    record = server.request("GET", f"/api/analysis/{board_id}/record.txt", None)
    assert "(\n  3. f6 a2\n  4. e4 b3\n  (\n    4. f5 c4\n  )\n)\n" in record
    assert f"Table: {table_id}" in record
    # Copying it makes the second browser's own board, which it may change.
    other.get_by_role("button", name="Copy to my boards").click()
    expect(other).not_to_have_url(board_url)
    expect(other.locator(".analysis-moves li")).to_have_count(11)
    expect(other.locator(".analysis-status")).not_to_contain_text("Read-only")
