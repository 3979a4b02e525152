"""SIGTERM drains a server process, or a process group: calls told UNAVAILABLE wrote nothing,
calls answered OK are stored, and every process exits within its grace period (plus a small
margin)."""

from __future__ import annotations

import functools
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis
from cardengine.v1 import engine_service_pb2_grpc

from engine_service.devtools.local import alive, redis_pid, redis_server
from tests.service.engine_process import Group, engine_group, engine_process, spread_stubs
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
EXIT_MARGIN = 5.0
"""What a stopping process may take beyond its grace period (a bound, not a measurement).

A group holding moves past its gates exits about 2.7 s after SIGTERM on an idle machine and
took 6.4 s once with the whole suite running on two cores; a hung drain is killed, which
``killed`` catches whatever the margin."""
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


def check_outcomes(client: redis.Redis, outcomes: list[Any]) -> tuple[list[Any], list[Any]]:
    """The OK replies and the refusals; fails unless the refusals are UNAVAILABLE and wrote
    nothing, and every OK game is stored."""
    ok = [o for o in outcomes if not isinstance(o, grpc.RpcError)]
    refused = [o for o in outcomes if isinstance(o, grpc.RpcError)]
    assert {o.code() for o in refused} <= {grpc.StatusCode.UNAVAILABLE}
    games = stored_games(client)
    # Every OK game is stored (at the version answered, or later: the timer loop plays on
    # until the drain stops it); the UNAVAILABLE ones left nothing.
    assert games == {o.game_id for o in ok}
    for reply in ok:
        assert int(stored(client, reply.game_id)[b"v"]) >= reply.view.version
    return ok, refused


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
    ok, refused = check_outcomes(client, outcomes)
    print(f"{len(ok)} OK, {len(refused)} UNAVAILABLE; exited {took:.2f} s after SIGTERM")
    assert took < GRACE + EXIT_MARGIN


def ready_move(stub: Any, client: redis.Redis) -> tuple[Callable[[], Any], str, dict[bytes, bytes]]:
    """A new game waiting for seat 0: the call of its move, the game id and its stored hash."""
    created = create(stub, [HUMAN, RANDOM, RANDOM, RANDOM], seed=5)
    game_id, token = created.game_id, tokens_of(created)[0]
    seat_view = view(stub, game_id, 0, token)
    action = first_legal(seat_view)
    move = functools.partial(submit, stub, game_id, 0, token, action, seat_view.version)
    return move, game_id, stored(client, game_id)


def moves_past_the_gate(
    url: str, moves: list[Callable[[], Any]], process: Any
) -> tuple[list[Any], float]:
    """Send ``moves`` while Redis is stopped, SIGTERM ``process``, and let Redis answer only
    after the write gate closed (grace minus its margin) but before the grace ends.

    Returns the moves' outcomes and the seconds from SIGTERM until the process exited.
    """
    pid = redis_pid(url)
    os.kill(pid, signal.SIGSTOP)
    try:
        threads, outcomes = in_threads(moves)
        time.sleep(0.3)  # the moves wait for Redis to answer their reads
        started = time.monotonic()
        os.kill(process.pid, signal.SIGTERM)
        time.sleep(GRACE * 0.75 + 0.2)
    finally:
        os.kill(pid, signal.SIGCONT)
    assert process.wait(timeout=GRACE + EXIT_MARGIN + 10) == 0
    took = time.monotonic() - started
    for thread in threads:
        thread.join(CALL_SECONDS)
    return outcomes, took


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
        move, game_id, before = ready_move(stub, client)
        outcomes, took = moves_past_the_gate(url, [move], process)
    (outcome,) = outcomes
    assert isinstance(outcome, grpc.RpcError), "the move was applied after the gate closed"
    assert outcome.code() is grpc.StatusCode.UNAVAILABLE
    assert stored(client, game_id) == before
    print(f"refused {outcome.details()!r}; exited {took:.2f} s after SIGTERM")
    assert took < GRACE + EXIT_MARGIN


def killed(group: Group) -> bool:
    """Whether the group's parent had to kill a child that had not drained in time."""
    return any(
        entry["msg"] == "server process did not drain; killing it" for entry in group.lines()
    )


def test_sigterm_drains_a_process_group(own_redis: tuple[str, redis.Redis], tmp_path: Path) -> None:
    """SIGTERM to the parent of ``--processes 2`` drains both children as one server drains.

    Each call has a connection of its own, so the kernel spreads them over both children.
    """
    url, client = own_redis
    with (
        engine_group(url, tmp_path / "group.log", *FLAGS) as group,
        spread_stubs(group.address, CALLS) as stubs,
    ):
        children = list(group.serving().values())
        calls = [
            functools.partial(create, stub, [RANDOM] * 4, game_type="guandan") for stub in stubs
        ]
        threads, outcomes = in_threads(calls)
        time.sleep(1.0)  # every call sent, the first ones playing
        took = stop_and_time(group.parent)
        left = [pid for pid in children if alive(pid)]
        for thread in threads:
            thread.join(CALL_SECONDS)
    assert left == [], f"children {left} outlived their parent"
    assert not killed(group), "a child did not drain in time and was killed"
    ok, refused = check_outcomes(client, outcomes)
    print(f"{len(ok)} OK, {len(refused)} UNAVAILABLE; the group exited {took:.2f} s after SIGTERM")
    assert took < GRACE + EXIT_MARGIN


def test_a_group_writes_nothing_after_its_gates_closed(
    own_redis: tuple[str, redis.Redis], tmp_path: Path
) -> None:
    """Moves on both children of a group, answered by Redis only after the gates closed, are
    all refused and leave their games as they were; the group still exits in time."""
    url, client = own_redis
    with (
        engine_group(url, tmp_path / "group.log", *FLAGS) as group,
        spread_stubs(group.address, CALLS) as stubs,
    ):
        children = list(group.serving().values())
        ready = [ready_move(stub, client) for stub in stubs]
        outcomes, took = moves_past_the_gate(url, [move for move, _, _ in ready], group.parent)
        left = [pid for pid in children if alive(pid)]
    assert left == [], f"children {left} outlived their parent"
    assert not killed(group), "a child did not drain in time and was killed"
    codes = [o.code() if isinstance(o, grpc.RpcError) else "OK" for o in outcomes]
    assert codes == [grpc.StatusCode.UNAVAILABLE] * CALLS
    for _, game_id, before in ready:
        assert stored(client, game_id) == before
    print(f"{CALLS} moves refused; the group exited {took:.2f} s after SIGTERM")
    assert took < GRACE + EXIT_MARGIN
