"""ExplainPlay between ``cardengine.v1`` messages and the domain (G-R13).

The asked cards are read as a play's cards are (``GuandanPlay.cards``): well-formed cards,
at most two of a kind; the answer carries each reading with what ``check`` said about it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from cardengine.v1 import cards_pb2, guandan_pb2

from engine_service.codec.cards import decode_kinds
from engine_service.codec.guandan import encode_reading
from engine_service.core.errors import MalformedRequest
from engine_service.games.guandan.cards import COPIES
from engine_service.games.guandan.explain import ReadingOption
from engine_service.i18n import ENGLISH, explain


def decode_asked_cards(messages: Sequence[cards_pb2.Card]) -> tuple[int, ...]:
    """The card kinds of an ExplainPlay request.

    Raises:
        MalformedRequest: no card, more than a hand's 27, a malformed card, or a card named
            more than twice.
    """
    if not messages:
        raise MalformedRequest("cards", "must list the cards to explain")
    cards = decode_kinds(messages, "cards")
    if max(Counter(cards).values()) > COPIES:
        raise MalformedRequest("cards", f"lists a card more than {COPIES} times")
    return cards


def encode_option(option: ReadingOption, language: str) -> guandan_pb2.GuandanReadingOption:
    """One reading with its legality; the refusal's reason, rule and message when illegal.

    The message is the rules' own sentence in English, else the localized explanation.
    """
    message = guandan_pb2.GuandanReadingOption(
        reading=encode_reading(option.reading),
        legal=option.legal,
        description=option.description,
    )
    if option.refusal is not None:
        message.reason = option.refusal.reason
        message.rule_id = option.refusal.rule_id
        refusal = option.refusal
        message.message = (
            refusal.message
            if language == ENGLISH
            else explain(refusal.reason, refusal.metadata, language, refusal.rule_id)
        )
    return message


def encode_explained(
    options: Sequence[ReadingOption], language: str = ENGLISH
) -> guandan_pb2.ExplainPlayResponse:
    """The ExplainPlay response of ``options``, in their order, refusals in ``language``."""
    readings = [encode_option(option, language) for option in options]
    return guandan_pb2.ExplainPlayResponse(readings=readings)
