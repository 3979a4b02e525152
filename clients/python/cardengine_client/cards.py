"""Cards between their two-character text form (``"QS"``) and ``cardengine.v1.Card``.

The text form is the one the service uses in its messages and the terminal game asks for:
a rank letter (``2``-``9``, ``T``, ``J``, ``Q``, ``K``, ``A``; ``10`` is accepted for ten)
followed by a suit letter (``C``, ``D``, ``S``, ``H``), in any letter case. The jokers, which
only Guandan uses, are ``BJ`` (black) and ``RJ`` (red) and have no suit.

>>> card = parse_card("10h")
>>> format_card(card), card.rank == cards_pb2.RANK_TEN
('TH', True)
>>> format_cards(sorted(parse_cards(["RJ", "AH", "2C", "QS"]), key=card_sort_key))
'2C QS AH RJ'
"""

from __future__ import annotations

from collections.abc import Iterable
from types import MappingProxyType
from typing import Final

from cardengine.v1 import cards_pb2

RANKS: Final = MappingProxyType(
    {
        "2": cards_pb2.RANK_TWO,
        "3": cards_pb2.RANK_THREE,
        "4": cards_pb2.RANK_FOUR,
        "5": cards_pb2.RANK_FIVE,
        "6": cards_pb2.RANK_SIX,
        "7": cards_pb2.RANK_SEVEN,
        "8": cards_pb2.RANK_EIGHT,
        "9": cards_pb2.RANK_NINE,
        "T": cards_pb2.RANK_TEN,
        "J": cards_pb2.RANK_JACK,
        "Q": cards_pb2.RANK_QUEEN,
        "K": cards_pb2.RANK_KING,
        "A": cards_pb2.RANK_ACE,
    }
)
"""Rank letter -> rank enum, low to high."""

SUITS: Final = MappingProxyType(
    {
        "C": cards_pb2.SUIT_CLUBS,
        "D": cards_pb2.SUIT_DIAMONDS,
        "S": cards_pb2.SUIT_SPADES,
        "H": cards_pb2.SUIT_HEARTS,
    }
)
"""Suit letter -> suit enum, in the order hands are sorted (the enum's own order)."""

JOKERS: Final = MappingProxyType({"BJ": cards_pb2.RANK_BLACK_JOKER, "RJ": cards_pb2.RANK_RED_JOKER})
"""Joker code -> rank enum; a joker's suit is left unset."""

_RANK_LETTERS: Final = MappingProxyType({rank: letter for letter, rank in RANKS.items()})
_SUIT_LETTERS: Final = MappingProxyType({suit: letter for letter, suit in SUITS.items()})
_JOKER_CODES: Final = MappingProxyType({rank: code for code, rank in JOKERS.items()})
_JOKER_SUIT_KEY: Final = max(SUITS.values()) + 1


def parse_card(text: str) -> cards_pb2.Card:
    """Read one card such as ``"QS"``, ``"TH"``, ``"10h"`` or a joker, ``"BJ"`` or ``"RJ"``.

    Raises:
        ValueError: the text names no card (the message quotes it, for showing to a player).
    """
    code = text.strip().upper()
    if code in JOKERS:
        return cards_pb2.Card(rank=JOKERS[code])
    if code.startswith("10"):
        code = "T" + code[2:]
    if len(code) != 2 or code[0] not in RANKS or code[1] not in SUITS:
        raise ValueError(f"not a card: {text!r} (write rank then suit, e.g. QS, TH, 2C)")
    return cards_pb2.Card(rank=RANKS[code[0]], suit=SUITS[code[1]])


def parse_cards(texts: Iterable[str]) -> list[cards_pb2.Card]:
    """Read several cards, keeping their order.

    Raises:
        ValueError: one of the texts names no card.
    """
    return [parse_card(text) for text in texts]


def format_card(card: cards_pb2.Card) -> str:
    """The two-character form of a card; ``"??"`` for a rank or suit this client does not know.

    A newer server may send enum values this client has never seen; showing them as unknown
    keeps a display working instead of failing.
    """
    if card.rank in _JOKER_CODES and not card.suit:
        return _JOKER_CODES[card.rank]
    return _RANK_LETTERS.get(card.rank, "?") + _SUIT_LETTERS.get(card.suit, "?")


def format_cards(cards: Iterable[cards_pb2.Card]) -> str:
    """Cards in their text form, separated by spaces, in the given order."""
    return " ".join(format_card(card) for card in cards)


def card_sort_key(card: cards_pb2.Card) -> tuple[int, int]:
    """Sorts by suit (clubs, diamonds, spades, hearts), then rank from two to ace; jokers last."""
    return (card.suit or _JOKER_SUIT_KEY, card.rank)
