"""The events' catalogue (clients/text/events.json) words every event, in all five languages,
the same in the Python client, the Node client and the browser table (which bundles the Node
client's lib/events.js).

The catalogue is checked against the protos: every event kind has wording and nothing else
does, every template names fields its event has, in formats that exist, and every enum value a
``word`` placeholder can show has a word. Then one event per template, built from the message
descriptors with every field set, is worded by Python and by Node (decoded from the wire by the
Node client's own loader, as a watch delivers it): no placeholder is left, and both say the
same in every language.
"""

from __future__ import annotations

import base64
import json
import re
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from cardengine.v1 import engine_service_pb2, game_pb2
from cardengine_client.text import LANGUAGES, describe_event
from cardengine_client.text.events import CATALOGUE, pick_language
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from tests.client.test_node_client import NODE_CLIENT, node  # noqa: F401  (the fixture)

PLACEHOLDER = re.compile(r"\{([a-z0-9_.]+)(?::([a-z_]+))?\}")
FORMATS = {"seat", "seats", "team", "card", "cards", "hand", "word", "next", "per_seat"}
GAMES = ("hearts", "guandan", "klaberjass", "table")


def kind_holder(game: str) -> tuple[Descriptor, Descriptor]:
    """A game's event message and the message holding its kinds' oneof."""
    message = game_pb2.GameEvent.DESCRIPTOR.fields_by_name[game].message_type
    where = CATALOGUE["kinds"][game]
    holder = message.fields_by_name[where].message_type if where else message
    return message, holder


def event_kinds() -> Iterator[tuple[str, Descriptor, Descriptor]]:
    """Every ``game.kind`` the protos define, with the kind's message and the game's."""
    for game in GAMES:
        message, holder = kind_holder(game)
        (oneof,) = holder.oneofs
        for field in oneof.fields:
            yield f"{game}.{field.name}", field.message_type, message


def field_at(scopes: tuple[Descriptor, ...], path: str) -> FieldDescriptor | None:
    for scope in scopes:
        current: Descriptor | None = scope
        found: FieldDescriptor | None = None
        for step in path.split("."):
            if step.isdigit() and found is not None and found.is_repeated:
                continue  # an index into the list named by the previous step
            if current is None or step not in current.fields_by_name:
                found = None
                break
            found = current.fields_by_name[step]
            current = found.message_type
        if found is not None:
            return found
    return None


def test_every_event_kind_has_wording_and_nothing_else_does() -> None:
    assert set(CATALOGUE["events"]) == {key for key, _, _ in event_kinds()}
    assert tuple(CATALOGUE["languages"]) == LANGUAGES == ("en", "es", "fr", "de", "nl")


@pytest.mark.parametrize("key", sorted(CATALOGUE["events"]))
def test_templates_name_real_fields_in_every_language(key: str) -> None:
    kind, message = next((k, m) for name, k, m in event_kinds() if name == key)
    cases = CATALOGUE["events"][key]
    assert "if" not in cases[-1], "the last case applies always"
    for case in cases:
        assert set(case["text"]) == set(LANGUAGES)
        english = sorted(PLACEHOLDER.findall(case["text"]["en"]))
        for language, text in case["text"].items():
            assert sorted(PLACEHOLDER.findall(text)) == english, (language, text)
            assert "{" not in PLACEHOLDER.sub("", text), (language, text)
        for path, how in english + ([(case["if"], "")] if "if" in case else []):
            field = field_at((kind, message), path)
            assert field is not None, f"{key}: no field {path}"
            assert how == "" or how in FORMATS, f"{key}: unknown format {how}"
            if how == "word":
                assert field.enum_type is not None, f"{key}: {path} is no enum"
                missing = [
                    v.name for v in field.enum_type.values if v.name not in CATALOGUE["words"]
                ]
                assert not missing, f"{key}: no word for {missing}"


