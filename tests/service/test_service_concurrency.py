"""Optimistic concurrency, idempotent retries, expiry, and a second server process."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid

import grpc
import pytest
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import engine_service_pb2_grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from engine_service.devtools.local import free_port, local_service
from engine_service.store.redis_store import game_key
from tests.service.rpc_helpers import (
    HUMAN,
    ONE_WINS,
    RANDOM,
    Move,
    create,
    failure_of,
    race,
    stored,
    submit,
    tokens_of,
    view,
)


def test_two_clients_racing_on_one_version_exactly_one_wins(stub, redis_client):
    for round_ in range(20):
        created = create(stub, [HUMAN, HUMAN, HUMAN, HUMAN], seed=round_)
        tokens = tokens_of(created)
        views = {s: view(stub, created.game_id, s, tokens[s]) for s in (0, 1)}
        moves = [Move(s, tokens[s], views[s].legal_actions[0], views[s].version) for s in (0, 1)]
        assert race(stub, created.game_id, moves) == ONE_WINS
        assert int(stored(redis_client, created.game_id)[b"v"]) == 2


def test_retry_with_the_same_request_id_returns_the_first_result_and_applies_nothing(
    stub, redis_client
):
    created = create(stub, [HUMAN, RANDOM, RANDOM, RANDOM], seed=77)
    token = tokens_of(created)[0]
    seat_view = view(stub, created.game_id, 0, token)
    request_id = uuid.uuid4().hex
    first = submit(
        stub, created.game_id, 0, token, seat_view.legal_actions[0], seat_view.version, request_id
    )
    after_first = stored(redis_client, created.game_id)
    log_length = len(stub.GetActionLog(api.GetActionLogRequest(game_id=created.game_id)).entries)
    again = submit(
        stub, created.game_id, 0, token, seat_view.legal_actions[0], seat_view.version, request_id
    )
    assert again == first
    assert stored(redis_client, created.game_id) == after_first
    assert (
        len(stub.GetActionLog(api.GetActionLogRequest(game_id=created.game_id)).entries)
        == log_length
    )
    # the same id from the same seat with a later move still answers with the first result
    later = submit(
        stub, created.game_id, 0, token, first.legal_actions[0], first.version, request_id
    )
    assert later == first


def test_every_move_refreshes_the_expiry(stub, redis_client):
    created = create(stub, [HUMAN, RANDOM, RANDOM, RANDOM], seed=8)
    token = tokens_of(created)[0]
    key = game_key(created.game_id)
    redis_client.expire(key, 100)
    seat_view = view(stub, created.game_id, 0, token)
    submit(stub, created.game_id, 0, token, seat_view.legal_actions[0], seat_view.version)
    assert redis_client.ttl(key) > 100


def test_idle_games_expire(redis_url):
    with (
        local_service(redis_url, game_ttl_seconds=1) as address,
        grpc.insecure_channel(address) as channel,
    ):
        stub = engine_service_pb2_grpc.EngineServiceStub(channel)
        created = create(stub, [HUMAN, RANDOM, RANDOM, RANDOM])
        view(stub, created.game_id)
        time.sleep(2.2)
        assert failure_of(lambda: view(stub, created.game_id)).code is grpc.StatusCode.NOT_FOUND


@pytest.fixture
def second_server(redis_url):
    """Another engine process on the same Redis."""
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "engine_service",
            "--address",
            f"127.0.0.1:{port}",
            "--redis-url",
            redis_url,
        ],
        env={**os.environ, "ENGINE_LOG_LEVEL": "WARNING"},
    )
    address = f"127.0.0.1:{port}"
    try:
        with grpc.insecure_channel(address) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            deadline = time.monotonic() + 20
            while True:
                try:
                    health.Check(health_pb2.HealthCheckRequest(), timeout=1)
                    break
                except grpc.RpcError:
                    assert process.poll() is None and time.monotonic() < deadline
                    time.sleep(0.1)
        yield address
    finally:
        process.terminate()
        assert process.wait(timeout=20) == 0, "SIGTERM should drain and exit cleanly"


def test_a_second_process_serves_a_game_the_first_created(stub, second_server):
    created = create(stub, [HUMAN, RANDOM, RANDOM, RANDOM], seed=12)
    token = tokens_of(created)[0]
    with grpc.insecure_channel(second_server) as channel:
        other = engine_service_pb2_grpc.EngineServiceStub(channel)
        seat_view = view(other, created.game_id, 0, token)
        assert seat_view == view(stub, created.game_id, 0, token)
        after = submit(
            other, created.game_id, 0, token, seat_view.legal_actions[0], seat_view.version
        )
    assert view(stub, created.game_id, 0, token) == after
