"""The health status follows Redis: NOT_SERVING while it cannot be reached, SERVING again by
itself when it is back; and health answers while calls keep the server busy."""

from __future__ import annotations

import os
import signal
import threading
import time

import grpc
import pytest
from cardengine.v1 import engine_service_pb2_grpc

from engine_service.api.healthcheck import check
from engine_service.api.wire import SERVICE
from engine_service.devtools.local import local_service, redis_pid, redis_server
from tests.service.engine_process import wait_status
from tests.service.rpc_helpers import RANDOM, create

pytestmark = pytest.mark.service
INTERVAL = 0.2
WAIT_SECONDS = 20.0
"""A bound on how long the status may take to change (several intervals on a busy machine)."""
PROMPT_SECONDS = 5.0
"""A generous bound on one health answer while bot games are being created."""


def assert_status(address: str, wanted: str) -> None:
    waited = [
        wait_status(address, wanted, WAIT_SECONDS, service) for service in ("", SERVICE.full_name)
    ]
    print(f"{wanted} after {max(waited):.2f} s")


def test_health_is_not_serving_while_redis_is_stopped_then_serving_again() -> None:
    with redis_server() as url, local_service(url, health_interval_seconds=INTERVAL) as address:
        assert_status(address, "SERVING")
        pid = redis_pid(url)
        os.kill(pid, signal.SIGSTOP)
        try:
            assert_status(address, "NOT_SERVING")
        finally:
            os.kill(pid, signal.SIGCONT)
        assert_status(address, "SERVING")


def test_health_is_not_serving_while_redis_is_down_then_serving_once_restarted() -> None:
    with redis_server() as url:
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        with local_service(url, health_interval_seconds=INTERVAL) as address:
            assert_status(address, "SERVING")
            os.kill(redis_pid(url), signal.SIGKILL)
            assert_status(address, "NOT_SERVING")
            with redis_server(port=port):
                assert_status(address, "SERVING")


def test_health_answers_while_four_bot_games_are_created_at_once(redis_url: str) -> None:
    """Four all-bot CreateGame calls at once: every health answer comes within the bound."""
    with local_service(redis_url) as address, grpc.insecure_channel(address) as channel:
        stub = engine_service_pb2_grpc.EngineServiceStub(channel)
        errors: list[BaseException] = []

        def creator() -> None:
            try:
                for _ in range(3):
                    create(stub, [RANDOM] * 4, game_type="guandan")
            except BaseException as error:  # reported below
                errors.append(error)

        threads = [threading.Thread(target=creator) for _ in range(4)]
        for thread in threads:
            thread.start()
        slowest = 0.0
        try:
            while any(thread.is_alive() for thread in threads):
                started = time.perf_counter()
                assert check(address, timeout=PROMPT_SECONDS) == "SERVING"
                slowest = max(slowest, time.perf_counter() - started)
                time.sleep(0.02)
        finally:
            for thread in threads:
                thread.join(WAIT_SECONDS)
        assert not errors
        print(f"slowest health answer while creating bot games: {slowest * 1000:.0f} ms")
