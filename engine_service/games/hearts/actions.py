"""The two Hearts actions, as small immutable values with a text form.

>>> str(PlayCard(Card.parse("QS"))), str(PassCards.parse("pass 2C 3C AH"))
('play QS', 'pass 2C 3C AH')
"""

from __future__ import annotations

from dataclasses import dataclass

from engine_service.core.cards import (
    CARDS,
    DECK_SIZE,
    Card,
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


def plays_of(mask: int) -> tuple[PlayCard, ...]:
    """The plays of every card in ``mask``, lowest card first.

    Listing legal moves is the hottest path of a game, so it walks the mask's bits as plain
    integers (compiled, a machine loop) and picks each play from :data:`PLAYS`: about half
    the cost of the cached per-suit tables it replaced, which ran in interpreted code.

    >>> [str(p) for p in plays_of(mask_of(Card.parse(c) for c in ("AH", "2C", "TC")))]
    ['play 2C', 'play TC', 'play AH']
    """
    plays: list[PlayCard] = []
    while mask:
        low = mask & -mask
        plays.append(PLAYS[low.bit_length() - 1])
        mask ^= low
    return tuple(plays)


def parse_action(text: str) -> HeartsAction:
    """Read an action in its text form (``play QS`` or ``pass 2C 3C AH``)."""
    return PassCards.parse(text) if text.startswith("pass") else PlayCard.parse(text)
