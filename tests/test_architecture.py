"""Structural checks: layering, codec completeness, documented error reasons."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from cardengine.v1 import errors_pb2, game_pb2

from engine_service.codec.registry import CODECS
from engine_service.core import errors
from engine_service.registry import REGISTRY
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


def module_imports(path: Path) -> set[str]:
    """The ``engine_service`` modules that ``path`` imports at its top level (type-only
    imports included; imports inside functions left out), each as a module name."""
    names: set[str] = set()

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
                names.update(f"{node.module}.{alias.name}" for alias in node.names)
            elif isinstance(node, (ast.If, ast.Try)):
                visit(node.body + node.orelse + getattr(node, "finalbody", []))

    visit(ast.parse(path.read_text()).body)
    return names


def module_of(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_no_import_runs_in_a_circle():
    """Each module can be read after the ones it imports: no circle, even one of type-only
    imports (``core/record.py`` and ``core/table.py`` once had one)."""
    modules = {module_of(path): path for path in PACKAGE.rglob("*.py")}
    graph = {name: module_imports(path) & modules.keys() for name, path in modules.items()}
    done: set[str] = set()
    for start, first in graph.items():
        path, pending = [start], [iter(sorted(first))]
        while pending:
            step = next(pending[-1], None)
            if step is None:
                done.add(path.pop())
                pending.pop()
            elif step in path:
                raise AssertionError(" -> ".join([*path[path.index(step) :], step]))
            elif step not in done:
                path.append(step)
                pending.append(iter(sorted(graph[step])))


def test_rules_never_import_the_bots_and_the_core_neither():
    """core <- games <- bots <- registry: the pairing of rules and bots lives above both."""
    for layer, forbidden in (
        ("core", ("games", "bots", "registry")),
        ("games", ("bots", "registry")),
    ):
        for path in (PACKAGE / layer).rglob("*.py"):
            bad = {
                name
                for name in imports_of(path)
                if name.startswith(tuple(f"engine_service.{f}" for f in forbidden))
            }
            assert not bad, f"{path} imports {bad}"


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
