"""Cards between the domain's int form and ``cardengine.v1.Card``.

Most games use the 52 cards of :mod:`engine_service.core.cards` and refuse jokers as
malformed; Guandan's card kinds (:mod:`engine_service.games.guandan.cards`) add the two jokers,
sent with their own ranks and no suit.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from cardengine.v1 import cards_pb2

from engine_service.core.cards import ACE, CARDS, SUIT_SIZE, Card, Suit
from engine_service.core.errors import MalformedRequest
from engine_service.games.guandan.cards import (
    BLACK_JOKER,
    BLACK_JOKER_RANK,
    COPIES,
    KIND_COUNT,
    RED_JOKER,
    RED_JOKER_RANK,
)

# Suit enum numbers in the proto are the domain's suit number plus one.
_PROTO_SUIT_OFFSET = 1
# The jokers' rank enum numbers are the domain's joker ranks.
_JOKERS: Final = {BLACK_JOKER_RANK: BLACK_JOKER, RED_JOKER_RANK: RED_JOKER}
_JOKER_RANKS: Final = {kind: rank for rank, kind in _JOKERS.items()}


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


def at_most(messages: Sequence[cards_pb2.Card], most: int, field_path: str) -> None:
    """Refuse a card list longer than ``most``, before any card of it is read.

    A request may hold tens of thousands of cards; checking the count first keeps the cost
    of refusing it independent of how many there are.

    Raises:
        MalformedRequest: more than ``most`` cards.
    """
    if len(messages) > most:
        raise MalformedRequest(field_path, f"lists more than {most} cards")


def decode_distinct_cards(messages: Sequence[cards_pb2.Card], field_path: str) -> tuple[Card, ...]:
    """Several cards, none repeated (so at most a pack's 52).

    Raises:
        MalformedRequest: too many cards, a card is malformed or appears twice.
    """
    at_most(messages, len(CARDS), field_path)
    cards = tuple(decode_card(m, f"{field_path}[{i}]") for i, m in enumerate(messages))
    if len(set(cards)) != len(cards):
        raise MalformedRequest(field_path, "lists the same card twice")
    return cards


def encode_kind(kind: int) -> cards_pb2.Card:
    """The proto of one Guandan card kind: a French card, or a joker with no suit."""
    joker_rank = _JOKER_RANKS.get(kind)
    if joker_rank is None:
        return encode_card(CARDS[kind])
    return cards_pb2.Card(rank=cards_pb2.Rank.ValueType(joker_rank))


def encode_kinds(kinds: Iterable[int]) -> list[cards_pb2.Card]:
    """Protos of several Guandan card kinds, in the given order."""
    return [encode_kind(kind) for kind in kinds]


def decode_kind_rank(rank: int, field_path: str) -> int:
    """A rank of Guandan's cards: RANK_TWO to RANK_ACE or a joker.

    Raises:
        MalformedRequest: unset or out of range.
    """
    if not 2 <= rank <= RED_JOKER_RANK:
        raise MalformedRequest(field_path, "must be a rank from RANK_TWO to RANK_RED_JOKER")
    return rank


def decode_kind(message: cards_pb2.Card, field_path: str) -> int:
    """The Guandan card kind a proto names (a joker has no suit).

    Raises:
        MalformedRequest: a joker with a suit, or a French card as :func:`decode_card` refuses.
    """
    joker = _JOKERS.get(decode_kind_rank(int(message.rank), f"{field_path}.rank"))
    if joker is None:
        return int(decode_card(message, field_path))
    if message.suit:
        raise MalformedRequest(f"{field_path}.suit", "must be unset for a joker")
    return joker


def decode_kinds(
    messages: Sequence[cards_pb2.Card], field_path: str, most: int = COPIES * KIND_COUNT
) -> tuple[int, ...]:
    """At most ``most`` Guandan card kinds (unless told, the two packs' 108), copies allowed.

    Raises:
        MalformedRequest: too many cards, or a card is malformed.
    """
    at_most(messages, most, field_path)
    return tuple(decode_kind(m, f"{field_path}[{i}]") for i, m in enumerate(messages))
