"""gRPC-Web for the browser table, served by uvicorn on the gRPC server's event loop.

The page (``web/``, bundled into ``web/dist`` by ``make web``) calls the EngineService over
gRPC-Web. :class:`WebGateway` hands those calls to the *same* :class:`EngineServicer` instance
the gRPC server uses, through ``sonora``'s ASGI application, and serves the page's files from
the same ASGI app. Two gaps of ``sonora`` 0.2.3 are filled here, without touching any
handler: its context's ``abort`` takes no trailing metadata (so the ``google.rpc.Status``
details the servicer sends, ``grpc-status-details-bin``, would be lost), and an error in a
server stream after its first message, or a stream with no message at all, is not reported
as a status. Both are answered here with a proper grpc-web trailer frame.

sonora also trusts what a client sends: it reads a call's whole HTTP body however long, and
a body that is not base64 (``grpc-web-text``), a ``grpc-timeout`` it cannot parse, a header
that is not ASCII or a client that leaves mid-body raise inside it, which uvicorn answers
with HTTP 500 and a logged traceback. Here every call is read and checked first
(:func:`_problem`): a body longer than the request limit allows is not read further
(RESOURCE_EXHAUSTED ``REQUEST_TOO_LARGE``, as gRPC's own limit on the gRPC port), anything
else unreadable gets INVALID_ARGUMENT ``REQUEST_UNDECODABLE`` naming what was wrong, each
with one log line, and a client that left gets nothing and leaves nothing in the log. A
request with both ``Content-Length`` and ``Transfer-Encoding`` is refused with HTTP 400 and
the connection closed (which of the two framed it is ambiguous: request smuggling), and a
WebSocket upgrade is refused (403).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import logging
import mimetypes
import re
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, MutableMapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

import grpc
import uvicorn
from google.rpc import status_pb2
from sonora import protocol  # type: ignore[import-untyped]
from sonora.asgi import ServicerContext, grpcASGI  # type: ignore[import-untyped]

from engine_service.api.errors import RequestTooLarge, status_for
from engine_service.core.errors import EngineError, MalformedRequest

log = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

STATIC_ROOT = Path(__file__).resolve().parents[2] / "web" / "dist"
"""Where ``make web`` writes the bundled page."""
STARTUP_SECONDS = 15.0
_NOT_BUILT = b"<!doctype html><title>cardengine</title><p>The page is not built: run make web."


class _Aborted(grpc.RpcError):
    """Raised by :meth:`_Context.abort`, as ``grpc.aio`` raises on ``context.abort``."""


class _BodyTooLarge(Exception):
    """A call's HTTP body outgrew what a request within the limit can take."""


class _ClientLeft(Exception):
    """The client went away before its call's body was all there."""


_TIMEOUT = re.compile(rb"[0-9]{1,8}[HMSmun]")
"""A ``grpc-timeout`` value as the gRPC protocol writes it: up to 8 digits and a unit."""
_FRAME_HEADER = 5
"""A gRPC message frame: a flags byte and a 4-byte big-endian length, then the message."""


def body_limit(max_request_bytes: int) -> int:
    """The longest HTTP body a request of ``max_request_bytes`` can come in.

    Its frame header adds 5 bytes and ``grpc-web-text`` base64 adds a third; a body within
    this but a message over the limit still reaches the deserializer, which refuses it with
    the details of a status (``REQUEST_TOO_LARGE``).
    """
    return (max_request_bytes + 5) * 4 // 3 + 4


async def _whole_body(receive: Receive, limit: int | None) -> bytes:
    """A call's HTTP body, read to its end.

    Raises:
        _BodyTooLarge: it passed ``limit`` bytes (nothing more is read).
        _ClientLeft: the client went away first.
    """
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise _ClientLeft()
        body += message.get("body", b"")
        if limit is not None and len(body) > limit:
            raise _BodyTooLarge()
        if not message.get("more_body", False):
            return bytes(body)


