"""Start-up refusals: a served address, and a non-loopback address without TLS or keys.

Real servers as their own processes on free loopback ports, each stopped by its PID. The
non-loopback cases are refused before anything binds, so no test binds beyond loopback.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from engine_service.api.exposure import StartRefused, check_exposure, check_unserved
from engine_service.devtools.local import free_port, wait_serving
from engine_service.settings import Settings
from tests.service.keyed import STARTUP_SECONDS, new_key, server_process

pytestmark = pytest.mark.service

ENV = {**os.environ, "ENGINE_LOG_LEVEL": "WARNING", "ENGINE_ALLOW_VOLATILE_REDIS": "1"}


def start(redis_url: str, address: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run a server that is expected to refuse to start: its exit status and output."""
    command = [sys.executable, "-m", "engine_service", "--address", address]
    command += ["--redis-url", redis_url, "--metrics-port", "0", *args]
    return subprocess.run(
        command, env=ENV, capture_output=True, text=True, timeout=STARTUP_SECONDS, check=False
    )


def test_a_second_server_on_a_served_address_refuses_to_start(redis_url: str) -> None:
    with server_process(redis_url) as address:
        second = start(redis_url, address, "--processes", "1")
        assert second.returncode != 0
        assert "is served already" in second.stderr, second.stderr
        group = start(redis_url, address, "--processes", "2")  # a group is refused as well
        assert group.returncode != 0 and "is served already" in group.stderr


def test_a_process_group_of_two_starts_and_a_member_may_join(redis_url: str) -> None:
    address = f"127.0.0.1:{free_port()}"
    command = [sys.executable, "-m", "engine_service", "--address", address, "--processes", "2"]
    command += ["--redis-url", redis_url, "--metrics-port", "0", "--background-workers", "0"]
    group = subprocess.Popen(command, env=ENV)
    try:
        wait_serving(address, group, STARTUP_SECONDS)
        with pytest.raises(StartRefused):
            check_unserved(Settings(address=address))
        check_unserved(Settings(address=address, join_group=True))
    finally:
        group.send_signal(signal.SIGTERM)
        assert group.wait(timeout=STARTUP_SECONDS * 2) == 0


def test_a_public_address_needs_tls_and_keys_or_the_flag(redis_url: str) -> None:
    public = f"0.0.0.0:{free_port()}"
    refused = start(redis_url, public, "--processes", "1")
    assert refused.returncode != 0
    assert "not a loopback address" in refused.stderr and "--insecure-public" in refused.stderr
    keys = (new_key("create").line,)
    tls = {"tls_cert": "server.pem", "tls_key": "server.key"}
    for settings in (
        Settings(address=public),
        Settings(address=public, service_keys=keys),
        Settings(address=public, **tls),
        Settings(address=public, service_keys=keys, web_port=8080),
        Settings(address=f"[::]:{free_port()}", service_keys=keys),
    ):
        with pytest.raises(StartRefused):
            check_exposure(settings)
    check_exposure(Settings(address=public, service_keys=keys, **tls))
    check_exposure(Settings(address=public, service_keys=keys, web_port=8080, **tls))
    check_exposure(Settings(address=public, insecure_public=True, web_port=8080))
    for local in ("127.0.0.1:1", "[::1]:1", "localhost:1", "unix:/tmp/engine.sock"):
        check_exposure(Settings(address=local, web_port=8080))
