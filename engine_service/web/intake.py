"""What the web port checks of a call before the Connect runtime decodes it.

The runtime (connect-python) trusts its input in ways a public port cannot: it reads a body
whole before comparing it with the limit, reports a malformed timeout or a compressed
envelope it was not told about as UNKNOWN or INTERNAL, and a cut envelope as UNIMPLEMENTED.
So each call's body is read here first, at most one byte past the limit, and checked:

* its content type is one the port serves (else HTTP 415);
* a body over the limit is RESOURCE_EXHAUSTED ``REQUEST_TOO_LARGE``, as on the gRPC port;
* a header that is not ASCII, or a ``grpc-timeout`` / ``connect-timeout-ms`` that is not a
  timeout, and an enveloped body (Connect streams, gRPC-Web) that is not exactly one
  uncompressed message envelope, are INVALID_ARGUMENT ``REQUEST_UNDECODABLE``.

A refused call still goes through the runtime, with an empty request in its place and the
offending headers dropped, and the handler ends it with the refusal: so the client gets the
error in the protocol it spoke, Connect or gRPC-Web, with the same details as every error.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any, Final

from engine_service.api.errors import RequestTooLarge
from engine_service.core.errors import EngineError, MalformedRequest

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]

ENVELOPE_HEADER: Final = 5
"""An envelope's flags byte and 4-byte big-endian length, before its message."""
CONTENT_TYPES: Final = {
    b"application/json": (False, b"{}"),
    b"application/proto": (False, b""),
    b"application/connect+json": (True, b"{}"),
    b"application/connect+proto": (True, b""),
    b"application/grpc-web": (True, b""),
    b"application/grpc-web+proto": (True, b""),
    b"application/grpc-web+json": (True, b"{}"),
}
"""The media types served: whether the body is enveloped, and the empty request in it."""
_TIMEOUTS: Final = {
    b"grpc-timeout": re.compile(rb"[0-9]{1,8}[HMSmun]"),
    b"connect-timeout-ms": re.compile(rb"[0-9]{1,10}"),
}


class UnsupportedType(Exception):
    """The call's content type is none the port serves."""


class ClientLeft(Exception):
    """The client went away before its call's body was all there."""


@dataclass(frozen=True, slots=True)
class Intake:
    """A call as the runtime gets it: its body, and the error it must end with, if any."""

    body: bytes
    refusal: EngineError | None


def media_type(scope: MutableMapping[str, Any]) -> bytes:
    """The call's media type, lower case, without parameters (``b""`` when none is sent)."""
    for name, value in scope["headers"]:
        if name == b"content-type":
            return bytes(value).split(b";", 1)[0].strip().lower()
    return b""


async def take(scope: MutableMapping[str, Any], receive: Receive, limit: int | None) -> Intake:
    """Read and check one call (see the module docstring); ``scope``'s bad headers dropped.

    Raises:
        UnsupportedType: the content type is none the port serves.
        ClientLeft: the client went away mid-body.
    """
    found = CONTENT_TYPES.get(media_type(scope))
    if found is None:
        raise UnsupportedType()
    enveloped, empty = found
    refusal: EngineError | None = _header_problem(scope)
    body = await _body(receive, limit)
    if limit is not None and len(body) > limit:
        refusal = RequestTooLarge(f"the request body is over {limit} bytes")
    elif refusal is None and enveloped:
        refusal = _envelope_problem(body)
    if refusal is None:
        return Intake(body, None)
    if enveloped:
        empty = b"\x00" + len(empty).to_bytes(4, "big") + empty
    return Intake(empty, refusal)


async def _body(receive: Receive, limit: int | None) -> bytes:
    """The body, read to its end or to one byte past ``limit``."""
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientLeft()
        body += message.get("body", b"")
        if (limit is not None and len(body) > limit) or not message.get("more_body", False):
            return bytes(body)


def _header_problem(scope: MutableMapping[str, Any]) -> MalformedRequest | None:
    """The first unreadable header, as the call's error; every unreadable one is dropped."""
    kept, problem = [], None
    for name, value in scope["headers"]:
        pattern = _TIMEOUTS.get(name)
        if not (name + value).isascii():
            what = "holds bytes that are not ASCII"
        elif pattern is not None and not pattern.fullmatch(value):
            what = "not a timeout in this header's format"
        else:
            kept.append((name, value))
            continue
        problem = problem or _undecodable(f"header {name.decode('latin-1')}", what)
    scope["headers"] = kept
    return problem


def _envelope_problem(body: bytes) -> MalformedRequest | None:
    """Why ``body`` is not exactly one uncompressed message envelope, if it is not."""
    if len(body) < ENVELOPE_HEADER or int.from_bytes(body[1:5], "big") != len(body) - 5:
        return _undecodable("body", "not exactly one message envelope")
    if body[0] != 0:
        return _undecodable("body", "a compressed or end envelope; send it uncompressed")
    return None


def _undecodable(field: str, description: str) -> MalformedRequest:
    return MalformedRequest(field, description, "REQUEST_UNDECODABLE")
