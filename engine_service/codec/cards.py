"""Cards between the domain's int form and ``cardengine.v1.Card``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from cardengine.v1 import cards_pb2

from engine_service.core.cards import ACE, CARDS, SUIT_SIZE, Card, Suit
from engine_service.core.errors import MalformedRequest

# Suit enum numbers in the proto are the domain's suit number plus one.
_PROTO_SUIT_OFFSET = 1


def _card_message(card: int) -> cards_pb2.Card:
    return cards_pb2.Card(
        rank=cards_pb2.Rank.ValueType(card % SUIT_SIZE + 2),  # enum numbers are the ranks
        suit=cards_pb2.Suit.ValueType(card // SUIT_SIZE + _PROTO_SUIT_OFFSET),
    )


_CARD_MESSAGES: Final = tuple(_card_message(card) for card in CARDS)


def encode_card(card: Card) -> cards_pb2.Card:
    """The proto of one card: a shared message, so copy it (every repeated field does)."""
    return _CARD_MESSAGES[card]


def encode_cards(cards: Iterable[Card]) -> list[cards_pb2.Card]:
    """Protos of several cards, in the given order (shared messages, see :func:`encode_card`)."""
    return [_CARD_MESSAGES[card] for card in cards]


def decode_card(message: cards_pb2.Card, field_path: str) -> Card:
    """The card a proto names.

    Raises:
        MalformedRequest: rank or suit unset or out of range.
    """
    rank, suit = int(message.rank), int(message.suit) - _PROTO_SUIT_OFFSET
    if not 2 <= rank <= ACE:
        raise MalformedRequest(f"{field_path}.rank", "must be a rank from RANK_TWO to RANK_ACE")
    if not 0 <= suit < len(Suit):
        raise MalformedRequest(f"{field_path}.suit", "must be one of the four suits")
    return CARDS[suit * SUIT_SIZE + rank - 2]


def decode_distinct_cards(messages: Sequence[cards_pb2.Card], field_path: str) -> tuple[Card, ...]:
    """Several cards, none repeated.

    Raises:
        MalformedRequest: a card is malformed or appears twice.
    """
    cards = tuple(decode_card(m, f"{field_path}[{i}]") for i, m in enumerate(messages))
    if len(set(cards)) != len(cards):
        raise MalformedRequest(field_path, "lists the same card twice")
    return cards
