"""The container health probe against the real server and against a port nobody serves."""

from __future__ import annotations

import subprocess
import sys

import pytest

from engine_service.api.healthcheck import check, probe_target
from engine_service.devtools.local import free_port

pytestmark = pytest.mark.service


def test_probe_reports_serving_and_exits_zero(engine_address: str) -> None:
    assert check(engine_address) == "SERVING"
    assert check(engine_address, "cardengine.v1.EngineService") == "SERVING"
    probe = [sys.executable, "-m", "engine_service.api.healthcheck"]
    finished = subprocess.run(
        [*probe, "--address", engine_address], capture_output=True, text=True, check=False
    )
    assert (finished.returncode, finished.stdout.strip()) == (0, "SERVING")


def test_probe_fails_without_a_server() -> None:
    address = f"127.0.0.1:{free_port()}"
    assert check(address, timeout=1.0) == "UNAVAILABLE"
    probe = [sys.executable, "-m", "engine_service.api.healthcheck", "--timeout", "1"]
    finished = subprocess.run(
        [*probe, "--address", address], capture_output=True, text=True, check=False
    )
    assert finished.returncode == 1


def test_probe_turns_wildcard_hosts_into_loopback() -> None:
    assert probe_target("0.0.0.0:50051") == "127.0.0.1:50051"
    assert probe_target("[::]:7000") == "127.0.0.1:7000"
    assert probe_target("engine:50051") == "engine:50051"
