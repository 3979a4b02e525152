"""Fixtures of the service tests beyond the session's Redis and in-process server."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from engine_service.devtools.local import free_port


@pytest.fixture
def second_server(redis_url):
    """Another engine process on the same Redis, as its own operating-system process."""
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
            "--metrics-port",
            "0",
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
