"""Builders for ``cardengine.v1.Action`` messages from card text.

>>> hearts_play("QS").hearts.play_card.card.rank == cards_pb2.RANK_QUEEN
True
>>> len(hearts_pass(["2C", "3C", "AH"]).hearts.pass_cards.cards)
3
>>> klaberjass_trump("hearts").klaberjass.take_trump.suit == cards_pb2.SUIT_HEARTS
True
>>> klaberjass_play("KH", announce_bella=False).klaberjass.play_card.announce_bella
False
"""

from __future__ import annotations

from collections.abc import Iterable

from cardengine.v1 import cards_pb2, game_pb2, hearts_pb2, klaberjass_pb2

from cardengine_client.cards import SUITS, parse_card

_SUIT_WORDS = ("CLUBS", "DIAMONDS", "SPADES", "HEARTS")


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


def parse_suit(text: str) -> cards_pb2.Suit.ValueType:
    """Read a suit as its letter or its name, in any letter case: ``"H"``, ``"hearts"``.

    Raises:
        ValueError: the text names no suit.
    """
    code = text.strip().upper()
    if code in _SUIT_WORDS:
        code = code[0]
    if code not in SUITS:
        raise ValueError(f"not a suit: {text!r} (write C, D, S or H, or the suit's name)")
    return SUITS[code]


def klaberjass_trump(suit: str | cards_pb2.Suit.ValueType) -> game_pb2.Action:
    """The Klaberjass bid that takes ``suit`` as trump (K-R5, K-R6), by letter, name or enum.

    Raises:
        ValueError: the text names no suit.
    """
    chosen = parse_suit(suit) if isinstance(suit, str) else suit
    take = klaberjass_pb2.KlaberjassTakeTrump(suit=chosen)
    return game_pb2.Action(klaberjass=klaberjass_pb2.KlaberjassAction(take_trump=take))


def klaberjass_pass() -> game_pb2.Action:
    """The Klaberjass bid that declines trump in this round (K-R5, K-R6)."""
    bid = klaberjass_pb2.KlaberjassPassBid()
    return game_pb2.Action(klaberjass=klaberjass_pb2.KlaberjassAction(pass_bid=bid))


def klaberjass_dix(swap: bool) -> game_pb2.Action:
    """The Klaberjass dix decision (K-R11): swap the trump seven for the turn-up, or keep."""
    dix = klaberjass_pb2.KlaberjassDix(swap=swap)
    return game_pb2.Action(klaberjass=klaberjass_pb2.KlaberjassAction(dix=dix))


def klaberjass_play(
    card: str | cards_pb2.Card, *, announce_bella: bool = True, declare_sequences: bool = True
) -> game_pb2.Action:
    """The Klaberjass action that plays ``card``.

    The flags are sent only when false (unset means true on the wire): declining bella
    (K-R15) and concealing one's sequences (K-R14); the service judges whether that choice
    exists with this card.

    Raises:
        ValueError: the text names no card.
    """
    play = klaberjass_pb2.KlaberjassPlayCard(card=_card(card))
    if not announce_bella:
        play.announce_bella = False
    if not declare_sequences:
        play.declare_sequences = False
    return game_pb2.Action(klaberjass=klaberjass_pb2.KlaberjassAction(play_card=play))
