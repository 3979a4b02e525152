"""``python -m engine_service --processes 2``: a group of server processes on one address.

The group is started as its own operating-system process on a free port, with its metrics
on a free base port (child ``i`` serves ``base + i``), so a call's process can be told by
the counters it moved. Every process is stopped by its PID.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine_service.devtools.local import alive, free_port
from tests.service.engine_process import Group, engine_group, spread_stubs, wait_for
from tests.service.rpc_helpers import HUMAN, create

STARTUP_SECONDS = 30.0
STOP_SECONDS = 30.0
CHANNELS = 16
"""Connections spread over two processes by the kernel: all on one is a 1 in 32,768 chance."""
CALLS = 48
COUNT = re.compile(r'^cardengine_rpc_duration_seconds_count\{method="CreateGame"\} (\S+)$', re.M)


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


@pytest.fixture
def group(redis_url: str, tmp_path: Path) -> Iterator[Group]:
    """Two server processes on a free port, serving once both have logged that they serve."""
    with engine_group(
        redis_url, tmp_path / "group.log", "--grace-seconds=2", metrics_port=_two_free_ports()
    ) as started:
        yield started


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
    with spread_stubs(address, CHANNELS) as stubs:
        created = [create(stubs[i % CHANNELS], [HUMAN] * 4, seed=i) for i in range(CALLS)]
        return sum(1 for reply in created if reply.game_id)


def test_calls_from_many_connections_land_on_both_processes(group: Group) -> None:
    assert _create_from_channels(group.address) == CALLS
    counts = _created_per_process(group)
    assert sum(counts) == CALLS
    assert all(count > 0 for count in counts), counts


def test_sigterm_stops_the_parent_and_every_child(group: Group) -> None:
    children = list(group.serving().values())
    assert all(alive(pid) for pid in children)
    group.parent.send_signal(signal.SIGTERM)
    assert group.parent.wait(timeout=STOP_SECONDS) == 0
    wait_for(lambda: not any(alive(pid) for pid in children), "children to stop", STOP_SECONDS)
    assert any(entry["msg"] == "stopped" and "pids" in entry for entry in group.lines())


def test_children_do_not_outlive_a_killed_parent(group: Group) -> None:
    children = list(group.serving().values())
    group.parent.kill()
    group.parent.wait(timeout=STOP_SECONDS)
    wait_for(lambda: not any(alive(pid) for pid in children), "orphans to stop", STOP_SECONDS)


def test_a_killed_child_is_restarted(group: Group) -> None:
    killed = group.serving()[1]
    os.kill(killed, signal.SIGKILL)
    wait_for(lambda: group.serving()[1] != killed, "a new child 1")
    assert alive(group.serving()[1]) and group.parent.poll() is None
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
