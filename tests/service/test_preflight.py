"""Start-up checks against real redis-servers: an evicting Redis is refused, one without
persistence is refused unless allowed, snapshots only and a forbidden CONFIG are warned about."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
from collections.abc import Iterator

import grpc
import pytest
import redis
import redis.asyncio as aioredis
from cardengine.v1 import engine_service_pb2_grpc

from engine_service.devtools.local import free_port, local_service, redis_server
from engine_service.store.preflight import RedisRefused, check_redis
from tests.service.rpc_helpers import RANDOM, create

pytestmark = pytest.mark.service
EXIT_SECONDS = 60.0


@pytest.fixture
def own_redis() -> Iterator[tuple[str, redis.Redis]]:
    with redis_server() as url:
        client = redis.Redis.from_url(url)
        yield url, client
        client.close()


def configure(client: redis.Redis, **settings: str) -> None:
    for name, value in settings.items():
        client.config_set(name, value)


def checked(url: str, allow_volatile: bool = False) -> None:
    async def run() -> None:
        client = aioredis.Redis.from_url(url)
        try:
            await check_redis(client, url, allow_volatile)
        finally:
            await client.aclose()

    asyncio.run(run())


def started(url: str, *flags: str) -> subprocess.CompletedProcess[str]:
    """``python -m engine_service`` against ``url``, expected to refuse and exit."""
    command = [sys.executable, "-m", "engine_service", "--address", f"127.0.0.1:{free_port()}"]
    command += ["--redis-url", url, "--metrics-port", "0", "--background-workers", "0", *flags]
    return subprocess.run(
        command, check=False, capture_output=True, text=True, timeout=EXIT_SECONDS
    )


@pytest.mark.parametrize("policy", ["allkeys-lru", "volatile-ttl", "allkeys-random"])
def test_an_evicting_redis_is_refused(own_redis: tuple[str, redis.Redis], policy: str) -> None:
    url, client = own_redis
    client.config_set("maxmemory-policy", policy)
    with pytest.raises(RedisRefused, match=f"maxmemory-policy is {policy}"):
        checked(url, allow_volatile=True)


@pytest.mark.parametrize("processes", ["1", "2"])
def test_the_service_exits_with_the_reason(
    own_redis: tuple[str, redis.Redis], processes: str
) -> None:
    url, client = own_redis
    client.config_set("maxmemory-policy", "volatile-lru")
    finished = started(url, "--processes", processes)
    assert finished.returncode == 1
    assert "maxmemory-policy is volatile-lru" in finished.stderr
    assert "noeviction" in finished.stderr


def test_a_redis_without_persistence_is_refused_unless_allowed(
    own_redis: tuple[str, redis.Redis],
) -> None:
    url, client = own_redis
    configure(client, appendonly="no", save="")
    with pytest.raises(RedisRefused, match="keeps nothing on disk"):
        checked(url)
    finished = started(url, "--processes", "1")
    assert finished.returncode == 1 and "--allow-volatile-redis" in finished.stderr
    allowed = local_service(url, allow_volatile_redis=True)
    with allowed as address, grpc.insecure_channel(address) as channel:
        create(engine_service_pb2_grpc.EngineServiceStub(channel), [RANDOM] * 4)


def test_snapshots_only_start_with_a_warning(
    own_redis: tuple[str, redis.Redis], caplog: pytest.LogCaptureFixture
) -> None:
    url, client = own_redis
    configure(client, appendonly="no", save="60 1")
    with caplog.at_level(logging.WARNING, logger="engine_service.store.preflight"):
        checked(url)
    assert any("snapshots only" in str(r.__dict__.get("problem")) for r in caplog.records)


def test_a_forbidden_config_get_is_warned_about_and_the_service_starts(
    own_redis: tuple[str, redis.Redis], caplog: pytest.LogCaptureFixture
) -> None:
    url, client = own_redis
    client.acl_setuser(
        "limited",
        enabled=True,
        passwords=["+secret"],
        keys=["*"],
        channels=["*"],
        commands=["+@all", "-config"],
    )
    limited = url.replace("redis://", "redis://limited:secret@")
    with caplog.at_level(logging.WARNING, logger="engine_service.store.preflight"):
        checked(limited)
    (record,) = [r for r in caplog.records if r.name == "engine_service.store.preflight"]
    assert "not checked" in record.getMessage() and "secret" not in str(record.__dict__)
    with local_service(limited) as address, grpc.insecure_channel(address) as channel:
        create(engine_service_pb2_grpc.EngineServiceStub(channel), [RANDOM] * 4)
