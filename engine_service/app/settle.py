"""Settling a write: the bots' bounded replies, then everything encoded for one compare-and-set.

Pure CPU work with no I/O, shared by every use case that writes, and the timer loop's step
(:func:`due_slice`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine_service.app.play import (
    BotBudget,
    Move,
    bot_move,
    bot_seats,
    listing_of,
    play_bots,
    step,
)
from engine_service.codec.record import (
    decode_record,
    encode_events,
    encode_log_entry,
    encode_record,
)
from engine_service.core.protocol import GameSpec, Rules
from engine_service.core.record import GameRecord
from engine_service.core.table import ClockExpired, first_deadline, seats_to_act
from engine_service.registry import REGISTRY
from engine_service.store.protocol import Listing, NewVersion


@dataclass(frozen=True, slots=True)
class Settled:
    """A write ready for the store: the record and version reached, and their stored forms."""

    record: GameRecord
    version: int
    snapshot: bytes
    versions: list[NewVersion]
    listing: Listing


def new_versions(game_type: str, moves: Sequence[Move], now_ms: int) -> list[NewVersion]:
    """The log entries and events of ``moves``, stamped with ``now_ms``."""
    return [
        NewVersion(
            entry=encode_log_entry(game_type, move.seat, move.action, now_ms),
            events=encode_events(game_type, move.events),
        )
        for move in moves
    ]


def settle(
    spec: GameSpec[Any, Any, Any, Any],
    rules: Rules[Any, Any, Any],
    record: GameRecord,
    base_version: int,
    moves: Sequence[Move],
    now_ms: int,
    budget: BotBudget,
    work_clock: Callable[[], float] = time.perf_counter,
) -> Settled:
    """Let bots reply (bounded) to ``moves``, made on version ``base_version``, and encode it."""
    start = base_version + len(moves)
    record, bot_moves = play_bots(spec, rules, record, start, now_ms, budget, work_clock)
    written = [*moves, *bot_moves]
    return Settled(
        record=record,
        version=base_version + len(written),
        snapshot=encode_record(record),
        versions=new_versions(record.game_type, written, now_ms),
        listing=listing_of(rules, record, now_ms),
    )


def expire(
    spec: GameSpec[Any, Any, Any, Any],
    rules: Rules[Any, Any, Any],
    record: GameRecord,
    seat: int,
    version: int,
    now_ms: int,
) -> tuple[GameRecord, list[Move]]:
    """A seat's clock ran out (T-R5): the expiry entry, then its bot's move or a forfeit."""
    assert record.clock is not None  # only a clock has deadlines
    policy = record.clock.on_expiry
    record, expiry = step(spec, rules, record, seat, ClockExpired(policy), now_ms)
    moves = [expiry]
    bot = policy.bot
    if bot is not None and seat in seats_to_act(rules, record):
        action = bot_move(spec, rules, record, seat, bot, version + 1)
        record, move = step(spec, rules, record, seat, action, now_ms)
        moves.append(move)
    return record, moves


def due_slice(snapshot: bytes, version: int, now_ms: int, budget: BotBudget) -> Settled | None:
    """What is due in a stored game at ``now_ms``, settled; ``None`` when nothing is due.

    That is an expired clock fired, then a slice of bot moves: the timer loop's step, on the
    default registry.
    """
    record = decode_record(snapshot)
    spec = REGISTRY[record.game_type]
    rules = spec.make_rules(record.config)
    moves: list[Move] = []
    expired = first_deadline(record)
    if not bot_seats(rules, record) and expired is not None and expired[0] <= now_ms:
        record, moves = expire(spec, rules, record, expired[1], version, now_ms)
    if not moves and not bot_seats(rules, record):
        return None
    return settle(spec, rules, record, version, moves, now_ms, budget)
