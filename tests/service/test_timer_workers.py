"""Timer worker processes stop by themselves once the server that started them is gone."""

from __future__ import annotations

import subprocess
import sys

from engine_service.api.timer_workers import _SPAWN, _work
from engine_service.settings import Settings

STOP_SECONDS = 30.0
"""Far more than a worker needs to start, notice and stop on a busy machine."""


def test_a_worker_whose_server_died_while_it_started_stops_by_itself(redis_url: str) -> None:
    """The worker is told its server's PID: one killed before the worker ran is still noticed.

    Reading the parent's PID in the worker instead took init (the parent of an orphan) for
    the server when the server died first, and the worker ran on forever.
    """
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    stop = _SPAWN.Event()  # held here until the worker ends: its semaphore must outlive the start
    worker = _SPAWN.Process(
        target=_work, args=(Settings(redis_url=redis_url), stop, gone.pid), daemon=True
    )
    worker.start()
    try:
        worker.join(timeout=STOP_SECONDS)
        assert worker.exitcode == 0, "the worker did not stop by itself"
    finally:
        if worker.is_alive():
            worker.kill()
            worker.join(timeout=5)
