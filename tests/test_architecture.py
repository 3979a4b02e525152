"""Structural checks: layering, codec completeness, documented error reasons."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from cardengine.v1 import errors_pb2, game_pb2

from engine_service.codec.registry import CODECS
from engine_service.core import errors
from engine_service.games import REGISTRY
from engine_service.storage_pb import snapshot_pb2

PACKAGE = Path(__file__).resolve().parents[1] / "engine_service"
PURE_LAYERS = ("core", "games", "bots")
TRANSPORT = ("grpc", "redis", "google.protobuf", "cardengine")


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("layer", PURE_LAYERS)
def test_rules_import_no_grpc_redis_or_protobuf(layer):
    for path in (PACKAGE / layer).rglob("*.py"):
        bad = {n for n in imports_of(path) if n.startswith(TRANSPORT) or n.endswith("_pb2")}
        assert not bad, f"{path} imports {bad}"
        ours = {n for n in imports_of(path) if n.startswith("engine_service.")}
        allowed = tuple(f"engine_service.{name}" for name in PURE_LAYERS)
        assert all(n.startswith(allowed) for n in ours), f"{path} reaches outside the rules"


def test_store_knows_no_game():
    """The store reaches only its own modules and the domain errors it raises, no game."""
    for path in (PACKAGE / "store").rglob("*.py"):
        ours = {n for n in imports_of(path) if n.startswith("engine_service.")}
        outside = {n for n in ours if not n.startswith("engine_service.store.")}
        assert outside <= {"engine_service.core.errors"}, path


def test_only_codec_and_api_touch_generated_messages():
    for path in PACKAGE.rglob("*.py"):
        layer = path.relative_to(PACKAGE).parts[0]
        if layer == "storage_pb":  # the generated snapshot stubs themselves
            continue
        if any(n.startswith("cardengine") for n in imports_of(path)):
            assert layer in {"codec", "api", "devtools"}, path  # devtools act as clients
        if any(n.startswith("engine_service.storage_pb") for n in imports_of(path)):
            assert layer == "codec", path  # only the codec reads and writes stored records


def oneof_names(message_type: type, oneof: str) -> set[str]:
    return {f.name for f in message_type.DESCRIPTOR.oneofs_by_name[oneof].fields}


TABLE_FIELDS = {game_pb2.Action: {"table"}, game_pb2.GameEvent: {"table"}}
"""Oneof fields shared by every game: table changes (seats, clocks, early endings)."""


def test_every_game_has_a_codec_and_every_oneof_a_game():
    assert set(CODECS) == set(REGISTRY)
    for message_type, oneof in [
        (game_pb2.Action, "game"),
        (game_pb2.GameOptions, "game"),
        (game_pb2.GameView, "game"),
        (game_pb2.GameEvent, "game"),
        (snapshot_pb2.GameRecord, "state"),
    ]:
        games = oneof_names(message_type, oneof) - TABLE_FIELDS.get(message_type, set())
        assert games == set(REGISTRY), message_type


@pytest.mark.parametrize("game", sorted(REGISTRY))
def test_codec_round_trips_every_legal_action_and_the_default_options(game):
    spec = REGISTRY[game]
    codec = CODECS[game]
    config = spec.config_type()
    assert codec.decode_options(codec.encode_options(config)) == config
    rules = spec.make_rules(config)
    state = rules.new_game(1)
    for seat in rules.current_seats(state):
        for action in rules.legal_actions(state, seat):
            assert codec.decode_action(codec.encode_action(action)) == action


def test_every_error_reason_the_engine_sends_is_documented():
    names = errors_pb2.ErrorReason.keys()
    documented = {name.removeprefix("ERROR_REASON_") for name in names}
    sent = {
        cls.reason
        for cls in vars(errors).values()
        if isinstance(cls, type)
        and issubclass(cls, errors.EngineError)
        and cls.reason != "UNSPECIFIED"
    }
    sent |= {"TOKEN_MISSING"}
    for path in (PACKAGE / "games").rglob("*.py"):
        sent |= set(re.findall(r'\bviolation\(\s*"([A-Z_]+)"', path.read_text()))
    assert sent - documented == set()
