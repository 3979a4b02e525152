"""The web port: Connect (JSON and binary), gRPC-Web and the browser table, on one uvicorn.

Every EngineService method is served at ``/cardengine.v1.EngineService/<Method>`` by the
Connect project's own runtime (``connect-python``, its ``ConnectASGIApplication``): the
Connect protocol with JSON or binary bodies (so ``curl`` can drive a game), server streams
as Connect streams, and gRPC-Web for browsers. Each call goes to the *same* handler functions
the gRPC port runs (:func:`engine_service.api.wire.method_behaviours`: the servicer behind
the access door), on the gRPC server's event loop, with a small context that gives the
servicer what it asks of a gRPC context: the call's metadata (the HTTP headers) and
``abort``, which becomes a :class:`~connectrpc.errors.ConnectError` carrying the same
``google.rpc`` details (ErrorInfo, LocalizedMessage, BadRequest, RetryInfo, ...). Everything
else on the port is the page's files.

Before a call reaches the runtime, what it cannot take is answered here: a WebSocket upgrade
is refused (403), a request with both ``Content-Length`` and ``Transfer-Encoding`` gets HTTP
400 and a closed connection (which of the two frames the body is ambiguous: request
smuggling), and each call is read and checked by :mod:`engine_service.web.intake`, each
refusal with one log line. A body the runtime's codecs cannot decode would be UNKNOWN there,
as if the service had failed: :func:`strict_codecs` makes it INVALID_ARGUMENT
``REQUEST_UNDECODABLE``, as on the gRPC port. Compressed requests are not taken: a request
is a few hundred bytes, and a compressed one could unpack past every limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import mimetypes
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, MutableMapping
from pathlib import Path
from typing import Any, Final

import grpc
import uvicorn
from connectrpc import _codec
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.method import IdempotencyLevel, MethodInfo
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf import descriptor, message_factory
from google.rpc import status_pb2

from engine_service.api.errors import status_for
from engine_service.api.wire import Unreadable
from engine_service.core.errors import EngineError
from engine_service.web import intake

log = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
Behaviour = Callable[..., Any]

STATIC_ROOT = Path(__file__).resolve().parents[2] / "web" / "dist"
"""Where ``make web`` writes the bundled page."""
STARTUP_SECONDS = 15.0
_NOT_BUILT = b"<!doctype html><title>cardengine</title><p>The page is not built: run make web."
_DETAILS_KEY: Final = "grpc-status-details-bin"
_CODES: Final = {
    status.value[0]: Code.CANCELED if status is grpc.StatusCode.CANCELLED else Code[status.name]
    for status in grpc.StatusCode
    if status is not grpc.StatusCode.OK
}
"""gRPC's codes by number, as Connect's (the same set; Connect spells CANCELLED with one L)."""
_refusal: contextvars.ContextVar[EngineError | None] = contextvars.ContextVar(
    "refusal", default=None
)
"""What the current call must end with, found before the runtime took it (see ``intake``)."""


class CallContext:
    """What the servicer asks of a call's context, over a Connect request's context."""

    def __init__(self, context: RequestContext[Any, Any]) -> None:
        self._context = context

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        """The request's headers, as gRPC metadata (names in lower case)."""
        return tuple(self._context.request_headers().allitems())

    async def abort(
        self, code: grpc.StatusCode, details: str = "", trailing_metadata: Any = ()
    ) -> None:
        """End the call with ``code``, ``details`` and the status details the metadata holds."""
        raise _connect_error(code, details, trailing_metadata)


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
    found = _refusal.get()
    if found is not None:
        raise _from_status(status_for(found))


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
        async for reply in behaviour(request, CallContext(context)):
            yield reply

    return call


def endpoints(
    behaviours: Mapping[str, Behaviour], service: descriptor.ServiceDescriptor
) -> dict[str, Any]:
    """The Connect endpoint of every method of ``service``, by its URL path."""
    found: dict[str, Any] = {}
    for method in service.methods:
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


class _ServiceApp(ConnectASGIApplication[Mapping[str, Any]]):
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
        return self._path


