"""Server processes for the service parts: engine servers and the floor server, on loopback.

Servers run in their own processes so that the load generator (this process) does not share
their interpreter lock. Several engine processes serve one address as a process group of
``python -m engine_service --processes N`` (:mod:`engine_service.api.launcher`), the way the
service is deployed.
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
from typing import IO

import grpc

from engine_service import PURE_ENV
from engine_service.devtools.local import free_port

STARTUP_SECONDS = 20.0
ROOT = Path(__file__).resolve().parents[1]
"""The repository, where ``python -m bench.floor`` finds the ``bench`` package."""
_SERVING: dict[str, list[int]] = {}
"""Process ids of the servers started here and running now, by address."""
_TICKS = os.sysconf("SC_CLK_TCK")
SERVING_LINE = b'"msg": "serving",'
"""How a server process's log says it takes calls (engine and floor alike)."""


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants now: a group's server processes and their timer workers."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:  # gone meanwhile
        return []
    return [pid, *(p for child in children for p in _tree(int(child)))]


def cpu_seconds(address: str) -> float:
    """CPU time used so far by the server processes on ``address`` (Linux ``/proc``).

    On a machine shared with other work this is steadier than wall time: it counts only
    what the server itself ran, in every process of its group.
    """
    total = 0
    for root in _SERVING.get(address, []):
        for pid in _tree(root):
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / _TICKS


def _wait_ready(
    address: str, processes: list[subprocess.Popen[bytes]], log: IO[bytes], serving: int
) -> None:
    """Until the address takes calls and ``serving`` server processes have said they serve."""
    deadline = time.monotonic() + STARTUP_SECONDS

    def check() -> None:
        if any(p.poll() is not None for p in processes) or time.monotonic() > deadline:
            raise RuntimeError(f"server on {address} did not start")

    with grpc.insecure_channel(address) as channel:
        ready = grpc.channel_ready_future(channel)
        while True:
            try:
                ready.result(timeout=0.5)
                break
            except grpc.FutureTimeoutError:
                check()
    # pread: the servers write through the same file offset, which must not move.
    while os.pread(log.fileno(), os.fstat(log.fileno()).st_size, 0).count(SERVING_LINE) < serving:
        check()
        time.sleep(0.1)


def tree_environment(tree: Path) -> dict[str, str]:
    """The environment in which ``python -m engine_service`` runs ``tree``'s engine, from source.

    ``tree`` is another checkout (a git worktree of an older commit, say): its folder and its
    generated stubs go first on ``PYTHONPATH``, ahead of this repository's editable install,
    and ``CARDENGINE_PURE=1`` loads every module from its source, so the tree needs no build.
    Nothing is written into the tree (no bytecode caches).
    """
    paths = [str(tree), str(tree / "clients" / "python"), os.environ.get("PYTHONPATH", "")]
    pythonpath = os.pathsep.join(filter(None, paths))
    return {**os.environ, "PYTHONPATH": pythonpath, PURE_ENV: "1", "PYTHONDONTWRITEBYTECODE": "1"}


@contextlib.contextmanager
def _processes(
    commands: list[list[str]], address: str, serving: int = 0, tree: Path | None = None
) -> Iterator[str]:
    """Start the commands; their logs (one JSON line per RPC, as in production) go to a file.

    Ready once ``serving`` processes have logged that they serve (a group's children bind
    one after another; the first to bind answers already). With ``tree`` they run in that
    checkout, from its sources (:func:`tree_environment`); otherwise in this repository.
    """
    env = tree_environment(tree) if tree else None
    with tempfile.TemporaryFile() as log:
        processes = [
            subprocess.Popen(command, stdout=log, stderr=log, cwd=tree or ROOT, env=env)
            for command in commands
        ]
        try:
            try:
                _wait_ready(address, processes, log, serving)
            except RuntimeError:
                log.seek(0)
                sys.stderr.write(log.read()[-4000:].decode(errors="replace"))
                raise
            _SERVING[address] = [p.pid for p in processes]
            yield address
        finally:
            _SERVING.pop(address, None)
            for process in processes:
                process.terminate()
            for process in processes:
                process.wait(timeout=STARTUP_SECONDS)


def tree_python(tree: Path | None) -> str:
    """The interpreter that runs ``tree``'s engine: the tree's own environment when it has one.

    An older commit may need packages this one dropped (or other versions of them), so
    ``make capacity BASELINE=…`` installs the baseline's locked dependencies into its own
    ``.venv``; without one (this repository, a tree made by hand) it is this interpreter.
    """
    own = tree.resolve() / ".venv" / "bin" / "python" if tree else None
    return str(own) if own and own.exists() else sys.executable


def engine_servers(
    redis_url: str, processes: int = 1, *extra: str, tree: Path | None = None
) -> contextlib.AbstractContextManager[str]:
    """``processes`` engine servers on one loopback address, one group; yields the address.

    Without the metrics exporter and its interceptor: the floor server has neither. ``extra``
    are further command-line flags (settings). With ``tree``, the engine of that checkout,
    loaded from its sources (:func:`tree_environment`): to measure an older commit beside
    this one in the same run.
    """
    address = f"127.0.0.1:{free_port()}"
    command = [
        tree_python(tree),
        "-m",
        "engine_service",
        f"--address={address}",
        f"--redis-url={redis_url}",
        "--no-reflection",
        "--metrics-port=0",
        f"--processes={processes}",
        *extra,
    ]
    return _processes([command], address, serving=processes, tree=tree)


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
