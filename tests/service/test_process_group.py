"""``python -m engine_service --processes 2``: a group of server processes on one address.

The group is started as its own operating-system process on a free port, with its metrics
on a free base port (child ``i`` serves ``base + i``), so a call's process can be told by
the counters it moved. Every process is stopped by its PID.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from cardengine.v1 import engine_service_pb2_grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from engine_service.devtools.local import free_port
from tests.service.rpc_helpers import HUMAN, create

STARTUP_SECONDS = 30.0
STOP_SECONDS = 30.0
CHANNELS = 16
"""Connections spread over two processes by the kernel: all on one is a 1 in 32,768 chance."""
CALLS = 48
COUNT = re.compile(r'^cardengine_rpc_duration_seconds_count\{method="CreateGame"\} (\S+)$', re.M)


@dataclass
class Group:
    """A running group: the parent process, its address, log file and metrics base port."""

    parent: subprocess.Popen[bytes]
    address: str
    log: Path
    metrics_port: int

    def lines(self) -> list[dict[str, object]]:
        """The JSON log lines written so far (parent and children share stderr)."""
        lines = []
        for line in self.log.read_text().splitlines():
            if line.startswith("{"):
                lines.append(json.loads(line))
        return lines

    def serving(self) -> dict[int, int]:
        """The PID of the latest child to start serving, by child index."""
        return {
            int(str(entry["server"])): int(str(entry["pid"]))
            for entry in self.lines()
            if entry["msg"] == "serving" and "server" in entry
        }


def _two_free_ports() -> int:
    """A port p with p and p + 1 free (the metrics of child 0 and child 1); bounded tries."""
    for _ in range(50):
        base = free_port()
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", base + 1))
            except OSError:
                continue
        return base
    raise AssertionError("no two neighbouring free ports")


def _wait(condition, what: str, seconds: float = STARTUP_SECONDS) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"


@pytest.fixture
def group(redis_url: str, tmp_path: Path) -> Iterator[Group]:
    """Two server processes on a free port, serving once both have logged that they serve."""
    address = f"127.0.0.1:{free_port()}"
    metrics_port = _two_free_ports()
    log = tmp_path / "group.log"
    with log.open("wb") as out:
        parent = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "engine_service",
                f"--address={address}",
                f"--redis-url={redis_url}",
                f"--metrics-port={metrics_port}",
                "--processes=2",
                "--grace-seconds=2",
            ],
            stdout=out,
            stderr=out,
        )
    started = Group(parent, address, log, metrics_port)
    seen: set[int] = set()
    try:
        _wait(lambda: parent.poll() is not None or len(started.serving()) == 2, "two processes")
        assert parent.poll() is None, log.read_text()
        seen.update(started.serving().values())
        with grpc.insecure_channel(address) as channel:
            health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
        yield started
    finally:
        seen.update(started.serving().values())
        if parent.poll() is None:
            parent.send_signal(signal.SIGTERM)
        parent.wait(timeout=STOP_SECONDS)
        for pid in seen:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def _created_per_process(group: Group) -> list[float]:
    counts = []
    for index in range(2):
        url = f"http://127.0.0.1:{group.metrics_port + index}/metrics"
        with urllib.request.urlopen(url, timeout=5) as reply:
            found = COUNT.search(reply.read().decode())
        counts.append(float(found.group(1)) if found else 0.0)
    return counts


def _create_from_channels(address: str) -> int:
    """CALLS CreateGame calls round-robin over CHANNELS connections; how many succeeded."""
    options = [("grpc.use_local_subchannel_pool", 1)]  # a connection of its own each
    channels = [grpc.insecure_channel(address, options=options) for _ in range(CHANNELS)]
    try:
        stubs = [engine_service_pb2_grpc.EngineServiceStub(c) for c in channels]
        created = [create(stubs[i % CHANNELS], [HUMAN] * 4, seed=i) for i in range(CALLS)]
        return sum(1 for reply in created if reply.game_id)
    finally:
        for channel in channels:
            channel.close()


def test_calls_from_many_connections_land_on_both_processes(group: Group) -> None:
    assert _create_from_channels(group.address) == CALLS
    counts = _created_per_process(group)
    assert sum(counts) == CALLS
    assert all(count > 0 for count in counts), counts


def test_sigterm_stops_the_parent_and_every_child(group: Group) -> None:
    children = list(group.serving().values())
    assert all(_alive(pid) for pid in children)
    group.parent.send_signal(signal.SIGTERM)
    assert group.parent.wait(timeout=STOP_SECONDS) == 0
    _wait(lambda: not any(_alive(pid) for pid in children), "children to stop", STOP_SECONDS)
    assert any(entry["msg"] == "stopped" and "pids" in entry for entry in group.lines())


def test_children_do_not_outlive_a_killed_parent(group: Group) -> None:
    children = list(group.serving().values())
    group.parent.kill()
    group.parent.wait(timeout=STOP_SECONDS)
    _wait(lambda: not any(_alive(pid) for pid in children), "orphans to stop", STOP_SECONDS)


def test_a_killed_child_is_restarted(group: Group) -> None:
    killed = group.serving()[1]
    os.kill(killed, signal.SIGKILL)
    _wait(lambda: group.serving()[1] != killed, "a new child 1")
    assert _alive(group.serving()[1]) and group.parent.poll() is None
    assert any(entry["msg"] == "server process died; starting another" for entry in group.lines())
    assert _create_from_channels(group.address) == CALLS


def test_port_zero_is_refused_for_a_group(redis_url: str) -> None:
    refused = subprocess.run(
        [sys.executable, "-m", "engine_service", "--address=127.0.0.1:0", "--processes=2"],
        capture_output=True,
        timeout=STARTUP_SECONDS,
        check=False,
    )
    assert refused.returncode != 0
    assert b"needs a fixed port" in refused.stderr
