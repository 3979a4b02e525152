"""Request ids as the api reads them: the id, and the fingerprint of what the request asks.

"The same request" (AIP-155) is the same request message once parsed, less the fields that do
not change what is asked: ``request_id`` itself and, for SubmitAction, ``expected_version`` (a
retry made after re-reading the game is the same move). The rest is serialized
deterministically (map entries sorted, unknown fields dropped) and hashed with SHA-256, so
equal requests from any client library, which may order or pack fields differently on the
wire, get one fingerprint.
"""

from __future__ import annotations

import hashlib
from typing import TypeVar

from cardengine.v1 import engine_service_pb2

from engine_service.api.messages import request_id_of
from engine_service.app.idempotency import Request

WithId = TypeVar(
    "WithId", engine_service_pb2.CreateGameRequest, engine_service_pb2.SubmitActionRequest
)
"""The requests that carry a request id."""


def fingerprint(request: WithId, *ignored: str) -> bytes:
    """SHA-256 of ``request`` without ``request_id`` and the ``ignored`` fields.

    >>> from cardengine.v1 import engine_service_pb2 as pb
    >>> a = pb.SubmitActionRequest(game_id="g", seat=1, expected_version=3, request_id="x")
    >>> b = pb.SubmitActionRequest(game_id="g", seat=1, expected_version=9, request_id="y")
    >>> fingerprint(a, "expected_version") == fingerprint(b, "expected_version")
    True
    """
    copy = type(request)()
    copy.CopyFrom(request)
    copy.DiscardUnknownFields()
    for name in ("request_id", *ignored):
        copy.ClearField(name)  # type: ignore[arg-type]
    return hashlib.sha256(copy.SerializeToString(deterministic=True)).digest()


def request_of(request: WithId, *ignored: str) -> Request:
    """The well-formed id of ``request`` (1 to 64 printable characters) and its fingerprint."""
    request_id = request_id_of(request.request_id)
    return Request(request_id, fingerprint(request, *ignored))


def optional_request_of(request: WithId, caller: str = "") -> Request | None:
    """As :func:`request_of`, or ``None`` when the request has no id (no idempotency asked).

    The id is the caller's own (AIP-155): ``caller``, the name of the service key the call came
    with, is put before it, so the same id sent with another key is another request and never
    gets this key's game and tokens. A call without a key keeps the id as sent.

    >>> from cardengine.v1 import engine_service_pb2 as pb
    >>> sent = pb.CreateGameRequest(game_type="hearts", request_id="r-1")
    >>> optional_request_of(sent).request_id
    'r-1'
    >>> optional_request_of(sent, "backend-a") == optional_request_of(sent, "backend-b")
    False
    """
    if not request.request_id:
        return None
    asked = request_of(request)
    return Request(f"{caller}\n{asked.request_id}", asked.fingerprint) if caller else asked
