"""SIGTERM drains a server process: calls told UNAVAILABLE wrote nothing, calls answered OK
are stored, and the process exits within its grace period (plus a small margin)."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
import redis
from cardengine.v1 import engine_service_pb2_grpc

from engine_service.devtools.local import redis_server
from tests.service.engine_process import engine_process, redis_pid
from tests.service.rpc_helpers import (
    HUMAN,
    RANDOM,
    create,
    first_legal,
    stored,
    submit,
    tokens_of,
    view,
)

pytestmark = pytest.mark.service
GRACE = 3.0
EXIT_MARGIN = 3.0
"""What a stopping process may take beyond its grace period (a bound, not a measurement)."""
CALLS = 8
CALL_SECONDS = 60.0
UNBOUNDED_BOTS = ("--bot-moves-per-call", "1000000", "--bot-seconds-per-call", "3600")
"""Bots play a whole game within its CreateGame call: each takes about a second of CPU."""
FLAGS = ("--grace-seconds", str(GRACE), "--background-workers", "0", *UNBOUNDED_BOTS)


@pytest.fixture
def own_redis() -> Iterator[tuple[str, redis.Redis]]:
    with redis_server() as url:
        client = redis.Redis.from_url(url)
        yield url, client
        client.close()


def stored_games(client: redis.Redis) -> set[str]:
    return {key.decode().split(":")[2] for key in client.scan_iter(match="ce:*:game")}


def in_threads(calls: list[Callable[[], Any]]) -> tuple[list[threading.Thread], list[Any]]:
    """Start every call in a thread of its own; the threads and where outcomes land."""
    outcomes: list[Any] = [None] * len(calls)

    def run(index: int) -> None:
        try:
            outcomes[index] = calls[index]()
        except grpc.RpcError as error:
            outcomes[index] = error

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    return threads, outcomes


def stop_and_time(process: Any) -> float:
    """SIGTERM ``process`` (by PID) and the seconds until it exited."""
    started = time.monotonic()
    os.kill(process.pid, signal.SIGTERM)
    assert process.wait(timeout=GRACE + EXIT_MARGIN + 10) == 0
    return time.monotonic() - started


def test_sigterm_with_bot_games_in_flight(own_redis: tuple[str, redis.Redis]) -> None:
    url, client = own_redis
    with (
        engine_process(url, *FLAGS) as (address, process),
        grpc.insecure_channel(address) as channel,
    ):
        stub = engine_service_pb2_grpc.EngineServiceStub(channel)
        calls = [lambda: create(stub, [RANDOM] * 4, game_type="guandan") for _ in range(CALLS)]
        threads, outcomes = in_threads(calls)
        time.sleep(1.0)  # every call sent, the first ones playing
        took = stop_and_time(process)
        for thread in threads:
            thread.join(CALL_SECONDS)
    ok = [o for o in outcomes if not isinstance(o, grpc.RpcError)]
    refused = [o for o in outcomes if isinstance(o, grpc.RpcError)]
    assert {o.code() for o in refused} <= {grpc.StatusCode.UNAVAILABLE}
    games = stored_games(client)
    # Every OK game is stored (at the version answered, or later: the timer loop plays on
    # until the drain stops it); the UNAVAILABLE ones left nothing.
    assert games == {o.game_id for o in ok}
    for reply in ok:
        assert int(stored(client, reply.game_id)[b"v"]) >= reply.view.version
    print(f"{len(ok)} OK, {len(refused)} UNAVAILABLE; exited {took:.2f} s after SIGTERM")
    assert took < GRACE + EXIT_MARGIN


def test_a_call_reaching_its_write_after_the_gate_closed_writes_nothing(
    own_redis: tuple[str, redis.Redis],
) -> None:
    """A move whose read Redis answers only near the end of the grace period is refused."""
    url, client = own_redis
    with (
        engine_process(url, *FLAGS) as (address, process),
        grpc.insecure_channel(address) as channel,
    ):
        stub = engine_service_pb2_grpc.EngineServiceStub(channel)
        created = create(stub, [HUMAN, RANDOM, RANDOM, RANDOM], seed=5)
        game_id, token = created.game_id, tokens_of(created)[0]
        seat_view = view(stub, game_id, 0, token)
        before = stored(client, game_id)
        pid = redis_pid(url)
        os.kill(pid, signal.SIGSTOP)
        try:
            move = lambda: submit(  # noqa: E731
                stub, game_id, 0, token, first_legal(seat_view), seat_view.version
            )
            threads, outcomes = in_threads([move])
            time.sleep(0.3)  # the move waits for Redis to answer its read
            started = time.monotonic()
            os.kill(process.pid, signal.SIGTERM)
            # Past the gate's closing (grace minus its margin), before the grace ends.
            time.sleep(GRACE * 0.75 + 0.2)
        finally:
            os.kill(pid, signal.SIGCONT)
        assert process.wait(timeout=GRACE + EXIT_MARGIN + 10) == 0
        took = time.monotonic() - started
        threads[0].join(CALL_SECONDS)
    (outcome,) = outcomes
    assert isinstance(outcome, grpc.RpcError), "the move was applied after the gate closed"
    assert outcome.code() is grpc.StatusCode.UNAVAILABLE
    assert stored(client, game_id) == before
    print(f"refused {outcome.details()!r}; exited {took:.2f} s after SIGTERM")
    assert took < GRACE + EXIT_MARGIN
