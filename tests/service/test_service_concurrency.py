"""Optimistic concurrency, idempotent retries, expiry, and a second server process."""

from __future__ import annotations

import time
import uuid

import grpc
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import engine_service_pb2_grpc

from engine_service.codec.record import decode_log_entry, decode_record
from engine_service.devtools.local import local_service
from engine_service.registry import REGISTRY
from engine_service.store.keys import events_key, game_key, log_key
from tests.service.rpc_helpers import (
    HUMAN,
    ONE_WINS,
    RANDOM,
    Move,
    create,
    failure_of,
    filled_choice,
    first_legal,
    race,
    stored,
    submit,
    tokens_of,
    view,
)


def test_h_r2_four_humans_passing_at_once_all_succeed(stub, redis_client):
    """H-R2: simultaneous passes only change other seats' secrets, so none is ABORTED."""
    for round_ in range(10):
        created = create(stub, [HUMAN, HUMAN, HUMAN, HUMAN], seed=round_)
        tokens = tokens_of(created)
        views = {s: view(stub, created.game_id, s, tokens[s]) for s in range(4)}
        moves = [Move(s, tokens[s], first_legal(views[s]), views[s].version) for s in range(4)]
        assert race(stub, created.game_id, moves) == ["ok"] * 4
        assert int(stored(redis_client, created.game_id)[b"v"]) == 5
        replayed, state = replay_of_stored_log(redis_client, created.game_id)
        assert replayed == state


def replay_of_stored_log(redis_client, game_id):
    """The state the stored seed and log lead to, and the stored state."""
    record = decode_record(stored(redis_client, game_id)[b"s"])
    rules = REGISTRY[record.game_type].make_rules(record.config)
    state = rules.new_game(record.seed)
    for raw in redis_client.lrange(log_key(game_id), 0, -1):
        logged = decode_log_entry(record.game_type, raw)
        state = rules.apply(state, logged.seat, logged.action)
    return state, record.state


def test_a_seat_racing_itself_has_exactly_one_winner(stub, redis_client):
    for round_ in range(10):
        created = create(stub, [HUMAN, HUMAN, HUMAN, HUMAN], seed=round_)
        token = tokens_of(created)[0]
        start = view(stub, created.game_id, 0, token)
        choice = start.legal_choices[0]
        passes = [filled_choice(choice, choice.cards[i : i + 3]) for i in (0, 3)]
        moves = [Move(0, token, action, start.version) for action in passes]
        assert race(stub, created.game_id, moves) == ONE_WINS
        assert int(stored(redis_client, created.game_id)[b"v"]) == 2


def test_a_stale_version_after_a_visible_change_is_aborted(stub, redis_client):
    created = create(stub, [HUMAN, HUMAN, HUMAN, HUMAN], seed=4)
    tokens = tokens_of(created)
    for seat in range(4):
        seat_view = view(stub, created.game_id, seat, tokens[seat])
        submit(stub, created.game_id, seat, tokens[seat], first_legal(seat_view), 1 + seat)
    views = {s: view(stub, created.game_id, s, tokens[s]) for s in range(4)}
    leader = views[0].to_act[0]
    follower = (leader + 1) % 4
    submit(stub, created.game_id, leader, tokens[leader], first_legal(views[leader]), 5)
    before = stored(redis_client, created.game_id)
    failure = failure_of(
        lambda: submit(
            stub, created.game_id, follower, tokens[follower], first_legal(views[leader]), 5
        )
    )
    assert (failure.code, failure.reason) == (grpc.StatusCode.ABORTED, "VERSION_MISMATCH")
    assert failure.metadata == {"expectedVersion": "5", "currentVersion": "6"}
    assert stored(redis_client, created.game_id) == before


def test_retry_with_the_same_request_id_returns_the_first_result_and_applies_nothing(
    stub, redis_client
):
    created = create(stub, [HUMAN, RANDOM, RANDOM, RANDOM], seed=77)
    token = tokens_of(created)[0]
    seat_view = view(stub, created.game_id, 0, token)
    request_id = uuid.uuid4().hex
    first = submit(
        stub, created.game_id, 0, token, first_legal(seat_view), seat_view.version, request_id
    )
    after_first = stored(redis_client, created.game_id)
    log_length = len(stub.GetActionLog(api.GetActionLogRequest(game_id=created.game_id)).entries)
    again = submit(
        stub, created.game_id, 0, token, first_legal(seat_view), seat_view.version, request_id
    )
    assert again == first
    assert stored(redis_client, created.game_id) == after_first
    assert (
        len(stub.GetActionLog(api.GetActionLogRequest(game_id=created.game_id)).entries)
        == log_length
    )
    # the same id from the same seat with another move is refused (AIP-155), nothing written
    refused = failure_of(
        lambda: submit(
            stub, created.game_id, 0, token, first_legal(first), first.version, request_id
        )
    )
    assert (refused.code, refused.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "REQUEST_ID_REUSED")
    assert stored(redis_client, created.game_id) == after_first


def test_a_move_refreshes_the_expiry_once_a_hundredth_of_it_has_passed(redis_url, redis_client):
    ttl = 100
    with (
        local_service(redis_url, game_ttl_seconds=ttl) as address,
        grpc.insecure_channel(address) as channel,
    ):
        stub = engine_service_pb2_grpc.EngineServiceStub(channel)
        created = create(stub, [HUMAN, RANDOM, RANDOM, RANDOM], seed=8)
        token = tokens_of(created)[0]
        game_keys = [key(created.game_id) for key in (game_key, log_key, events_key)]
        time.sleep(ttl / 100 + 0.2)
        assert all(redis_client.pttl(key) < (ttl - 1) * 1000 for key in game_keys)
        seat_view = view(stub, created.game_id, 0, token)
        submit(stub, created.game_id, 0, token, first_legal(seat_view), seat_view.version)
        assert all(redis_client.pttl(key) > (ttl - 1) * 1000 for key in game_keys)


def test_idle_games_expire(redis_url):
    with (
        local_service(redis_url, game_ttl_seconds=1) as address,
        grpc.insecure_channel(address) as channel,
    ):
        stub = engine_service_pb2_grpc.EngineServiceStub(channel)
        created = create(stub, [HUMAN, RANDOM, RANDOM, RANDOM])
        view(stub, created.game_id)
        time.sleep(1.0)  # the TTL: no expiry can come sooner
        give_up = time.monotonic() + EXPIRY_WAIT_SECONDS
        while (gone := expired(stub, created.game_id)) is None and time.monotonic() < give_up:
            time.sleep(0.1)
        assert gone is grpc.StatusCode.NOT_FOUND


EXPIRY_WAIT_SECONDS = 30.0
"""A bound on Redis's expiry: it removes a key when it is read after its TTL, or sooner."""


def expired(stub, game_id: str) -> grpc.StatusCode | None:
    """NOT_FOUND (or whatever else refused the view) once the game is gone; None while served."""
    try:
        view(stub, game_id)
    except grpc.RpcError as error:
        return error.code()
    return None


def test_a_second_process_serves_a_game_the_first_created(stub, second_server):
    created = create(stub, [HUMAN, RANDOM, RANDOM, RANDOM], seed=12)
    token = tokens_of(created)[0]
    with grpc.insecure_channel(second_server) as channel:
        other = engine_service_pb2_grpc.EngineServiceStub(channel)
        seat_view = view(other, created.game_id, 0, token)
        assert seat_view == view(stub, created.game_id, 0, token)
        after = submit(other, created.game_id, 0, token, first_legal(seat_view), seat_view.version)
    assert view(stub, created.game_id, 0, token) == after
