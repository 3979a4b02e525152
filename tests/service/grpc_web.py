"""gRPC-Web calls as a browser makes them, over plain HTTP, for tests of the gateway."""

from __future__ import annotations

import base64
import http.client
import socket
import struct
from dataclasses import dataclass

from google.rpc import error_details_pb2, status_pb2

SERVICE_PATH = "/cardengine.v1.EngineService"
LIST_TYPES = f"{SERVICE_PATH}/ListGameTypes"


@dataclass(frozen=True)
class WebReply:
    """What a unary gRPC-Web call answered."""

    status: int
    reason: str
    message: bytes | None


def grpc_web(port: int, method: str, data: bytes) -> tuple[int, str]:
    """A gRPC-Web call: the grpc-status of its trailer frame and its ErrorInfo reason."""
    reply = grpc_web_call(port, method, data)
    return reply.status, reply.reason


def grpc_web_call(
    port: int, method: str, data: bytes, metadata: tuple[tuple[str, str], ...] = ()
) -> WebReply:
    """A gRPC-Web call with ``metadata`` as headers: its status, ErrorInfo reason and (last)
    reply message, if any."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        body = b"\x00" + struct.pack(">I", len(data)) + data
        headers = {"content-type": "application/grpc-web+proto", "x-grpc-web": "1"}
        headers.update(metadata)
        connection.request("POST", f"{SERVICE_PATH}/{method}", body, headers)
        reply = connection.getresponse().read()
    finally:
        connection.close()
    return web_reply(reply)


def envelopes(data: bytes) -> list[tuple[int, bytes]]:
    """The envelopes of a gRPC-Web body or a Connect stream: (flags, payload) each."""
    found = []
    while len(data) >= 5:  # a flags byte, a 4-byte length, the payload
        size = int.from_bytes(data[1:5], "big")
        found.append((data[0], data[5 : 5 + size]))
        data = data[5 + size :]
    return found


def web_reply(reply: bytes) -> WebReply:
    """The status, ErrorInfo reason and last message of a gRPC-Web response body."""
    status, reason, message = -1, "", None
    for flag, payload in envelopes(reply):
        if not flag & 0x80:
            message = payload
        else:
            for line in payload.decode("ascii", "replace").splitlines():
                name, _, value = line.partition(":")
                if name.strip().lower() == "grpc-status":
                    status = int(value.strip())
                if name.strip().lower() == "grpc-status-details-bin":
                    reason = reason_of(base64.b64decode(value.strip() + "=="))
    return WebReply(status, reason, message)


def reason_of(details: bytes) -> str:
    """The ErrorInfo reason of a serialized google.rpc.Status."""
    for detail in status_pb2.Status.FromString(details).details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return str(info.reason)
    return ""


def raw_http(
    port: int, request: bytes, *, leave_early: bool = False, read_seconds: float = 10.0
) -> tuple[int, bytes]:
    """Send ``request`` bytes as they are; the HTTP status and body of the answer.

    ``leave_early``: close the connection right after sending, reading nothing (0, b"").
    An answer still coming after ``read_seconds`` (an open stream) is taken as far as it came.
    """
    with socket.create_connection(("127.0.0.1", port), timeout=read_seconds) as connection:
        connection.sendall(request)
        if leave_early:
            return 0, b""
        answer = bytearray()
        try:
            while chunk := connection.recv(65536):  # the server closes: each request says so
                answer += chunk
        except TimeoutError:
            if not answer:
                raise
    head, _, body = bytes(answer).partition(b"\r\n\r\n")
    if b"transfer-encoding: chunked" in head.lower():
        body = _dechunked(body)
    return int(head.split(b" ", 2)[1]), body


def _dechunked(body: bytes) -> bytes:
    """A chunked HTTP/1.1 body's data."""
    data = bytearray()
    while body:
        size_line, _, body = body.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        data += body[:size]
        body = body[size + 2 :]
    return bytes(data)


def http_request(
    headers: dict[str, bytes], body: bytes, *, path: str = LIST_TYPES, length: int | None = None
) -> bytes:
    """A POST as bytes, with ``headers`` as they are (any byte) and a Content-Length."""
    lines = [f"POST {path} HTTP/1.1".encode(), b"host: 127.0.0.1", b"connection: close"]
    lines += [name.encode() + b": " + value for name, value in headers.items()]
    lines.append(b"content-length: " + str(len(body) if length is None else length).encode())
    return b"\r\n".join(lines) + b"\r\n\r\n" + body
