"""gRPC-Web for the browser table, served by uvicorn on the gRPC server's event loop.

The page (``web/``, bundled into ``web/dist`` by ``make web``) calls the EngineService over
gRPC-Web. :class:`WebGateway` hands those calls to the *same* :class:`EngineServicer` instance
the gRPC server uses, through ``sonora``'s ASGI application, and serves the page's files from
the same ASGI app. Two gaps of ``sonora`` 0.2.3 are filled here, without touching any
handler: its context's ``abort`` takes no trailing metadata (so the ``google.rpc.Status``
details the servicer sends, ``grpc-status-details-bin``, would be lost), and an error in a
server stream after its first message, or a stream with no message at all, is not reported
as a status. Both are answered here with a proper grpc-web trailer frame.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import mimetypes
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, MutableMapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

import grpc
import uvicorn
from sonora import protocol  # type: ignore[import-untyped]
from sonora.asgi import ServicerContext, grpcASGI  # type: ignore[import-untyped]

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
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


Register = Callable[[Any, grpc.Server], None]
"""A generated ``add_...Servicer_to_server``: the api layer passes it, so that only the api
touches generated code and this gateway serves whatever that servicer implements."""


def build_app(servicer: object, register: Register) -> GrpcWebApp:
    """The ASGI app: gRPC-Web calls go to ``servicer``, everything else to the page's files."""
    app = GrpcWebApp(static_app, enable_cors=False)
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
    ) -> None:
        self._socket = socket.create_server((host, port))
        self.port = int(self._socket.getsockname()[1])
        config = uvicorn.Config(
            build_app(servicer, register),
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