class WebApp:
    """The web port's ASGI application: service calls to the Connect runtime, else the page."""

    def __init__(
        self,
        behaviours: Mapping[str, Behaviour],
        service: descriptor.ServiceDescriptor,
        max_request_bytes: int | None = None,
    ) -> None:
        self._service = _ServiceApp(service, endpoints(behaviours, service), max_request_bytes)
        self._prefix = f"/{service.full_name}/"
        self._max_body = None if max_request_bytes is None else body_limit(max_request_bytes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse what the runtime cannot take (see the module docstring), route the rest."""
        if scope["type"] == "websocket":
            log.info("web request refused", extra={"reason": "WEBSOCKET"})
            await send({"type": "websocket.close", "code": 1008})  # the handshake gets 403
            return
        if scope["type"] != "http":
            return
        names = {name for name, _ in scope["headers"]}
        if {b"content-length", b"transfer-encoding"} <= names:
            log.info("web request refused", extra={"reason": "AMBIGUOUS_LENGTH"})
            await _respond(send, 400, b"both Content-Length and Transfer-Encoding", "text/plain")
            return
        if not scope["path"].startswith(self._prefix):
            await static_app(scope, receive, send)
            return
        if scope["method"] != "POST":
            await _respond(send, 405, b"service calls are POSTs", "text/plain")
            return
        try:
            taken = await intake.take(scope, receive, self._max_body)
        except intake.UnsupportedType:
            log.info("web request refused", extra={"rpc": scope["path"], "reason": "MEDIA_TYPE"})
            await _respond(
                send,
                415,
                b"send application/json, application/proto, "
                b"application/connect+json or +proto, or gRPC-Web",
                "text/plain",
            )
            return
        except intake.ClientLeft:
            return  # nobody to answer
        if taken.refusal is not None:
            log.info(
                "web request refused", extra={"rpc": scope["path"], "reason": str(taken.refusal)}
            )
        token = _refusal.set(taken.refusal)
        try:
            await self._service(scope, _replayed(taken.body, receive), send)
        finally:
            _refusal.reset(token)


def body_limit(max_request_bytes: int) -> int:
    """The longest HTTP body a request of ``max_request_bytes`` comes in.

    That is the message and its envelope's 5-byte header (Connect streams and gRPC-Web).
    """
    return max_request_bytes + intake.ENVELOPE_HEADER


def _replayed(body: bytes, receive: Receive) -> Receive:
    """``receive`` as the runtime reads it: the whole ``body`` first, then what comes next."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def replay() -> Message:
        return pending.pop() if pending else await receive()

    return replay


def _static_file(path: str) -> Path | None:
    """The file under :data:`STATIC_ROOT` that ``path`` names, if any (never outside it)."""
    relative = path.lstrip("/") or "index.html"
    candidate = (STATIC_ROOT / relative).resolve()
    if candidate.is_file() and candidate.is_relative_to(STATIC_ROOT):
        return candidate
    return None


async def static_app(scope: Scope, receive: Receive, send: Send) -> None:
    """Serve the bundled page (GET/HEAD only)."""
    if scope["method"] not in ("GET", "HEAD"):
        await _respond(send, 405, b"method not allowed", "text/plain")
        return
    found = _static_file(scope["path"])
    if found is None:
        if scope["path"] in ("/", "/index.html"):
            await _respond(send, 503, _NOT_BUILT, "text/html")
        else:
            await _respond(send, 404, b"not found", "text/plain")
        return
    kind = mimetypes.guess_type(found.name)[0] or "application/octet-stream"
    body = found.read_bytes() if scope["method"] == "GET" else b""
    await _respond(send, 200, body, kind)


async def _respond(send: Send, status: int, body: bytes, kind: str) -> None:
    headers = [(b"content-type", kind.encode()), (b"cache-control", b"no-cache")]
    if status == 400:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


class _Server(uvicorn.Server):
    """uvicorn without its own signal handlers: the engine's loop already handles them."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class WebGateway:
    """The web port's ``app`` on ``host:port`` (0 picks a free port), served by uvicorn."""

    def __init__(self, app: WebApp, host: str, port: int, grace_seconds: float) -> None:
        self._socket = socket.create_server((host, port))
        self.port = int(self._socket.getsockname()[1])
        config = uvicorn.Config(
            app,
            log_config=None,
            log_level="warning",
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=max(1, round(grace_seconds)),
        )
        self._server = _Server(config)
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Serve on the event loop that runs the gRPC server."""
        self._task = asyncio.create_task(self._server.serve(sockets=[self._socket]))
        deadline = asyncio.get_running_loop().time() + STARTUP_SECONDS
        while not self._server.started:
            if self._task.done() or asyncio.get_running_loop().time() > deadline:
                raise RuntimeError("the web gateway did not start")
            await asyncio.sleep(0.01)

    async def stop(self) -> None:
        """Stop taking calls, let open ones end within the grace period, close the socket."""
        if self._task is not None:
            self._server.should_exit = True
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._socket.close()
