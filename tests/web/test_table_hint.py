"""The table's hint: the search bot's move for the seat (SuggestAction), raised in the hand or
marked among the buttons, and the engine accepts it as it is."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.web.table import Table, wait_for

pytestmark = pytest.mark.service

BOT = "BOT_HEURISTIC"


def ask_hint(table: Table) -> str:
    """Click the hint button; the hint's line once it is shown."""
    table.elements("#hint")[0].click()
    return wait_for("the hint", lambda: "".join(table.texts("#hint-text")))


def test_the_hint_raises_the_three_cards_of_a_suggested_pass(
    open_table: Callable[[], Table],
) -> None:
    """H-R2: the first decision of a hand is the pass: the hint raises three cards of the hand."""
    table = open_table()
    table.create("hearts", ["HUMAN", BOT, BOT, BOT])
    table.wait_turn_or_end()
    assert table.elements("#choice:not([hidden])"), "the pass is asked first"
    assert "pass" in ask_hint(table)
    assert len(table.elements("#hand .card.hinted")) == 3
    table.screenshot("hint")
    before = table.version()
    for picked in range(3):  # each click draws the hand again: the next card is found anew
        table.elements("#hand .card.hinted:not(.selected)")[0].click()
        wait_for("the card picked", lambda n=picked: len(table.elements(".card.selected")) > n)
    table.elements("#choice-submit")[0].click()
    wait_for("the hinted pass accepted", lambda: table.version() > before)
    assert not table.error()["shown"]
    assert not table.elements("#hand .card.hinted"), "a hint lasts only for its version"


def test_the_hint_marks_a_suggested_bid(open_table: Callable[[], Table]) -> None:
    """K-R5: bidding is done with buttons: the hint marks the button of its bid."""
    table = open_table()
    table.create("klaberjass", ["HUMAN", BOT])
    table.wait_turn_or_end()
    ask_hint(table)
    marked = table.elements("#legal button.legal.hinted") + table.elements("#hand .card.hinted")
    assert len(marked) == 1
    before = table.version()
    marked[0].click()
    wait_for("the hinted move accepted", lambda: table.version() > before or table.finished())
    assert not table.error()["shown"]
