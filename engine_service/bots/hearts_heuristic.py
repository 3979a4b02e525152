"""A Hearts bot that plays like a careful beginner: dodge points, dump danger when void.

It passes QS, high spades and high hearts; ducks under the winning card when it must follow;
takes a clean trick with its highest card when it plays last; and when void sheds QS first,
then its highest heart, then its highest card.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine_service.core.cards import ACE, KING, SUIT_SIZE, Card, Suit, mask_of
from engine_service.games.hearts.actions import HeartsAction, PassCards, PlayCard
from engine_service.games.hearts.scoring import QUEEN_OF_SPADES, trick_points
from engine_service.games.hearts.view import HeartsView


def danger(card: Card) -> int:
    """How much a card hurts to keep: higher is passed first."""
    if card == QUEEN_OF_SPADES:
        return 100
    if card.suit is Suit.SPADES and card.rank in (ACE, KING):
        return 90 + card.rank
    if card.suit is Suit.HEARTS:
        return 40 + card.rank
    return card.rank


class HeartsHeuristicBot:
    """A deterministic-given-rng Hearts player that beats random play by a wide margin."""

    def choose(
        self, view: HeartsView, legal: Sequence[HeartsAction], rng: random.Random
    ) -> HeartsAction:
        """Pick a pass or a card by the rules of thumb in the module docstring."""
        if isinstance(legal[0], PassCards):
            worst = sorted(view.hand, key=danger, reverse=True)[:3]
            return PassCards.of(*worst)
        cards = [a.card for a in legal if isinstance(a, PlayCard)]
        trick = view.trick.cards if view.trick is not None else ()
        if not trick:
            return PlayCard(self._lead(cards))
        led = trick[0] // SUIT_SIZE
        following = [c for c in cards if c // SUIT_SIZE == led]
        if not following:
            return PlayCard(max(cards, key=lambda c: (danger(c), c.rank)))
        top = max(c for c in trick if c // SUIT_SIZE == led)
        last_to_play = len(trick) == 3
        if last_to_play and not trick_points(mask_of(trick)):
            safe = [c for c in following if c != QUEEN_OF_SPADES]
            return PlayCard(max(safe or following))
        under = [c for c in following if c < top]
        return PlayCard(max(under) if under else min(following))

    @staticmethod
    def _lead(cards: list[Card]) -> Card:
        """Lead the lowest card, preferring suits other than hearts and never QS if avoidable."""
        ordered = sorted(cards, key=lambda c: (c == QUEEN_OF_SPADES, c.suit is Suit.HEARTS, c.rank))
        return ordered[0]
