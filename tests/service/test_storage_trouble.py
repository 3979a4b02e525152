"""A Redis that is up but refuses writes (full under noeviction, a read-only replica) gives
UNAVAILABLE with the kind of trouble, never INTERNAL, and nothing half written."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
import redis
from cardengine.v1 import engine_service_pb2_grpc

from engine_service.devtools.local import local_service, redis_server
from tests.service.rpc_helpers import (
    HUMAN,
    RANDOM,
    create,
    failure_of,
    first_legal,
    submit,
    tokens_of,
    view,
)
from tests.service.stored import contents

pytestmark = pytest.mark.service
SEATS = [HUMAN, RANDOM, RANDOM, RANDOM]
SYNC_SECONDS = 15.0


@pytest.fixture(scope="module")
def own_redis() -> Iterator[str]:
    with redis_server() as url:
        yield url


@pytest.fixture(scope="module")
def own_client(own_redis: str) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(own_redis)
    yield client
    client.close()


def everything(client: redis.Redis) -> dict[bytes | str, Any]:
    """Every key of the database with its content: what "nothing was written" compares."""
    return contents(client, client.scan_iter())


def assert_storage_unavailable(call, trouble: str) -> None:  # type: ignore[no-untyped-def]
    failure = failure_of(call)
    assert failure.code is grpc.StatusCode.UNAVAILABLE
    assert failure.reason == "STORAGE_UNAVAILABLE"
    assert failure.metadata == {"storageError": trouble}


def assert_storage_full(call) -> None:  # type: ignore[no-untyped-def]
    """RESOURCE_EXHAUSTED STORAGE_FULL: not UNAVAILABLE, which clients retry forever."""
    failure = failure_of(call)
    assert failure.code is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert failure.reason == "STORAGE_FULL"
    assert failure.metadata == {"storageError": "OOM"}


def test_a_full_redis_under_noeviction_refuses_create_and_submit_storage_full(
    own_redis: str, own_client: redis.Redis
) -> None:
    with local_service(own_redis) as address, grpc.insecure_channel(address) as channel:
        stub = engine_service_pb2_grpc.EngineServiceStub(channel)
        created = create(stub, SEATS, seed=11)
        game_id, token = created.game_id, tokens_of(created)[0]
        seat_view = view(stub, game_id, 0, token)
        action, request_id = first_legal(seat_view), uuid.uuid4().hex
        assert own_client.config_get("maxmemory-policy")["maxmemory-policy"] == "noeviction"
        before = everything(own_client)
        own_client.config_set("maxmemory", 1)  # below what it holds already: it is full
        try:
            assert_storage_full(lambda: create(stub, SEATS))
            assert_storage_full(
                lambda: submit(stub, game_id, 0, token, action, seat_view.version, request_id)
            )
            assert everything(own_client) == before
        finally:
            own_client.config_set("maxmemory", 0)
        # Room again: the same request goes through, once.
        after = submit(stub, game_id, 0, token, action, seat_view.version, request_id)
        assert after.version > seat_view.version


def wait_replicated(replica: redis.Redis, master: redis.Redis) -> None:
    deadline = time.monotonic() + SYNC_SECONDS
    while True:
        info = replica.info("replication")
        synced = info.get("master_link_status") == "up"
        if synced and replica.dbsize() == master.dbsize():
            return
        assert time.monotonic() < deadline, f"the replica did not sync: {info}"
        time.sleep(0.05)


def test_a_replica_refuses_writes_unavailable(own_redis: str, own_client: redis.Redis) -> None:
    master_port = own_client.connection_pool.connection_kwargs["port"]
    with redis_server() as replica_url:
        replica = redis.Redis.from_url(replica_url)
        try:
            with local_service(own_redis) as address, grpc.insecure_channel(address) as channel:
                created = create(engine_service_pb2_grpc.EngineServiceStub(channel), SEATS)
            replica.replicaof("127.0.0.1", master_port)
            wait_replicated(replica, own_client)
            with local_service(replica_url) as address, grpc.insecure_channel(address) as channel:
                stub = engine_service_pb2_grpc.EngineServiceStub(channel)
                game_id, token = created.game_id, tokens_of(created)[0]
                seat_view = view(stub, game_id, 0, token)  # reads work on a replica
                before = everything(replica)
                assert_storage_unavailable(lambda: create(stub, SEATS), "READONLY")
                assert_storage_unavailable(
                    lambda: submit(
                        stub, game_id, 0, token, first_legal(seat_view), seat_view.version
                    ),
                    "READONLY",
                )
                assert everything(replica) == before
        finally:
            replica.replicaof("NO", "ONE")
            replica.close()