def test_words_are_in_every_language() -> None:
    for name, texts in CATALOGUE["words"].items():
        assert set(texts) == set(LANGUAGES), name
        assert all(texts.values()), name


def fill(message: Message, seats: int) -> None:
    """Every field of ``message`` set to a value that differs from its default."""
    for field in message.DESCRIPTOR.fields:
        if field.containing_oneof is not None and not field.containing_oneof.name.startswith("_"):
            continue  # a real oneof: the kind is chosen by the caller
        repeated = field.is_repeated
        if field.message_type is not None:
            if field.message_type.name == "Card":
                cards = [(12, 3), (2, 1)]
                for rank, suit in cards if repeated else cards[:1]:
                    card = (
                        getattr(message, field.name).add()
                        if repeated
                        else getattr(message, field.name)
                    )
                    card.rank, card.suit = rank, suit
            elif not repeated:
                fill(getattr(message, field.name), seats)
        elif field.enum_type is not None:
            value = field.enum_type.values[1].number
            getattr(message, field.name).append(value) if repeated else setattr(
                message, field.name, value
            )
        elif field.type == field.TYPE_BOOL:
            setattr(message, field.name, True)
        elif field.type == field.TYPE_STRING:
            setattr(message, field.name, "no one came back")
        elif repeated:
            getattr(message, field.name).extend(range(seats))
        else:
            setattr(message, field.name, 1)


def set_path(message: Message, path: str, value: object) -> None:
    *steps, last = path.split(".")
    for step in steps:
        message = getattr(message, step)
    field = message.DESCRIPTOR.fields_by_name[last]
    if value is None:
        message.ClearField(last)
    elif field.enum_type is not None and isinstance(value, str):
        setattr(message, last, field.enum_type.values_by_name[value].number)
    else:
        setattr(message, last, value)


def make_not_apply(message: Message, case: Mapping[str, Any]) -> None:
    """Changes the case's field so that the case does not apply."""
    if "equals" not in case:
        set_path(message, case["if"], None)
    elif case["equals"] == 0:
        set_path(message, case["if"], 1)
    # else: an enum's zero name; fill() set another value already


def sample_events() -> Iterator[tuple[str, int, game_pb2.GameEvent]]:
    """For every template, an event it words: ``(key, case number, event)``."""
    for key, _, _ in event_kinds():
        game, kind = key.split(".")
        seats = 2 if game == "klaberjass" else 4
        for number, case in enumerate(CATALOGUE["events"][key]):
            event = game_pb2.GameEvent()
            outer = getattr(event, game)
            fill(outer, seats)
            holder = outer.change if CATALOGUE["kinds"][game] else outer
            inner = getattr(holder, kind)
            inner.SetInParent()
            fill(inner, seats)
            for earlier in CATALOGUE["events"][key][:number]:
                make_not_apply(inner, earlier)
            if "equals" in case:
                set_path(inner, case["if"], case["equals"])
            yield key, number, event


def view_for(event: game_pb2.GameEvent, seat: int = 1) -> game_pb2.GameView:
    game = event.WhichOneof("game")
    seats = 2 if game == "klaberjass" else 4
    view = game_pb2.GameView(seats=[game_pb2.PLAYER_TYPE_HUMAN] * seats, viewer_seat=seat)
    if game in ("hearts", "guandan", "klaberjass"):
        getattr(view, game).SetInParent()
    else:
        view.hearts.SetInParent()
    return view


SAMPLES = list(sample_events())


@pytest.mark.parametrize(
    ("key", "number", "event"), SAMPLES, ids=[f"{k}-{n}" for k, n, _ in SAMPLES]
)
def test_each_template_words_its_event(key: str, number: int, event: game_pb2.GameEvent) -> None:
    view = view_for(event)
    for language in LANGUAGES:
        text = describe_event(view, event, language)
        assert text is not None
        template = CATALOGUE["events"][key][number]["text"][language]
        fixed = [part for part in PLACEHOLDER.split(template)[::3] if part.strip()]
        assert all(part in text for part in fixed), (language, template, text)
        assert "{" not in text and "None" not in text, text


