"""Browser-test fixtures: Debian's Chromium driven by Playwright, and apps served by uvicorn.

The browser is the system package (``/usr/bin/chromium``, installed by ``make browser``,
which ``make test`` runs); Playwright never downloads one (``playwright install`` is never
run). Without it these tests skip with the install command, and FAIL under ``CI=true``, so
that CI cannot go green without them. ``CHROMIUM`` names another executable.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.shared import in_ci
from tests.web.server import LiveServer

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
INSTALL = "apt-get update && apt-get install -y --no-install-recommends chromium"

#: Quiet, offline, reproducible: no GPU, no QUIC, no background fetches or updates. Playwright
#: adds --headless itself and gives every launch a fresh temporary profile (user-data-dir).
CHROMIUM_ARGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
)

#: A big screen at an exhibition, and a phone.
FULL_HD = {"width": 1920, "height": 1080}
PHONE = {"width": 390, "height": 844}


def _unavailable(message: str):
    if in_ci():
        pytest.fail(f"{message}; CI=true, so the browser tests must run (make browser "
                    f"installs it as root: {INSTALL})", pytrace=False)
    pytest.skip(f"{message}; install it with: sudo sh -c '{INSTALL}' (or run make browser "
                "as root)")


@pytest.fixture(scope="session")
def chromium_executable() -> str:
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        _unavailable(f"Chromium is not installed at {CHROMIUM}")
    return CHROMIUM


@pytest.fixture(scope="session")
def browser(chromium_executable) -> Iterator:
    """One headless Chromium for the session."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package is not installed (`make test` installs it: "
                     "pip install -e '.[test]')")
    with sync_playwright() as pw:
        try:
            launched = pw.chromium.launch(executable_path=chromium_executable, headless=True,
                                          args=list(CHROMIUM_ARGS), timeout=60_000)
        except Exception as exc:  # Playwright raises its own Error with the browser's log
            _unavailable(f"Chromium at {chromium_executable} did not start: "
                         f"{str(exc).splitlines()[0]}")
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser) -> Iterator:
    """A fresh page (its own context: no cookies or storage shared) at 1920×1080."""
    context = browser.new_context(viewport=FULL_HD)
    context.set_default_timeout(10_000)
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture
def live_server() -> Iterator[Callable[..., LiveServer]]:
    """``live_server(app)`` serves ``app`` on a free localhost port until the test ends;
    the returned server can be stopped and started again on the same port."""
    servers: list[LiveServer] = []

    def serve(app, port: int | None = None) -> LiveServer:
        server = LiveServer(app, port=port).start()
        servers.append(server)
        return server

    yield serve
    for server in servers:
        server.stop()


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    """docs/images: the screenshots docs/display.md shows are made by the tests."""
    path = Path(__file__).resolve().parents[2] / "docs" / "images"
    path.mkdir(parents=True, exist_ok=True)
    return path
