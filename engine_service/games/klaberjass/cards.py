"""The 32-card Klaberjass pack on top of the core card numbers (K-R1 .. K-R3).

Cards are core :class:`~engine_service.core.cards.Card` values (7 up to ace of each suit), so
hands are bitmasks of the same 52-bit layout as in every other game.

>>> [str(c) for c in cards_in(PACK_MASK & SUIT_MASKS[Suit.HEARTS])]
['7H', '8H', '9H', 'TH', 'JH', 'QH', 'KH', 'AH']
>>> card_points(Card.parse("JH"), Suit.HEARTS), card_points(Card.parse("JH"), Suit.SPADES)
(20, 2)
>>> beats(Card.parse("9S"), Card.parse("AS"), Suit.SPADES)  # K-R2: trump 9 over trump ace
True
"""

from __future__ import annotations

from typing import Final

from engine_service.core.cards import (
    ACE,
    JACK,
    KING,
    QUEEN,
    SUIT_MASKS,
    SUIT_SIZE,
    Card,
    Suit,
    cards_in,
)

LOWEST_RANK: Final = 7
PACK_SIZE: Final = 32
PACK_MASK: Final = sum(((1 << 8) - 1) << (LOWEST_RANK - 2) << (s * SUIT_SIZE) for s in Suit)
"""The bitmask of the 32 cards in play (K-R1)."""

PACK: Final[tuple[Card, ...]] = tuple(cards_in(PACK_MASK))
"""The 32 cards, clubs 7 first; the order a deal shuffles from."""

TEN: Final = 10
NINE: Final = 9

_TRUMP_ORDER: Final = (7, 8, QUEEN, KING, TEN, ACE, NINE, JACK)  # K-R2, low to high
_PLAIN_ORDER: Final = (7, 8, NINE, JACK, QUEEN, KING, TEN, ACE)
_TRUMP_STRENGTH: Final = {rank: i for i, rank in enumerate(_TRUMP_ORDER)}
_PLAIN_STRENGTH: Final = {rank: i for i, rank in enumerate(_PLAIN_ORDER)}
_TRUMP_POINTS: Final = {JACK: 20, NINE: 14, ACE: 11, TEN: 10, KING: 4, QUEEN: 3}  # K-R3
_PLAIN_POINTS: Final = {JACK: 2, ACE: 11, TEN: 10, KING: 4, QUEEN: 3}


def suit_of(card: int) -> Suit:
    """The suit of a card number."""
    return Suit(card // SUIT_SIZE)


def rank_of(card: int) -> int:
    """The rank (7..14) of a card number."""
    return card % SUIT_SIZE + 2


def strength(card: int, trump: Suit) -> int:
    """The card's place in its suit's trick order (K-R2); trumps are 8..15, others 0..7."""
    if card // SUIT_SIZE == trump:
        return 8 + _TRUMP_STRENGTH[rank_of(card)]
    return _PLAIN_STRENGTH[rank_of(card)]


def beats(card: int, best: int, trump: Suit) -> bool:
    """Whether ``card`` takes a trick that ``best`` (the card winning so far) holds (K-R19)."""
    if card // SUIT_SIZE == best // SUIT_SIZE:
        return strength(card, trump) > strength(best, trump)
    return card // SUIT_SIZE == trump


def card_points(card: int, trump: Suit) -> int:
    """The card's point value (K-R3)."""
    table = _TRUMP_POINTS if card // SUIT_SIZE == trump else _PLAIN_POINTS
    return table.get(rank_of(card), 0)


def trump_card(rank: int, trump: Suit) -> Card:
    """The card of ``rank`` in the trump suit."""
    return Card.of(rank, trump)


def suit_mask(suit: Suit) -> int:
    """The pack's cards of one suit."""
    return SUIT_MASKS[suit] & PACK_MASK


def _stronger_trumps(card: Card) -> int:
    suit = card.suit
    mask = 0
    for other in cards_in(suit_mask(suit)):
        if strength(other, suit) > strength(card, suit):
            mask |= other.bit
    return mask


TRUMPS_ABOVE: Final = {card: _stronger_trumps(card) for card in PACK}
"""For each card, the cards of its suit that beat it when that suit is trump (K-R18)."""
