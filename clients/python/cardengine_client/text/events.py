"""Events told in words in any of the service's five languages, from the shared catalogue.

The catalogue (``events.json``) is one file for every client: this package, the Node client
(``clients/node/lib/events.js``) and the browser table read the same templates, so an event
reads the same wherever it is shown. It holds, per event kind (``"hearts.card_played"``) and
language, a template such as ``"{seat:seat} played {card:card}"``, filled in from the event's
fields as proto JSON with the .proto field names; ``docs/events.md`` describes the format.
Only the cards are drawn by the caller (``format_card`` here, glyphs on the page), since
every client already shows cards its own way.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from typing import Any, Final

from cardengine.v1 import cards_pb2, game_pb2
from google.protobuf import json_format

from cardengine_client.cards import format_card

CATALOGUE: Final[Mapping[str, Any]] = json.loads(
    resources.files(__package__).joinpath("events.json").read_text(encoding="utf-8")
)
"""The shared catalogue, as read from ``events.json``."""

LANGUAGES: Final[tuple[str, ...]] = tuple(CATALOGUE["languages"])
"""The languages every template is written in, English first (the fallback)."""

_PLACEHOLDER: Final = re.compile(r"\{([a-z0-9_.]+)(?::([a-z_]+))?\}")

_TEAMS: Final = 2
"""Partnership games seat two teams alternately (Guandan, G-R1)."""

CardText = Callable[[cards_pb2.Card], str]


def pick_language(wanted: str | None) -> str:
    """The catalogue's language for an ``accept-language``-style value; English otherwise.

    Only the first tag counts and only its primary subtag: ``"fr-CH,fr;q=0.9"`` is French.
    """
    first = (wanted or "").split(",")[0].split(";")[0].strip().lower()
    primary = first.split("-")[0]
    return primary if primary in LANGUAGES else LANGUAGES[0]


def _word(name: str, language: str, **values: object) -> str:
    texts = CATALOGUE["words"].get(name)
    if texts is None:
        return name  # an enum value newer than the catalogue is still told, by its name
    return str(texts[language]).format(**values)


class _Filler:
    """Fills one template for one viewer: seat names, cards and words in one language."""

    def __init__(self, viewer: int | None, seats: int, language: str, card_text: CardText) -> None:
        self.viewer = viewer
        self.seats = seats
        self.language = language
        self.card_text = card_text

    def seat(self, seat: object) -> str:
        if not isinstance(seat, int) or seat < 0:
            return _word("table", self.language)
        name = "you" if seat == self.viewer else "seat"
        return _word(name, self.language, n=seat)

    def card(self, card: object) -> str:
        fields = card if isinstance(card, dict) else {}
        return self.card_text(json_format.ParseDict(fields, cards_pb2.Card()))

    def format(self, value: object, how: str | None) -> str:
        """``value`` shown as the placeholder's format says (``docs/events.md`` lists them)."""
        listed: Sequence[Any] = value if isinstance(value, list) else []
        if how is None:
            return str(value)
        if how == "seat":
            return self.seat(value)
        if how == "seats":
            return ", ".join(map(self.seat, listed)) or _word("nobody", self.language)
        if how == "team":  # partners sit opposite: team t is the seats s with s % 2 == t
            seats = range(self.seats)
            return " & ".join(self.seat(seat) for seat in seats if seat % _TEAMS == value)
        if how == "card":
            return self.card(value)
        if how == "cards":
            return " ".join(map(self.card, listed))
        if how == "hand":
            return " ".join(map(self.card, sorted(listed, key=_hand_place)))
        if how == "word":
            return _word(str(value), self.language)
        if how == "next":
            return str(int(str(value)) + 1)
        if how == "per_seat":
            return ", ".join(f"{self.seat(seat)} {score}" for seat, score in enumerate(listed))
        raise ValueError(f"the catalogue names an unknown format {how!r}")


def _hand_place(card: Mapping[str, str]) -> tuple[int, int]:
    """Where a card goes in a hand: by suit, then rank, in the catalogue's ``hand_order``."""
    order = CATALOGUE["hand_order"]
    suits, ranks = order["suits"], order["ranks"]
    suit, rank = card.get("suit", suits[-1]), card.get("rank", ranks[0])
    return (suits.index(suit) if suit in suits else len(suits)), (
        ranks.index(rank) if rank in ranks else len(ranks)
    )


def _lookup(scopes: Sequence[Mapping[str, Any]], path: str) -> object:
    """The value at a dotted path in the first scope that has it; ``None`` in none."""
    for scope in scopes:
        value: object = scope
        for step in path.split("."):
            if isinstance(value, Mapping) and step in value:
                value = value[step]
            elif isinstance(value, list) and step.isdigit() and int(step) < len(value):
                value = value[int(step)]
            else:
                value = None
                break
        if value is not None:
            return value
    return None


def _is_set(value: object) -> bool:
    return value is not None and value is not False and value not in ("", [])


def _applies(case: Mapping[str, Any], scopes: Sequence[Mapping[str, Any]]) -> bool:
    if "if" not in case:
        return True
    value = _lookup(scopes, case["if"])
    return value == case["equals"] if "equals" in case else _is_set(value)


def _kind(event: Mapping[str, Any]) -> tuple[str, Mapping[str, Any], Mapping[str, Any]]:
    """The event's ``game.kind`` key, its kind's message and its game's message."""
    game, message = next(iter(event.items()))
    holder = (
        _lookup([message], CATALOGUE["kinds"][game]) if CATALOGUE["kinds"].get(game) else message
    )
    if not isinstance(holder, Mapping):
        return f"{game}.?", {}, message
    kinds = [(name, inner) for name, inner in holder.items() if isinstance(inner, Mapping)]
    name, inner = kinds[0] if kinds else ("?", {})
    return f"{game}.{name}", inner, message


def event_text(
    event: game_pb2.GameEvent,
    viewer: int | None = None,
    *,
    seats: int = 4,
    language: str = "en",
    card_text: CardText = format_card,
) -> str | None:
    """The event as a sentence for the seat ``viewer`` (named "you"), in ``language``.

    ``seats`` is the game's seat count (the teams of a partnership game are named from it).

    ``None`` for an event the catalogue has no template for (a server newer than this
    client); the caller then tells it another way.
    """
    if event.WhichOneof("game") is None:
        return None
    as_json = json_format.MessageToDict(
        event, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )
    key, inner, message = _kind(as_json)
    cases = CATALOGUE["events"].get(key)
    if cases is None:
        return None
    scopes = (inner, message)
    case = next(case for case in cases if _applies(case, scopes))
    language = pick_language(language)
    filler = _Filler(viewer, seats, language, card_text)
    return _PLACEHOLDER.sub(
        lambda found: filler.format(_lookup(scopes, found[1]), found[2]),
        case["text"][language],
    )
