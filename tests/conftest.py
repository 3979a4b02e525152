"""Session fixtures: a real redis-server and a real gRPC engine server on free loopback ports."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
import redis
from cardengine.v1 import engine_service_pb2_grpc

from engine_service.devtools.local import local_service, redis_server


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
    with local_service(redis_url) as address:
        yield address


@pytest.fixture(scope="session")
def channel(engine_address: str) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(engine_address) as chan:
        yield chan


@pytest.fixture(scope="session")
def stub(channel: grpc.Channel) -> engine_service_pb2_grpc.EngineServiceStub:
    return engine_service_pb2_grpc.EngineServiceStub(channel)
