"""``make run``: serve the engine, with a local Redis under ``var/`` unless REDIS_URL is set.

The local Redis keeps its data with the append-only file on, so games survive a restart.
The server runs one process per core on the address (``--processes``, see
:mod:`engine_service.api.launcher`). SIGTERM or Ctrl-C drains in-flight calls, then stops the
server processes and that Redis. When that Redis exits on its own, the server says so and
stops (:func:`stop_when_gone`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
import time
from pathlib import Path

from engine_service.api.exposure import StartRefused
from engine_service.api.launcher import serve_group
from engine_service.api.logs import configure_logging
from engine_service.devtools.local import alive, redis_pid, redis_server
from engine_service.settings import parse_settings

LOCAL_REDIS_PORT = int(os.environ.get("ENGINE_LOCAL_REDIS_PORT", "6390"))
WATCH_SECONDS = 0.5
"""How often the local Redis is looked at."""
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
        try:
            status = serve_group(settings)
        except StartRefused as error:
            status = f"run: {error}"
    sys.exit(status)


if __name__ == "__main__":
    main()
