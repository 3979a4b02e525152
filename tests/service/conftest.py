"""Fixtures of the service tests beyond the session's Redis and in-process server."""

from __future__ import annotations

import os
import subprocess

import pytest

from engine_service.devtools.local import engine_command, free_port, wait_serving


@pytest.fixture
def second_server(redis_url):
    """Another engine process on the same Redis, as its own operating-system process."""
    address = f"127.0.0.1:{free_port()}"
    process = subprocess.Popen(
        engine_command(address, redis_url), env={**os.environ, "ENGINE_LOG_LEVEL": "WARNING"}
    )
    try:
        wait_serving(address, process, 20)
        yield address
    finally:
        process.terminate()
        assert process.wait(timeout=20) == 0, "SIGTERM should drain and exit cleanly"
