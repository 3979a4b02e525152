"""The browser table seats the search bot: chosen in the lobby, named in the seats line."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from selenium.webdriver.common.by import By

from tests.web.table import Table

pytestmark = pytest.mark.service


def test_a_klaberjass_game_against_the_search_bot(open_table: Callable[[], Table]) -> None:
    table = open_table()
    table.create("klaberjass", ["HUMAN", "BOT_SEARCH"])
    table.wait_turn_or_end()
    kinds = table.browser.find_elements(By.CSS_SELECTOR, "#seats-info .who")
    assert [kind.get_attribute("data-kind") for kind in kinds] == ["HUMAN", "BOT_SEARCH"]
    assert "search bot" in kinds[1].text
