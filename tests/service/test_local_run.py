"""``make run``'s server says where to go once it serves, and stops, saying why, when its own
Redis dies.

``python -m engine_service.devtools.run`` (what ``make run`` starts) runs in a folder of its
own with its local Redis on a free port; that redis-server is killed by its PID, and the
server must log why and exit by itself instead of serving NOT_SERVING beside a dead Redis.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine_service.devtools.local import free_port, redis_pid, wait_serving
from tests.service.engine_process import START_SECONDS

pytestmark = pytest.mark.service
ROOT = Path(__file__).resolve().parents[2]


def printed(path: Path, text: str, server: subprocess.Popen[bytes]) -> str:
    """The file's text once it holds ``text``, waiting at most START_SECONDS."""
    deadline = time.monotonic() + START_SECONDS
    while text not in path.read_text() and server.poll() is None:
        if time.monotonic() > deadline:
            break
        time.sleep(0.1)
    return path.read_text()


def test_make_run_says_where_to_go_then_stops_and_says_why_when_its_redis_dies(
    tmp_path: Path,
) -> None:
    redis_port, address = free_port(), f"127.0.0.1:{free_port()}"
    command = [sys.executable, "-m", "engine_service.devtools.run", "--address", address]
    command += ["--web-port=0", "--metrics-port=0", "--processes=1"]
    environment = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    environment |= {"ENGINE_LOCAL_REDIS_PORT": str(redis_port), "PYTHONPATH": str(ROOT)}
    log_path, out_path = tmp_path / "run.log", tmp_path / "run.out"
    with log_path.open("wb") as log, out_path.open("wb") as out:
        server = subprocess.Popen(command, cwd=tmp_path, env=environment, stderr=log, stdout=out)
        try:
            wait_serving(address, server, START_SECONDS)
            shown = printed(out_path, "Stop with Ctrl-C", server)
            assert f"gRPC            {address}  (grpcurl -plaintext {address} list)" in shown
            assert f"redis://127.0.0.1:{redis_port}/0  (started by make run" in shown
            os.kill(redis_pid(f"redis://127.0.0.1:{redis_port}/0"), signal.SIGKILL)
            server.wait(timeout=START_SECONDS)
        finally:
            if server.poll() is None:
                server.kill()
                server.wait(timeout=START_SECONDS)
    assert "the local Redis exited; stopping the server" in log_path.read_text()
