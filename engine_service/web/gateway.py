"""The web port: Connect (JSON and binary), gRPC-Web and the browser table, on one uvicorn.

Every EngineService method is served at ``/cardengine.v1.EngineService/<Method>`` by the
Connect project's own runtime (``connect-python``; the endpoints and the context the servicer
sees are :mod:`engine_service.web.connect`): the Connect protocol with JSON or binary bodies
(so ``curl`` can drive a game), server streams as Connect streams, and gRPC-Web for
browsers. Each call goes to the *same* handler functions the gRPC port runs (the servicer
behind the access door), on the gRPC server's event loop. Play, whose requests are a stream,
is a WebSocket at the same path (:mod:`engine_service.web.socket`). Everything else on the
port is the page's files.

Before a call reaches the runtime, what it cannot take is answered here: any other WebSocket
upgrade, or one from a page of another origin, is refused (403), a request with both
``Content-Length`` and ``Transfer-Encoding`` gets HTTP 400 and a closed connection (which of
the two frames the body is ambiguous: request smuggling), and each call is read and checked
by :mod:`engine_service.web.intake`, each refusal with one log line.

Browsers may call the port from other pages only for the origins configured
(``--web-origin``, :func:`cors_headers`): none by default, so only the port's own page can.
With ``--tls-cert`` the port is TLS only, with the gRPC port's certificate and client CA.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import mimetypes
import socket
import ssl
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, MutableMapping
from pathlib import Path
from typing import Any, Final

import uvicorn
from google.protobuf import descriptor, message_factory

from engine_service.api.wire import DEFAULT_MAX_REQUEST_BYTES, deserializer
from engine_service.web import intake
from engine_service.web.connect import Behaviour, Call, ServiceApp, calling, endpoints
from engine_service.web.socket import play_over_socket

log = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

STATIC_ROOT = Path(__file__).resolve().parents[2] / "web" / "dist"
"""Where ``make web`` writes the bundled page."""
STARTUP_SECONDS = 15.0
DEFAULT_STALL_SECONDS: Final = 30.0
"""How long a response's write may wait for its client (``--watcher-stall-seconds``)."""
_NOT_BUILT = b"<!doctype html><title>cardengine</title><p>The page is not built: run make web."


class WebApp:
    """The web port's ASGI application: service calls to the Connect runtime, else the page."""

    def __init__(
        self,
        behaviours: Mapping[str, Behaviour],
        service: descriptor.ServiceDescriptor,
        max_request_bytes: int | None = None,
        origins: Iterable[str] = (),
        stall_seconds: float = DEFAULT_STALL_SECONDS,
    ) -> None:
        self._service = ServiceApp(service, endpoints(behaviours, service), max_request_bytes)
        self._prefix = f"/{service.full_name}/"
        self._origins = frozenset(origin.encode() for origin in origins)
        self._stall_seconds = stall_seconds
        self._max_body = None if max_request_bytes is None else body_limit(max_request_bytes)
        self.max_message_bytes = max_request_bytes or DEFAULT_MAX_REQUEST_BYTES
        """The longest WebSocket frame taken (a longer one closes the socket with 1009)."""
        play = service.methods_by_name["Play"]
        self._play = behaviours[play.name]
        self._play_path = f"{self._prefix}{play.name}"
        self._play_request = deserializer(
            message_factory.GetMessageClass(play.input_type), self.max_message_bytes
        )

    def _allowed_socket(self, scope: Scope) -> bool:
        """Whether a WebSocket handshake may open Play.

        A browser's only from this port's own page or a configured origin (a page elsewhere
        could otherwise drive a session with what its user types in); any other client's
        (it sends no ``Origin``) always.
        """
        headers: dict[bytes, bytes] = dict(scope["headers"])
        origin = headers.get(b"origin")
        if origin is None or origin in self._origins:
            return True
        return origin.partition(b"://")[2] == headers.get(b"host", b"")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse what the runtime cannot take (see the module docstring), route the rest."""
        if scope["type"] == "websocket":
            if scope["path"] == self._play_path and self._allowed_socket(scope):
                await play_over_socket(
                    self._play, self._play_request, scope, receive, send, self._stall_seconds
                )
                return
            log.info("web request refused", extra={"rpc": scope["path"], "reason": "WEBSOCKET"})
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
        origin = dict(scope["headers"]).get(b"origin")
        if origin is not None and origin in self._origins:
            if scope["method"] == "OPTIONS":  # a browser's preflight
                await send(
                    {
                        "type": "http.response.start",
                        "status": 204,
                        "headers": cors_headers(origin, preflight=True),
                    }
                )
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                return
            send = _with_headers(send, cors_headers(origin, preflight=False))
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
        with calling(taken.refusal) as call:
            try:
                bounded = _bounded(send, call, self._stall_seconds)
                await self._service(scope, _replayed(taken.body, receive), bounded)
            except _Stalled:
                return  # the servicer logged the cut; nothing more reaches the client


CORS_REQUEST_HEADERS: Final = (
    b"content-type, connect-protocol-version, connect-timeout-ms, x-grpc-web, x-user-agent, "
    b"grpc-timeout, x-seat-token, x-admin-token, x-service-key, accept-language"
)
CORS_EXPOSED_HEADERS: Final = b"grpc-status, grpc-message, grpc-status-details-bin"


def cors_headers(origin: bytes, *, preflight: bool) -> list[tuple[bytes, bytes]]:
    """What lets a page of ``origin`` (a configured one) call the port.

    The answer to its preflight, or the headers every answer to it carries.
    """
    headers = [(b"access-control-allow-origin", origin), (b"vary", b"origin")]
    if preflight:
        headers += [
            (b"access-control-allow-methods", b"POST"),
            (b"access-control-allow-headers", CORS_REQUEST_HEADERS),
            (b"access-control-max-age", b"7200"),
        ]
    else:
        headers.append((b"access-control-expose-headers", CORS_EXPOSED_HEADERS))
    return headers


def _with_headers(send: Send, extra: list[tuple[bytes, bytes]]) -> Send:
    """``send`` that adds ``extra`` headers to the response's start."""

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", ()), *extra]}
        await send(message)

    return sending


