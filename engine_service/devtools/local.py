"""Start a private ``redis-server`` and an in-process engine server on free loopback ports.

The test fixtures, ``make run`` and ``make play`` all use these, so every one of them talks
to a real Redis and a real gRPC server rather than to stand-ins.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import redis

from engine_service.api.server import metrics_exporter, serve_until
from engine_service.settings import Settings

STARTUP_SECONDS = 15.0


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_for_redis(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    client = redis.Redis.from_url(url)
    while True:
        try:
            client.ping()
            return
        except redis.ConnectionError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start") from None
            time.sleep(0.05)
        finally:
            client.close()


@contextlib.contextmanager
def redis_server(data_dir: Path | None = None, *, port: int | None = None) -> Iterator[str]:
    """Run ``redis-server`` on loopback; yields its URL and stops it on exit.

    The append-only file is on: the service refuses a Redis that keeps nothing on disk
    (:mod:`engine_service.store.preflight`). With ``data_dir`` the data stays there; without, it
    lives in a temporary folder that is removed afterwards.
    """
    binary = shutil.which("redis-server")
    if binary is None:
        raise RuntimeError("redis-server is not installed (make system-deps installs it)")
    port = port or free_port()
    with contextlib.ExitStack() as stack:
        folder = data_dir or Path(stack.enter_context(tempfile.TemporaryDirectory()))
        folder.mkdir(parents=True, exist_ok=True)
        # The append-only file either way: the service refuses a Redis that keeps nothing.
        persist = ["--appendonly", "yes"] if data_dir else ["--appendonly", "yes", "--save", ""]
        args = [binary, "--bind", "127.0.0.1", "--port", str(port), "--dir", str(folder)]
        log = stack.enter_context((folder / "redis.log").open("ab"))
        # Its own session: a Ctrl-C meant for the service must not stop Redis before the drain.
        process = subprocess.Popen(
            [*args, *persist], stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        url = f"redis://127.0.0.1:{port}/0"
        try:
            _wait_for_redis(url, process)
            yield url
        finally:
            process.terminate()
            process.wait(timeout=STARTUP_SECONDS)


class _ServerThread(threading.Thread):
    """An engine server on its own asyncio loop in a background thread."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(name="engine-server", daemon=True)
        self._settings = settings
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop_event: asyncio.Event | None = None
        self.port = 0
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as error:  # reported to the starting thread
            self.error = error
        finally:
            self._ready.set()

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop_event = asyncio.Event()
        await serve_until(self._settings, self._stop_event, self._on_ready)

    def _on_ready(self, port: int) -> None:
        self.port = port
        self._ready.set()

    def wait_ready(self) -> int:
        """The bound port, once serving; re-raises what stopped the server from starting."""
        if not self._ready.wait(STARTUP_SECONDS) or self.error is not None or not self.port:
            raise RuntimeError("the engine server did not start") from self.error
        return self.port

    def stop(self) -> None:
        """Drain and stop the server, and wait for its thread."""
        if self._loop is not None and self._stop_event is not None and self.is_alive():
            self._loop.call_soon_threadsafe(self._stop_event.set)
        self.join(STARTUP_SECONDS + self._settings.grace_seconds)


@contextlib.contextmanager
def local_service(
    redis_url: str | None = None,
    *,
    game_ttl_seconds: int = 3600,
    metrics_port: int = 0,
    **overrides: Any,
) -> Iterator[str]:
    """Run an engine server in this process (its own thread and loop); yields ``127.0.0.1:PORT``.

    Without ``redis_url`` a private redis-server is started for it and stopped after; with
    ``metrics_port`` it serves Prometheus metrics there too; ``overrides`` set other
    :class:`~engine_service.settings.Settings` fields.
    """
    with contextlib.ExitStack() as stack:
        url = redis_url or stack.enter_context(redis_server())
        settings = Settings(
            address="127.0.0.1:0",
            redis_url=url,
            game_ttl_seconds=game_ttl_seconds,
            metrics_port=metrics_port,
            grace_seconds=1.0,
            **overrides,
        )
        stack.enter_context(metrics_exporter(settings))
        thread = _ServerThread(settings)
        thread.start()
        try:
            port = thread.wait_ready()
            yield f"127.0.0.1:{port}"
        finally:
            thread.stop()
