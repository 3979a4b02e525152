"""A real gRPC server around a scripted servicer, for client behaviour no engine can be made
to show on demand (an UNAVAILABLE on the third call, a stream cut after two messages)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from concurrent import futures

import grpc
from cardengine.v1 import engine_service_pb2_grpc


@contextlib.contextmanager
def serving(servicer: engine_service_pb2_grpc.EngineServiceServicer) -> Iterator[str]:
    """Serve ``servicer`` on a free loopback port; yields its address, stops it on exit."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    engine_service_pb2_grpc.add_EngineServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.stop(None)
