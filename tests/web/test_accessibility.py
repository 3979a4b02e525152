"""The page has no accessibility violation of serious or critical impact, as axe-core finds
them injected into the real page in Chromium (the lobby and each game at play), and it fits a
phone-sized window without sideways scrolling.

axe-core is the page's pinned development package (web/package.json), so ``make web``
installs it; nothing is fetched by the test.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.web.table import Table

AXE = Path(__file__).resolve().parents[2] / "web" / "node_modules" / "axe-core" / "axe.min.js"
BOT = "BOT_HEURISTIC"
SERIOUS = {"serious", "critical"}
PHONE = (390, 844)
"""A phone-sized window, in CSS pixels."""


def findings(table: Table) -> list[dict[str, Any]]:
    """axe-core's violations of serious or critical impact on the page as it is now."""
    if not AXE.is_file():
        pytest.fail(f"{AXE} is missing: make web installs the page's packages")
    table.browser.execute_script(AXE.read_text())
    found: list[dict[str, Any]] = table.browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']})"
        ".then((r) => done(r.violations.map((v) => ({id: v.id, impact: v.impact,"
        " help: v.help, nodes: v.nodes.map((n) => n.html).slice(0, 3)}))));"
    )
    return [violation for violation in found if violation["impact"] in SERIOUS]


def sideways_overflow(table: Table) -> int:
    """How many CSS pixels the page is wider than the window (0: no sideways scrolling)."""
    width: int = table.browser.execute_script(
        "return document.documentElement.scrollWidth - window.innerWidth"
    )
    return max(0, width)


def test_the_lobby_has_no_serious_violation(open_table: Callable[[], Table]) -> None:
    table = open_table()
    table.open()
    assert findings(table) == []


@pytest.mark.parametrize(
    ("game", "seats"),
    [
        ("hearts", ["HUMAN", BOT, BOT, BOT]),
        ("guandan", ["HUMAN", BOT, BOT, BOT]),
        ("klaberjass", ["HUMAN", BOT]),
    ],
)
def test_each_game_at_play_has_no_serious_violation_and_fits_a_phone(
    open_table: Callable[[], Table], game: str, seats: list[str]
) -> None:
    table = open_table()
    table.create(game, seats)
    table.wait_turn_or_end()
    assert findings(table) == []
    table.browser.set_window_size(*PHONE)
    table.wait_turn_or_end()
    assert sideways_overflow(table) == 0
    assert findings(table) == []
