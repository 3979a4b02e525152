"""The shape every EngineService interceptor shares: wrap each method's handler once.

gRPC asks an interceptor for a handler on every call; building the wrapped handler anew each
time would cost a closure per call, so each interceptor keeps the wrapped handler of each
method and reuses it while the handler beneath stays the same object. Other services (health,
reflection) pass through untouched.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

import grpc
from cardengine.v1 import engine_service_pb2

SERVICE_NAME: Final = engine_service_pb2.DESCRIPTOR.services_by_name["EngineService"].full_name

if TYPE_CHECKING:  # generic only in the type stubs
    Handler = grpc.RpcMethodHandler[Any, Any]
    AioInterceptor = grpc.aio.ServerInterceptor[Any, Any]
else:
    Handler = grpc.RpcMethodHandler
    AioInterceptor = grpc.aio.ServerInterceptor


class EngineServiceInterceptor(AioInterceptor):
    """An interceptor that wraps EngineService handlers, each method's once (:meth:`wrap`)."""

    def __init__(self) -> None:
        self._wrapped: dict[str, tuple[Handler, Handler]] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Handler:
        """The wrapped handler of this call's EngineService method; others' handlers as they are."""
        handler = await continuation(handler_call_details)
        cached = self._wrapped.get(handler_call_details.method)
        if cached is not None and cached[0] is handler:
            return cached[1]
        service, _, method = handler_call_details.method.rpartition("/")
        if handler is None or service != f"/{SERVICE_NAME}":
            return handler
        wrapped = self.wrap(method, handler)
        self._wrapped[handler_call_details.method] = (handler, wrapped)
        return wrapped

    def wrap(self, method: str, handler: Handler) -> Handler:
        """``handler`` of EngineService ``method`` with this interceptor's work around it."""
        raise NotImplementedError
