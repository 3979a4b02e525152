"""Build, run and stop the gRPC server.

:func:`build_server` returns the server and the port it bound, so tests can serve on port 0;
:func:`main` serves until SIGTERM or Ctrl-C, then lets in-flight calls finish.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
from collections.abc import Sequence
from concurrent import futures
from types import FrameType
from typing import Any

import grpc
from cardengine.v1 import engine_service_pb2, engine_service_pb2_grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from engine_service.api import metrics
from engine_service.api.logs import configure_logging
from engine_service.api.servicer import EngineServicer
from engine_service.app.engine import Engine
from engine_service.settings import Settings, parse_settings
from engine_service.store.redis_store import RedisGameStore

SERVICE_NAME = engine_service_pb2.DESCRIPTOR.services_by_name["EngineService"].full_name
log = logging.getLogger(__name__)


def new_grpc_server(
    workers: int, interceptors: Sequence[grpc.ServerInterceptor[Any, Any]] = ()
) -> grpc.Server:
    """The gRPC server every engine process runs: ``workers`` handler threads.

    ``SO_REUSEPORT`` lets several processes serve one address. The benchmarks build their
    floor server with this too (without interceptors), so both are measured on the same kind
    of server.
    """
    return grpc.server(
        futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="rpc"),
        interceptors=list(interceptors),
        options=[("grpc.so_reuseport", 1)],
    )


def build_server(settings: Settings) -> tuple[grpc.Server, int, health.HealthServicer]:
    """A ready-to-start server with the engine, health checking and (optionally) reflection.

    Raises:
        RuntimeError: the address could not be bound.
    """
    store = RedisGameStore.from_url(
        settings.redis_url, settings.game_ttl_seconds, max_connections=settings.workers + 4
    )
    interceptors = [metrics.MetricsInterceptor()] if settings.metrics_port else []
    server = new_grpc_server(settings.workers, interceptors)
    engine_service_pb2_grpc.add_EngineServiceServicer_to_server(
        EngineServicer(Engine(store)), server
    )
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in (SERVICE_NAME, ""):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    if settings.reflection:
        names = (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME)
        reflection.enable_server_reflection(names, server)
    port = server.add_insecure_port(settings.address)
    if port == 0:
        raise RuntimeError(f"cannot bind {settings.address}")
    return server, port, health_servicer


def serve(settings: Settings, ready: threading.Event | None = None) -> None:
    """Serve, with the metrics exporter when the settings ask for one, until stopped."""
    with metrics_exporter(settings):
        serve_until_stopped(settings, ready)


def metrics_exporter(settings: Settings) -> contextlib.AbstractContextManager[None]:
    """The metrics HTTP server the settings ask for (none when the port is 0)."""
    if not settings.metrics_port:
        return contextlib.nullcontext()
    return metrics.exporter(settings.address, settings.metrics_port)


def serve_until_stopped(settings: Settings, ready: threading.Event | None = None) -> None:
    """Serve until SIGTERM/SIGINT, then stop taking calls and drain for the grace period."""
    server, port, health_servicer = build_server(settings)
    stop = threading.Event()

    def request_stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, request_stop)
    server.start()
    host = settings.address.rsplit(":", 1)[0]
    log.info("serving", extra={"address": f"{host}:{port}", "redis": settings.redis_url})
    if ready is not None:
        ready.set()
    stop.wait()
    log.info("draining", extra={"grace_seconds": settings.grace_seconds})
    health_servicer.enter_graceful_shutdown()
    server.stop(settings.grace_seconds).wait()
    log.info("stopped")


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of ``python -m engine_service`` and the ``engine-service`` command."""
    settings = parse_settings(argv)
    configure_logging(settings.log_level)
    serve(settings)
