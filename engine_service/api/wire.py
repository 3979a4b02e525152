"""The EngineService's registration, with request bytes that may not be a request.

grpc-python ends a call with INTERNAL (and logs a traceback) when a request deserializer
raises, before any handler runs, so bytes that do not parse would look like a fault of the
service. Here every method is registered with a deserializer that never raises: bytes that
are not the request message (or more bytes than the service accepts) become an
:class:`Unreadable` marker, and the servicer's ``rpc`` decorators turn the marker into
INVALID_ARGUMENT (``REQUEST_UNDECODABLE``) or RESOURCE_EXHAUSTED (``REQUEST_TOO_LARGE``), with
the one log line every call writes. The same registration serves the gRPC port and the
gRPC-Web gateway, which both hand calls to one servicer.

The handlers are built from the service descriptor, so a method added to the proto is
registered like every other one. Services whose handlers are not ours (health checking) are
registered the same way by :func:`add_guarded_service`, each handler behind a guard that ends
the call with the marker's status before the handler sees it.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, Final

import grpc
from cardengine.v1 import engine_service_pb2
from google.protobuf import descriptor, message_factory

from engine_service.api.errors import RequestTooLarge, abort, status_for
from engine_service.core.errors import EngineError, MalformedRequest
from engine_service.settings import Settings

SERVICE: Final = engine_service_pb2.DESCRIPTOR.services_by_name["EngineService"]
DEFAULT_MAX_REQUEST_BYTES: Final = Settings().max_request_bytes
"""The largest request accepted unless configured (the largest real one is a few KB)."""


@dataclass(frozen=True, slots=True)
class Unreadable:
    """Stands for a request whose bytes are not its method's request message.

    Attributes:
        message: the full name of the message the method takes.
        size: how many bytes came.
        too_large: the bytes were more than the service accepts (not even parsed).
    """

    message: str
    size: int
    too_large: bool = False

    def error(self) -> EngineError:
        """The error the call ends with."""
        if self.too_large:
            return RequestTooLarge(f"the request has {self.size} bytes, more than accepted")
        return MalformedRequest(
            "request",
            f"{self.size} bytes that are not a {self.message}",
            "REQUEST_UNDECODABLE",
        )


def readable(request: object) -> None:
    """Let a request through; stop an :class:`Unreadable` one with its error.

    Raises:
        MalformedRequest: the bytes did not parse as the request message.
        RequestTooLarge: there were more bytes than the service accepts.
    """
    if isinstance(request, Unreadable):
        raise request.error()


def deserializer(message_class: Any, max_bytes: int) -> Callable[[bytes], Any]:
    """Parse bytes into ``message_class``; an :class:`Unreadable` marker instead of raising."""
    name = message_class.DESCRIPTOR.full_name

    def deserialize(data: bytes) -> Any:
        if len(data) > max_bytes:
            return Unreadable(name, len(data), too_large=True)
        try:
            return message_class.FromString(data)
        except Exception:  # DecodeError, or any other refusal of the parser: the bytes are bad
            return Unreadable(name, len(data))

    return deserialize


async def refuse(context: Any, request: Unreadable) -> None:
    """End the call with the status of an :class:`Unreadable` request (raises, as abort does)."""
    await abort(context, status_for(request.error()))


def guarded(behaviour: Callable[..., Any]) -> Callable[..., Any]:
    """``behaviour`` (a handler that knows nothing of markers) behind a marker check."""
    if inspect.isasyncgenfunction(behaviour):

        async def stream(request: Any, context: Any) -> AsyncIterator[Any]:
            if isinstance(request, Unreadable):
                await refuse(context, request)
            async for reply in behaviour(request, context):
                yield reply

        return stream

    async def unary(request: Any, context: Any) -> Any:
        if isinstance(request, Unreadable):
            await refuse(context, request)
        return await behaviour(request, context)

    return unary


def method_handlers(
    servicer: object,
    max_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
    service: descriptor.ServiceDescriptor = SERVICE,
    guard: bool = False,
) -> dict[str, grpc.RpcMethodHandler[Any, Any]]:
    """Every method's handler on ``servicer``, by method name (``guard``: see :func:`guarded`)."""
    handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}
    for method in service.methods:
        if method.client_streaming:  # pragma: no cover (the service has none)
            raise TypeError(f"{method.name}: client streams are not registered here")
        request_class = message_factory.GetMessageClass(method.input_type)
        reply_class = message_factory.GetMessageClass(method.output_type)
        make = (
            grpc.unary_stream_rpc_method_handler
            if method.server_streaming
            else grpc.unary_unary_rpc_method_handler
        )
        behaviour = getattr(servicer, method.name)
        handlers[method.name] = make(
            guarded(behaviour) if guard else behaviour,
            request_deserializer=deserializer(request_class, max_bytes),
            response_serializer=reply_class.SerializeToString,
        )
    return handlers


def add_engine_service(
    servicer: object, server: Any, max_bytes: int = DEFAULT_MAX_REQUEST_BYTES
) -> None:
    """Register ``servicer`` on ``server`` (a ``grpc.aio`` server or the gRPC-Web app).

    As the generated ``add_EngineServiceServicer_to_server`` does, but with deserializers
    that never raise (see the module docstring).
    """
    _register(server, SERVICE, method_handlers(servicer, max_bytes))


def add_guarded_service(
    servicer: object,
    service: descriptor.ServiceDescriptor,
    server: Any,
    max_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
) -> None:
    """Register another service's ``servicer`` (health checking, say), its handlers guarded."""
    _register(server, service, method_handlers(servicer, max_bytes, service, guard=True))


def _register(
    server: Any,
    service: descriptor.ServiceDescriptor,
    handlers: dict[str, grpc.RpcMethodHandler[Any, Any]],
) -> None:
    generic = grpc.method_handlers_generic_handler(service.full_name, handlers)
    server.add_generic_rpc_handlers((generic,))
    server.add_registered_method_handlers(service.full_name, handlers)
