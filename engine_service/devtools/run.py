"""``make run``: serve the engine, with a local Redis under ``var/`` unless REDIS_URL is set.

The local Redis keeps its data with the append-only file on, so games survive a restart.
The server runs one process per core on the address (``--processes``, see
:mod:`engine_service.api.launcher`). SIGTERM or Ctrl-C drains in-flight calls, then stops the
server processes and that Redis. When that Redis exits on its own, the server says so and
stops (:func:`stop_when_gone`). Once the gRPC port answers, it prints where to go
(:func:`where_to_go`): a newcomer should not have to read the JSON log to find the page.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import sys
import threading
import time
from pathlib import Path

from engine_service.api.exposure import StartRefused
from engine_service.api.launcher import serve_group
from engine_service.api.logs import configure_logging
from engine_service.devtools.local import alive, redis_pid, redis_server
from engine_service.settings import Settings, parse_settings
from engine_service.store.url_secrets import redacted

LOCAL_REDIS_PORT = int(os.environ.get("ENGINE_LOCAL_REDIS_PORT", "6390"))
WATCH_SECONDS = 0.5
"""How often the local Redis is looked at."""
READY_SECONDS = 120.0
"""How long :func:`announce_when_serving` waits for the gRPC port before it gives up."""
log = logging.getLogger(__name__)


def stop_when_gone(pid: int, seconds: float = WATCH_SECONDS) -> None:
    """Watch the local Redis ``pid``; when it exits, say so and stop the server (SIGTERM).

    Without it the server would serve NOT_SERVING for ever beside a dead redis-server, and
    nothing would say why. SIGTERM drains the server as Ctrl-C does; ``make run`` again
    starts a new Redis on the same data.
    """

    def watch() -> None:
        while alive(pid):
            time.sleep(seconds)
        log.error("the local Redis exited; stopping the server (make run starts it again)")
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="local-redis-watch", daemon=True).start()


def where_to_go(settings: Settings, local_redis: bool) -> str:
    """What ``make run`` prints once it serves: every address, and how to stop.

    >>> from engine_service.settings import parse_settings
    >>> print(where_to_go(parse_settings(["--web-port", "8080", "--processes", "2",
    ...     "--metrics-port", "9464", "--redis-url", "redis://127.0.0.1:6390/0"]), True))
    cardengine is serving:
      gRPC            127.0.0.1:50051  (grpcurl -plaintext 127.0.0.1:50051 list)
      browser table   http://127.0.0.1:8080/
      HTTP/JSON       http://127.0.0.1:8080/cardengine.v1.EngineService/<method>  (Connect)
      Play session    ws://127.0.0.1:8080/cardengine.v1.EngineService/Play  (WebSocket)
      metrics         http://127.0.0.1:9464/metrics, http://127.0.0.1:9465/metrics
      Redis           redis://127.0.0.1:6390/0  (started by make run; its data stays in var/redis)
    Stop with Ctrl-C: calls in flight finish, then the servers and that Redis stop.
    """
    host = settings.address.rsplit(":", 1)[0]
    scheme, socket = ("https", "wss") if settings.tls_cert else ("http", "ws")
    plaintext = "" if settings.tls_cert else "-plaintext "
    lines = [
        "cardengine is serving:",
        f"  gRPC            {settings.address}  (grpcurl {plaintext}{settings.address} list)",
    ]
    if settings.web_port:
        web = f"{scheme}://{host}:{settings.web_port}"
        lines += [
            f"  browser table   {web}/",
            f"  HTTP/JSON       {web}/cardengine.v1.EngineService/<method>  (Connect)",
            f"  Play session    {socket}://{host}:{settings.web_port}"
            "/cardengine.v1.EngineService/Play  (WebSocket)",
        ]
    if settings.metrics_port:
        ports = range(settings.metrics_port, settings.metrics_port + max(1, settings.processes))
        urls = ", ".join(f"http://{host}:{port}/metrics" for port in ports)
        lines.append(f"  metrics         {urls}")
    where = "started by make run; its data stays in var/redis" if local_redis else "REDIS_URL"
    lines.append(f"  Redis           {redacted(settings.redis_url)}  ({where})")
    stop = "the servers and that Redis stop" if local_redis else "the servers stop"
    lines.append(f"Stop with Ctrl-C: calls in flight finish, then {stop}.")
    return "\n".join(lines)


def announce_when_serving(settings: Settings, local_redis: bool) -> None:
    """Print :func:`where_to_go` once the gRPC port accepts connections (in a thread)."""
    host, _, port = settings.address.rpartition(":")

    def wait_then_print() -> None:
        deadline = time.monotonic() + READY_SECONDS
        while time.monotonic() < deadline:
            try:
                socket.create_connection((host.strip("[]"), int(port)), timeout=1).close()
            except OSError:
                time.sleep(WATCH_SECONDS)
                continue
            print(where_to_go(settings, local_redis), flush=True)
            return

    if int(port):  # port 0: the server picks one, and its log line says which
        threading.Thread(target=wait_then_print, name="where-to-go", daemon=True).start()


def main() -> None:
    """Serve until stopped."""
    argv = sys.argv[1:]
    status: int | str
    with contextlib.ExitStack() as stack:
        local = "REDIS_URL" not in os.environ
        if local:
            url = stack.enter_context(redis_server(Path("var/redis"), port=LOCAL_REDIS_PORT))
            argv = [*argv, "--redis-url", url]
        settings = parse_settings(argv)
        configure_logging(settings)
        if local:
            stop_when_gone(redis_pid(url))
        announce_when_serving(settings, local)
        try:
            status = serve_group(settings)
        except StartRefused as error:
            status = f"run: {error}"
    sys.exit(status)


if __name__ == "__main__":
    main()
