"""An engine server, or a group of them, as its own OS processes, and waits on their health
status, for the tests that signal processes (drain on SIGTERM, Redis stopped under a server,
children of a process group killed or restarted)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from cardengine.v1 import engine_service_pb2_grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from engine_service.api.healthcheck import check
from engine_service.devtools.local import alive, engine_command, free_port, wait_serving

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


@contextlib.contextmanager
def engine_process(redis_url: str, *flags: str) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``python -m engine_service`` (one process) on a free port, once SERVING; killed after."""
    port = free_port()
    address = f"127.0.0.1:{port}"
    command = engine_command(address, redis_url, "--processes=1", *flags)
    process = subprocess.Popen(command, env={**os.environ, "ENGINE_LOG_LEVEL": "WARNING"})
    try:
        wait_serving(address, process, START_SECONDS)
        yield address, process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=START_SECONDS)


def wait_for(condition: Callable[[], bool], what: str, seconds: float = START_SECONDS) -> None:
    """Poll ``condition`` every 0.1 s until it holds; fails after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


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


@contextlib.contextmanager
def engine_group(redis_url: str, log: Path, *flags: str, metrics_port: int = 0) -> Iterator[Group]:
    """``python -m engine_service --processes 2`` on a free port, once both children serve.

    Its output goes to ``log``. After, the parent gets SIGTERM if still running, and every
    child that was seen serving and still runs is killed by its PID.
    """
    address = f"127.0.0.1:{free_port()}"
    command = [sys.executable, "-m", "engine_service", f"--address={address}"]
    command += [f"--redis-url={redis_url}", f"--metrics-port={metrics_port}", "--processes=2"]
    with log.open("wb") as out:
        parent = subprocess.Popen([*command, *flags], stdout=out, stderr=out)
    started = Group(parent, address, log, metrics_port)
    seen: set[int] = set()
    try:
        wait_for(lambda: parent.poll() is not None or len(started.serving()) == 2, "two servers")
        assert parent.poll() is None, log.read_text()
        seen.update(started.serving().values())
        with grpc.insecure_channel(address) as channel:
            health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
        yield started
    finally:
        seen.update(started.serving().values())
        if parent.poll() is None:
            parent.send_signal(signal.SIGTERM)
        try:
            parent.wait(timeout=START_SECONDS)
        finally:
            if parent.poll() is None:
                parent.kill()
                parent.wait(timeout=START_SECONDS)
            for pid in seen:
                if alive(pid):
                    os.kill(pid, signal.SIGKILL)


@contextlib.contextmanager
def spread_stubs(address: str, count: int) -> Iterator[list[Any]]:
    """``count`` stubs, each over a connection of its own: the kernel spreads connections, not
    calls, over a group's processes. The channels are closed after."""
    options = [("grpc.use_local_subchannel_pool", 1)]
    with contextlib.ExitStack() as stack:
        channels = [
            stack.enter_context(grpc.insecure_channel(address, options=options))
            for _ in range(count)
        ]
        yield [engine_service_pb2_grpc.EngineServiceStub(channel) for channel in channels]
