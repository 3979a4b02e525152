"""Helpers of the clock tests: clocked games, engine processes killed by PID, log replays.

The clock tests need replicas that can die without a drain (SIGKILL), so they start engines
as operating-system processes here rather than through the ``second_server`` fixture, whose
process must stop cleanly.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
import redis
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import engine_service_pb2_grpc, game_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc

from engine_service.app.engine import Engine
from engine_service.codec.record import decode_log_entry, decode_record, encode_record
from engine_service.devtools.local import free_port
from engine_service.store.keys import game_key, log_key
from engine_service.store.redis_store import RedisGameStore
from tests.service.rpc_helpers import WAIT_SECONDS, token_md

STARTUP_SECONDS = 30.0
"""How long an engine process may take to answer its health check (a bound, not a measure)."""


def clock(per_decision_ms: int, on_expiry: int, bank_ms: int = 0) -> game_pb2.ClockPolicy:
    """A CreateGame clock policy."""
    policy = game_pb2.ClockPolicy(on_expiry=on_expiry)  # type: ignore[arg-type]
    policy.per_decision.FromMilliseconds(per_decision_ms)
    policy.bank.FromMilliseconds(bank_ms)
    return policy


def create_clocked(
    stub: Any,
    seats: Sequence[Any],
    policy: game_pb2.ClockPolicy,
    game_type: str = "hearts",
    seed: int | None = None,
) -> Any:
    """CreateGame with a turn clock (default options)."""
    request = api.CreateGameRequest(game_type=game_type, seats=seats, clock=policy)
    if seed is not None:
        request.seed = seed
    return stub.CreateGame(request)


def admin_md(token: str) -> tuple[tuple[str, str], ...]:
    return (("x-admin-token", token),)


def end_game(stub: Any, created: Any) -> None:
    """End a test's game so no timer keeps playing it after the test (T-R8)."""
    request = api.EndGameRequest(game_id=created.game_id, reason="test over")
    with contextlib.suppress(grpc.RpcError):  # it may have ended on its own meanwhile
        stub.EndGame(request, metadata=admin_md(created.admin_token))


def action_log(stub: Any, game_id: str, seat: int | None = None, token: str = "") -> Any:
    """The whole action log, as ``seat`` (with its token) or as a spectator."""
    request = api.GetActionLogRequest(game_id=game_id)
    if seat is not None:
        request.seat = seat
    return stub.GetActionLog(request, metadata=token_md(token) if token else ())


def is_expiry(entry: Any) -> bool:
    """Whether a log entry is a ClockExpired table change."""
    return bool(entry.action.WhichOneof("game") == "table") and bool(
        entry.action.table.WhichOneof("change") == "clock_expired"
    )


def deadline_ms(view: Any, seat: int) -> int | None:
    """The seat's running deadline in a view; ``None`` when it has none (or no clock)."""
    for seat_clock in view.clocks:
        if seat_clock.seat == seat:
            return (
                int(seat_clock.deadline.ToMilliseconds())
                if seat_clock.HasField("deadline")
                else None
            )
    return None


def wait_for_expiry(stub: Any, game_id: str, seat: int, token: str) -> Any:
    """The game's first ClockExpired log entry, polled for at most :data:`WAIT_SECONDS`."""
    stop = time.monotonic() + WAIT_SECONDS
    while True:
        entries = action_log(stub, game_id, seat, token).entries
        found = next((entry for entry in entries if is_expiry(entry)), None)
        if found is not None:
            return found
        assert time.monotonic() < stop, "the deadline never fired"
        time.sleep(0.05)


def stored_actions(client: redis.Redis, game_id: str) -> list[Any]:
    """The actions of a game's log as Redis holds it, read with no server running."""
    snapshot: bytes = client.hget(game_key(game_id), "s")  # type: ignore[assignment]
    game_type = decode_record(snapshot).game_type
    raw_entries: list[bytes] = client.lrange(log_key(game_id), 0, -1)  # type: ignore[assignment]
    return [decode_log_entry(game_type, raw).action for raw in raw_entries]


@dataclass
class EngineProcess:
    """An engine server as its own OS process; stopped (or killed) by its PID only."""

    address: str
    process: subprocess.Popen[bytes]

    def kill(self) -> None:
        """SIGKILL: the process dies at once, with nothing drained or cleaned up."""
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=STARTUP_SECONDS)


@contextlib.contextmanager
def engine_process(redis_url: str) -> Iterator[EngineProcess]:
    """Start ``python -m engine_service`` on a free port; yields it once healthy."""
    port = free_port()
    command = [sys.executable, "-m", "engine_service", "--address", f"127.0.0.1:{port}"]
    command += ["--redis-url", redis_url, "--metrics-port", "0"]
    process = subprocess.Popen(command, env={**os.environ, "ENGINE_LOG_LEVEL": "WARNING"})
    engine = EngineProcess(f"127.0.0.1:{port}", process)
    try:
        with grpc.insecure_channel(engine.address) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            deadline = time.monotonic() + STARTUP_SECONDS
            while True:
                try:
                    health.Check(health_pb2.HealthCheckRequest(), timeout=1)
                    break
                except grpc.RpcError:
                    assert process.poll() is None, "the engine process died at start"
                    assert time.monotonic() < deadline, "the engine process never got healthy"
                    time.sleep(0.1)
        yield engine
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGTERM)
            process.wait(timeout=STARTUP_SECONDS)


@contextlib.contextmanager
def engine_stub(address: str) -> Iterator[engine_service_pb2_grpc.EngineServiceStub]:
    with grpc.insecure_channel(address) as channel:
        yield engine_service_pb2_grpc.EngineServiceStub(channel)


def replay_problems(redis_url: str, game_ids: Sequence[str]) -> list[str]:
    """The games whose log, replayed from the record as created, is not the stored snapshot.

    Replayed by :meth:`Engine.replay_from_origin`, the whole log from the record as created,
    so clock entries and bot moves are checked along with every other entry. The games must
    be still.
    """
    client: redis.Redis = redis.Redis.from_url(redis_url)

    async def replay_all() -> list[str]:
        store = RedisGameStore.from_url(redis_url, ttl_seconds=3600)
        engine = Engine(store)
        problems = []
        try:
            for game_id in game_ids:
                version, snapshot = client.hmget(game_key(game_id), ["v", "s"])
                assert version is not None, f"{game_id} is not stored"
                rebuilt = await engine.replay_from_origin(game_id, int(version))
                if encode_record(rebuilt) != snapshot:
                    problems.append(f"{game_id}: the log does not replay to the snapshot")
        finally:
            await store.client.aclose()
        return problems

    try:
        return asyncio.run(replay_all())
    finally:
        client.close()
