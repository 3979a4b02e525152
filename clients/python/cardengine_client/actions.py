"""Builders for ``cardengine.v1.Action`` messages from card text.

>>> hearts_play("QS").hearts.play_card.card.rank == cards_pb2.RANK_QUEEN
True
>>> len(hearts_pass(["2C", "3C", "AH"]).hearts.pass_cards.cards)
3
>>> klaberjass_trump("hearts").klaberjass.take_trump.suit == cards_pb2.SUIT_HEARTS
True
>>> klaberjass_play("KH", announce_bella=False).klaberjass.play_card.announce_bella
False
>>> play = guandan_play(["8C", "8D", "8S", "5H", "5H"], "full_house:8:5").guandan.play
>>> play.reading.shape == guandan_pb2.GuandanReading.SHAPE_FULL_HOUSE, format_reading(play.reading)
(True, 'full_house:8:5')

A ``CardChoice`` of a view (the Hearts pass: any three of the hand) becomes an action with
:func:`choose_cards`:

>>> from cardengine_client.cards import format_cards, parse_cards
>>> offered = parse_cards(["2C", "9D", "QS", "AH"])
>>> choice = game_pb2.CardChoice(action=hearts_pass([]), cards=offered, count=3)
>>> format_cards(choose_cards(choice, ["AH", "2C", "QS"]).hearts.pass_cards.cards)
'AH 2C QS'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from types import MappingProxyType
from typing import Final

from cardengine.v1 import cards_pb2, game_pb2, guandan_pb2, hearts_pb2, klaberjass_pb2
from google.protobuf import message as protobuf_message

from cardengine_client.cards import JOKERS, RANKS, SUITS, format_card, parse_card

_SUIT_WORDS = ("CLUBS", "DIAMONDS", "SPADES", "HEARTS")
_SHAPES: Final = MappingProxyType(
    {
        name.removeprefix("SHAPE_").lower(): number
        for name, number in guandan_pb2.GuandanReading.Shape.items()
        if number
    }
)
"""Shape text (``"full_house"``) -> shape enum, for the shapes this client knows."""
_SHAPE_NAMES: Final = MappingProxyType({number: name for name, number in _SHAPES.items()})


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


def parse_reading(text: str) -> guandan_pb2.GuandanReading:
    """Read a Guandan reading ``shape:rank:size``, as the service writes it.

    The shape is a :class:`GuandanReading.Shape` name in lower case (``full_house``); the rank
    is its number (``8``, ``14`` for the ace, ``15``/``16`` for the jokers) or its letter
    (``A``, ``BJ``); e.g. ``"full_house:8:5"``, ``"straight:A:5"``, ``"bomb:14:4"``.

    Raises:
        ValueError: the text is not of that form (the message says what to write).
    """
    parts = [part.strip() for part in text.strip().split(":")]
    if len(parts) == 3:
        shape, rank, size = _SHAPES.get(parts[0].lower()), _reading_rank(parts[1]), parts[2]
        if shape and rank and size.isdigit():
            return guandan_pb2.GuandanReading(shape=shape, rank=rank, size=int(size))
    names = ", ".join(_SHAPES)
    raise ValueError(f"not a reading: {text!r} (write shape:rank:size, shapes {names})")


def _reading_rank(text: str) -> cards_pb2.Rank.ValueType | None:
    code = text.upper()
    if code.isdigit():
        number = int(code)
        known = cards_pb2.Rank.values()
        return cards_pb2.Rank.ValueType(number) if number and number in known else None
    return JOKERS.get(code) or RANKS.get("T" if code == "10" else code)


def format_shape(shape: guandan_pb2.GuandanReading.Shape.ValueType) -> str:
    """The lower-case name of a shape, e.g. ``"full_house"``; ``"?"`` for one this client lacks."""
    return _SHAPE_NAMES.get(shape, "?")


def format_reading(reading: guandan_pb2.GuandanReading) -> str:
    """The ``shape:rank:size`` form that :func:`parse_reading` reads."""
    return f"{format_shape(reading.shape)}:{reading.rank}:{reading.size}"


def guandan_play(
    cards: Iterable[str | cards_pb2.Card], reading: str | guandan_pb2.GuandanReading
) -> game_pb2.Action:
    """The Guandan action that plays ``cards`` declared as ``reading`` (G-R13).

    The service accepts any cards of the hand that support the reading; whether they do is
    its judgement (FAILED_PRECONDITION with the rule), not this function's.

    Raises:
        ValueError: a text names no card, or the reading text is malformed.
    """
    declared = parse_reading(reading) if isinstance(reading, str) else reading
    play = guandan_pb2.GuandanPlay(cards=[_card(card) for card in cards], reading=declared)
    return game_pb2.Action(guandan=guandan_pb2.GuandanAction(play=play))


def guandan_pass() -> game_pb2.Action:
    """The Guandan action that declines to beat the top play (G-R17)."""
    return game_pb2.Action(
        guandan=guandan_pb2.GuandanAction(pass_turn=guandan_pb2.GuandanPassTurn())
    )


def guandan_return(card: str | cards_pb2.Card) -> game_pb2.Action:
    """The Guandan action that gives ``card`` back for a tribute received (G-R35).

    Raises:
        ValueError: the text names no card.
    """
    chosen = guandan_pb2.GuandanReturnCard(card=_card(card))
    return game_pb2.Action(guandan=guandan_pb2.GuandanAction(return_card=chosen))


def _card_list(
    message: protobuf_message.Message,
) -> tuple[protobuf_message.Message, str] | None:
    """The message holding an action's card list and the list's name, following set fields.

    A ``CardChoice`` names no field: its action has one repeated ``Card`` field at the end of
    its chain of set messages (``Action.hearts.pass_cards.cards``), so any game's choices
    work without this client knowing them.
    """
    for field in message.DESCRIPTOR.fields:
        if field.is_repeated and field.message_type is cards_pb2.Card.DESCRIPTOR:
            return message, field.name
        if (
            field.message_type is not None
            and not field.is_repeated
            and message.HasField(field.name)
        ):
            found = _card_list(getattr(message, field.name))
            if found is not None:
                return found
    return None


def choose_cards(
    choice: game_pb2.CardChoice, cards: Iterable[str | cards_pb2.Card], *, strict: bool = True
) -> game_pb2.Action:
    """The action of ``choice`` with ``cards`` filled into its card list.

    With ``strict`` (the default) the cards are checked against the choice first, so a
    program learns of a mistake before a round trip; ``strict=False`` sends any cards and
    leaves the judgement (and the rule's own reason, e.g. H-R2 WRONG_PASS_SIZE) to the
    service, as the terminal game does.

    Raises:
        ValueError: a text names no card; the action has no card list; or, when strict,
            not exactly ``choice.count`` cards, or a card the choice does not offer (or not
            that many times).
    """
    chosen = [_card(card) for card in cards]
    if strict:
        if len(chosen) != choice.count:
            raise ValueError(f"choose exactly {choice.count} cards, not {len(chosen)}")
        offered = Counter((card.rank, card.suit) for card in choice.cards)
        wanted = Counter((card.rank, card.suit) for card in chosen)
        for card in chosen:
            if wanted[card.rank, card.suit] > offered[card.rank, card.suit]:
                raise ValueError(f"{format_card(card)} is not among the cards to choose from")
    action = game_pb2.Action()
    action.CopyFrom(choice.action)
    found = _card_list(action)
    if found is None:
        raise ValueError("the choice's action has no list of cards to fill")
    holder, name = found
    target = getattr(holder, name)
    del target[:]
    target.extend(chosen)
    return action
