"""The contract between the generic conformance suite and the per-game adapters.

The suite drives every registered game through the ``Rules`` protocol alone; the facts the
protocol does not expose (where every card is, which cards a seat may not see, how scores add
up) come from one adapter per game, registered in :mod:`tests.conformance.game_adapters`.

Card identities: hidden and visible cards are compared as sets of :class:`CardId`, a card
within one deal. A view may show the previous deal's last trick while the same faces sit in
new hands, which is no leak. A two-deck game must also tell its two copies apart.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Hashable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple, Protocol

from cardengine.v1 import cards_pb2
from google.protobuf.message import Message

from engine_service.codec.cards import decode_kind
from engine_service.core.cards import Card
from engine_service.core.protocol import Outcome


class CardId(NamedTuple):
    """One physical card in one deal (``deal`` counts from 0).

    ``copy`` tells apart the copies of a card in a game with several decks (0 with one deck).
    """

    deal: int
    card: Hashable
    copy: int = 0


Log = Sequence[tuple[int, Any]]
"""The ``(seat, action)`` pairs applied since ``new_game``, oldest first."""


class GameAdapter(Protocol):
    """Per-game test knowledge. Every method is pure and raises ``AssertionError`` on a breach."""

    int_ranges: Mapping[str, tuple[int, int]]
    """The range to draw each integer option from in the many short random games."""

    random_games: int
    """How many random games the suite plays (:func:`tests.volume.volume`; ``CONFORMANCE_GAMES``
    overrides)."""

    def deck(self) -> Counter[Hashable]:
        """Every card of the game, as a multiset."""

    def all_cards(self, state: Any, log: Log) -> Counter[Hashable]:
        """Every card the state accounts for (hands, table, taken), as a multiset."""

    def hidden_cards(self, state: Any, seat: int | None) -> frozenset[CardId]:
        """The cards ``seat`` (``None``: a spectator) must not see."""

    def visible_cards(self, view: Any) -> frozenset[CardId]:
        """Every card appearing anywhere in a view."""

    def event_cards(self, fact: Any, before: Any, after: Any) -> frozenset[CardId]:
        """Every card an event value names, as cards of the deal they belong to.

        ``before`` and ``after`` are the states around the action that produced the event (an
        event may tell of the deal that ``after`` has just replaced).
        """

    def sample_illegal(self, rules: Any, state: Any, rng: random.Random) -> tuple[int, Any]:
        """A ``(seat, action)`` that the rules must refuse in ``state``."""

    def check_transition(self, config: Any, before: Any, action: Any, after: Any) -> None:
        """Score bookkeeping of one applied action (tricks and hands that just ended)."""

    def check_scores(self, config: Any, state: Any) -> None:
        """Every completed hand's score is well formed and the totals are their sum."""

    def check_outcome(self, config: Any, state: Any, outcome: Outcome) -> None:
        """The final result agrees with the final totals and the end rules."""


def cards_anywhere(value: object) -> Iterator[Card]:
    """Every :class:`Card` inside a value, walking dataclasses, sequences and mappings.

    Slow but field-agnostic; the suite uses it to prove that an adapter's fast
    ``visible_cards`` misses no field of a view.
    """
    if isinstance(value, Card):
        yield value
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for item in dataclasses.fields(value):
            yield from cards_anywhere(getattr(value, item.name))
    elif isinstance(value, Mapping):
        for key, item_value in value.items():
            yield from cards_anywhere(key)
            yield from cards_anywhere(item_value)
    elif isinstance(value, tuple | list | set | frozenset):
        for item_value in value:
            yield from cards_anywhere(item_value)


def cards_in_message(message: Message) -> Iterator[int]:
    """Every card in any field, at any depth, of a proto message, as its number.

    The numbers are Guandan's card kinds, which are the 52-card deck's numbers plus the two
    jokers (52, 53). Views whose cards are plain ints cannot be walked by
    :func:`cards_anywhere`; their encoded form can.
    """
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        for item in value if field.is_repeated else (value,):
            if isinstance(item, cards_pb2.Card):
                yield decode_kind(item, field.name)
            else:
                yield from cards_in_message(item)
