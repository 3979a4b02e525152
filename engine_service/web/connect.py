"""The EngineService on the Connect runtime: endpoints over the servicer's handler functions.

connect-python serves a service from endpoints its code generator writes; these are built
here from the service descriptor instead, each calling the handler function the gRPC port
runs (:func:`engine_service.api.wire.method_behaviours`) with a :class:`CallContext`: the
little of a gRPC context the servicer uses (the call's metadata, which are its HTTP headers,
and ``abort``, which becomes a :class:`~connectrpc.errors.ConnectError` carrying the same
``google.rpc`` details). A body the runtime's codecs cannot decode would be UNKNOWN there, as
if the service had failed: :func:`strict_codecs` makes it INVALID_ARGUMENT
``REQUEST_UNDECODABLE``, as on the gRPC port. A call refused before the runtime took it
(:mod:`engine_service.web.intake`) runs under :func:`calling` with that error, and its
endpoint ends it with it, in the protocol the client spoke. When the web port finds that a
stream's client stopped taking messages (:attr:`Call.stalled`), the stream's handler is told
so as on the gRPC port (WATCHER_TOO_SLOW, logged once by the servicer) when it is closed.
"""

from __future__ import annotations

import abc
import contextlib
import contextvars
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from typing import Any, Final

import grpc
from connectrpc import _codec
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.method import IdempotencyLevel, MethodInfo
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf import descriptor, message_factory
from google.rpc import status_pb2

from engine_service.api.errors import status_for
from engine_service.api.wire import Unreadable, cut
from engine_service.core.errors import EngineError, WatcherTooSlow

Behaviour = Callable[..., Any]

_DETAILS_KEY: Final = "grpc-status-details-bin"
_CODES: Final = {
    status.value[0]: Code.CANCELED if status is grpc.StatusCode.CANCELLED else Code[status.name]
    for status in grpc.StatusCode
    if status is not grpc.StatusCode.OK
}
"""gRPC's codes by number, as Connect's (the same set; Connect spells CANCELLED with one L)."""


class Call:
    """What the web port knows of the current call beyond what the runtime passes on.

    Attributes:
        refusal: the error it must end with, found before the runtime took it (``intake``).
        stalled: its client stopped taking messages for the stall time; the response is cut.
    """

    def __init__(self, refusal: EngineError | None) -> None:
        self.refusal = refusal
        self.stalled = False


_call: contextvars.ContextVar[Call | None] = contextvars.ContextVar("call", default=None)


class EndsWithAbort(abc.ABC):
    """The part of a call's context that ends the call, for a port other than gRPC's.

    ``abort`` keeps the status (the metrics read it back through ``code`` and
    ``trailing_metadata``, as from a gRPC context) and raises what the port ends a call with
    (:meth:`ending`).
    """

    def __init__(self) -> None:
        self._code: grpc.StatusCode | None = None
        self._trailing: Any = ()

    @abc.abstractmethod
    def ending(self, code: grpc.StatusCode, details: str, trailing_metadata: Any) -> Exception:
        """What ends the call on this port."""

    async def abort(
        self, code: grpc.StatusCode, details: str = "", trailing_metadata: Any = ()
    ) -> None:
        """End the call with ``code``, ``details`` and the status details the metadata holds."""
        self._code, self._trailing = code, trailing_metadata
        raise self.ending(code, details, trailing_metadata)

    def code(self) -> grpc.StatusCode | None:
        """The code the call was aborted with, if it was (for the metrics)."""
        return self._code

    def trailing_metadata(self) -> Any:
        """The metadata it was aborted with: the status details (for the metrics)."""
        return self._trailing


class CallContext(EndsWithAbort):
    """What the servicer asks of a call's context, over a Connect request's context."""

    def __init__(self, context: RequestContext[Any, Any]) -> None:
        super().__init__()
        self._context = context

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        """The request's headers, as gRPC metadata (names in lower case)."""
        return tuple(self._context.request_headers().allitems())

    def ending(self, code: grpc.StatusCode, details: str, trailing_metadata: Any) -> Exception:
        """The Connect error of the status, its details kept."""
        return _connect_error(code, details, trailing_metadata)


def _connect_error(code: grpc.StatusCode, message: str, metadata: Any) -> ConnectError:
    """The Connect error of a gRPC status, with its ``google.rpc.Status`` details kept."""
    packed = dict(metadata or ()).get(_DETAILS_KEY)
    status = status_pb2.Status.FromString(packed) if packed else status_pb2.Status()
    return ConnectError(_CODES[code.value[0]], message, status.details)


