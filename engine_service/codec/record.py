"""Stored games and log entries as bytes (``cardengine.internal.v1`` in ``storage_pb``).

The snapshot is deterministic protobuf, so the same game always stores the same bytes and a
rejected action can be shown to leave them untouched.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cardengine.v1 import game_pb2

from engine_service.codec.players import PLAYER_KINDS, PLAYER_TYPES
from engine_service.codec.registry import CODECS
from engine_service.codec.table import (
    decode_change,
    decode_table_part,
    encode_action,
    encode_event,
    encode_table_part,
)
from engine_service.core.events import Event
from engine_service.core.record import GameRecord, SeatRecord
from engine_service.core.table import SeatTokenReissued
from engine_service.storage_pb import snapshot_pb2


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
    encode_table_part(record, message)
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
        **decode_table_part(message),
    )


@dataclass(frozen=True, slots=True)
class LoggedAction:
    """A decoded log entry: who acted, what they did and when it was applied."""

    seat: int
    action: Any
    applied_at_ms: int


def encode_log_entry(game_type: str, seat: int, action: Any, applied_at_ms: int = 0) -> bytes:
    """One stored action-log entry: a move of the game or a table change."""
    stored = snapshot_pb2.StoredAction(
        seat=seat, action=encode_action(game_type, action), applied_at_ms=applied_at_ms
    )
    if isinstance(action, SeatTokenReissued):
        stored.token_sha256 = action.token_sha256
    return stored.SerializeToString(deterministic=True)


def decode_log_entry(game_type: str, data: bytes) -> LoggedAction:
    """The seat, action and time of a stored log entry."""
    stored = snapshot_pb2.StoredAction.FromString(data)
    if stored.action.HasField("table"):
        action: Any = decode_change(stored.action.table, stored.token_sha256)
    else:
        action = CODECS[game_type].decode_action(stored.action)
    return LoggedAction(stored.seat, action, stored.applied_at_ms)


def encode_events(game_type: str, events: Sequence[Event]) -> bytes:
    """The stored form of one version's events, private parts marked with their seat."""
    stored = snapshot_pb2.StoredEvents()
    for event in events:
        item = stored.events.add(event=encode_event(game_type, event.fact))
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
