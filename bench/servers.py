"""Server processes for the service parts: engine servers and the floor server, on loopback.

Servers run in their own processes so that the load generator (this process) does not share
their interpreter lock. Several engine processes may serve one address (``SO_REUSEPORT``).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import grpc

from engine_service.devtools.local import free_port

STARTUP_SECONDS = 20.0
ROOT = Path(__file__).resolve().parents[1]
"""The repository, where ``python -m bench.floor`` finds the ``bench`` package."""
_SERVING: dict[str, list[int]] = {}
"""Process ids of the servers running now, by address."""
_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(address: str) -> float:
    """CPU time used so far by the server processes on ``address`` (Linux ``/proc``).

    On a machine shared with other work this is steadier than wall time: it counts only
    what the server itself ran.
    """
    total = 0
    for pid in _SERVING.get(address, []):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / _TICKS


def _wait_ready(address: str, processes: list[subprocess.Popen[bytes]]) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    with grpc.insecure_channel(address) as channel:
        while True:
            try:
                grpc.channel_ready_future(channel).result(timeout=0.5)
                return
            except grpc.FutureTimeoutError:
                if any(p.poll() is not None for p in processes) or time.monotonic() > deadline:
                    raise RuntimeError(f"server on {address} did not start") from None


@contextlib.contextmanager
def _processes(commands: list[list[str]], address: str) -> Iterator[str]:
    """Start the commands; their logs (one JSON line per RPC, as in production) go to a file."""
    with tempfile.TemporaryFile() as log:
        processes = [
            subprocess.Popen(command, stdout=log, stderr=log, cwd=ROOT) for command in commands
        ]
        try:
            try:
                _wait_ready(address, processes)
            except RuntimeError:
                log.seek(0)
                sys.stderr.write(log.read()[-4000:].decode(errors="replace"))
                raise
            time.sleep(0.2 * (len(processes) - 1))  # every process has bound, not just one
            _SERVING[address] = [p.pid for p in processes]
            yield address
        finally:
            _SERVING.pop(address, None)
            for process in processes:
                process.terminate()
            for process in processes:
                process.wait(timeout=STARTUP_SECONDS)


def engine_servers(
    redis_url: str, processes: int = 1, *extra: str
) -> contextlib.AbstractContextManager[str]:
    """``processes`` engine servers on one loopback address; yields the address.

    Without the metrics exporter and its interceptor: the floor server has neither, and
    several processes on one host could not all bind the default metrics port. ``extra``
    are further command-line flags (settings).
    """
    address = f"127.0.0.1:{free_port()}"
    command = [
        sys.executable,
        "-m",
        "engine_service",
        f"--address={address}",
        f"--redis-url={redis_url}",
        "--no-reflection",
        "--metrics-port=0",
        *extra,
    ]
    return _processes([command] * processes, address)


def floor_server(redis_url: str) -> contextlib.AbstractContextManager[str]:
    """The floor server (:mod:`bench.floor`), one process; yields the address."""
    address = f"127.0.0.1:{free_port()}"
    command = [
        sys.executable,
        "-m",
        "bench.floor",
        f"--address={address}",
        f"--redis-url={redis_url}",
    ]
    return _processes([command], address)
