"""The two Hearts actions, as small immutable values with a text form.

>>> str(PlayCard(Card.parse("QS"))), str(PassCards.parse("pass 2C 3C AH"))
('play QS', 'pass 2C 3C AH')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from typing import overload

from engine_service.core.cards import (
    CARDS,
    DECK_SIZE,
    SUIT_SIZE,
    Card,
    Suit,
    cards_in,
    format_cards,
    mask_of,
)


@dataclass(frozen=True, slots=True)
class PassCards:
    """Choose the cards to pass this hand (H-R2). ``mask`` is the chosen cards' bitmask."""

    mask: int

    def __post_init__(self) -> None:
        if self.mask < 0 or self.mask >> DECK_SIZE:
            raise ValueError(f"not a set of cards: {self.mask:#x}")

    @staticmethod
    def of(*cards: Card) -> PassCards:
        """The pass of exactly these cards."""
        return PassCards(mask_of(cards))

    @staticmethod
    def parse(text: str) -> PassCards:
        """Read ``"pass 2C 3C AH"``."""
        verb, *codes = text.split()
        if verb != "pass":
            raise ValueError(f"not a pass: {text!r}")
        return PassCards(mask_of(Card.parse(code) for code in codes))

    @property
    def cards(self) -> tuple[Card, ...]:
        """The chosen cards, lowest first."""
        return tuple(cards_in(self.mask))

    def __str__(self) -> str:
        return "pass " + format_cards(self.cards)


@dataclass(frozen=True, slots=True)
class PlayCard:
    """Play one card to the current trick (H-R3 .. H-R9)."""

    card: Card

    @staticmethod
    def parse(text: str) -> PlayCard:
        """Read ``"play QS"``."""
        verb, code = text.split()
        if verb != "play":
            raise ValueError(f"not a play: {text!r}")
        return PlayCard(Card.parse(code))

    def __str__(self) -> str:
        return f"play {self.card}"


HeartsAction = PassCards | PlayCard

PLAYS: tuple[PlayCard, ...] = tuple(PlayCard(card) for card in CARDS)
"""One shared :class:`PlayCard` per card, indexed by card number (they are immutable)."""

_SUIT_BITS = (1 << SUIT_SIZE) - 1
_SUIT_SHIFTS = tuple(suit * SUIT_SIZE for suit in Suit)


def plays_of(mask: int) -> tuple[PlayCard, ...]:
    """The plays of every card in ``mask``, lowest card first.

    Listing legal moves is the hottest path of a game, so each suit's 13 bits are looked up
    in a table built on first use rather than walked card by card.

    >>> [str(p) for p in plays_of(mask_of(Card.parse(c) for c in ("AH", "2C", "TC")))]
    ['play 2C', 'play TC', 'play AH']
    """
    plays: tuple[PlayCard, ...] = ()
    for shift in _SUIT_SHIFTS:
        bits = mask >> shift & _SUIT_BITS
        if bits:
            plays += _suit_plays(shift, bits)
    return plays


@cache
def _suit_plays(shift: int, bits: int) -> tuple[PlayCard, ...]:
    return tuple(PLAYS[card] for card in cards_in(bits << shift))


class PassChoices(Sequence[PassCards]):
    """Every pass of ``PASS_SIZE`` cards from a hand, built only when asked for.

    A hand of 13 has 286 possible passes; a bot picking one by index should not pay for
    building the other 285, so items are made on demand from a shared table of index triples.

    ``hand`` and ``size`` describe the whole family at once, which is how a view lists it
    (any ``size`` cards of ``hand``) instead of item by item.

    >>> choices = PassChoices(mask_of(Card.parse(c) for c in "2C 3C 4C 5C".split()), 3)
    >>> len(choices), str(choices[0]), str(choices[-1]), choices.size
    (4, 'pass 2C 3C 4C', 'pass 3C 4C 5C', 3)
    """

    __slots__ = ("_bits", "_combos", "hand", "size")

    def __init__(self, hand: int, size: int) -> None:
        self.hand = hand
        self.size = size
        self._bits = tuple(card.bit for card in cards_in(hand))
        self._combos = _combinations(len(self._bits), size)

    def __len__(self) -> int:
        return len(self._combos)

    @overload
    def __getitem__(self, index: int) -> PassCards: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[PassCards]: ...
    def __getitem__(self, index: int | slice) -> PassCards | Sequence[PassCards]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        mask = 0
        for position in self._combos[index]:
            mask |= self._bits[position]
        return PassCards(mask)


@cache
def _combinations(count: int, size: int) -> tuple[tuple[int, ...], ...]:
    return tuple(combinations(range(count), size))


def parse_action(text: str) -> HeartsAction:
    """Read an action in its text form (``play QS`` or ``pass 2C 3C AH``)."""
    return PassCards.parse(text) if text.startswith("pass") else PlayCard.parse(text)
