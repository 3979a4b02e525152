"""Build, run and stop the gRPC server (``grpc.aio``).

:func:`build_server` returns the parts of a ready server and the port it bound, so tests can
serve on port 0; :func:`main` serves until SIGTERM or Ctrl-C, then ends open watch streams
(they resume elsewhere from their last version) and lets in-flight calls finish.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

import grpc
from grpc_health.v1 import health, health_pb2
from grpc_health.v1._async import HealthServicer
from opentelemetry.sdk.trace import TracerProvider

from engine_service.api import metrics
from engine_service.api.access import access_door
from engine_service.api.drain import Drain, backlog_seconds, drain_on_signals
from engine_service.api.health_probe import RedisHealth
from engine_service.api.logs import configure_logging
from engine_service.api.reflection import enable_reflection
from engine_service.api.servicer import EngineServicer
from engine_service.api.timer_workers import TimerWorkers, engine_for, store_for, timer_settings
from engine_service.api.tls import bind
from engine_service.api.tracing import start_tracing, stop_tracing, traced
from engine_service.api.wire import (
    DEFAULT_MAX_REQUEST_BYTES,
    SERVICE,
    add_engine_service,
    add_guarded_service,
    composed,
    method_behaviours,
)
from engine_service.app.engine import Engine
from engine_service.app.seats import ServiceKeys
from engine_service.app.timers import TimerSettings, run_timers
from engine_service.settings import Settings, parse_settings
from engine_service.store.due_notices import DueNotices
from engine_service.store.failures import storage_trouble
from engine_service.store.preflight import RedisRefused, check_redis
from engine_service.store.redis_feed import RedisEventFeed
from engine_service.store.redis_store import RedisGameStore
from engine_service.store.url_secrets import redacted
from engine_service.web.gateway import WebApp, WebGateway

REDIS_CONNECTIONS = 64
log = logging.getLogger(__name__)
DEFAULT_PENDING_CALLS_LIMIT: Final = Settings().pending_calls_limit


def new_grpc_server(
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
    pending_calls_limit: int = DEFAULT_PENDING_CALLS_LIMIT,
) -> grpc.aio.Server:
    """The gRPC server every engine process runs: one asyncio loop, no handler threads.

    ``SO_REUSEPORT`` lets several processes serve one address. The benchmarks build their
    floor server with this too, so both are measured on the same kind
    of server. A request larger than ``max_request_bytes`` is refused by gRPC itself
    (RESOURCE_EXHAUSTED) before any Python code reads it. gRPC sheds new calls while more
    than ``pending_calls_limit`` wait for the event loop to take them (at random, all of
    them past three times that), ending them with CANCELLED before any of our code runs;
    the limit is gRPC's own default unless set.
    """
    options = [
        ("grpc.so_reuseport", 1),
        ("grpc.max_receive_message_length", max_request_bytes),
        ("grpc.server.max_pending_requests", pending_calls_limit),
        ("grpc.server.max_pending_requests_hard_limit", 3 * pending_calls_limit),
    ]
    return grpc.aio.server(options=options)


@dataclass
class EngineServer:
    """A built server with the parts it must start and stop in order."""

    server: grpc.aio.Server
    port: int
    health: HealthServicer
    feed: RedisEventFeed
    store: RedisGameStore
    engine: Engine
    timer_settings: TimerSettings
    web: WebGateway | None = None
    workers: TimerWorkers | None = None
    runs_timers: bool = True
    drain: Drain = field(kw_only=True)
    redis_health: RedisHealth = field(kw_only=True)
    tracing: TracerProvider | None = field(default=None, kw_only=True)
    notices: DueNotices | None = field(default=None, kw_only=True)
    _timers: asyncio.Task[None] | None = None
    _timers_stop: asyncio.Event | None = None

    async def start(self) -> None:
        """Follow event streams, then take calls (and serve the browser table, if on).

        The health status is Redis's from the first PING on (:mod:`.health_probe`).
        """
        await self.redis_health.probe()
        await self.feed.start()
        await self.server.start()
        self.redis_health.start()
        if self.web is not None:
            await self.web.start()
        if self.workers is not None:
            self.workers.start()
        elif self.runs_timers:
            self._timers_stop = asyncio.Event()
            notices = None if self.notices is None else self.notices.listen()
            self._timers = asyncio.create_task(
                run_timers(
                    self.engine,
                    self.timer_settings,
                    self._timers_stop,
                    storage_trouble,
                    notices=notices,
                )
            )

    async def stop(self, grace_seconds: float) -> None:
        """Drain (:mod:`.drain`) within ``grace_seconds`` of its start, then close Redis.

        Report NOT_SERVING, take no more calls, end watch streams, let unary calls finish
        (bots cut short, writes closed near the end), cancel what is left at the end. A drain
        a signal began keeps the end it was given then.
        """
        self.drain.begin(grace_seconds)
        await self.health.enter_graceful_shutdown()
        await self.redis_health.stop()
        if self._timers is not None and self._timers_stop is not None:
            self._timers_stop.set()
            await self._timers
        # Calls received while the loop was busy wait in gRPC unmatched; gRPC's shutdown
        # would cancel them (CANCELLED, not UNAVAILABLE), so they are taken in first.
        await asyncio.sleep(backlog_seconds(self.drain.remaining()))
        # Stops taking calls now; at the drain's end it cancels the calls still running.
        server_stopped = asyncio.create_task(self.server.stop(self.drain.remaining()))
        if self.workers is not None:
            await self.workers.stop(self.drain.remaining())
        await self.feed.stop()
        if self.web is not None:
            await self.web.stop()
        await server_stopped
        await self.store.client.aclose()
        stop_tracing(self.tracing)


async def build_server(settings: Settings) -> EngineServer:
    """A ready-to-start server with the engine, health checking and (optionally) reflection.

    Raises:
        RuntimeError: the address could not be bound.
    """
    store = store_for(settings, REDIS_CONNECTIONS)
    try:
        await check_redis(store.client, settings.redis_url, settings.allow_volatile_redis)
    except RedisRefused:
        await store.client.aclose()
        raise
    drain = Drain(store.gate, settings.grace_seconds)
    feed = RedisEventFeed(settings.redis_url, store.client, settings.watcher_queue_limit)
    door = access_door(settings, store.client)  # service keys, quotas: on every port
    tracing = start_tracing()  # when OTEL_EXPORTER_OTLP_ENDPOINT is set
    guard = composed(  # around each handler, on both ports; the last outermost
        None if door is None else door.guard,
        metrics.metered if settings.metrics_port else None,
        None if tracing is None else traced(tracing, SERVICE.full_name),
    )
    server = new_grpc_server(settings.max_request_bytes, settings.pending_calls_limit)
    engine = engine_for(settings, store, drain.work_clock)
    keys = ServiceKeys.of(settings.service_keys)
    servicer = EngineServicer(engine, feed, settings.watch_idle_seconds, keys)
    add_engine_service(
        servicer, server, settings.max_request_bytes, settings.watcher_stall_seconds, guard
    )
    health_servicer = HealthServicer()
    health_service = health_pb2.DESCRIPTOR.services_by_name["Health"]
    add_guarded_service(health_servicer, health_service, server, settings.max_request_bytes)
    for name in (SERVICE.full_name, ""):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    if settings.reflection:
        names = (SERVICE.full_name, health.SERVICE_NAME)
        enable_reflection(names, server, settings.max_request_bytes)
    port = bind(server, settings)  # TLS when the settings name its files
    if port == 0:
        raise RuntimeError(f"cannot bind {settings.address}")
    web = None
    if settings.web_port:
        # Connect and gRPC-Web calls reach this same servicer, on this same event loop.
        host = settings.address.rsplit(":", 1)[0].strip("[]")
        behaviours = method_behaviours(servicer, door=guard)
        app = WebApp(
            behaviours,
            SERVICE,
            settings.max_request_bytes,
            settings.web_origins,
            settings.watcher_stall_seconds,
        )
        tls = (settings.tls_cert, settings.tls_key, settings.tls_client_ca)
        secure = tls if settings.tls_cert else None
        web = WebGateway(app, host, settings.web_port, settings.grace_seconds, secure)
    workers = None
    if settings.timer_loop and settings.background_workers:
        workers = TimerWorkers(settings)
    timers = timer_settings(settings, on_event_loop=workers is None)
    services = (SERVICE.full_name, "")
    redis_health = RedisHealth(
        health_servicer, store.client.ping, services, settings.health_interval_seconds
    )
    return EngineServer(
        server,
        port,
        health_servicer,
        feed,
        store,
        engine,
        timers,
        web,
        workers,
        settings.timer_loop,
        drain=drain,
        redis_health=redis_health,
        tracing=tracing,
        notices=DueNotices(settings.redis_url, store.client),
    )


async def serve_until(
    settings: Settings,
    stop: asyncio.Event,
    on_ready: Callable[[int], None] | None = None,
    *,
    signals: bool = False,
) -> None:
    """Serve until ``stop`` is set (or, with ``signals``, SIGTERM/SIGINT), then drain.

    ``signals`` needs the main thread: the drain then begins in the signal handler itself
    (:func:`~engine_service.api.drain.drain_on_signals`), even while the loop is busy.
    """
    engine_server = await build_server(settings)
    if signals:
        loop = asyncio.get_running_loop()
        drain_on_signals(engine_server.drain, lambda: loop.call_soon_threadsafe(stop.set))
    await engine_server.start()
    host = settings.address.rsplit(":", 1)[0]
    log.info(
        "serving",
        extra={"address": f"{host}:{engine_server.port}", "redis": redacted(settings.redis_url)},
    )
    if engine_server.web is not None:
        log.info("browser table", extra={"url": f"http://{host}:{engine_server.web.port}/"})
    if on_ready is not None:
        on_ready(engine_server.port)
    await stop.wait()
    log.info("draining", extra={"grace_seconds": settings.grace_seconds})
    await engine_server.stop(settings.grace_seconds)
    log.info("stopped")


async def _check_redis_once(settings: Settings) -> None:
    store = RedisGameStore.from_url(settings.redis_url, settings.game_ttl_seconds)
    try:
        await check_redis(store.client, settings.redis_url, settings.allow_volatile_redis)
    finally:
        await store.client.aclose()


def redis_keeps_games(settings: Settings) -> bool:
    """Whether the start-up checks of Redis pass; if not, the reason is printed to stderr.

    A process group checks once before it starts its processes, so a refusal ends it at once
    rather than as processes that keep dying.
    """
    try:
        asyncio.run(_check_redis_once(settings))
    except RedisRefused as error:
        print(f"engine-service: {error}", file=sys.stderr)
        return False
    return True


def metrics_exporter(settings: Settings) -> contextlib.AbstractContextManager[None]:
    """The metrics HTTP server the settings ask for (none when the port is 0)."""
    if not settings.metrics_port:
        return contextlib.nullcontext()
    return metrics.exporter(settings.address, settings.metrics_port)


async def _serve_until_signalled(settings: Settings) -> None:
    await serve_until(settings, asyncio.Event(), signals=True)


GC_THRESHOLDS: Final = (20_000, 20, 20)
"""The cyclic collector's thresholds in a serving process (CPython's are 700, 10, 10)."""


def tune_collector() -> None:
    """Collect cyclic garbage less often, and never look again at what start-up made.

    A move allocates hundreds of short-lived containers (messages, coroutines, futures) that
    reference counting frees; at CPython's default threshold the collector still ran every
    few moves and took about 4 % of a serving process's CPU. The modules, the registry and the
    settings made at start-up live as long as the process, so ``gc.freeze`` moves them out of
    every later collection's way.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def serve(settings: Settings) -> None:
    """Serve, with the metrics exporter when the settings ask for one, until SIGTERM/SIGINT.

    A Redis that would lose games (:mod:`~engine_service.store.preflight`) ends the process
    with the reason, exit status 1.
    """
    tune_collector()
    with metrics_exporter(settings):
        try:
            asyncio.run(_serve_until_signalled(settings))
        except RedisRefused as error:
            sys.exit(f"engine-service: {error}")


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of ``python -m engine_service`` and the ``engine-service`` command."""
    settings = parse_settings(argv)
    configure_logging(settings)
    serve(settings)
