"""A Redis outage is told in a few lines, not a flood: a start, reminders, an end.

The timer loop meets the storage 20 times a second; each failure used to log a traceback of
about 4 KB (40 MB in ten minutes of outage). A real engine process runs against a real
redis-server that is killed, stays down, and is started again on its port and data folder.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from engine_service.devtools.local import (
    engine_command,
    free_port,
    redis_pid,
    redis_server,
    wait_serving,
)
from engine_service.store.outage_log import OutageLog
from tests.service.engine_process import START_SECONDS, wait_for
from tests.volume import volume

OUTAGE_SECONDS = volume(8, 30)
"""How long Redis stays down: 20 rounds of the timer loop a second, 160 (600) in all."""
MOST_LINES = 6
"""What the outage may cost: each loop's start line, the health probe's, a reminder or two."""


class Clock:
    """Seconds that a test moves on by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_an_outage_is_told_once_reminded_each_minute_and_its_end_told(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    clock = Clock()
    outage = OutageLog("timer loop", remind_seconds=60.0, clock=clock)
    outage.succeeded()  # no outage: nothing to say
    for step in range(20 * 150):  # 150 s of failures, 20 a second
        clock.now = step / 20
        outage.failed("CONNECTION")
    clock.now = 151.0
    outage.succeeded()
    messages = [record.getMessage() for record in caplog.records]
    assert messages == [
        "timer loop: storage unavailable",
        "timer loop: storage still unavailable",
        "timer loop: storage still unavailable",
        "timer loop: storage back",
    ]
    assert caplog.records[-1].failures == 3000  # type: ignore[attr-defined]


@pytest.mark.service
@pytest.mark.volume
def test_a_redis_outage_under_a_running_engine_logs_a_few_lines(tmp_path: Path) -> None:
    port, data = free_port(), tmp_path / "redis"
    address = f"127.0.0.1:{free_port()}"
    log_path = tmp_path / "engine.log"
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(redis_server(data, port=port))
        log = stack.enter_context(log_path.open("wb"))
        engine = subprocess.Popen(
            engine_command(address, url, "--processes=1"),
            env={**os.environ, "ENGINE_LOG_LEVEL": "INFO"},
            stderr=log,
        )
        stack.callback(engine.wait, START_SECONDS)
        stack.callback(engine.send_signal, signal.SIGTERM)
        wait_serving(address, engine, START_SECONDS)
        os.kill(redis_pid(url), signal.SIGKILL)
        before = log_path.stat().st_size
        time.sleep(OUTAGE_SECONDS)  # the outage's length: what is asserted is the log's size
        during = log_path.read_bytes()[before:].decode(errors="replace")
        assert "timer loop: storage unavailable" in during
        assert "Traceback" not in during, during[:3000]
        assert len(during.splitlines()) <= MOST_LINES, during
        with redis_server(data, port=port):
            wait_for(lambda: b"timer loop: storage back" in log_path.read_bytes(), "the end told")
