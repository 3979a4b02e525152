"""Serve one address with several server processes, one per core, and keep them running.

A server runs its requests on one core: one interpreter, one event loop. With ``processes``
above 1, ``python -m engine_service`` starts that many server processes (multiprocessing
``spawn``) that all bind the one address with ``SO_REUSEPORT``, so the kernel spreads new
connections over them, and this process only supervises them:

* SIGTERM or Ctrl-C asks every child to drain for the grace period, then kills what is left;
* a child that dies is started again, and when children keep dying (more than
  :data:`RESTART_LIMIT` deaths within :data:`RESTART_WINDOW_SECONDS`, e.g. a port taken) the
  group stops and this process exits with status 1.

What must not be shared: child ``i`` serves its own metrics on ``metrics_port + i`` (each
process counts its own calls; a scrape config lists them all). Only child 0 serves the
browser table (``web_port``: a plain HTTP port, bound once) and runs the group's timer loop
(its timer workers, or its event loop with ``background_workers`` 0): the loop is correct in
any number of processes (games are claimed), but one is enough and N would poll N times.
Port 0 is refused with N > 1: each child would bind a port of its own.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import ctypes
import ctypes.util
import logging
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from multiprocessing.context import SpawnProcess
from multiprocessing.synchronize import Event as ProcessEvent
from types import FrameType
from typing import Final

from engine_service.api import drain
from engine_service.api.exposure import StartRefused, check_exposure, check_unserved
from engine_service.api.logs import configure_logging
from engine_service.api.server import build_server, metrics_exporter, redis_keeps_games, serve
from engine_service.api.tls import tls_files
from engine_service.settings import Settings, parse_settings

RESTART_LIMIT: Final = 5
RESTART_WINDOW_SECONDS: Final = 60.0
SUPERVISE_SECONDS: Final = 0.2
STOP_POLL_SECONDS: Final = 0.1
PR_SET_PDEATHSIG: Final = 1
KILL_MARGIN_SECONDS: Final = 5.0
"""Beyond the grace period, the time a draining child gets before it is killed."""
log = logging.getLogger(__name__)
_SPAWN: Final = multiprocessing.get_context("spawn")


class GroupSettingsError(StartRefused):
    """Settings a process group cannot serve with."""


def child_settings(settings: Settings, index: int) -> Settings:
    """The settings of child ``index``: its own metrics port.

    The web page and the group's one timer loop are child 0's only. Children join the group's
    address on purpose (``join_group``): the parent probed it once before starting them.
    """
    return replace(
        settings,
        processes=1,
        join_group=True,
        metrics_port=settings.metrics_port + index if settings.metrics_port else 0,
        web_port=settings.web_port if index == 0 else 0,
        timer_loop=index == 0,
    )


def check_group(settings: Settings) -> None:
    """Refuse what N processes cannot share.

    Raises:
        GroupSettingsError: port 0 with more than one process.
    """
    if settings.processes > 1 and settings.address.rsplit(":", 1)[-1] == "0":
        raise GroupSettingsError(
            f"--processes {settings.processes} needs a fixed port in --address "
            f"({settings.address}): with port 0 every process would pick a port of its own; "
            "give a port, or use --processes 1"
        )


def _die_with_parent() -> None:
    """Be killed when the parent dies (Linux ``PR_SET_PDEATHSIG``): no orphans serving on.

    A parent killed outright (SIGKILL, the OOM killer) takes the group with it, as one process
    would have gone; elsewhere the children notice within :data:`STOP_POLL_SECONDS` and drain.
    """
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _child(settings: Settings, index: int, stop: ProcessEvent, parent: int) -> None:
    """A server process of the group, until ``stop`` is set, SIGTERM, or its parent is gone."""
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the group; the parent decides
    configure_logging(settings)
    with metrics_exporter(settings):
        asyncio.run(_serve_child(settings, index, stop, parent))


async def _serve_child(settings: Settings, index: int, stop: ProcessEvent, parent: int) -> None:
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stopping.set)  # until the drain's handler below

    async def watch_stop() -> None:
        # A parent killed outright cannot set ``stop``: its children stop by themselves.
        while not stop.is_set() and os.getppid() == parent:
            await asyncio.sleep(STOP_POLL_SECONDS)
        stopping.set()

    watcher = asyncio.create_task(watch_stop())
    engine_server = await build_server(settings)
    # The drain begins in the signal handler, even while a call keeps the loop busy.
    drain.drain_on_signals(
        engine_server.drain, lambda: loop.call_soon_threadsafe(stopping.set), (signal.SIGTERM,)
    )
    await engine_server.start()
    log.info("serving", extra={"address": settings.address, "server": index, "pid": os.getpid()})
    await stopping.wait()
    watcher.cancel()
    log.info("draining", extra={"server": index, "grace_seconds": settings.grace_seconds})
    await engine_server.stop(settings.grace_seconds)
    log.info("stopped", extra={"server": index})


@dataclass
class ProcessGroup:
    """``settings.processes`` server processes on one address, restarted when they die."""

    settings: Settings
    _stop: ProcessEvent = field(default_factory=_SPAWN.Event)
    _children: list[SpawnProcess] = field(default_factory=list)
    _deaths: collections.deque[float] = field(default_factory=collections.deque)
    _stopping: bool = False

    def _spawn(self, index: int) -> SpawnProcess:
        own = child_settings(self.settings, index)
        process = _SPAWN.Process(
            target=_child,
            args=(own, index, self._stop, os.getpid()),
            name=f"cardengine-server-{index}",
        )
        process.start()
        return process

    def pids(self) -> list[int]:
        """The process ids of the children now (tests and benchmarks read their CPU time)."""
        return [p.pid for p in self._children if p.pid is not None]

    def _ask_to_stop(self, signum: int, frame: FrameType | None) -> None:
        self._stopping = True

    def run(self) -> int:
        """Serve until SIGTERM or Ctrl-C; 0 after a clean stop, 1 when children kept dying."""
        signal.signal(signal.SIGTERM, self._ask_to_stop)
        signal.signal(signal.SIGINT, self._ask_to_stop)
        self._children = [self._spawn(i) for i in range(self.settings.processes)]
        log.info(
            "serving with a process group",
            extra={"address": self.settings.address, "pids": self.pids()},
        )
        failed = False
        while not self._stopping and not failed:
            time.sleep(SUPERVISE_SECONDS)
            failed = self._restart_dead()
        self._stop_children()
        return 1 if failed else 0

    def _restart_dead(self) -> bool:
        """Start a new child for each that died; True when they die too often to go on."""
        now = time.monotonic()
        for index, process in enumerate(self._children):
            if process.is_alive() or self._stopping:
                continue
            self._deaths.append(now)
            while self._deaths and self._deaths[0] < now - RESTART_WINDOW_SECONDS:
                self._deaths.popleft()
            extra = {"server": index, "pid": process.pid, "exitcode": process.exitcode}
            if len(self._deaths) > RESTART_LIMIT:
                log.error("server processes keep dying; stopping the group", extra=extra)
                return True
            log.warning("server process died; starting another", extra=extra)
            self._children[index] = self._spawn(index)
        return False

    def _stop_children(self) -> None:
        """Let every child drain for the grace period, then kill what is still running."""
        self._stop.set()
        for process in self._children:
            if process.is_alive():
                process.terminate()  # SIGTERM: the drain begins at once, busy loop or not
        deadline = time.monotonic() + self.settings.grace_seconds + KILL_MARGIN_SECONDS
        for process in self._children:
            process.join(max(0.0, deadline - time.monotonic()))
        for process in self._children:
            if process.is_alive():
                log.warning("server process did not drain; killing it", extra={"pid": process.pid})
                process.kill()
                process.join(KILL_MARGIN_SECONDS)
        log.info("stopped", extra={"pids": self.pids()})


def serve_group(settings: Settings) -> int:
    """Serve with ``settings.processes`` processes (one: in this process); the exit status.

    Before anything starts: the group's settings, the TLS files, who could reach the address
    (:func:`~engine_service.api.exposure.check_exposure`) and whether it is served already
    (:func:`~engine_service.api.exposure.check_unserved`).

    Raises:
        StartRefused: the settings cannot be served (a :class:`GroupSettingsError` for a
            group), or the address is served already.
    """
    check_group(settings)
    tls_files(settings)
    check_exposure(settings)
    check_unserved(settings)
    if settings.processes <= 1:
        serve(settings)
        return 0
    if not redis_keeps_games(settings):
        return 1
    return ProcessGroup(settings).run()


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of ``python -m engine_service``: parse, then serve as one or as a group."""
    settings = parse_settings(argv)
    configure_logging(settings)
    try:
        status = serve_group(settings)
    except StartRefused as error:
        sys.exit(f"engine-service: {error}")
    sys.exit(status)
