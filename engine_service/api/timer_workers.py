"""Timer workers: the timer loop in processes of its own, at the lowest CPU priority.

Firing clocks and playing all-bot games on in slices is CPU work no request waits for. Run
on the server's event loop it delays the requests of people by a slice each time; run here,
in a worker process with its own Redis connections and engine, it uses the CPU people leave
idle, and the operating system takes the CPU back the moment a request needs it (Linux
``SCHED_IDLE``; elsewhere the worker is niced). The server starts its workers, restarts one
that dies, and stops them, by PID, when it stops; a worker whose server was killed outright
stops by itself within a tenth of a second.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.context import SpawnProcess
from multiprocessing.synchronize import Event as ProcessEvent
from typing import Final

from engine_service.api.logs import configure_logging
from engine_service.app.engine import Engine
from engine_service.app.play import BotBudget
from engine_service.app.search_budgets import parse_search_budgets, with_search_budgets
from engine_service.app.timers import TimerSettings, run_timers
from engine_service.registry import REGISTRY
from engine_service.settings import Settings
from engine_service.store.due_notices import DueNotices
from engine_service.store.failures import storage_trouble
from engine_service.store.redis_store import RedisGameStore

NICENESS: Final = 19
"""The niceness of a worker where ``SCHED_IDLE`` is not available."""
STOP_POLL_SECONDS: Final = 0.1
SUPERVISE_SECONDS: Final = 1.0
log = logging.getLogger(__name__)
_SPAWN: Final = multiprocessing.get_context("spawn")


def lower_priority() -> None:
    """Let this process run only on CPU nobody else wants."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):  # not Linux, or not allowed
        os.nice(NICENESS)


def timer_settings(settings: Settings, on_event_loop: bool) -> TimerSettings:
    """The timer loop's pacing: the share applies only beside requests on the event loop."""
    share = settings.timer_share if on_event_loop else 1.0
    return TimerSettings(settings.timer_interval_seconds, share)


def store_for(settings: Settings, max_connections: int) -> RedisGameStore:
    """The store of a server or a worker: its writes announce games due before the next look."""
    return RedisGameStore.from_url(
        settings.redis_url,
        settings.game_ttl_seconds,
        settings.event_retention,
        max_connections,
        settings.redis_wait_replicas,
        settings.redis_wait_ms,
        notice_ms=int(settings.timer_interval_seconds * 1000),
    )


def engine_for(
    settings: Settings,
    store: RedisGameStore,
    work_clock: Callable[[], float] = time.perf_counter,
) -> Engine:
    """The engine of a server or a worker, its bot work bounded by the settings.

    ``work_clock`` is what the bot budget's seconds are read by (a draining server's runs
    late, :mod:`engine_service.api.drain`).
    """
    budget = BotBudget(settings.bot_moves_per_call, settings.bot_seconds_per_call, search=False)
    slices = BotBudget(settings.bot_moves_per_slice, settings.bot_seconds_per_slice)
    budgets = parse_search_budgets(settings.search_budgets, REGISTRY)
    registry = with_search_budgets(REGISTRY, budgets)
    return Engine(store, registry, budget=budget, slice_budget=slices, work_clock=work_clock)


def _work(settings: Settings, stop: ProcessEvent, server: int) -> None:
    """A worker process: the timer loop until ``stop`` is set (Ctrl-C is the server's).

    ``server`` is the PID of the server that started it, passed in rather than read here: a
    server killed while the worker was still starting would otherwise be missed, the worker
    taking its new parent (init) for the server and running on forever.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    lower_priority()
    configure_logging(settings)
    asyncio.run(_run(settings, stop, server))


async def _run(settings: Settings, stop: ProcessEvent, server: int) -> None:
    store = store_for(settings, 4)
    stopping = asyncio.Event()

    async def watch_stop() -> None:
        # A server killed outright cannot set ``stop``: a worker whose parent is gone stops too
        # (and so does one whose watch fails).
        try:
            while not stop.is_set() and os.getppid() == server:
                await asyncio.sleep(STOP_POLL_SECONDS)
        finally:
            stopping.set()

    watcher = asyncio.create_task(watch_stop())
    try:
        timers = timer_settings(settings, False)
        notices = DueNotices(settings.redis_url, store.client).listen()
        engine = engine_for(settings, store)
        await run_timers(engine, timers, stopping, storage_trouble, notices=notices)
    finally:
        watcher.cancel()
        await store.client.aclose()


@dataclass
class TimerWorkers:
    """The server's timer worker processes, kept running until :meth:`stop`."""

    settings: Settings
    _stop: ProcessEvent = field(default_factory=_SPAWN.Event)
    _processes: list[SpawnProcess] = field(default_factory=list)
    _supervisor: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start every worker, and a task that restarts one that dies."""
        self._processes = [self._spawn() for _ in range(self.settings.background_workers)]
        self._supervisor = asyncio.create_task(self._supervise())

    def _spawn(self) -> SpawnProcess:
        process = _SPAWN.Process(
            target=_work,
            args=(self.settings, self._stop, os.getpid()),
            name="cardengine-timers",
            daemon=True,
        )
        process.start()
        return process

    async def _supervise(self) -> None:
        while True:
            await asyncio.sleep(SUPERVISE_SECONDS)
            for index, process in enumerate(self._processes):
                if not process.is_alive() and not self._stop.is_set():
                    log.warning("timer worker died; starting another", extra={"pid": process.pid})
                    self._processes[index] = self._spawn()

    async def stop(self, grace_seconds: float) -> None:
        """Ask every worker to stop, wait up to ``grace_seconds``, then kill what is left."""
        self._stop.set()
        if self._supervisor is not None:
            self._supervisor.cancel()
        for process in self._processes:
            await asyncio.to_thread(process.join, grace_seconds)
            if process.is_alive():
                process.kill()
                await asyncio.to_thread(process.join, grace_seconds)
