"""A real engine server (and its web gateway on a free port) over the session's real Redis."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engine_service.devtools.local import free_port, local_service
from engine_service.web.gateway import STATIC_ROOT
from tests.web.table import CHROMEDRIVER, CHROMIUM, Table, new_browser


@pytest.fixture(scope="session")
def web_url(redis_url: str) -> Iterator[str]:
    if not (STATIC_ROOT / "app.js").is_file():
        pytest.fail("the page is not built: run make web (make test does)")
    for binary in (CHROMIUM, CHROMEDRIVER):
        if not Path(binary).is_file():
            pytest.fail(f"{binary} is missing: make test installs chromium and chromium-driver")
    port = free_port()
    with local_service(redis_url, web_port=port):
        yield f"http://127.0.0.1:{port}/"


@pytest.fixture
def open_table(web_url: str) -> Iterator[Callable[[], Table]]:
    """Opens tabs (each its own headless browser); all are closed after the test."""
    browsers = []

    def opened() -> Table:
        browser = new_browser()
        browsers.append(browser)
        return Table(browser, web_url)

    yield opened
    for browser in browsers:
        browser.quit()
