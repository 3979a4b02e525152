"""The EngineService's registration, with request bytes that may not be a request.

grpc-python ends a call with INTERNAL (and logs a traceback) when a request deserializer
raises, before any handler runs, so bytes that do not parse would look like a fault of the
service. Here every method is registered with a deserializer that never raises: bytes that
are not the request message (or more bytes than the service accepts) become an
:class:`Unreadable` marker, and the servicer's ``rpc`` decorators turn the marker into
INVALID_ARGUMENT (``REQUEST_UNDECODABLE``) or RESOURCE_EXHAUSTED (``REQUEST_TOO_LARGE``), with
the one log line every call writes. The gRPC port and the web port (Connect and gRPC-Web,
:mod:`engine_service.web.gateway`) hand calls to one servicer, through the same
:func:`method_behaviours`.

A door (:meth:`engine_service.api.access.Door.guard`: service keys, scopes, quotas) stands
in front of every method where one is configured, on both ports alike, and so do the
metrics and the tracing span when they are on (:func:`composed`).

On the gRPC port a server stream's messages are written with a deadline
(:func:`written`): a client that stops reading blocks the write on HTTP/2 flow control, and
the stream is then cut off with WATCHER_TOO_SLOW instead of being held until the client leaves.

The handlers are built from the service descriptor, so a method added to the proto is
registered like every other one. Services whose handlers are not ours (health checking) are
registered the same way by :func:`add_guarded_service`, each handler behind a guard that ends
the call with the marker's status before the handler sees it.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, Final

import grpc
from cardengine.v1 import engine_service_pb2
from google.protobuf import descriptor, message_factory

from engine_service.api.errors import RequestTooLarge, abort, status_for
from engine_service.core.errors import EngineError, MalformedRequest, WatcherTooSlow
from engine_service.settings import Settings

SERVICE: Final = engine_service_pb2.DESCRIPTOR.services_by_name["EngineService"]
Guard = Callable[[str, Callable[..., Any]], Callable[..., Any]]
"""Wraps a method's handler function, by method name: the access door, metrics, a span."""
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


def written(
    behaviour: Callable[[Any, Any], AsyncGenerator[Any, None]], stall_seconds: float
) -> Callable[[Any, Any], Any]:
    """A server stream ``behaviour`` whose every message must be taken within ``stall_seconds``.

    ``behaviour``'s messages are written with ``context.write`` under a deadline; one that
    misses it is thrown back into ``behaviour`` as :class:`WatcherTooSlow`, which its ``rpc``
    boundary turns into the stream's status and its log line.
    """

    async def stream(request: Any, context: Any) -> None:
        replies = behaviour(request, context)
        try:
            async for reply in replies:
                try:
                    async with asyncio.timeout(stall_seconds):  # no task per message
                        await context.write(reply)
                except TimeoutError:
                    message = f"the client took no message for {stall_seconds:g} s"
                    await cut(replies, WatcherTooSlow(message))
                    return
        finally:
            await replies.aclose()

    return stream


async def cut(replies: AsyncGenerator[Any, None], error: EngineError) -> None:
    """End the stream with ``error``'s status, sent once the client takes what came before.

    ``replies``' boundary logs the cut, turns ``error`` into the status and aborts with it
    (AbortError on the gRPC port). Anything else out of it means the status could not be
    sent: the client left while the status waited behind what it had not taken, or (on the
    web port) the response was already cut off. That is the client's doing, not a fault to
    report (grpc would log a traceback at error level).
    """
    try:
        await replies.athrow(error)
    except grpc.aio.AbortError:
        raise
    except Exception:  # grpc's ExecuteBatchError (a private class) of the status
        return


def composed(*guards: Guard | None) -> Guard | None:
    """One guard applying each of ``guards`` given (``None`` ones skipped), the last outermost."""
    given = [guard for guard in guards if guard is not None]
    if not given:
        return None

    def guard(method: str, behaviour: Callable[..., Any]) -> Callable[..., Any]:
        for each in given:
            behaviour = each(method, behaviour)
        return behaviour

    return guard


def method_behaviours(
    servicer: object,
    service: descriptor.ServiceDescriptor = SERVICE,
    guard: bool = False,
    door: Guard | None = None,
) -> dict[str, Callable[..., Any]]:
    """Every method's handler function on ``servicer``, by method name, as every port calls it.

    ``guard``: see :func:`guarded`; ``door``: what wraps every method (the access door, the
    metrics, the tracing span: :func:`composed`).
    """
    behaviours: dict[str, Callable[..., Any]] = {}
    for method in service.methods:
        behaviour = getattr(servicer, method.name)
        if guard:
            behaviour = guarded(behaviour)
        if door is not None:
            behaviour = door(method.name, behaviour)
        behaviours[method.name] = behaviour
    return behaviours


_HANDLER_KINDS: Final[dict[tuple[bool, bool], Callable[..., Any]]] = {
    (False, False): grpc.unary_unary_rpc_method_handler,
    (False, True): grpc.unary_stream_rpc_method_handler,
    (True, True): grpc.stream_stream_rpc_method_handler,
}
"""How a method is registered, by whether its requests and its replies are streams. A
request stream (Play) gets an :class:`Unreadable` marker for each message that does not
parse, which its handler answers without ending the stream."""


def is_session(method: str, service: descriptor.ServiceDescriptor = SERVICE) -> bool:
    """Whether ``method`` takes a stream of requests (Play)."""
    found = service.methods_by_name.get(method)
    return found is not None and found.client_streaming


def method_handlers(
    servicer: object,
    max_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
    service: descriptor.ServiceDescriptor = SERVICE,
    guard: bool = False,
    stall_seconds: float | None = None,
    door: Guard | None = None,
) -> dict[str, grpc.RpcMethodHandler[Any, Any]]:
    """Every method's gRPC handler on ``servicer``, by method name.

    ``guard``, ``door``: see :func:`method_behaviours`; ``stall_seconds``: server streams are
    :func:`written` with that deadline.
    """
    behaviours = method_behaviours(servicer, service, guard, door)
    handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}
    for method in service.methods:
        request_class = message_factory.GetMessageClass(method.input_type)
        reply_class = message_factory.GetMessageClass(method.output_type)
        make = _HANDLER_KINDS[method.client_streaming, method.server_streaming]
        behaviour = behaviours[method.name]
        if method.server_streaming and stall_seconds is not None:
            behaviour = written(behaviour, stall_seconds)
        handlers[method.name] = make(
            behaviour,
            request_deserializer=deserializer(request_class, max_bytes),
            response_serializer=reply_class.SerializeToString,
        )
    return handlers


def add_engine_service(
    servicer: object,
    server: Any,
    max_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
    stall_seconds: float | None = None,
    door: Guard | None = None,
) -> None:
    """Register ``servicer`` on ``server`` (a ``grpc.aio`` server).

    As the generated ``add_EngineServiceServicer_to_server`` does, but with deserializers
    that never raise (see the module docstring); ``stall_seconds``: see :func:`written`;
    ``door``: the access checks every call passes first.
    """
    handlers = method_handlers(servicer, max_bytes, stall_seconds=stall_seconds, door=door)
    _register(server, SERVICE, handlers)


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
