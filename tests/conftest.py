"""Session fixtures: a real redis-server and a real gRPC engine server on free loopback ports."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
import redis
from cardengine.v1 import engine_service_pb2_grpc

from engine_service.devtools.local import local_service, redis_server

UNTIMED = 3600.0
"""A bot time budget no request reaches."""


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    with redis_server() as url:
        yield url


@pytest.fixture(scope="session")
def redis_client(redis_url: str) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(redis_url)
    yield client
    client.close()


@pytest.fixture(scope="session")
def engine_address(redis_url: str) -> Iterator[str]:
    # Bot replies are bounded by moves only here: the default time budget (T-R10) depends on
    # how busy the machine is, which would make a test's bots sometimes finish in the reply
    # and sometimes in the timer loop. Tests of the time budget start servers of their own.
    with local_service(redis_url, bot_seconds_per_call=UNTIMED) as address:
        yield address


@pytest.fixture(scope="session")
def channel(engine_address: str) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(engine_address) as chan:
        yield chan


@pytest.fixture(scope="session")
def stub(channel: grpc.Channel) -> engine_service_pb2_grpc.EngineServiceStub:
    return engine_service_pb2_grpc.EngineServiceStub(channel)
