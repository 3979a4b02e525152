"""French-suited playing cards with a canonical two-character text form.

A card is a small ``int`` (``suit * 13 + rank - 2``) so that hands can be kept as bitmasks
(``1 << card``), which makes legality checks cheap; ``str(card)`` and :meth:`Card.parse` give
the readable form used in logs, golden files and error messages.

>>> Card.parse("QS"), str(Card.parse("10h")), Card.parse("2C").rank
(Card('QS'), 'TH', 2)
>>> [str(c) for c in cards_in(mask_of([Card.parse("AH"), Card.parse("2C")]))]
['2C', 'AH']
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from enum import IntEnum
from typing import Final

from engine_service import mypyc_attr


class Suit(IntEnum):
    """The four suits, in the order used for sorting hands."""

    CLUBS = 0
    DIAMONDS = 1
    SPADES = 2
    HEARTS = 3

    @property
    def letter(self) -> str:
        """The one-letter code: C, D, S or H."""
        return "CDSH"[self]


RANK_LETTERS: Final = "23456789TJQKA"
"""Rank codes from 2 (low) to A (high); ``T`` is ten."""

ACE: Final = 14
KING: Final = 13
QUEEN: Final = 12
JACK: Final = 11
SUIT_SIZE: Final = 13
DECK_SIZE: Final = 52


@mypyc_attr(native_class=False)  # mypyc compiles no subclass of int as a native class
class Card(int):
    """One card of a 52-card deck, ranked 2..14 (ace high) within its suit."""

    __slots__ = ()

    @property
    def suit(self) -> Suit:
        """The card's suit."""
        return Suit(self // SUIT_SIZE)

    @property
    def rank(self) -> int:
        """The card's rank, 2..14 (11 = J, 12 = Q, 13 = K, 14 = A)."""
        return self % SUIT_SIZE + 2

    @property
    def bit(self) -> int:
        """This card's bit in a hand bitmask."""
        return 1 << self

    @staticmethod
    def of(rank: int, suit: int) -> Card:
        """The card of ``rank`` (2..14) in ``suit`` (a :class:`Suit` or its number)."""
        if not 2 <= rank <= ACE:
            raise ValueError(f"rank out of range: {rank}")
        return CARDS[suit * SUIT_SIZE + rank - 2]

    @staticmethod
    def parse(text: str) -> Card:
        """Read a card such as ``"QS"``, ``"TH"`` or ``"10h"`` (case-insensitive).

        Raises:
            ValueError: the text names no card.
        """
        code = text.strip().upper()
        if code.startswith("10"):
            code = "T" + code[2:]
        if len(code) != 2 or code[0] not in RANK_LETTERS or code[1] not in "CDSH":
            raise ValueError(f"not a card: {text!r}")
        return Card.of(RANK_LETTERS.index(code[0]) + 2, Suit("CDSH".index(code[1])))

    def __str__(self) -> str:
        return RANK_LETTERS[self % SUIT_SIZE] + "CDSH"[self // SUIT_SIZE]

    def __repr__(self) -> str:
        return f"Card('{self}')"


CARDS: Final[tuple[Card, ...]] = tuple(Card(i) for i in range(DECK_SIZE))
"""Every card, indexed by its number; use these instead of building new ones."""

FULL_DECK_MASK: Final = (1 << DECK_SIZE) - 1
SUIT_MASKS: Final[tuple[int, ...]] = tuple(
    ((1 << SUIT_SIZE) - 1) << (suit * SUIT_SIZE) for suit in Suit
)
"""The bitmask of all 13 cards of each suit, indexed by :class:`Suit`."""


def mask_of(cards: Iterable[int]) -> int:
    """The bitmask holding ``cards``."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def cards_in(mask: int) -> Iterator[Card]:
    """The cards of a bitmask, lowest number first (clubs 2 .. hearts A)."""
    while mask:
        low = mask & -mask
        yield CARDS[low.bit_length() - 1]
        mask ^= low


def bits_in(mask: int) -> tuple[int, ...]:
    """Each card of a bitmask as a one-card mask, lowest first: for code that ORs them up.

    >>> bits_in(0b1010)
    (2, 8)
    """
    bits: list[int] = []
    while mask:
        low = mask & -mask
        bits.append(low)
        mask ^= low
    return tuple(bits)


def count(mask: int) -> int:
    """How many cards a bitmask holds."""
    return mask.bit_count()


def format_cards(cards: Iterable[int]) -> str:
    """Cards as space-separated codes, e.g. ``"2C QS AH"``."""
    return " ".join(str(CARDS[c]) for c in cards)
