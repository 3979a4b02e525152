"""H-R6: the highest card of the suit led takes the trick; there are no trumps."""

from __future__ import annotations

from engine_service.core.cards import Card
from engine_service.games.hearts.state import Trick


def cards(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(code) for code in text.split())


def test_h_r6_highest_card_of_the_suit_led_wins():
    # seat 3 leads 5C; seat 0's AH is off-suit; seat 2's KC wins
    assert Trick(3, cards("5C AH 9C KC")).winner == 2


def test_h_r6_an_unfinished_trick_has_no_winner():
    assert Trick(0, cards("5C AH")).winner is None