def _replayed(body: bytes, receive: Receive) -> Receive:
    """``receive`` as sonora reads it: the whole ``body`` first, then whatever comes next."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def replay() -> Message:
        return pending.pop() if pending else await receive()

    return replay


def _problem(scope: Scope, body: bytes) -> MalformedRequest | None:
    """What makes a gRPC-Web call unreadable, if anything: its headers, then its body.

    The body of a unary-request call is one uncompressed message frame, base64 as a whole
    for ``grpc-web-text``; the message itself is the deserializer's to judge.
    """
    for name, value in scope["headers"]:
        header = name.decode("latin-1")
        if not (name + value).isascii():
            return _undecodable(f"header {header}", "holds bytes that are not ASCII")
        if name == b"grpc-timeout" and not _TIMEOUT.fullmatch(value):
            return _undecodable("header grpc-timeout", "is not a gRPC timeout, e.g. 5S")
        if name.endswith(b"-bin") and not _is_base64(value, padded=False):
            return _undecodable(f"header {header}", "is not base64")
    kind = dict(scope["headers"]).get(b"content-type", b"")
    if b"text" in kind:
        if not _is_base64(body, padded=True):
            return _undecodable("body", "is not base64, as grpc-web-text needs")
        body = base64.b64decode(body)
    if len(body) < _FRAME_HEADER or int.from_bytes(body[1:5], "big") != len(body) - 5:
        return _undecodable("body", "is not one gRPC message frame")
    if body[0] != 0:
        return _undecodable("body", "is a compressed or trailer frame; send it uncompressed")
    return None


def _undecodable(field: str, description: str) -> MalformedRequest:
    return MalformedRequest(field, f"{field} {description}", "REQUEST_UNDECODABLE")


def _is_base64(data: bytes, *, padded: bool) -> bool:
    """Whether ``data`` is base64 (padding optional unless ``padded``, as gRPC allows)."""
    try:
        base64.b64decode(data if padded else data + b"=" * (-len(data) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


class _Context(ServicerContext):  # type: ignore[misc]
    """sonora's context, whose ``abort`` also keeps the trailing metadata (status details)."""

    async def abort(
        self, code: grpc.StatusCode, details: str = "", trailing_metadata: Any = ()
    ) -> None:
        if code == grpc.StatusCode.OK:
            raise ValueError("abort needs an error code")
        self.set_code(code)
        self.set_details(details)
        if trailing_metadata:
            self.set_trailing_metadata(tuple(trailing_metadata))
        raise _Aborted()


def _trailers(context: _Context) -> bytes:
    """The grpc-web trailer frame: status, message and the trailing metadata (details)."""
    trailers = [("grpc-status", str(context.code.value[0]))]
    if context.details:
        trailers.append(("grpc-message", quote(str(context.details).encode("utf8"))))
    trailers.extend(context._trailing_metadata or ())
    return bytes(context._wrap_message(True, False, protocol.pack_trailers(trailers)))


