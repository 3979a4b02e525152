"""Play over a WebSocket on the web port: the same session, one binary frame per message.

A browser cannot open a gRPC stream, and the Connect protocol over HTTP/1.1 cannot carry a
stream of requests, so Play is also served as a WebSocket at
``/cardengine.v1.EngineService/Play``. Each binary frame the client sends is one
``PlayRequest``'s bytes; each frame the server sends is one ``PlayResponse``'s. Behind the
frames runs the same handler function the gRPC port runs (the servicer behind the access
door), so the session's rules, tokens, errors and logging are Play's: a request's error is a
``PlayResponse.error`` and the socket stays open.

The handshake's headers are the call's metadata (``x-seat-token``, ``x-service-key``,
``accept-language``); a browser, which cannot set them on a WebSocket, puts each request's
seat token in ``PlayRequest.token`` and the language its page shows in the URL
(``?language=de``), which stands for ``accept-language``. What ends the whole session ends
the socket: a clean end closes it with 1000, a status with ``4000 +`` its gRPC code and the
status's message as the reason (a service key that is no key: 4016, UNAUTHENTICATED; a
client that stopped reading: 4008, RESOURCE_EXHAUSTED with WATCHER_TOO_SLOW). A frame longer
than the service's request limit closes it with 1009, and a server that stops with 1012 (or
4014, UNAVAILABLE), as the WebSocket protocol has them: the client opens another socket and
joins again. Unlike a gRPC client, a WebSocket client cannot close its side and still read:
it waits for the answers it wants before it closes the socket.

Why a WebSocket beside gRPC: it is what browsers have, and it costs less per message. Each
message is one frame written to the socket, where the gRPC server's Python layer runs a
batch of operations and its completion queue for it; with four seats each on a session,
the server spends a sixth to a quarter less CPU per move on sockets (``docs/benchmarks.md``).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from typing import Any, Final
from urllib.parse import parse_qs

import grpc
from google.protobuf.message import Message as ProtoMessage

from engine_service.api.servicer import LANGUAGE_HEADER
from engine_service.api.wire import written
from engine_service.web.connect import EndsWithAbort

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
Behaviour = Callable[..., Any]

NORMAL_CLOSURE: Final = 1000
STATUS_CLOSURE_BASE: Final = 4000
"""A session ended by a status closes with this plus the status's gRPC code."""
MAX_REASON_BYTES: Final = 123
"""The longest close reason a WebSocket close frame carries (125 bytes less the code)."""


class SessionEnded(grpc.aio.AbortError):
    """The session ends with a status (what ``context.abort`` raises on a socket).

    An AbortError, as on the gRPC port, so what throws an error into a stream to end it
    (:func:`engine_service.api.wire.cut`) lets it through.
    """

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(details)
        self.code = code
        self.details = details


class SocketContext(EndsWithAbort):
    """What the servicer asks of a call's context, over a WebSocket session."""

    def __init__(self, scope: Scope, send: Send) -> None:
        super().__init__()
        metadata = [
            (name.decode("latin-1").lower(), value.decode("latin-1"))
            for name, value in scope["headers"]
        ]
        # A page cannot set a WebSocket's headers, so the language it shows comes as
        # ?language=: it stands for the Accept-Language the browser sent on its own.
        asked = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("language")
        if asked:
            metadata = [(name, value) for name, value in metadata if name != LANGUAGE_HEADER]
            metadata.append((LANGUAGE_HEADER, asked[-1]))
        self._metadata = tuple(metadata)
        self._send = send

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        """The handshake's headers, as gRPC metadata (names in lower case)."""
        return self._metadata

    async def write(self, reply: ProtoMessage) -> None:
        """One message, as one binary frame."""
        await self._send({"type": "websocket.send", "bytes": reply.SerializeToString()})

    def ending(self, code: grpc.StatusCode, details: str, trailing_metadata: Any) -> Exception:
        """The end of the session (the socket is closed with the code)."""
        return SessionEnded(code, details)


def close_frame(ended: SessionEnded | None) -> Message:
    """The close message for a session that ended cleanly (``None``) or with a status."""
    if ended is None:
        return {"type": "websocket.close", "code": NORMAL_CLOSURE}
    reason = ended.details.encode()[:MAX_REASON_BYTES].decode(errors="ignore")
    code = STATUS_CLOSURE_BASE + int(ended.code.value[0])
    return {"type": "websocket.close", "code": code, "reason": reason}


async def _requests(receive: Receive, parse: Callable[[bytes], Any]) -> AsyncIterator[Any]:
    """Each frame's request (or its Unreadable marker) until the client leaves."""
    while True:
        message = await receive()
        if message["type"] != "websocket.receive":
            return  # websocket.disconnect: the client closed the socket or went away
        data = message.get("bytes")
        yield parse(data if data is not None else message.get("text", "").encode())


async def play_over_socket(
    play: Behaviour,
    parse: Callable[[bytes], Any],
    scope: Scope,
    receive: Receive,
    send: Send,
    stall_seconds: float,
) -> None:
    """Run one Play session on an accepted WebSocket, then close it with how it ended.

    ``parse`` reads a frame's bytes as a request, or as the marker of bytes that are none
    (:func:`engine_service.api.wire.deserializer`).
    """
    if (await receive())["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    context = SocketContext(scope, send)
    ended: SessionEnded | None = None
    try:
        await written(play, stall_seconds)(_requests(receive, parse), context)
    except SessionEnded as status:
        ended = status
    except OSError:
        return  # the client went away while a message was on its way: nobody to tell
    with contextlib.suppress(OSError):
        await send(close_frame(ended))
