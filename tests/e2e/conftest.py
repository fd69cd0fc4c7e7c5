"""Fixtures for the browser tests: a real ``omega serve`` and Debian's Chromium.

The server runs as a subprocess on a free port with its own SQLite file; the browser is
launched once per module (a new context per test keeps storage apart). Screenshots go to
``test-artifacts/screenshots/`` (gitignored). Each module's tests run on one pytest-xdist
worker; each worker has its own temporary directories, so servers and files never meet.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from omega_page import CHROMIUM, CHROMIUM_ARGS, CHROMIUM_FULL, Contexts, Server
from playwright.sync_api import Browser, Playwright, expect, sync_playwright

expect.set_options(timeout=15_000)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # A module's tests share its server and browser (module fixtures): `make test` runs
    # pytest with `--dist loadscope`, so they run on one worker, which starts them once.
    for item in items:
        if "tests/e2e/" in item.path.as_posix():
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("omega-e2e") / "omega.db")
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[Server]:
    """A server of the test's own, for tests that stop and restart it."""
    srv = Server(tmp_path / "down.db")
    srv.start()
    yield srv
    srv.stop()


# Per module, not per pytest worker: Playwright's sync API keeps an event loop running in
# the main thread while it is open, and the worker's next module may be tests that call
# asyncio.run (which refuses to start inside a running loop).
@pytest.fixture(scope="module")
def playwright_instance() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright_instance: Playwright, request: pytest.FixtureRequest) -> Iterator[Browser]:
    """The headless build of Chromium, or the full browser for a module that sets
    ``FULL_BROWSER = True`` (and says why)."""
    full = getattr(request.module, "FULL_BROWSER", False)
    b = playwright_instance.chromium.launch(executable_path=CHROMIUM_FULL if full else CHROMIUM, args=CHROMIUM_ARGS)
    yield b
    b.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    # A failed test's pages are kept and their logs added to its report, before the
    # fixtures close them.
    report: pytest.TestReport = yield
    if report.when == "call" and report.failed:
        contexts = getattr(item, "funcargs", {}).get("contexts")
        if isinstance(contexts, Contexts):
            report.sections.append(("browser pages", contexts.report_failure(item.nodeid)))
    return report


@pytest.fixture
def contexts(browser: Browser) -> Iterator[Contexts]:
    c = Contexts(browser)
    yield c
    c.close()

