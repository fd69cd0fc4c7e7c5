"""A server that goes away: the page says so, keeps the staged stones, and heals by itself."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import Contexts
from omega_page import Server, create_table
from playwright.sync_api import expect


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(tmp_path / "down.db")
    srv.start()
    yield srv
    srv.stop()


def test_stopped_server_keeps_staged_stones_and_reconnects(own_server: Server, contexts: Contexts) -> None:
    table = create_table(contexts.page(), own_server.base, players=2, seats=["human", "human"])
    page = table.page
    expect(page.locator(".conn")).to_have_attribute("data-state", "live")
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