def body_limit(max_request_bytes: int) -> int:
    """The longest HTTP body a request of ``max_request_bytes`` comes in.

    That is the message and its envelope's 5-byte header (Connect streams and gRPC-Web).
    """
    return max_request_bytes + intake.ENVELOPE_HEADER


class _Stalled(Exception):
    """A response's write waited longer than the stall time: its client stopped reading."""


def _bounded(send: Send, call: Call, stall_seconds: float) -> Send:
    """``send`` with each body write bounded by the stall time; past it the call is cut.

    A client that stops reading blocks the writes on the connection's flow control; the
    first write that waits too long, and every write after it, raise :class:`_Stalled`, and
    the call is marked stalled so its stream handler learns why it is closed.
    """

    async def bounded_send(message: Message) -> None:
        if call.stalled:
            raise _Stalled()
        if message["type"] != "http.response.body":
            await send(message)
            return
        try:
            async with asyncio.timeout(stall_seconds):
                await send(message)
        except TimeoutError:
            call.stalled = True
            raise _Stalled() from None

    return bounded_send


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


class _CutOnPurpose(logging.Filter):
    """Drops uvicorn's complaint about a response left unfinished.

    This port leaves one so only when it cut a stalled client (:func:`_bounded`), which the
    servicer logged already.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        """Whether ``record`` is logged: every one but that complaint."""
        return record.getMessage() != "ASGI callable returned without completing response."


_CUT_ON_PURPOSE = _CutOnPurpose()


class _Server(uvicorn.Server):
    """uvicorn without its own signal handlers: the engine's loop already handles them."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class WebGateway:
    """The web port's ``app`` on ``host:port`` (0 picks a free port), served by uvicorn.

    ``tls``: the certificate chain, key and (for mutual TLS) client CA files of the gRPC
    port, so both ports ask the same of a client; ``None``: plaintext.
    """

    def __init__(
        self,
        app: WebApp,
        host: str,
        port: int,
        grace_seconds: float,
        tls: tuple[str, str, str] | None = None,
    ) -> None:
        self._socket = socket.create_server((host, port))
        # asyncio turns Nagle's algorithm off only for sockets whose protocol number says TCP;
        # those accepted here say 0, so they would hold each small frame of a stream until
        # the one before is acknowledged (40 ms with delayed ACKs). Linux hands the
        # listener's TCP_NODELAY down to every socket it accepts.
        self._socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.port = int(self._socket.getsockname()[1])
        secure: dict[str, Any] = {}
        if tls is not None:
            cert, key, client_ca = tls
            secure = {"ssl_certfile": cert, "ssl_keyfile": key}
            if client_ca:
                secure |= {"ssl_ca_certs": client_ca, "ssl_cert_reqs": ssl.CERT_REQUIRED}
        config = uvicorn.Config(
            app,
            log_config=None,
            log_level="warning",
            access_log=False,
            lifespan="off",
            ws="websockets-sansio",
            ws_max_size=app.max_message_bytes,
            ws_per_message_deflate=False,  # messages of a few hundred bytes: CPU for nothing
            timeout_graceful_shutdown=max(1, round(grace_seconds)),
            **secure,
        )
        self._server = _Server(config)
        self._task: asyncio.Task[None] | None = None
        logging.getLogger("uvicorn.error").addFilter(_CUT_ON_PURPOSE)

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
