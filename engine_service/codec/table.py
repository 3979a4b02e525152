"""Table changes, clocks and early endings as protobuf (``cardengine.v1`` and the record).

The same for every game, so the games' codecs never see them: a logged action or an event is
routed here when it is a table change (:func:`encode_action`, :func:`encode_event`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from cardengine.v1 import game_pb2

from engine_service.codec.players import PLAYER_KINDS, PLAYER_TYPES, decode_player_type
from engine_service.codec.registry import CODECS
from engine_service.core.errors import MalformedRequest
from engine_service.core.record import (
    ClockPolicy,
    Ending,
    ExpiryAction,
    GameRecord,
    SeatClock,
)
from engine_service.core.table import (
    ClockExpired,
    GameEndedEarly,
    SeatHandedOver,
    SeatLeft,
    SeatResigned,
    SeatTokenReissued,
    TableChange,
    TableEvent,
    is_table_change,
)
from engine_service.storage_pb import snapshot_pb2

EXPIRY_ACTIONS: Final[Mapping[ExpiryAction, game_pb2.ExpiryAction.ValueType]] = {
    ExpiryAction.RANDOM_BOT: game_pb2.EXPIRY_ACTION_BOT_RANDOM,
    ExpiryAction.HEURISTIC_BOT: game_pb2.EXPIRY_ACTION_BOT_HEURISTIC,
    ExpiryAction.FORFEIT: game_pb2.EXPIRY_ACTION_FORFEIT,
}
EXPIRY_KINDS: Final = {number: kind for kind, number in EXPIRY_ACTIONS.items()}
MIN_DECISION_MS: Final = 100
MAX_CLOCK_MS: Final = 24 * 3600 * 1000


# -- clocks --------------------------------------------------------------------------------


def decode_clock_policy(message: game_pb2.ClockPolicy) -> ClockPolicy:
    """The clock a CreateGame request asks for.

    Raises:
        MalformedRequest: a time out of range or an unset or unknown expiry action.
    """
    per_decision = message.per_decision.ToMilliseconds()
    bank = message.bank.ToMilliseconds()
    if not MIN_DECISION_MS <= per_decision <= MAX_CLOCK_MS:
        raise MalformedRequest("clock.per_decision", "must be between 100 ms and one day")
    if not 0 <= bank <= MAX_CLOCK_MS:
        raise MalformedRequest("clock.bank", "must be between 0 and one day")
    on_expiry: ExpiryAction | None = EXPIRY_KINDS.get(message.on_expiry)
    if on_expiry is None:
        raise MalformedRequest(
            "clock.on_expiry", "must be EXPIRY_ACTION_BOT_RANDOM, _BOT_HEURISTIC or _FORFEIT"
        )
    return ClockPolicy(per_decision, bank, on_expiry)


def encode_clock_policy(policy: ClockPolicy) -> game_pb2.ClockPolicy:
    """The proto of a clock policy."""
    message = game_pb2.ClockPolicy(on_expiry=EXPIRY_ACTIONS[policy.on_expiry])
    message.per_decision.FromMilliseconds(policy.per_decision_ms)
    message.bank.FromMilliseconds(policy.bank_ms)
    return message


def encode_seat_clocks(record: GameRecord) -> list[game_pb2.SeatClock]:
    """Every human seat's clock as views and GetGame show it (none without a clock)."""
    policy = record.clock
    if policy is None:
        return []
    shown = []
    for seat, (clock, seat_record) in enumerate(zip(record.clocks, record.seats, strict=True)):
        if seat_record.kind.is_bot:
            continue
        message = game_pb2.SeatClock(seat=seat)
        message.bank_remaining.FromMilliseconds(clock.bank_ms)
        deadline = clock.deadline_ms(policy)
        if deadline is not None:
            message.deadline.FromMilliseconds(deadline)
        shown.append(message)
    return shown


# -- the stored record's table part --------------------------------------------------------


