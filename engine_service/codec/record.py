"""Stored games and log entries as bytes (``cardengine.internal.v1`` in ``storage_pb``).

The snapshot is deterministic protobuf, so the same game always stores the same bytes and a
rejected action can be shown to leave them untouched.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from cardengine.v1 import game_pb2

from engine_service.codec.registry import CODECS
from engine_service.core.errors import MalformedRequest
from engine_service.core.events import Event
from engine_service.core.record import GameRecord, PlayerKind, SeatRecord
from engine_service.storage_pb import snapshot_pb2

PLAYER_TYPES: Final[Mapping[PlayerKind, game_pb2.PlayerType.ValueType]] = {
    PlayerKind.HUMAN: game_pb2.PLAYER_TYPE_HUMAN,
    PlayerKind.RANDOM_BOT: game_pb2.PLAYER_TYPE_BOT_RANDOM,
    PlayerKind.HEURISTIC_BOT: game_pb2.PLAYER_TYPE_BOT_HEURISTIC,
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


def encode_record(record: GameRecord) -> bytes:
    """The stored bytes of a game."""
    codec = CODECS[record.game_type]
    message = snapshot_pb2.GameRecord(
        game_type=record.game_type,
        options=codec.encode_options(record.config),
        seed=record.seed,
        seats=[
            snapshot_pb2.SeatRecord(player_type=PLAYER_TYPES[s.kind], token_sha256=s.token_sha256)
            for s in record.seats
        ],
    )
    codec.encode_state(record.state, message)
    return message.SerializeToString(deterministic=True)


def decode_record(data: bytes) -> GameRecord:
    """The game stored by :func:`encode_record`."""
    message = snapshot_pb2.GameRecord.FromString(data)
    codec = CODECS[message.game_type]
    return GameRecord(
        game_type=message.game_type,
        config=codec.decode_options(message.options),
        seed=message.seed,
        seats=tuple(SeatRecord(PLAYER_KINDS[s.player_type], s.token_sha256) for s in message.seats),
        state=codec.decode_state(message),
    )


@dataclass(frozen=True, slots=True)
class LoggedAction:
    """A decoded log entry: who acted, what they did and when it was applied."""

    seat: int
    action: Any
    applied_at_ms: int


def encode_log_entry(game_type: str, seat: int, action: Any, applied_at_ms: int = 0) -> bytes:
    """One stored action-log entry."""
    stored = snapshot_pb2.StoredAction(
        seat=seat, action=CODECS[game_type].encode_action(action), applied_at_ms=applied_at_ms
    )
    return stored.SerializeToString(deterministic=True)


def decode_log_entry(game_type: str, data: bytes) -> LoggedAction:
    """The seat, action and time of a stored log entry."""
    stored = snapshot_pb2.StoredAction.FromString(data)
    action = CODECS[game_type].decode_action(stored.action)
    return LoggedAction(stored.seat, action, stored.applied_at_ms)


def encode_events(game_type: str, events: Sequence[Event]) -> bytes:
    """The stored form of one version's events, private parts marked with their seat."""
    codec = CODECS[game_type]
    stored = snapshot_pb2.StoredEvents()
    for event in events:
        item = stored.events.add(event=codec.encode_event(event.fact))
        if event.audience is not None:
            item.audience = event.audience
    return stored.SerializeToString(deterministic=True)


def visible_events(data: bytes, viewer: int | None) -> list[game_pb2.GameEvent]:
    """The events of one version that ``viewer`` (``None``: a spectator) may see, in order.

    The one place stored events are redacted: a private event reaches its own seat only.
    """
    stored = snapshot_pb2.StoredEvents.FromString(data)
    return [
        item.event
        for item in stored.events
        if not item.HasField("audience") or item.audience == viewer
    ]
