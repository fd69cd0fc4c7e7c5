"""Helpers for the browser tests: the real server in a subprocess, and the table page.

Everything here drives the real page through clicks and keys, and checks what it shows
against the server's record replayed by ``omega.Game``.
"""

from __future__ import annotations

import itertools
import json
import os
import queue
import random
import re
import subprocess
import sys
import urllib.request
from collections import deque
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect

from omega import Color, Game
from omega.ai.levels import LEVELS

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the server tests' helpers
from server.server_helpers import ServeProcess

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-artifacts" / "screenshots"
#: Where a failed browser test leaves each of its pages: a screenshot and the page's HTML.
FAILURES = ROOT / "test-artifacts" / "failures"
#: How many of its last lines (console, failed or refused requests, socket frames) a page
#: keeps for a failure's report.
EVIDENCE_LINES = 40
# Debian's headless build of Chromium (package chromium-headless-shell): the same engine
# without the desktop browser's window machinery, it took about 30% less CPU than
# /usr/bin/chromium --headless over the same browser tests. The full browser (CHROMIUM_FULL)
# is kept for what only it has: showing a service worker's notifications.
CHROMIUM = "/usr/bin/chromium-headless-shell"
CHROMIUM_FULL = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
    "--disable-component-update", "--no-first-run", "--disable-sync",
]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
COLORS = ["White", "Black", "Red", "Blue"]
# Computer seats think in a worker process; a turn at level 1 takes about a second (its
# search is instant; the server holds its reply for the level's think, omega.ai.levels),
# but the first one may wait for the worker to start.
BOT_WAIT_MS = 60_000
#: The computer of the tests that do not look at its level: the weakest that answers at
#: once (no think pause: with the pauses of levels 1-6 the suite took 688 s, without 636 s).
QUICK = next(lv.number for lv in LEVELS if lv.think == 0)
# One process for computer players: a test's tables take turns, and each worker that starts
# loads the search kernels (a second of CPU), which four workers per module would repeat.
SERVE_ARGS = ("--ai-workers", "1")


class Server:
    """``omega serve`` in a subprocess; it can be stopped and started again on the same port and db."""

    def __init__(self, db_path: Path, port: int | None = None,
                 program: tuple[str, ...] = (sys.executable, "-m", "omega.cli"),
                 args: tuple[str, ...] = SERVE_ARGS) -> None:
        self.program = program
        self.args = args
        self.db_path = db_path
        #: None until the first start, which binds a port of the system's choosing.
        self.port = port
        self.proc: subprocess.Popen[str] | None = None
        self.log_path = db_path.with_suffix(".log")

    @property
    def base(self) -> str:
        assert self.port is not None, "the port is known once the server has started"
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return "ws" + self.base.removeprefix("http")

    def start(self, timeout: float = 60.0) -> None:
        """Start the server (again on the same port after the first start) and wait for
        uvicorn's start-up line (it listens from then on)."""
        serve = ServeProcess(f"sqlite:///{self.db_path}", self.port, program=self.program, args=self.args,
                             env={**os.environ, "PYTHONUNBUFFERED": "1"}, log_path=self.log_path)
        self.proc = serve.proc
        try:
            serve.ready(timeout)
            self.port = serve.port
        except AssertionError:  # the output ended: the server exited
            raise RuntimeError(f"omega serve exited with {serve.proc.wait(15)}; see {self.log_path}") from None
        except queue.Empty:
            self.stop()
            raise TimeoutError(f"omega serve did not start within {timeout} s; see {self.log_path}") from None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self.proc = None

    def request(self, method: str, path: str, token: str | None, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if data is not None:
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(f"{self.base}{path}", data=data, method=method, headers=headers)
        with urllib.request.urlopen(req, timeout=10) as r:
            text = r.read().decode()
        return text if path.endswith(".txt") else json.loads(text)

    def game(self, table_id: str, token: str) -> Game:
        """The table's game rebuilt by the engine from the server's text record."""
        return Game.from_record(self.request("GET", f"/api/tables/{table_id}/record.txt", token))


class Contexts:
    """Browser contexts opened by one test, closed at its end."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self.opened: list[BrowserContext] = []

    def page(self, viewport: dict[str, int] | None = None, **kw: Any) -> Page:
        ctx = self.browser.new_context(viewport=viewport or DESKTOP, **kw)
        self.opened.append(ctx)
        return self.new_page(ctx)

    @staticmethod
    def new_page(ctx: BrowserContext) -> Page:
        """Another page in ``ctx`` (same cookies and storage), whose JavaScript errors
        fail the test at its end like the first one's."""
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(f"{e}\n{e.stack}"))
        page.js_errors = errors  # type: ignore[attr-defined]
        # What a failure's report shows of the page: its console, the requests that failed
        # or were refused, and its sockets (a flaky run under load is seldom seen twice).
        seen: deque[str] = deque(maxlen=EVIDENCE_LINES)
        note = seen.append
        page.on("console", lambda m: note(f"console.{m.type}: {m.text}"))
        page.on("requestfailed", lambda r: note(f"request failed: {r.method} {r.url} ({r.failure})"))
        page.on("response", lambda r: note(f"{r.status} {r.request.method} {r.url}") if r.status >= 400 else None)
        page.on("websocket", lambda ws: (note(f"socket opened: {ws.url}"),
                                         ws.on("framereceived", lambda f: note(f"socket got: {str(f)[:160]}")),
                                         ws.on("close", lambda w: note(f"socket closed: {w.url}"))))
        page.evidence = seen  # type: ignore[attr-defined]
        return page

    def report_failure(self, test: str) -> str:
        """Keep every open page of a failed test (a screenshot and its HTML under
        test-artifacts/failures/) and return what each page logged, for the test's report."""
        FAILURES.mkdir(parents=True, exist_ok=True)
        stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", test)[-120:]
        lines = []
        for n, page in enumerate(p for ctx in self.opened for p in ctx.pages):
            lines.append(f"page {n}: {page.url}")
            lines += [f"  {line}" for line in page.evidence]  # type: ignore[attr-defined]
            try:
                page.screenshot(path=str(FAILURES / f"{stem}-{n}.png"), full_page=True, timeout=5_000)
                (FAILURES / f"{stem}-{n}.html").write_text(page.content(), encoding="utf-8")
            except Exception as err:  # a page that hung or crashed is reported as such
                lines.append(f"  (not saved: {err})")
        return "\n".join(lines)

    def phone(self) -> Page:
        return self.page(PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)

    def close(self) -> None:
        for ctx in self.opened:
            for page in ctx.pages:
                assert not page.js_errors, f"JavaScript errors on {page.url}: {page.js_errors}"  # type: ignore[attr-defined]
            ctx.close()


