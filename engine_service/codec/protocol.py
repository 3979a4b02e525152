"""What each game's codec provides, so the rest of the codec layer stays game-agnostic."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from cardengine.v1 import game_pb2

from engine_service.storage_pb import snapshot_pb2


class GameCodec(Protocol):
    """Conversions for one game; the oneof field name in every message is the game's name."""

    def decode_options(self, message: game_pb2.GameOptions) -> Any:
        """The config asked for (defaults where unset); raises MalformedRequest."""

    def encode_options(self, config: Any) -> game_pb2.GameOptions:
        """The options message with every field set."""

    def decode_action(self, message: game_pb2.Action) -> Any:
        """The domain action; raises MalformedRequest naming the bad field."""

    def encode_action(self, action: Any) -> game_pb2.Action:
        """The proto of a domain action."""

    def encode_legal(self, legal: Sequence[Any], out: game_pb2.GameView) -> None:
        """Fill ``out.legal_actions`` (and ``out.legal_choices``) from the legal actions."""

    def encode_event(self, fact: Any) -> game_pb2.GameEvent:
        """The proto of one of the game's event values."""

    def encode_view(self, view: Any, config: Any, out: game_pb2.GameView) -> None:
        """Fill the game's part of ``out`` from a domain view."""

    def encode_state(self, state: Any, out: snapshot_pb2.GameRecord) -> None:
        """Fill the game's part of a stored record."""

    def decode_state(self, record: snapshot_pb2.GameRecord) -> Any:
        """The domain state from a stored record."""