def test_sentences_read_as_written() -> None:
    """A few whole sentences, to see the filling itself: seats, "you", cards, lists, words."""
    played = game_pb2.GameEvent()
    played.hearts.card_played.seat = 1
    played.hearts.card_played.card.rank, played.hearts.card_played.card.suit = 12, 3
    assert describe_event(view_for(played, 1), played) == "seat 1 (you) played QS"
    assert describe_event(view_for(played, 0), played, "fr") == "place 1 a joué QS"
    scored = game_pb2.GameEvent()
    scored.hearts.hand_scored.hand_number = 0
    scored.hearts.hand_scored.scores.extend([26, 0, 26, 26])
    scored.hearts.hand_scored.moon_shooter = 1
    assert describe_event(view_for(scored, 0), scored, "de") == (
        "Spiel 1 gewertet: Platz 0 (du) 26, Platz 1 0, Platz 2 26, Platz 3 26 "
        "(Platz 1 hat alle Strafpunkte geholt)"
    )
    left = game_pb2.GameEvent()
    left.table.seat = 3
    left.table.change.left.bot = game_pb2.PLAYER_TYPE_BOT_SEARCH
    assert describe_event(view_for(left, 0), left, "nl") == (
        "plaats 3 is vertrokken; de zoekbot speelt verder"
    )
    level = game_pb2.GameEvent()
    level.guandan.level_changed.team = 1
    level.guandan.level_changed.before, level.guandan.level_changed.after = 2, 14
    assert describe_event(view_for(level, 3), level, "es-MX") == (
        "asiento 1 & asiento 3 (tú): nivel 2 → A"
    )
    assert describe_event(view_for(level), game_pb2.GameEvent()) is None


def test_the_language_is_the_first_tag_else_english() -> None:
    assert pick_language("fr-CH,fr;q=0.9,en;q=0.5") == "fr"
    assert pick_language("NL") == "nl"
    assert pick_language("pt-BR") == "en"
    assert pick_language(None) == "en"


NODE_WORDING = """
const { describeEvent, PROTOS_DIR } = require('./lib/client');
const protoLoader = require('@grpc/proto-loader');
const definition = protoLoader.loadSync('cardengine/v1/engine_service.proto', {
  keepCase: true, enums: String, longs: String, defaults: true, oneofs: true,
  includeDirs: [PROTOS_DIR],
});
const decode = definition['cardengine.v1.EngineService'].WatchGame.responseDeserialize;
const { samples, languages } = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
const out = samples.map(({ wire, viewer, seats }) => {
  const { update } = decode(Buffer.from(wire, 'base64'));
  return languages.map((language) => describeEvent(update.events[0], { viewer, seats, language }));
});
process.stdout.write(JSON.stringify(out));
"""


def test_node_words_every_event_as_python_does(node: str) -> None:  # noqa: F811
    samples, expected = [], []
    for _, _, event in SAMPLES:
        view = view_for(event)
        update = engine_service_pb2.WatchGameResponse()
        update.update.events.append(event)
        wire = base64.b64encode(update.SerializeToString()).decode()
        samples.append({"wire": wire, "viewer": view.viewer_seat, "seats": len(view.seats)})
        expected.append([describe_event(view, event, language) for language in LANGUAGES])
    result = subprocess.run(
        [node, "-e", NODE_WORDING],
        cwd=NODE_CLIENT,
        input=json.dumps({"samples": samples, "languages": list(LANGUAGES)}),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert json.loads(result.stdout) == expected


def test_the_python_package_carries_the_catalogue_itself() -> None:
    """The package's events.json is the repository's catalogue (a link, copied when built)."""
    shared = Path(__file__).resolve().parents[2] / "clients" / "text" / "events.json"
    packaged = Path(__import__("cardengine_client.text").text.__file__).parent / "events.json"
    assert packaged.resolve() == shared.resolve()
