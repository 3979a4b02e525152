"""Player types: the seat kinds of the API and of the stored record."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from cardengine.v1 import game_pb2

from engine_service.core.errors import MalformedRequest
from engine_service.core.record import PlayerKind

PLAYER_TYPES: Final[Mapping[PlayerKind, game_pb2.PlayerType.ValueType]] = {
    PlayerKind.HUMAN: game_pb2.PLAYER_TYPE_HUMAN,
    PlayerKind.RANDOM_BOT: game_pb2.PLAYER_TYPE_BOT_RANDOM,
    PlayerKind.HEURISTIC_BOT: game_pb2.PLAYER_TYPE_BOT_HEURISTIC,
    PlayerKind.SEARCH_BOT: game_pb2.PLAYER_TYPE_BOT_SEARCH,
}
PLAYER_KINDS: Final = {number: kind for kind, number in PLAYER_TYPES.items()}


def decode_player_type(number: int, field_path: str) -> PlayerKind:
    """The player kind a client asked for.

    Raises:
        MalformedRequest: unset or unknown.
    """
    kind: PlayerKind | None = PLAYER_KINDS.get(number)  # type: ignore[call-overload]
    if kind is None:
        raise MalformedRequest(field_path, "must be PLAYER_TYPE_HUMAN or a PLAYER_TYPE_BOT_*")
    return kind
