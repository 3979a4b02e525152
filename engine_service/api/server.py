"""Build, run and stop the gRPC server (``grpc.aio``).

:func:`build_server` returns the parts of a ready server and the port it bound, so tests can
serve on port 0; :func:`main` serves until SIGTERM or Ctrl-C, then ends open watch streams
(they resume elsewhere from their last version) and lets in-flight calls finish.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from cardengine.v1 import engine_service_pb2
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer

from engine_service.api import metrics
from engine_service.api.logs import configure_logging
from engine_service.api.reflection import enable_reflection
from engine_service.api.servicer import EngineServicer
from engine_service.api.timer_workers import TimerWorkers, engine_for, timer_settings
from engine_service.api.wire import DEFAULT_MAX_REQUEST_BYTES, add_engine_service
from engine_service.app.engine import Engine
from engine_service.app.seats import ServiceKeys
from engine_service.app.timers import TimerSettings, run_timers
from engine_service.settings import Settings, parse_settings
from engine_service.store.redis_feed import RedisEventFeed
from engine_service.store.redis_store import RedisGameStore
from engine_service.web.gateway import WebGateway

SERVICE_NAME = engine_service_pb2.DESCRIPTOR.services_by_name["EngineService"].full_name
REDIS_CONNECTIONS = 64
log = logging.getLogger(__name__)


def new_grpc_server(
    interceptors: Sequence[grpc.aio.ServerInterceptor[Any, Any]] = (),
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
) -> grpc.aio.Server:
    """The gRPC server every engine process runs: one asyncio loop, no handler threads.

    ``SO_REUSEPORT`` lets several processes serve one address. The benchmarks build their
    floor server with this too (without interceptors), so both are measured on the same kind
    of server. A request larger than ``max_request_bytes`` is refused by gRPC itself
    (RESOURCE_EXHAUSTED) before any Python code reads it.
    """
    options = [("grpc.so_reuseport", 1), ("grpc.max_receive_message_length", max_request_bytes)]
    return grpc.aio.server(interceptors=list(interceptors), options=options)


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
    _timers: asyncio.Task[None] | None = None
    _timers_stop: asyncio.Event | None = None

    async def start(self) -> None:
        """Follow event streams, then take calls (and serve the browser table, if on)."""
        await self.feed.start()
        await self.server.start()
        if self.web is not None:
            await self.web.start()
        if self.workers is not None:
            self.workers.start()
        elif self.runs_timers:
            self._timers_stop = asyncio.Event()
            self._timers = asyncio.create_task(
                run_timers(self.engine, self.timer_settings, self._timers_stop)
            )

    async def stop(self, grace_seconds: float) -> None:
        """Report NOT_SERVING, end watch streams, let unary calls finish, close Redis."""
        await self.health.enter_graceful_shutdown()
        if self._timers is not None and self._timers_stop is not None:
            self._timers_stop.set()
            await self._timers
        if self.workers is not None:
            await self.workers.stop(grace_seconds)
        await self.feed.stop()
        if self.web is not None:
            await self.web.stop()
        await self.server.stop(grace_seconds)
        await self.store.client.aclose()


async def build_server(settings: Settings) -> EngineServer:
    """A ready-to-start server with the engine, health checking and (optionally) reflection.

    Raises:
        RuntimeError: the address could not be bound.
    """
    store = RedisGameStore.from_url(
        settings.redis_url,
        settings.game_ttl_seconds,
        settings.event_retention,
        max_connections=REDIS_CONNECTIONS,
    )
    feed = RedisEventFeed(settings.redis_url, store.client, settings.watcher_queue_limit)
    interceptors = [metrics.MetricsInterceptor()] if settings.metrics_port else []
    server = new_grpc_server(interceptors, settings.max_request_bytes)
    engine = engine_for(settings, store)
    keys = ServiceKeys.of(settings.service_keys)
    servicer = EngineServicer(engine, feed, settings.watch_idle_seconds, keys)
    add_engine_service(servicer, server, settings.max_request_bytes)
    health_servicer = HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in (SERVICE_NAME, ""):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    if settings.reflection:
        enable_reflection((SERVICE_NAME, health.SERVICE_NAME), server)
    port = server.add_insecure_port(settings.address)
    if port == 0:
        raise RuntimeError(f"cannot bind {settings.address}")
    web = None
    if settings.web_port:
        # The page's gRPC-Web calls reach this same servicer, on this same event loop.
        host = settings.address.rsplit(":", 1)[0].strip("[]")
        register = functools.partial(add_engine_service, max_bytes=settings.max_request_bytes)
        web = WebGateway(servicer, register, host, settings.web_port, settings.grace_seconds)
    workers = None
    if settings.timer_loop and settings.background_workers:
        workers = TimerWorkers(settings)
    timers = timer_settings(settings, on_event_loop=workers is None)
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
    )


async def serve_until(
    settings: Settings, stop: asyncio.Event, on_ready: Callable[[int], None] | None = None
) -> None:
    """Serve until ``stop`` is set, then drain for the grace period."""
    engine_server = await build_server(settings)
    await engine_server.start()
    host = settings.address.rsplit(":", 1)[0]
    log.info(
        "serving", extra={"address": f"{host}:{engine_server.port}", "redis": settings.redis_url}
    )
    if engine_server.web is not None:
        log.info("browser table", extra={"url": f"http://{host}:{engine_server.web.port}/"})
    if on_ready is not None:
        on_ready(engine_server.port)
    await stop.wait()
    log.info("draining", extra={"grace_seconds": settings.grace_seconds})
    await engine_server.stop(settings.grace_seconds)
    log.info("stopped")


def metrics_exporter(settings: Settings) -> contextlib.AbstractContextManager[None]:
    """The metrics HTTP server the settings ask for (none when the port is 0)."""
    if not settings.metrics_port:
        return contextlib.nullcontext()
    return metrics.exporter(settings.address, settings.metrics_port)


async def _serve_until_signalled(settings: Settings) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await serve_until(settings, stop)


def serve(settings: Settings) -> None:
    """Serve, with the metrics exporter when the settings ask for one, until SIGTERM/SIGINT."""
    with metrics_exporter(settings):
        asyncio.run(_serve_until_signalled(settings))


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of ``python -m engine_service`` and the ``engine-service`` command."""
    settings = parse_settings(argv)
    configure_logging(settings.log_level)
    serve(settings)
