"""Server errors: the page says what went wrong in words and keeps the staged stones.

A stopped server (the page reconnects by itself once it is back), and a turn refused because
another device of the same player moved while this page's socket lagged behind.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import closing
from typing import Any

import pytest
from omega_page import QUICK, Contexts, Server, TablePage, create_table
from playwright.sync_api import Page, WebSocketRoute, expect

from server.server_helpers import Socket, computer_turn


class LaggingSocket:
    """Holds back what the server sends on the page's (real) table socket, as a slow network would."""

    def __init__(self, page: Page) -> None:
        self.holding = False
        self.held: list[tuple[WebSocketRoute, str | bytes]] = []
        page.route_web_socket(re.compile(r"/ws/tables/"), self.route)

    def route(self, ws: WebSocketRoute) -> None:
        server_side = ws.connect_to_server()

        def from_server(message: str | bytes) -> None:
            if self.holding:
                self.held.append((ws, message))
            else:
                ws.send(message)

        server_side.on_message(from_server)

    def hold(self) -> None:
        self.holding = True

    def release(self) -> int:
        """Deliver the held messages; returns how many there were."""
        self.holding = False
        count = len(self.held)
        for ws, message in self.held:
            ws.send(message)
        self.held.clear()
        return count


def watch(server: Server, table: TablePage) -> Socket:
    """A spectator's socket on the table (the test's own, apart from the page's), past its sync."""
    ws = Socket(server.ws_url, table.table_id, table.spectator_link().split("#watch=")[1])
    assert ws.recv()["type"] == "sync"
    return ws


def wait_for(ws: Socket, pred: Callable[[dict[str, Any]], bool], what: str, timeout: float = 60) -> dict[str, Any]:
    """The first message on ``ws`` satisfying ``pred``; fails saying ``what`` did not happen."""
    try:
        return ws.until(pred, timeout=timeout)
    except TimeoutError:
        raise AssertionError(f"{what}: the table's socket went {timeout} s without saying so") from None


@pytest.mark.slow
def test_stopped_server_keeps_staged_stones_and_reconnects(own_server: Server, contexts: Contexts) -> None:
    table = create_table(contexts.page(), own_server.base, players=2, seats=["human", "human"])
    page = table.page
    expect(page.locator(".conn")).to_have_attribute("data-state", "live")
    table.start_now()  # the second person has not opened their invite
    table.cell("e5").click()
    table.cell("b2").click()

    own_server.stop()
    expect(page.locator(".banner")).to_contain_text("Connection lost")
    expect(page.locator(".conn")).not_to_have_attribute("data-state", "live")
    table.confirm.click()
    expect(page.locator(".message")).to_contain_text("Cannot reach the server")
    expect(page.locator(".message")).to_contain_text("staged stones are kept")
    assert table.staged() == {"e5": "White", "b2": "Black"}
    assert table.stones() == {}
    expect(table.confirm).to_be_enabled()

    # Back on the same port and database: the socket reconnects with backoff by itself.
    own_server.start()
    expect(page.locator(".conn")).to_have_attribute("data-state", "live", timeout=30_000)
    expect(page.locator(".banner")).to_be_hidden()
    table.confirm.click()
    expect(table.cell("e5")).to_have_attribute("data-stone", "White")
    expect(table.cell("b2")).to_have_attribute("data-stone", "Black")
    game = own_server.game(table.table_id, table.token)
    assert game.history == (("e5", "b2"),)



@pytest.mark.slow
def test_turn_refused_after_a_concurrent_move_keeps_the_other_staged_stones(
    own_server: Server, contexts: Contexts
) -> None:
    page = contexts.page()
    lag = LaggingSocket(page)
    table = create_table(page, own_server.base, players=2, seats=["human", QUICK])
    table.wait_my_turn("White")
    expect(page.locator(".conn")).to_have_attribute("data-state", "live")
    lag.hold()

    # Another device of the same player plays e5 and the computer answers; this page does not know.
    with closing(watch(own_server, table)) as ws:
        own_server.request("POST", f"/api/tables/{table.table_id}/actions", table.token,
                           {"type": "turn", "cells": ["e5", "a1"], "request_id": "other-device"})
        answer = wait_for(ws, computer_turn, "the computer did not answer")
    assert answer["state"]["game"]["current_seat"] == 0
    game = own_server.game(table.table_id, table.token)
    free = next(c for c in game.empty_cells() if c != "e5")
    assert table.stones() == {}
    table.cell("e5").click()
    table.cell(free).click()
    table.confirm.click()

    message = page.locator(".message")
    expect(message).to_contain_text("changed")
    expect(message).to_contain_text("e5 was taken meanwhile; your other staged stones are kept.")
    expect(table.cell("e5")).to_have_attribute("data-stone", "White")
    assert table.staged() == {free: "White"}  # restaged as the first colour of the turn
    assert table.stones() == {cell: c.label for cell, c in game.stones().items()}

    # The late messages arrive at last; being older than what the page has, they change nothing.
    assert lag.release() > 0
    expect(table.cell(free)).to_have_attribute("data-staged", "White")
    other = next(c for c in game.empty_cells() if c != free)
    table.cell(other).click()
    table.confirm.click()
    expect(table.cell(free)).to_have_attribute("data-stone", "White")
    expect(table.cell(other)).to_have_attribute("data-stone", "Black")


@pytest.mark.slow
def test_turn_sent_on_an_old_version_of_the_same_position_goes_through(
    own_server: Server, contexts: Contexts
) -> None:
    page = contexts.page()
    lag = LaggingSocket(page)
    table = create_table(page, own_server.base, players=2, seats=["human", "human"])
    expect(page.locator(".conn")).to_have_attribute("data-state", "live")
    lag.hold()
    # The second player opens their invite: a join event moves the table's version, not the position.
    with closing(watch(own_server, table)) as ws:
        other = contexts.page()
        other.goto(table.invite_links()[0])
        expect(other.locator(".conn")).to_have_attribute("data-state", "live")
        wait_for(ws, lambda m: m["type"] == "event" and m["event"]["kind"] == "join" and m["event"]["seat"] == 1,
                 "the second player's arrival was not recorded")
    answers: list[int] = []
    page.on("response", lambda r: answers.append(r.status) if r.url.endswith("/actions") else None)
    table.start_now()  # the socket holds back the second player's arrival
    table.cell("e5").click()
    table.cell("a1").click()
    table.confirm.click()  # sent with the old version: only presence changed, so it is accepted
    expect(table.cell("e5")).to_have_attribute("data-stone", "White")
    expect(table.cell("a1")).to_have_attribute("data-stone", "Black")
    expect(page.locator(".message")).to_be_hidden()
    assert own_server.game(table.table_id, table.token).history == (("e5", "a1"),)
    assert answers == [200]
    lag.release()
