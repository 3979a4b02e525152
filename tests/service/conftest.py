"""Fixtures of the service tests beyond the session's Redis and in-process server."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator

import pytest

from engine_service.devtools.local import (
    engine_command,
    free_port,
    redis_cluster,
    redis_server,
    wait_serving,
)


@pytest.fixture
def second_server(redis_url):
    """Another engine process on the same Redis, as its own operating-system process."""
    address = f"127.0.0.1:{free_port()}"
    process = subprocess.Popen(
        engine_command(address, redis_url), env={**os.environ, "ENGINE_LOG_LEVEL": "WARNING"}
    )
    try:
        wait_serving(address, process, 20)
        yield address
    finally:
        process.terminate()
        assert process.wait(timeout=20) == 0, "SIGTERM should drain and exit cleanly"


@pytest.fixture(scope="module", params=["single", "cluster"])
def own_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """A Redis of the module's own, one server and then a 3-master cluster.

    The session's Redis has the session server's timer loop, which tests of the timer loops'
    sharing and notices must not have beside theirs.
    """
    backend = redis_server() if request.param == "single" else redis_cluster(3, replicas=0)
    with backend as url:
        yield url
