"""Processes the fault scenarios break on purpose: a redis-server and engine servers by PID.

:func:`engine_service.devtools.local.redis_server` hides its process, since nothing there may
kill it; here a scenario must ``kill -9`` Redis mid-load, start it again on the same port and
data folder (so it reloads its append-only file), or freeze it with SIGSTOP. Every process is
started in its own session on loopback and stopped by its PID, never by name.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import redis

from engine_service.devtools.local import engine_command, free_port, stop_process, wait_serving

STARTUP_SECONDS = 20.0
POLL_SECONDS = 0.05

PERSISTENCE = {
    "none": ["--appendonly", "no"],
    "everysec": ["--appendonly", "yes", "--appendfsync", "everysec"],
    "always": ["--appendonly", "yes", "--appendfsync", "always"],
}
"""Redis flags per durability setting; RDB snapshots are off in all (``--save ""``), so the
append-only file alone decides what survives."""


@dataclass
class RedisProcess:
    """One redis-server on a fixed loopback port and data folder, restartable after a kill."""

    folder: Path
    persistence: str
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The URL the engine connects with."""
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def pid(self) -> int:
        """The running redis-server's PID."""
        assert self.process is not None, "redis-server is not running"
        return self.process.pid

    def start(self) -> None:
        """Start (or start again: the append-only file in ``folder`` is loaded) and wait."""
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed (make system-deps installs it)")
        self.folder.mkdir(parents=True, exist_ok=True)
        args = [binary, "--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(self.folder)]
        with (self.folder / "redis.log").open("ab") as log:
            self.process = subprocess.Popen(
                [*args, "--save", "", *PERSISTENCE[self.persistence]],
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self._wait_ready(self.process)

    def _wait_ready(self, process: subprocess.Popen[bytes]) -> None:
        """Until PING answers: a Redis loading its file answers LOADING (a ConnectionError)."""
        client = redis.Redis.from_url(self.url, socket_timeout=1.0)
        deadline = time.monotonic() + STARTUP_SECONDS
        try:
            while True:
                try:
                    client.ping()
                    return
                except redis.ConnectionError:
                    if process.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError("redis-server did not start") from None
                    time.sleep(POLL_SECONDS)
        finally:
            client.close()

    def kill(self) -> None:
        """``kill -9``: no shutdown, no last write of the append-only file."""
        os.kill(self.pid, signal.SIGKILL)
        assert self.process is not None
        self.process.wait(timeout=STARTUP_SECONDS)

    def pause(self) -> None:
        """SIGSTOP: the process stays, its sockets accept, nothing answers."""
        os.kill(self.pid, signal.SIGSTOP)

    def resume(self) -> None:
        """SIGCONT: it answers what queued up meanwhile."""
        os.kill(self.pid, signal.SIGCONT)

    def stop(self) -> None:
        """Stop it for good (SIGTERM by PID, SIGKILL if it lingers)."""
        if self.process is not None:
            stop_process(self.process)


@contextlib.contextmanager
def redis_process(folder: Path, persistence: str) -> Iterator[RedisProcess]:
    """A started :class:`RedisProcess`, stopped by its PID on exit."""
    server = RedisProcess(folder, persistence)
    try:
        server.start()
        yield server
    finally:
        server.stop()


@dataclass
class EngineProcess:
    """``python -m engine_service`` as one operating-system process on a free loopback port."""

    address: str
    process: subprocess.Popen[bytes]
    log: IO[bytes]

    @property
    def pid(self) -> int:
        """The server process's PID."""
        return self.process.pid

    def kill(self) -> None:
        """``kill -9``: no drain, calls in flight are cut."""
        os.kill(self.pid, signal.SIGKILL)
        self.process.wait(timeout=STARTUP_SECONDS)

    def log_text(self) -> str:
        """What the server logged so far (one JSON line per failed call)."""
        self.log.flush()
        return Path(self.log.name).read_text(errors="replace")


@contextlib.contextmanager
def engine_process(
    redis_url: str, log_folder: Path, *, volatile: bool = False, flags: Sequence[str] = ()
) -> Iterator[EngineProcess]:
    """One engine server process, stopped by its PID on exit.

    Its timer loop runs on its event loop: no worker processes that a ``kill -9`` would
    orphan. Its log stays in ``log_folder``. ``volatile``: the Redis keeps nothing on disk,
    which the server refuses unless told it is meant (ENGINE_ALLOW_VOLATILE_REDIS).
    ``flags``: more command-line flags (``--redis-wait-replicas=1``).
    """
    port = free_port()
    address = f"127.0.0.1:{port}"
    command = engine_command(
        address,
        redis_url,
        "--processes=1",
        "--background-workers=0",
        "--no-reflection",
        "--grace-seconds=1",  # the load has stopped by then: nothing to drain
        *flags,
    )
    log_folder.mkdir(parents=True, exist_ok=True)
    with (log_folder / f"engine-{port}.log").open("w+b") as log:
        process = subprocess.Popen(
            command,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={
                **os.environ,
                "ENGINE_LOG_LEVEL": "WARNING",
                "ENGINE_ALLOW_VOLATILE_REDIS": "1" if volatile else "0",
            },
        )
        try:
            wait_serving(address, process, STARTUP_SECONDS)
            yield EngineProcess(address, process, log)
        finally:
            stop_process(process)
