"""A Klaberjass bot that plays like a sound club player's first lesson.

Bidding: it values its six cards for a suit as trump (J and 9 of trumps above all, then A
and 10, the other trumps, side aces and tens, a sequence or bella) and becomes maker when the
value clears a bar. Dix: it always swaps the trump 7 for the turned-up card. Play: it leads
a master trump while trumps are out, then side aces, else a cheap card; second to a trick
it wins cheaply when the trick is worth it and otherwise throws its least valuable card. It
always announces bella and declares its sequences.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from engine_service.core.cards import ACE, JACK, KING, QUEEN, Card, Suit, cards_in, mask_of
from engine_service.games.klaberjass.actions import (
    Dix,
    KlaberjassAction,
    PassBid,
    PlayCard,
    TakeTrump,
)
from engine_service.games.klaberjass.cards import (
    NINE,
    PACK_MASK,
    TEN,
    beats,
    card_points,
    strength,
    suit_mask,
)
from engine_service.games.klaberjass.sequences import runs_in
from engine_service.games.klaberjass.state import Phase
from engine_service.games.klaberjass.view import KlaberjassView

_TRUMP_VALUE: Final = {JACK: 3.0, NINE: 2.2, ACE: 1.4, TEN: 1.1, KING: 0.8, QUEEN: 0.7}
_OTHER_TRUMP: Final = 0.6
_SIDE_ACE: Final = 0.9
_SIDE_TEN: Final = 0.4
BID_BAR: Final = 6.0
"""The hand value, in the units above, from which the bot takes trump."""


def hand_value(hand: int, trump: Suit) -> float:
    """How strong ``hand`` is with ``trump`` as trump suit (higher is better)."""
    value = 0.0
    for card in cards_in(hand):
        if card.suit is trump:
            value += _TRUMP_VALUE.get(card.rank, _OTHER_TRUMP)
        elif card.rank == ACE:
            value += _SIDE_ACE
        elif card.rank == TEN and hand & Card.of(ACE, card.suit).bit:
            value += _SIDE_TEN
    runs = runs_in(hand)
    if runs:
        value += runs[0].points / 20
    if hand & Card.of(KING, trump).bit and hand & Card.of(QUEEN, trump).bit:
        value += 1.0
    return value


class KlaberjassHeuristicBot:
    """A deterministic Klaberjass player that beats random play by a wide margin."""

    def choose(
        self, view: KlaberjassView, legal: Sequence[KlaberjassAction], rng: random.Random
    ) -> KlaberjassAction:
        """Pick a bid, the dix or a card by the rules of thumb in the module docstring."""
        if view.phase is Phase.DIX:
            return Dix(swap=True) if Dix(swap=True) in legal else Dix(swap=False)
        if view.phase is not Phase.PLAYING:
            return self._bid(view, legal)
        plays = [a for a in legal if isinstance(a, PlayCard)]
        # the first listed play of each card announces bella and declares sequences
        cards = list(dict.fromkeys(a.card for a in plays))
        return PlayCard(self._card(view, cards))

    @staticmethod
    def _bid(view: KlaberjassView, legal: Sequence[KlaberjassAction]) -> KlaberjassAction:
        hand = mask_of(view.hand)
        takes = [a for a in legal if isinstance(a, TakeTrump)]
        if not takes:
            return PassBid()
        best = max(takes, key=lambda a: hand_value(hand, a.suit))
        return best if hand_value(hand, best.suit) >= BID_BAR else PassBid()

    def _card(self, view: KlaberjassView, cards: list[Card]) -> Card:
        trump = view.trump
        assert trump is not None
        hand = mask_of(view.hand)
        unseen = PACK_MASK & ~hand & ~mask_of(view.played[0] + view.played[1])
        unseen &= ~view.turn_up.bit & ~(view.bottom.bit if view.bottom is not None else 0)
        if not view.trick.cards:
            return self._lead(cards, hand, unseen, trump)
        return self._follow(view.trick.cards[0], cards, trump)

    @staticmethod
    def _lead(cards: list[Card], hand: int, unseen: int, trump: Suit) -> Card:
        trumps = [c for c in cards if c.suit is trump]
        unseen_trumps = unseen & suit_mask(trump)
        if trumps and unseen_trumps:
            top = max(trumps, key=lambda c: strength(c, trump))
            if all(strength(top, trump) > strength(c, trump) for c in cards_in(unseen_trumps)):
                return top  # a master trump draws the opponent's trumps
        masters = [
            c
            for c in cards
            if c.suit is not trump
            and all(
                strength(c, trump) > strength(o, trump)
                for o in cards_in(unseen & suit_mask(c.suit))
            )
        ]
        if masters:
            return max(masters, key=lambda c: card_points(c, trump))
        side = [c for c in cards if c.suit is not trump] or cards
        return min(side, key=lambda c: (card_points(c, trump), strength(c, trump)))

    @staticmethod
    def _follow(led: Card, cards: list[Card], trump: Suit) -> Card:
        """Second to the trick: win with the cheapest winning card, else throw the cheapest.

        A choice between winning and losing only arises when following a plain suit; a void
        hand must trump anyway (K-R17), and a trump lead is beaten whenever possible (K-R18).
        """
        winners = [c for c in cards if beats(c, led, trump)]
        return min(winners or cards, key=lambda c: (card_points(c, trump), strength(c, trump)))
