"""Builders for ``cardengine.v1.Action`` messages from card text.

>>> hearts_play("QS").hearts.play_card.card.rank == cards_pb2.RANK_QUEEN
True
>>> len(hearts_pass(["2C", "3C", "AH"]).hearts.pass_cards.cards)
3
"""

from __future__ import annotations

from collections.abc import Iterable

from cardengine.v1 import cards_pb2, game_pb2, hearts_pb2

from cardengine_client.cards import parse_card


def _card(card: str | cards_pb2.Card) -> cards_pb2.Card:
    return parse_card(card) if isinstance(card, str) else card


def hearts_play(card: str | cards_pb2.Card) -> game_pb2.Action:
    """The Hearts action that plays ``card`` (text such as ``"QS"``, or a Card proto).

    Raises:
        ValueError: the text names no card.
    """
    play = hearts_pb2.HeartsPlayCard(card=_card(card))
    return game_pb2.Action(hearts=hearts_pb2.HeartsAction(play_card=play))


def hearts_pass(cards: Iterable[str | cards_pb2.Card]) -> game_pb2.Action:
    """The Hearts action that passes ``cards``.

    The count is not checked here: the service judges it (H-R2, reason WRONG_PASS_SIZE), so a
    client shows the same rule text as any other.

    Raises:
        ValueError: a text names no card.
    """
    chosen = hearts_pb2.HeartsPassCards(cards=[_card(card) for card in cards])
    return game_pb2.Action(hearts=hearts_pb2.HeartsAction(pass_cards=chosen))
