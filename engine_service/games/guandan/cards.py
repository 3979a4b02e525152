"""Guandan's card kinds: the 52 French cards and two jokers, each present twice (108 cards).

Copies of a kind are interchangeable, so a hand is a tuple of 54 counts indexed by kind
(``Hand``). Kinds 0..51 are the numbers of :mod:`engine_service.core.cards` (``suit * 13 +
rank - 2``); 52 is the black (small) joker and 53 the red (big) joker.

>>> kind_text(parse_kind("qs")), kind_text(RED_JOKER), rank_of(parse_kind("BJ"))
('QS', 'RJ', 15)
>>> strength(5, level=5), strength(14, level=5), is_wild(parse_kind("5H"), level=5)
(15, 14, True)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from engine_service.core.cards import CARDS, SUIT_SIZE, Card, Suit

BLACK_JOKER: Final = 52
RED_JOKER: Final = 53
KIND_COUNT: Final = 54
COPIES: Final = 2
BLACK_JOKER_RANK: Final = 15
RED_JOKER_RANK: Final = 16
LEVEL_STRENGTH: Final = 15
"""G-R3: the level rank is lifted above the ace (14) and below the jokers (16, 17)."""

Hand = tuple[int, ...]
"""How many copies (0..2) of each of the 54 kinds a seat holds."""

EMPTY_HAND: Final[Hand] = (0,) * KIND_COUNT


def deck() -> tuple[int, ...]:
    """All 108 cards as kinds, in a fixed order (shuffled by the caller)."""
    return tuple(kind for kind in range(KIND_COUNT) for _ in range(COPIES))


def kind_of(rank: int, suit: int) -> int:
    """The kind of a non-joker card of ``rank`` (2..14) in ``suit``."""
    return int(Card.of(rank, suit))


def rank_of(kind: int) -> int:
    """Natural rank: 2..14 for French cards, 15 for the black and 16 for the red joker."""
    return kind % SUIT_SIZE + 2 if kind < BLACK_JOKER else kind - BLACK_JOKER + BLACK_JOKER_RANK


def suit_of(kind: int) -> Suit | None:
    """The suit of a French card; ``None`` for a joker."""
    return Suit(kind // SUIT_SIZE) if kind < BLACK_JOKER else None


def is_wild(kind: int, level: int) -> bool:
    """G-R5: the hearts of the level rank are the wild cards."""
    return kind == kind_of(level, Suit.HEARTS)


def strength(rank: int, level: int) -> int:
    """G-R3 order of singles and same-rank groups: 2..14, level 15, black joker 16, red 17."""
    if rank == level:
        return LEVEL_STRENGTH
    return rank + 1 if rank >= BLACK_JOKER_RANK else rank


def kind_text(kind: int) -> str:
    """``"QS"``, ``"TH"``, ``"BJ"`` (black joker) or ``"RJ"`` (red joker)."""
    if kind == BLACK_JOKER:
        return "BJ"
    if kind == RED_JOKER:
        return "RJ"
    return str(CARDS[kind])


def parse_kind(text: str) -> int:
    """Read a kind in its text form (case-insensitive; ``10h`` is accepted for ``TH``).

    Raises:
        ValueError: the text names no card.
    """
    code = text.strip().upper()
    if code == "BJ":
        return BLACK_JOKER
    if code == "RJ":
        return RED_JOKER
    return int(Card.parse(code))


def hand_of(kinds: Iterable[int]) -> Hand:
    """The counts of some kinds."""
    counts = [0] * KIND_COUNT
    for kind in kinds:
        counts[kind] += 1
    return tuple(counts)


def kinds_in(hand: Hand) -> tuple[int, ...]:
    """Every card of a hand as kinds, lowest kind first, copies repeated."""
    return tuple(kind for kind, n in enumerate(hand) if n for _ in range(n))


def format_kinds(kinds: Iterable[int]) -> str:
    """Kinds as space-separated codes, e.g. ``"5H 5H RJ"``."""
    return " ".join(kind_text(kind) for kind in kinds)
