"""Fixtures for the browser tests: a real ``omega serve`` and Debian's Chromium.

The server runs as a subprocess on a free port with its own SQLite file; the browser is
launched once per module (a new context per test keeps storage apart). Screenshots go to
``test-artifacts/screenshots/`` (gitignored).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from omega_page import CHROMIUM, CHROMIUM_ARGS, DESKTOP, PHONE, Server
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, expect, sync_playwright

expect.set_options(timeout=15_000)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/e2e/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("omega-e2e") / "omega.db")
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def playwright_instance() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright_instance: Playwright) -> Iterator[Browser]:
    b = playwright_instance.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield b
    b.close()


class Contexts:
    """Browser contexts opened by one test, closed at its end."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self.opened: list[BrowserContext] = []

    def page(self, viewport: dict[str, int] | None = None, **kw: Any) -> Page:
        ctx = self.browser.new_context(viewport=viewport or DESKTOP, **kw)
        self.opened.append(ctx)
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(f"{e}\n{e.stack}"))
        page.js_errors = errors  # type: ignore[attr-defined]
        return page

    def phone(self) -> Page:
        return self.page(PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)

    def close(self) -> None:
        for ctx in self.opened:
            for page in ctx.pages:
                assert not page.js_errors, f"JavaScript errors on {page.url}: {page.js_errors}"  # type: ignore[attr-defined]
            ctx.close()


@pytest.fixture
def contexts(browser: Browser) -> Iterator[Contexts]:
    c = Contexts(browser)
    yield c
    c.close()