def encode_table_part(record: GameRecord, out: snapshot_pb2.GameRecord) -> None:
    """Fill the table fields of a stored record."""
    out.admin_sha256 = record.admin_sha256
    if record.clock is not None:
        out.clock.CopyFrom(encode_clock_policy(record.clock))
        for clock in record.clocks:
            out.clocks.add(turn_started_ms=clock.turn_started_ms or 0, bank_ms=clock.bank_ms)
    if record.ending is not None:
        out.ending.reason = record.ending.reason
        out.ending.winners.extend(record.ending.winners)
    out.labels.update(record.labels)
    out.created_at_ms = record.created_at_ms
    out.rematch_of = record.rematch_of


def decode_table_part(message: snapshot_pb2.GameRecord) -> dict[str, Any]:
    """The table fields of a stored record, as :class:`GameRecord` keyword arguments."""
    clock = None
    clocks: tuple[SeatClock, ...] = ()
    if message.HasField("clock"):
        policy = message.clock
        clock = ClockPolicy(
            policy.per_decision.ToMilliseconds(),
            policy.bank.ToMilliseconds(),
            EXPIRY_KINDS[policy.on_expiry],
        )
        clocks = tuple(SeatClock(c.turn_started_ms or None, c.bank_ms) for c in message.clocks)
    ending = None
    if message.HasField("ending"):
        ending = Ending(message.ending.reason, tuple(message.ending.winners))
    return {
        "admin_sha256": message.admin_sha256,
        "clock": clock,
        "clocks": clocks,
        "ending": ending,
        "labels": tuple(sorted(message.labels.items())),
        "created_at_ms": message.created_at_ms,
        "rematch_of": message.rematch_of,
    }


# -- table changes as actions and events ---------------------------------------------------


def encode_change(change: TableChange) -> game_pb2.TableAction:
    """The public proto of a table change (a reissued token's hash is never in it)."""
    if isinstance(change, SeatLeft):
        return game_pb2.TableAction(left=game_pb2.SeatLeft(bot=PLAYER_TYPES[change.bot]))
    if isinstance(change, SeatResigned):
        resigned = game_pb2.SeatResigned(forfeit=change.forfeit)
        if change.bot is not None:
            resigned.bot = PLAYER_TYPES[change.bot]
        return game_pb2.TableAction(resigned=resigned)
    if isinstance(change, SeatHandedOver):
        handed = game_pb2.SeatHandedOver(player_type=PLAYER_TYPES[change.kind])
        return game_pb2.TableAction(handed_over=handed)
    if isinstance(change, SeatTokenReissued):
        return game_pb2.TableAction(token_reissued=game_pb2.SeatTokenReissued())
    if isinstance(change, GameEndedEarly):
        return game_pb2.TableAction(ended_early=game_pb2.GameEndedEarly(reason=change.reason))
    expired = game_pb2.ClockExpired(on_expiry=EXPIRY_ACTIONS[change.on_expiry])
    return game_pb2.TableAction(clock_expired=expired)


def decode_change(message: game_pb2.TableAction, token_sha256: bytes) -> TableChange:
    """A stored table change; ``token_sha256`` is the hash a reissue kept beside it."""
    which = message.WhichOneof("change")
    if which == "left":
        return SeatLeft(PLAYER_KINDS[message.left.bot])
    if which == "resigned":
        bot = message.resigned.bot
        return SeatResigned(message.resigned.forfeit, PLAYER_KINDS[bot] if bot else None)
    if which == "handed_over":
        return SeatHandedOver(decode_player_type(message.handed_over.player_type, "player_type"))
    if which == "token_reissued":
        return SeatTokenReissued(token_sha256)
    if which == "ended_early":
        return GameEndedEarly(message.ended_early.reason)
    return ClockExpired(EXPIRY_KINDS[message.clock_expired.on_expiry])


def encode_action(game_type: str, action: Any) -> game_pb2.Action:
    """The public proto of a logged action: a move of the game or a table change."""
    if is_table_change(action):
        return game_pb2.Action(table=encode_change(action))
    return CODECS[game_type].encode_action(action)


def encode_event(game_type: str, fact: Any) -> game_pb2.GameEvent:
    """The proto of an event: the game's own, or a table change's."""
    if isinstance(fact, TableEvent):
        table = game_pb2.TableEvent(seat=fact.seat, change=encode_change(fact.change))
        return game_pb2.GameEvent(table=table)
    return CODECS[game_type].encode_event(fact)