def shot(page: Page, name: str) -> None:
    """Save a screenshot under test-artifacts/screenshots/ (phone ones as a full page)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=name.startswith("phone"))


def choose(where: Page | Locator, name: str, value: str | int) -> None:
    """Choose a radio of the page's segmented controls as a person does: by its label (the
    input itself is hidden under it).  Forcing a click on the hidden input skips the checks
    that the spot is still and uncovered, so a click while the lobby was still laying out
    could land elsewhere."""
    selector = f'input[name="{name}"][value="{value}"]'
    page = where if isinstance(where, Page) else where.page
    where.locator("label", has=page.locator(selector)).click()  # the inner locator is relative
    expect(where.locator(selector)).to_be_checked()


def create_table(page: Page, base: str, players: int = 2, seats: list[str | int] | None = None,
                 pie: bool = False, size: int = 5, name: str = "Ann", me: int = 0) -> TablePage:
    """Create a table through the lobby form. ``seats``: "human" or a computer level per seat."""
    seats = seats or ["human"] + [QUICK] * (players - 1)
    page.goto(base + "/")
    page.get_by_label("Your name").fill(name)
    choose(page, "players", players)
    page.select_option("#size", str(size))
    for i, seat in enumerate(seats):
        page.select_option(f'select.seat-kind[data-seat="{i}"]', "human" if seat == "human" else "computer")
        if seat != "human":
            page.select_option(f'select.seat-level[data-seat="{i}"]', str(seat))
    page.get_by_label(f"I play seat {me + 1}").check()
    if pie:
        page.locator("#pie").check()
    page.get_by_role("button", name="Create table").click()
    expect(page).to_have_url(re.compile(r"/t/[A-Za-z0-9_-]+#seat="))
    table = TablePage(page)
    expect(table.cell("a1")).to_be_visible()
    return table


def open_lobby_table(page: Page, players: int = 2, size: int = 5, rated: bool = True, clock: str | None = None) -> TablePage:
    """Open a table in the lobby through the lobby's one create form ("Play against: Anyone"),
    as a logged-in player would, on the page already at the lobby; ``clock`` None keeps the
    form's (a rated table's: quick play's default)."""
    form = page.get_by_role("form", name="New table")
    choose(form, "players", players)
    form.get_by_label("Board side").select_option(str(size))
    form.get_by_text("Anyone (an open table in the lobby)").click()
    form.locator("#rated").set_checked(rated)
    if clock is not None:
        form.get_by_label("Clock", exact=True).select_option(clock)
    form.get_by_role("button", name="Create table").click()
    expect(page).to_have_url(re.compile(r"/t/[A-Za-z0-9_-]+(#seat=[A-Za-z0-9_-]+)?$"))
    return TablePage(page)