def _from_status(status: status_pb2.Status) -> ConnectError:
    """The Connect error of a ``google.rpc.Status``."""
    return ConnectError(_CODES[status.code], status.message, status.details)


class _StrictCodec:
    """A codec of the runtime whose decoding failures are the client's (INVALID_ARGUMENT)."""

    def __init__(self, codec: Any) -> None:
        self._codec = codec

    def name(self) -> str:
        return str(self._codec.name())

    def encode(self, message: Any) -> bytes:
        return bytes(self._codec.encode(message))

    def decode(self, data: bytes | bytearray, message: Any) -> Any:
        try:
            return self._codec.decode(data, message)
        except Exception as error:  # DecodeError, ParseError: the bytes are not the message
            unreadable = Unreadable(message.DESCRIPTOR.full_name, len(data)).error()
            raise _from_status(status_for(unreadable)) from error


def strict_codecs() -> None:
    """Make the runtime's codecs refuse undecodable bodies with INVALID_ARGUMENT.

    connect-python 0.9 keeps its codecs in a module registry and reports any exception of
    theirs as UNKNOWN; wrapping each registered codec (once) is the only hook it offers.
    """
    registry = _codec._codecs
    for name, codec in registry.items():
        if not isinstance(codec, _StrictCodec):
            registry[name] = _StrictCodec(codec)


def _checked_intake() -> None:
    """Raise the error the current call was refused with at intake, if any."""
    call = _call.get()
    if call is not None and call.refusal is not None:
        raise _from_status(status_for(call.refusal))


def _unary(behaviour: Behaviour) -> Callable[[Any, RequestContext[Any, Any]], Awaitable[Any]]:
    async def call(request: Any, context: RequestContext[Any, Any]) -> Any:
        _checked_intake()
        return await behaviour(request, CallContext(context))

    return call


def _streaming(
    behaviour: Behaviour,
) -> Callable[[Any, RequestContext[Any, Any]], AsyncIterator[Any]]:
    async def call(request: Any, context: RequestContext[Any, Any]) -> AsyncIterator[Any]:
        _checked_intake()
        replies = behaviour(request, CallContext(context))
        try:
            async for reply in replies:
                yield reply
        except GeneratorExit:
            current = _call.get()
            if current is not None and current.stalled:
                stalled = WatcherTooSlow("the client took no message within the stall time")
                await cut(replies, stalled)  # the servicer logs it; nothing reaches the client
            raise
        finally:
            await replies.aclose()

    return call


def endpoints(
    behaviours: Mapping[str, Behaviour], service: descriptor.ServiceDescriptor
) -> dict[str, Any]:
    """The Connect endpoint of every method of ``service``, by its URL path."""
    found: dict[str, Any] = {}
    for method in service.methods:
        if method.client_streaming:  # Play: browsers cannot stream requests; gRPC port only
            continue
        info: MethodInfo[Any, Any] = MethodInfo(
            name=method.name,
            service_name=service.full_name,
            input=message_factory.GetMessageClass(method.input_type),
            output=message_factory.GetMessageClass(method.output_type),
            idempotency_level=IdempotencyLevel.UNKNOWN,
        )
        behaviour = behaviours[method.name]
        path = f"/{service.full_name}/{method.name}"
        if method.server_streaming:
            found[path] = Endpoint.server_stream(info, _streaming(behaviour))
        else:
            found[path] = Endpoint.unary(info, _unary(behaviour))
    return found


class ServiceApp(ConnectASGIApplication[Mapping[str, Any]]):
    """The Connect runtime's application over endpoints built here (no generated code)."""

    def __init__(
        self,
        service: descriptor.ServiceDescriptor,
        found: Mapping[str, Any],
        read_max_bytes: int | None,
    ) -> None:
        strict_codecs()
        super().__init__(
            service=found,
            endpoints=lambda built: built,
            read_max_bytes=read_max_bytes,
            compressions=(),
        )
        self._path = f"/{service.full_name}"

    @property
    def path(self) -> str:
        """The service's URL path prefix (``/cardengine.v1.EngineService``)."""
        return self._path


@contextlib.contextmanager
def calling(refusal: EngineError | None) -> Iterator[Call]:
    """The call run in this block: ended with ``refusal`` (``None``: run), watched for stalls."""
    call = Call(refusal)
    token = _call.set(call)
    try:
        yield call
    finally:
        _call.reset(token)
