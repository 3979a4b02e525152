"""Helpers of the table tests: admin calls, driving all-human games, and replaying the store.

The replay here starts from the record as created (hash field ``o``) and applies every log
entry with :func:`engine_service.app.play.step`, table changes included, so it checks the
seats, clocks and endings as well as the cards.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import redis
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import game_pb2
from google.protobuf.descriptor import Descriptor

from engine_service.app.play import step
from engine_service.codec.record import decode_log_entry, decode_record, encode_record
from engine_service.registry import REGISTRY
from engine_service.store.keys import game_key, log_key
from tests.service.rpc_helpers import first_legal, submit, view, watch_until

DRIVE_LIMIT = 1500
"""Most moves :func:`drive` makes before it gives up (a bound, far above one deal)."""


def admin_md(token: str) -> tuple[tuple[str, str], ...]:
    return (("x-admin-token", token),)


def game_info(stub: Any, game_id: str, admin_token: str) -> Any:
    """GetGame as the game's admin."""
    request = api.GetGameRequest(game_id=game_id)
    return stub.GetGame(request, metadata=admin_md(admin_token)).game


def update_seat(
    stub: Any,
    game_id: str,
    admin_token: str,
    seat: int,
    kind: game_pb2.PlayerType.ValueType = game_pb2.PLAYER_TYPE_UNSPECIFIED,
    reissue: bool = False,
) -> Any:
    """UpdateSeat as the game's admin; the response (new token, spectator's view)."""
    request = api.UpdateSeatRequest(
        game_id=game_id, seat=seat, player_type=kind, reissue_token=reissue
    )
    return stub.UpdateSeat(request, metadata=admin_md(admin_token))


def leave(stub: Any, game_id: str, seat: int, token: str, resign: bool = False) -> Any:
    """LeaveGame with the seat's token; the seat's view afterwards."""
    request = api.LeaveGameRequest(game_id=game_id, seat=seat, resign=resign)
    return stub.LeaveGame(request, metadata=(("x-seat-token", token),)).view


def drive(
    stub: Any,
    game_id: str,
    tokens: Mapping[int, str],
    done: Callable[[int, Any], bool],
) -> tuple[int, Any]:
    """Play the ``tokens`` seats by first legal moves until one to act sees ``done``.

    Returns that seat and its view. Bots (seats without a token here) are left to the timer
    loop; with people only, where it stops is the same on every run for a given seed.
    """
    for _ in range(DRIVE_LIMIT):
        public = view(stub, game_id)
        assert public.to_act, "the game is over before it got there"
        people = [s for s in public.to_act if s in tokens]
        if not people:
            watch_until(stub, game_id, None, None, public.version, lambda _: True)
            continue
        seat = people[0]
        seat_view = view(stub, game_id, seat, tokens[seat])
        if done(seat, seat_view):
            return seat, seat_view
        submit(stub, game_id, seat, tokens[seat], first_legal(seat_view), seat_view.version)
    raise AssertionError(f"game {game_id} never got there in {DRIVE_LIMIT} moves")


def public_until(stub: Any, game_id: str, done: Callable[[Any], bool]) -> Any:
    """The spectator's view once it satisfies ``done`` (the timer loop may be moving bots)."""
    current = view(stub, game_id)
    if done(current):
        return current
    return watch_until(stub, game_id, None, None, current.version, done)


def stored_consistently(client: redis.Redis, game_id: str) -> tuple[bytes, bytes, list[bytes]]:
    """The origin, snapshot and log of a game, read in one transaction so they match."""
    with client.pipeline(transaction=True) as pipe:
        pipe.hmget(game_key(game_id), ["o", "s"])
        pipe.lrange(log_key(game_id), 0, -1)
        (origin, snapshot), entries = pipe.execute()
    assert origin is not None and snapshot is not None, f"game {game_id} is not stored"
    return origin, snapshot, entries


def replayed_record(origin: bytes, entries: list[bytes]) -> bytes:
    """The encoded record the origin and the log rebuild."""
    record = decode_record(origin)
    spec = REGISTRY[record.game_type]
    rules = spec.make_rules(record.config)
    for raw in entries:
        logged = decode_log_entry(record.game_type, raw)
        record = step(spec, rules, record, logged.seat, logged.action, logged.applied_at_ms)[0]
    return encode_record(record)


def assert_replays(client: redis.Redis, game_id: str) -> None:
    """Replaying the stored origin and log gives the stored snapshot byte for byte."""
    origin, snapshot, entries = stored_consistently(client, game_id)
    assert replayed_record(origin, entries) == snapshot, f"game {game_id} does not replay"


def message_types_within(descriptor: Descriptor, seen: set[str] | None = None) -> set[str]:
    """The full name of every message type a message can hold, at any depth."""
    seen = set() if seen is None else seen
    if descriptor.full_name in seen:
        return seen
    seen.add(descriptor.full_name)
    for field in descriptor.fields:
        if field.message_type is not None:
            message_types_within(field.message_type, seen)
    return seen
