"""The Python clients against a real engine with service keys over their quotas.

Each test gets keys of its own (fresh names: fresh buckets and windows in the session's Redis)
and a server that knows them. A counting front (:func:`lossy_front` losing nothing) between
the client and the engine shows how often each call was really sent.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import grpc
import pytest
from cardengine_client import (
    EngineClient,
    GameQuotaExceeded,
    QuotaExceeded,
    QuotaViolation,
    RateLimited,
    Unavailable,
    from_status,
)
from cardengine_client._shared import ClientSettings
from cardengine_client.aio import AsyncEngineClient
from google.protobuf import duration_pb2
from google.rpc import error_details_pb2, status_pb2

from engine_service.devtools.local import local_service
from tests.client.scripted_server import LossyFront, lossy_front
from tests.service.keyed import Key, new_key

pytestmark = pytest.mark.service

SEATS = ["human", "heuristic", "heuristic", "heuristic"]
QUICK = "rate=0.4,burst=1"
"""A token every 2.5 s: the next call is refused even on a busy machine, and fits again well
within the client's wait cap (5 s)."""
SLOW = "rate=0.01,burst=1"
"""A token every 100 s: longer than any wait the client is allowed."""
ALL = "create,list,admin"
METHODS = ["ListGameTypes", "CreateGame", "GetGame", "EndGame"]


@contextmanager
def front_to(redis_url: str, *keys: Key) -> Iterator[tuple[str, LossyFront]]:
    """A server with ``keys``, and a front to it that counts the requests it passes on."""
    with (
        local_service(redis_url, service_keys=tuple(key.line for key in keys)) as address,
        lossy_front(address, METHODS, drops=0) as served,
    ):
        yield served


def test_a_read_refused_by_the_rate_waits_the_retry_delay_and_is_sent_again(
    redis_url: str,
) -> None:
    key = new_key(ALL, QUICK)
    with front_to(redis_url, key) as (address, front):
        with EngineClient(address, service_key=key.secret) as client:
            client.list_game_types()
            client.list_game_types()  # the bucket is empty: refused, waited for, sent again
        assert len(front.requests["ListGameTypes"]) == 3
        with (
            EngineClient(address, service_key=key.secret, rate_limit_waits=0) as client,
            pytest.raises(RateLimited) as caught,
        ):
            client.list_game_types()
            client.list_game_types()
    error = caught.value
    assert isinstance(error, QuotaExceeded) and isinstance(error, Unavailable)
    assert (error.code, error.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED")
    assert error.retry_delay is not None and 0 < error.retry_delay <= 2.5
    assert [v.subject for v in error.quota_violations] == [f"service_key:{key.name}"]
    assert error.metadata["key"] == key.name


def test_create_game_is_sent_again_with_its_request_id_and_a_table_change_is_not(
    redis_url: str,
) -> None:
    key = new_key(ALL, QUICK)
    with front_to(redis_url, key) as (address, front):
        with EngineClient(address, service_key=key.secret) as client:
            game = client.create_game("hearts", SEATS)
            again = client.create_game("hearts", SEATS)  # refused once, then made
            with pytest.raises(RateLimited):
                client.end_game(game.game_id, game.admin_token, "closing")
        first, refused, retried = front.requests["CreateGame"]
        assert refused == retried and refused.request_id != first.request_id
        assert again.game_id != game.game_id
        assert len(front.requests["EndGame"]) == 1


def test_a_rate_limit_longer_than_the_cap_is_raised_at_once(redis_url: str) -> None:
    key = new_key(ALL, SLOW)
    with front_to(redis_url, key) as (address, front):
        with EngineClient(address, service_key=key.secret, max_rate_limit_wait=5.0) as client:
            client.list_game_types()
            with pytest.raises(RateLimited) as caught:
                client.list_game_types()
        assert caught.value.retry_delay is not None and caught.value.retry_delay > 5.0
        assert len(front.requests["ListGameTypes"]) == 2


def test_a_key_out_of_games_raises_game_quota_exceeded_at_once(redis_url: str) -> None:
    key = new_key(ALL, "games=1")
    with front_to(redis_url, key) as (address, front):
        with EngineClient(address, service_key=key.secret) as client:
            request_id = str(uuid.uuid4())
            made = client.create_game("hearts", SEATS, request_id=request_id)
            with pytest.raises(GameQuotaExceeded) as caught:
                client.create_game("hearts", SEATS)
            # The first game's request id is answered, not counted again.
            repeat = client.create_game("hearts", SEATS, request_id=request_id)
        assert repeat.game_id == made.game_id
        assert len(front.requests["CreateGame"]) == 3
    error = caught.value
    assert isinstance(error, QuotaExceeded) and not isinstance(error, RateLimited)
    assert error.metadata["limit"] == "1"
    assert error.retry_delay is not None and error.retry_delay > 0
    assert [v.subject for v in error.quota_violations] == [f"service_key:{key.name}"]


def test_the_async_client_waits_out_the_rate_too(redis_url: str) -> None:
    key = new_key(ALL, QUICK)

    async def twice(address: str) -> None:
        async with AsyncEngineClient(address, service_key=key.secret) as client:
            game = await client.create_game("hearts", SEATS)
            assert (await client.get_game(game.game_id)).game_id == game.game_id

    with front_to(redis_url, key) as (address, front):
        asyncio.run(twice(address))
        assert len(front.requests["GetGame"]) == 2


def rate_limited(seconds: float | None) -> RateLimited:
    """A RATE_LIMITED error as the client decodes it, with a RetryInfo of ``seconds``."""
    status = status_pb2.Status(code=grpc.StatusCode.RESOURCE_EXHAUSTED.value[0], message="slow")
    status.details.add().Pack(
        error_details_pb2.ErrorInfo(reason="RATE_LIMITED", domain="cardengine")
    )
    if seconds is not None:
        delay = duration_pb2.Duration()
        delay.FromNanoseconds(round(seconds * 1e9))
        status.details.add().Pack(error_details_pb2.RetryInfo(retry_delay=delay))
    quota = error_details_pb2.QuotaFailure()
    quota.violations.add(subject="service_key:k", description="calls")
    status.details.add().Pack(quota)
    error = from_status(grpc.StatusCode.RESOURCE_EXHAUSTED, status)
    assert isinstance(error, RateLimited)
    assert error.quota_violations == [QuotaViolation("service_key:k", "calls")]
    return error


def test_the_waits_are_bounded_by_count_and_cap() -> None:
    settings = ClientSettings(
        retries=3, backoff=0.05, timeout=None, language=None, rate_limit_waits=2
    )
    retries = settings.retries_of(idempotent=True)
    assert [retries.wait_after(rate_limited(0.2)) for _ in range(3)] == [0.2, 0.2, None]
    assert settings.retries_of(idempotent=False).wait_after(rate_limited(0.2)) is None
    assert settings.retries_of(idempotent=True).wait_after(rate_limited(5.5)) is None
    without_delay = settings.retries_of(idempotent=True).wait_after(rate_limited(None))
    assert without_delay is not None and 0.025 <= without_delay <= 0.05  # the backoff, jittered
    with pytest.raises(ValueError):
        ClientSettings(retries=0, backoff=0, timeout=None, language=None, rate_limit_waits=-1)
