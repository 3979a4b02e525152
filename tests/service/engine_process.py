"""An engine server as its own OS process, and waits on its health status, for the tests that
signal processes (drain on SIGTERM, Redis stopped under a server)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator

import redis

from engine_service.api.healthcheck import check
from engine_service.devtools.local import free_port

START_SECONDS = 30.0
"""How long a server process may take to report SERVING (a bound, not a measurement)."""


def wait_status(address: str, wanted: str, seconds: float, service: str = "") -> float:
    """Poll the health status until it is ``wanted``; the seconds that took (fails after)."""
    started = time.monotonic()
    while True:
        status = check(address, service, timeout=1.0)
        waited = time.monotonic() - started
        if status == wanted:
            return waited
        assert waited < seconds, f"health still {status}, not {wanted}, after {waited:.1f} s"
        time.sleep(0.05)


def redis_pid(url: str) -> int:
    """The process id of the redis-server at ``url`` (one this test run started)."""
    client = redis.Redis.from_url(url)
    try:
        return int(client.info("server")["process_id"])
    finally:
        client.close()


@contextlib.contextmanager
def engine_process(redis_url: str, *flags: str) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``python -m engine_service`` (one process) on a free port, once SERVING; killed after."""
    port = free_port()
    address = f"127.0.0.1:{port}"
    command = [sys.executable, "-m", "engine_service", "--address", address]
    command += ["--redis-url", redis_url, "--metrics-port", "0", "--processes", "1", *flags]
    process = subprocess.Popen(command, env={**os.environ, "ENGINE_LOG_LEVEL": "WARNING"})
    try:
        deadline = time.monotonic() + START_SECONDS
        while check(address, timeout=1.0) != "SERVING":
            assert process.poll() is None, "the server process ended"
            assert time.monotonic() < deadline, "the server process did not start"
            time.sleep(0.1)
        yield address, process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=START_SECONDS)