class GrpcWebApp(grpcASGI):  # type: ignore[misc]
    """sonora's ASGI app with status details kept and stream errors reported as statuses."""

    def __init__(self, application: Any, max_body: int | None = None) -> None:
        super().__init__(application, enable_cors=False)
        self._max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Handle the call as sonora does, once its request is read and found readable."""
        if scope["type"] == "websocket":
            log.info("web request refused", extra={"reason": "WEBSOCKET"})
            await send({"type": "websocket.close", "code": 1008})  # the handshake gets 403
            return
        if scope["type"] != "http":
            return
        headers = {name for name, _ in scope["headers"]}
        if {b"content-length", b"transfer-encoding"} <= headers:
            log.info("web request refused", extra={"reason": "AMBIGUOUS_LENGTH"})
            await _respond(send, 400, b"both Content-Length and Transfer-Encoding", "text/plain")
            return
        if scope["method"] != "POST" or self._get_rpc_handler(scope["path"]) is None:
            await super().__call__(scope, receive, send)  # the page's files
            return
        try:
            body = await _whole_body(receive, self._max_body)
        except _ClientLeft:
            return  # nobody to answer
        except _BodyTooLarge:
            error: EngineError = RequestTooLarge(f"the request body is over {self._max_body} bytes")
        else:
            found = _problem(scope, body)
            if found is None:
                await super().__call__(scope, _replayed(body, receive), send)
                return
            error = found
        status = status_for(error)
        log.info("web request refused", extra={"rpc": scope["path"], "reason": status.message})
        await _refuse(scope, send, status)

    def _create_context(self, scope: Scope) -> _Context:
        context = super()._create_context(scope)
        context.__class__ = _Context
        return context  # type: ignore[no-any-return]

    async def _do_grpc_error(self, send: Send, context: _Context) -> None:
        await send(
            {"type": "http.response.start", "status": 200, "headers": context._response_headers}
        )
        await send({"type": "http.response.body", "body": _trailers(context), "more_body": False})

    async def _do_unary_response(
        self,
        rpc_method: grpc.RpcMethodHandler[Any, Any],
        receive: Receive,
        send: Send,
        wrap_message: Callable[[bool, bool, bytes], bytes],
        context: _Context,
        coroutine: Awaitable[Any] | None,
    ) -> None:
        # sonora 0.2.3 writes this trailer frame's names and values as Python bytes reprs.
        message = None if coroutine is None else await coroutine
        serialize = rpc_method.response_serializer
        assert serialize is not None  # every generated handler has one
        body = b"" if message is None else wrap_message(False, False, serialize(message))
        body += _trailers(context)
        headers = [*context._response_headers, *(context._initial_metadata or ())]
        headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body, "more_body": False})

    async def _do_streaming_response(
        self,
        rpc_method: grpc.RpcMethodHandler[Any, Any],
        receive: Receive,
        send: Send,
        wrap_message: Callable[[bool, bool, bytes], bytes],
        context: _Context,
        coroutine: AsyncIterator[Any] | None,
    ) -> None:
        headers = context._response_headers
        serialize = rpc_method.response_serializer
        assert serialize is not None  # every generated handler has one
        started = False

        async def start() -> None:
            nonlocal started
            if not started:
                if context._initial_metadata:
                    headers.extend(context._initial_metadata)
                await send({"type": "http.response.start", "status": 200, "headers": headers})
                started = True

        disconnected = asyncio.create_task(_disconnect(receive))
        try:
            if coroutine is not None:
                while True:
                    following = asyncio.ensure_future(anext(coroutine))
                    await asyncio.wait(
                        {following, disconnected}, return_when=asyncio.FIRST_COMPLETED
                    )
                    if not following.done():  # the page went away: end the stream now
                        following.cancel()
                        with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
                            await following
                        return
                    try:
                        message = following.result()
                    except StopAsyncIteration:
                        break
                    await start()
                    body = wrap_message(False, False, serialize(message))
                    await send({"type": "http.response.body", "body": body, "more_body": True})
        except grpc.RpcError:
            pass  # the context holds the status the servicer aborted with
        finally:
            disconnected.cancel()
            if coroutine is not None:
                await coroutine.aclose()  # type: ignore[attr-defined]
        await start()
        await send({"type": "http.response.body", "body": _trailers(context), "more_body": False})


async def _refuse(scope: Scope, send: Send, status: status_pb2.Status) -> None:
    """End a call the servicer never saw with ``status``, in a trailers-only reply."""
    kind = dict(scope["headers"]).get(b"content-type", b"application/grpc-web+proto")
    if not kind.isascii() or b"grpc-web" not in kind:
        kind = b"application/grpc-web+proto"
    details = base64.b64encode(status.SerializeToString()).decode()
    text = f"grpc-status: {status.code}\r\ngrpc-message: {quote(status.message)}\r\n"
    text += f"grpc-status-details-bin: {details}\r\n"
    frame = b"\x80" + len(text).to_bytes(4, "big") + text.encode()
    if b"text" in kind:
        frame = base64.b64encode(frame)
    headers = [(b"content-type", kind), (b"content-length", str(len(frame)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": frame, "more_body": False})


async def _disconnect(receive: Receive) -> None:
    """Return once the client has gone away."""
    while (await receive())["type"] != "http.disconnect":
        pass


def _static_file(path: str) -> Path | None:
    """The file under :data:`STATIC_ROOT` that ``path`` names, if any (never outside it)."""
    relative = path.lstrip("/") or "index.html"
    candidate = (STATIC_ROOT / relative).resolve()
    if candidate.is_file() and candidate.is_relative_to(STATIC_ROOT):
        return candidate
    return None


async def static_app(scope: Scope, receive: Receive, send: Send) -> None:
    """Serve the bundled page (GET/HEAD only)."""
    if scope["type"] != "http":
        return
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


Register = Callable[[Any, grpc.Server], None]
"""A generated ``add_...Servicer_to_server``: the api layer passes it, so that only the api
touches generated code and this gateway serves whatever that servicer implements."""


def build_app(
    servicer: object, register: Register, max_request_bytes: int | None = None
) -> GrpcWebApp:
    """The ASGI app: gRPC-Web calls go to ``servicer``, everything else to the page's files.

    With ``max_request_bytes``, no call's body is read past :func:`body_limit` of it.
    """
    limit = None if max_request_bytes is None else body_limit(max_request_bytes)
    app = GrpcWebApp(static_app, limit)
    register(servicer, app)
    return app


class _Server(uvicorn.Server):
    """uvicorn without its own signal handlers: the engine's loop already handles them."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class WebGateway:
    """The page and its gRPC-Web endpoint on ``host:port`` (0 picks a free port).

    ``register(servicer, app)`` adds the servicer's handlers, e.g.
    ``add_EngineServiceServicer_to_server`` with the very servicer the gRPC server has.
    """

    def __init__(
        self,
        servicer: object,
        register: Register,
        host: str,
        port: int,
        grace_seconds: float,
        max_request_bytes: int | None = None,
    ) -> None:
        self._socket = socket.create_server((host, port))
        self.port = int(self._socket.getsockname()[1])
        config = uvicorn.Config(
            build_app(servicer, register, max_request_bytes),
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