class TablePage:
    """The table page as a player (or spectator) sees it."""

    def __init__(self, page: Page) -> None:
        self.page = page

    @property
    def table_id(self) -> str:
        m = re.search(r"/t/([A-Za-z0-9_-]+)", self.page.url)
        assert m, self.page.url
        return m.group(1)

    @property
    def token(self) -> str:
        m = re.search(r"#(?:seat|watch)=([A-Za-z0-9_-]+)", self.page.url)
        assert m, self.page.url
        return m.group(1)

    def invite_links(self) -> list[str]:
        """The invite links the creator's page offers to copy (one per other human seat)."""
        return [b.get_attribute("data-copy") or "" for b in self.page.locator(".invites button[data-copy]").all()
                if "#seat=" in (b.get_attribute("data-copy") or "")]

    def spectator_link(self) -> str:
        return self.page.locator('.invites button[data-copy*="#watch="]').get_attribute("data-copy") or ""

    def cell(self, name: str) -> Locator:
        return self.page.locator(f'g.cell[data-cell="{name}"]')

    @property
    def prompt(self) -> Locator:
        return self.page.locator(".prompt")

    @property
    def confirm(self) -> Locator:
        return self.page.get_by_role("button", name="Confirm")

    @property
    def undo(self) -> Locator:
        return self.page.get_by_role("button", name="Undo")

    def start_now(self) -> None:
        """Play the first turn before the other people have opened their invites (when the
        page waits for them)."""
        expect(self.prompt).to_contain_text(re.compile("Your turn|to join"))
        start = self.page.get_by_role("button", name="Start now")
        if start.count():
            start.click()
        expect(self.prompt).to_contain_text("Your turn")

    def log_entries(self) -> Locator:
        return self.page.locator(".log li[data-entry]")

    def panel(self, color: str) -> Locator:
        return self.page.locator(f'.panel[data-color="{color}"]')

    def empty_cells(self) -> list[str]:
        return self.page.eval_on_selector_all("g.cell.empty", "els => els.map(e => e.dataset.cell)")

    def stones(self) -> dict[str, str]:
        return dict(self.page.eval_on_selector_all(
            "g.cell[data-stone]", "els => els.map(e => [e.dataset.cell, e.dataset.stone])"))

    def staged(self) -> dict[str, str]:
        return dict(self.page.eval_on_selector_all(
            "g.cell[data-staged]", "els => els.map(e => [e.dataset.cell, e.dataset.staged])"))

    def shown_scores(self) -> dict[str, int]:
        return {c: int(v) for c, v in self.page.eval_on_selector_all(
            ".panel", "els => els.map(e => [e.dataset.color, e.querySelector('.value').dataset.score])")}

    def wait_my_turn(self, color: str | None = None) -> None:
        expect(self.prompt).to_contain_text("Your turn", timeout=BOT_WAIT_MS)
        if color:
            expect(self.prompt.locator(".next-color")).to_have_text(color)

    def play_turn(self, order: list[str], rng: random.Random, cells: list[str] | None = None) -> list[str]:
        """Stage one stone per colour by clicking (checking each staged colour), then Confirm.

        ``order`` is the staging order the page must offer. Returns the clicked cells.
        """
        self.wait_my_turn(order[0])
        cells = cells or rng.sample(self.empty_cells(), len(order))
        for k, (cell, color) in enumerate(zip(cells, order, strict=True)):
            expect(self.prompt.locator(".next-color")).to_have_text(color)
            self.cell(cell).click()
            expect(self.cell(cell)).to_have_attribute("data-staged", color)
            if k < len(order) - 1:
                expect(self.confirm).to_be_disabled()
        expect(self.confirm).to_be_enabled()
        self.confirm.click()
        # The turn is stored with each stone in the colour it was staged as.
        for cell, color in zip(cells, order, strict=True):
            expect(self.cell(cell)).to_have_attribute("data-stone", color)
        return cells


def engine_order(players: int, mover: int) -> list[str]:
    """The staging order RULES.md gives: the mover's colour, then the others in turn order."""
    return [COLORS[(mover + k) % players] for k in range(players)]


def factors(game: Game, color: Color) -> str:
    """The factor text the page shows: sizes largest first joined by ×, then the product
    (a single group: its size, marked as one group); past 10 factors, runs of equal sizes
    as powers (``3 × 2³ × 1⁹``)."""
    sizes = game.group_sizes(color)
    if not sizes:
        return "no stones = 0"
    if len(sizes) == 1:
        return f"{group_digits(sizes[0])} (one group)"
    if len(sizes) <= 10:
        body = " × ".join(map(str, sizes))
    else:
        runs = [(size, len(list(same))) for size, same in itertools.groupby(sizes)]
        body = " × ".join(f"{size}{str(k).translate(SUPERSCRIPT)}" if k > 1 else str(size) for size, k in runs)
    return body + " = " + group_digits(game.score(color))


SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def group_digits(n: int) -> str:
    return f"{n:,}".replace(",", "\u202f")
