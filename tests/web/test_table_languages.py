"""The page speaks the five languages of the seed rules: the browser's by default, a switch in
the header; the service's own words (a refusal's explanation) follow the choice."""

from __future__ import annotations

import re
from collections.abc import Callable

from selenium.webdriver.support.ui import Select

from tests.web.table import Table, wait_for

BOT = "BOT_HEURISTIC"
HEADINGS = {
    "en": "New game",
    "es": "Partida nueva",
    "fr": "Nouvelle partie",
    "de": "Neues Spiel",
    "nl": "Nieuw spel",
}


def test_every_language_from_the_switch(open_table: Callable[[], Table]) -> None:
    table = open_table()
    table.open()
    switch = Select(table.browser.find_element("id", "language"))
    assert switch.first_selected_option.get_attribute("value") == "en"  # the browser's (en-US)
    for code, heading in HEADINGS.items():
        switch.select_by_value(code)
        assert table.browser.find_element("css selector", "#create-form h2").text == heading
        assert table.browser.execute_script("return document.documentElement.lang") == code


def test_a_game_in_french_and_its_refusal_explained_in_french(
    open_table: Callable[[], Table],
) -> None:
    table = open_table()
    table.open()
    Select(table.browser.find_element("id", "language")).select_by_value("fr")
    table.create("hearts", ["HUMAN", BOT, BOT, BOT])  # the choice is kept (localStorage)
    table.wait_turn_or_end()
    assert "place 1" in table.browser.find_element("id", "seats-info").text
    for _ in range(40):  # the pass, then until a card may not be played (bounded)
        table.wait_turn_or_end()
        if table.elements("#hand button.unplayable"):
            break
        table.play_one()
    table.elements("#hand button.unplayable")[0].click()
    error = wait_for("the refusal", lambda: table.error()["shown"] and table.error())
    explanation = error["shown"].splitlines()[0]
    # The service's explanation, in French: "... Règle H-R4 : ..." (whichever rule refused it).
    assert f"Règle {error['rule_id']}" in explanation, explanation
    assert table.browser.find_element("id", "language").get_attribute("value") == "fr"
    # The move log in French, from the events' catalogue the clients share.
    told = [text for _, text in table.log_lines()]
    assert any(re.fullmatch(r"v\d+: place \d( \(vous\))? a joué \S+", line) for line in told), told
