"""A real gRPC server around a scripted servicer, for client behaviour no engine can be made
to show on demand (an UNAVAILABLE on the third call, a stream cut after two messages), and a
front that passes calls on to a real engine but loses some replies on the way back."""

from __future__ import annotations

import collections
import contextlib
import functools
import threading
from collections.abc import Iterable, Iterator
from concurrent import futures
from typing import Any

import grpc
from cardengine.v1 import engine_service_pb2_grpc
from grpc_status import rpc_status


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


class LossyFront(engine_service_pb2_grpc.EngineServiceServicer):
    """A real server in front of a real engine that loses replies on their way back.

    Each call of a method in ``methods`` is passed on to the engine (with its ``x-`` metadata);
    the first ``drops`` replies of each such method are then replaced by UNAVAILABLE, as when a
    connection drops after the service acted. Every request passed on is kept, by method, with
    the engine's replies, so a test sees what the client sent again and what the engine did.
    """

    def __init__(self, engine_address: str, methods: Iterable[str], drops: int = 1) -> None:
        self._channel = grpc.insecure_channel(engine_address)
        self._engine = engine_service_pb2_grpc.EngineServiceStub(self._channel)
        self._drops = drops
        self._lock = threading.Lock()
        self.requests: dict[str, list[Any]] = collections.defaultdict(list)
        self.replies: dict[str, list[Any]] = collections.defaultdict(list)
        for method in methods:
            setattr(self, method, functools.partial(self._pass_on, method))

    def _pass_on(self, method: str, request: Any, context: grpc.ServicerContext) -> Any:
        metadata = [(k, v) for k, v in context.invocation_metadata() if k.startswith("x-")]
        with self._lock:
            self.requests[method].append(request)
        try:
            reply = getattr(self._engine, method)(request, metadata=metadata)
        except grpc.RpcError as error:
            status = rpc_status.from_call(error)  # type: ignore[arg-type]
            if status is None:
                context.abort(error.code(), error.details())  # type: ignore[attr-defined]
            context.abort_with_status(rpc_status.to_status(status))
        with self._lock:
            self.replies[method].append(reply)
            lost = len(self.replies[method]) <= self._drops
        if lost:
            context.abort(grpc.StatusCode.UNAVAILABLE, "the reply was lost on the way back")
        return reply

    def close(self) -> None:
        """Close the channel to the engine."""
        self._channel.close()


@contextlib.contextmanager
def lossy_front(
    engine_address: str, methods: Iterable[str], drops: int = 1
) -> Iterator[tuple[str, LossyFront]]:
    """Serve a :class:`LossyFront` to ``engine_address``; yields its address and itself."""
    front = LossyFront(engine_address, methods, drops)
    try:
        with serving(front) as address:
            yield address, front
    finally:
        front.close()
