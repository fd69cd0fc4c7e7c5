"""Clocks in the browser: a 1+0 game where one player stops moving (both pages see the
clock run down and the result, without a reload), and a turn-based table's days and hours.

The server runs on a clock the test moves (``tests/server/clock_server.py``: the system's
time plus the seconds in a file) and each page on Playwright's clock, moved by the same
amount: nobody waits a minute for a flag to fall.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from omega_page import ROOT, Contexts, Server, TablePage, choose, shot
from playwright.sync_api import Page, expect

sys.path.insert(0, str(ROOT / "tests" / "server"))
from clock_server import advance

CLOCK_SERVER = ROOT / "tests" / "server" / "clock_server.py"


@pytest.fixture
def clock_server(tmp_path: Path) -> Iterator[tuple[Server, Path]]:
    clock_file = tmp_path / "clock"
    srv = Server(tmp_path / "clock.db", program=(sys.executable, str(CLOCK_SERVER), str(clock_file)))
    srv.start()
    yield srv, clock_file
    srv.stop()


def _page(contexts: Contexts) -> Page:
    page = contexts.page()
    page.clock.install(time=time.time())
    return page


def _create(page: Page, base: str, clock: str, friends: bool, reserve: str | None = None,
            minutes: int | None = None, seconds: int | None = None) -> TablePage:
    page.goto(base + "/")
    page.get_by_label("Your name").fill("Ann")
    if friends:
        choose(page, "against", "friends")
    page.select_option("#clock", clock)
    if minutes is not None:
        page.fill("#clock-minutes", str(minutes))
        page.fill("#clock-seconds", str(seconds))
    if reserve is not None:
        page.select_option("#clock-reserve", reserve)
    page.get_by_role("button", name="Create table").click()
    expect(page).to_have_url(re.compile(r"/t/[A-Za-z0-9_-]+#seat="))
    table = TablePage(page)
    expect(table.cell("a1")).to_be_visible()
    return table


def _clock(page: Page, color: str):  # type: ignore[no-untyped-def]
    return page.locator(f'.panel[data-color="{color}"] .clock')


@pytest.mark.slow
def test_a_player_who_stops_moving_loses_on_time(clock_server: tuple[Server, Path], contexts: Contexts) -> None:
    server, clock_file = clock_server
    ann = _page(contexts)
    table = _create(ann, server.base, "custom", friends=True, minutes=1, seconds=0)
    expect(ann.locator(".table-title")).to_contain_text("1+0")
    invite = table.invite_links()[0]
    bo = _page(contexts)
    bo.goto(invite)
    bo_table = TablePage(bo)
    # Everyone is here: White's first turn is on the clock.
    for page in (ann, bo):
        expect(_clock(page, "White")).to_have_class(re.compile("running"))
        expect(_clock(page, "Black")).to_have_text("1:00")
    table.cell("e5").click()
    table.cell("a1").click()
    table.confirm.click()
    bo_table.wait_my_turn("Black")
    bo_table.cell("e4").click()
    bo_table.cell("a2").click()
    bo_table.confirm.click()
    table.wait_my_turn("White")
    # Ann stops moving. 50 s pass for the server and both pages: her clock runs down to ~10 s, red.
    advance(clock_file, 50)
    for page in (ann, bo):
        page.clock.fast_forward(50_000)
    for page in (ann, bo):
        expect(_clock(page, "White")).to_have_text(re.compile(r"^0:(0\d\.\d|1\d)$"))
        expect(_clock(page, "White")).to_have_class(re.compile("low"))
        expect(_clock(page, "Black")).not_to_have_class(re.compile("running"))
    shot(ann, "desktop-clock-low")
    advance(clock_file, 11)
    for page in (ann, bo):
        page.clock.fast_forward(11_000)
    # The server's flag: both pages get the result over their sockets, no reload.
    for page in (ann, bo):
        expect(page.locator(".prompt")).to_contain_text("Black (Player 2) wins on time")
        expect(page.locator(".gameover .ending")).to_contain_text("on time")
        expect(_clock(page, "White")).to_have_class(re.compile("out"))
    expect(ann.locator(".gameover .my-place")).to_have_text("You finished 2nd of 2.")
    game = server.request("GET", f"/api/tables/{table.table_id}/record.txt", table.token)
    assert "Outcome: Black wins on time" in game and "TimeControl: 1+0" in game


def test_a_turn_based_table_shows_days_and_hours(clock_server: tuple[Server, Path], contexts: Contexts) -> None:
    server, clock_file = clock_server
    ann = _page(contexts)
    _create(ann, server.base, "1d", friends=False, reserve="3")
    expect(ann.locator(".table-title")).to_contain_text("1d+3d")
    # One day a move plus three in reserve: four days for this turn, by the server's time.
    expect(_clock(ann, "White")).to_have_text(re.compile(r"^(3d 23h|4d 0h)$"))
    expect(_clock(ann, "White")).to_have_class(re.compile("running"))
    assert _clock(ann, "Black").count() == 1 and _clock(ann, "Black").inner_text() == ""  # a computer has no clock
    # The page measured its offset to the server's clock by a ping's round trip: a pong
    # still out when both clocks jump would be read against the wrong day.
    expect(ann.locator('[data-server-clock="measured"]')).to_have_count(1)
    # A day later, for the server and the page at the same instant, then a second of the
    # page's timers: the page counts down by the offset it measured.  (Running a whole day of
    # timers instead once let the socket's heartbeat give up and resync part-way through the
    # day, against a server whose clock had not moved.)
    advance(clock_file, 24 * 3600)
    ann.clock.set_system_time(time.time() + 24 * 3600)
    ann.clock.run_for(2000)
    expect(_clock(ann, "White")).to_have_text(re.compile(r"^(2d 23h|3d 0h)$"))
    # The lobby's remembered tables: my move, with the time left.
    ann.goto(server.base + "/")
    expect(ann.locator(".my-tables .status").first).to_have_text(re.compile(r"^your move · \d+d \d+h left$"))
