"""``make run``: serve the engine, with a local Redis under ``var/`` unless REDIS_URL is set.

The local Redis keeps its data with the append-only file on, so games survive a restart.
The server runs one process per core on the address (``--processes``, see
:mod:`engine_service.api.launcher`). SIGTERM or Ctrl-C drains in-flight calls, then stops the
server processes and that Redis.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

from engine_service.api.exposure import StartRefused
from engine_service.api.launcher import serve_group
from engine_service.api.logs import configure_logging
from engine_service.devtools.local import redis_server
from engine_service.settings import parse_settings

LOCAL_REDIS_PORT = int(os.environ.get("ENGINE_LOCAL_REDIS_PORT", "6390"))


def main() -> None:
    """Serve until stopped."""
    argv = sys.argv[1:]
    status: int | str
    with contextlib.ExitStack() as stack:
        if "REDIS_URL" not in os.environ:
            url = stack.enter_context(redis_server(Path("var/redis"), port=LOCAL_REDIS_PORT))
            argv = [*argv, "--redis-url", url]
        settings = parse_settings(argv)
        configure_logging(settings)
        try:
            status = serve_group(settings)
        except StartRefused as error:
            status = f"run: {error}"
    sys.exit(status)


if __name__ == "__main__":
    main()
