"""Request ids (AIP-155): what a remembered reply holds, and how it is kept secret.

A request is identified by its id and recognised by its *fingerprint*: a SHA-256 the api layer
takes of the request message as it parsed it, without the fields that do not change what is
asked (the id itself and, for a move, ``expected_version``). The same id with another
fingerprint is refused (REQUEST_ID_REUSED) rather than answered with another request's reply.

A move's reply is the version it reached and the fingerprint (40 bytes in the game's hash):
the view is rebuilt from a checkpoint. A CreateGame's reply holds the seat and admin tokens,
which the service otherwise keeps only as hashes, so it is stored *sealed*: AES-256-GCM under
a key derived (HKDF-SHA256) from the request id, under a Redis key named by another hash of
the id. Reading Redis gives neither the id nor the key; whoever knows the id and the request
could ask the service for the reply anyway. So the secrecy is that of the id: clients use a
random UUID4 (122 bits), and a guessable id protects nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from engine_service.core.errors import MalformedRequest

VERSION_BYTES: Final = 8
FINGERPRINT_BYTES: Final = 32
NONCE_BYTES: Final = 12
_SEALED_FORMAT: Final = b"\x01"
"""The first byte of a sealed reply: the layout below, so a later one can be told apart."""
_NAME_LABEL: Final = b"cardengine/create-request-key\x00"
_KEY_INFO: Final = b"cardengine/create-reply-aes-gcm"


@dataclass(frozen=True, slots=True)
class Request:
    """A request's id and the fingerprint of what it asks."""

    request_id: str
    fingerprint: bytes


@dataclass(frozen=True, slots=True)
class FirstCreation:
    """What a CreateGame answered the first time: enough to answer again without the log."""

    game_id: str
    version: int
    tokens: Mapping[int, str]
    admin_token: str
    snapshot: bytes


def reused(field_path: str = "request_id") -> MalformedRequest:
    """The refusal of an id sent again with a different request."""
    return MalformedRequest(
        field_path, "was already used for a different request", "REQUEST_ID_REUSED"
    )


def move_reply(version: int, request: Request) -> bytes:
    """A move's remembered reply: the version it reached, then the request's fingerprint."""
    return version.to_bytes(VERSION_BYTES, "big") + request.fingerprint


def replayed_version(reply: bytes, request: Request) -> int:
    """The version a remembered move reached, if it was this same request.

    Replies written before fingerprints were kept hold the version alone; they are taken as
    the same request.

    >>> request = Request("r1", bytes(32))
    >>> replayed_version(move_reply(7, request), request)
    7
    >>> replayed_version((9).to_bytes(8, "big"), request)  # stored before fingerprints
    9

    Raises:
        MalformedRequest: REQUEST_ID_REUSED, the id answered another request.
    """
    stored = reply[VERSION_BYTES : VERSION_BYTES + FINGERPRINT_BYTES]
    if stored and stored != request.fingerprint:
        raise reused()
    return int.from_bytes(reply[:VERSION_BYTES], "big")


def request_digest(request_id: str) -> bytes:
    """The hash that names a CreateGame request's reply in the store (not its key)."""
    return hashlib.sha256(_NAME_LABEL + request_id.encode()).digest()


def _cipher(request_id: str) -> AESGCM:
    hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_KEY_INFO)
    return AESGCM(hkdf.derive(request_id.encode()))


def seal(request: Request, created: FirstCreation) -> bytes:
    """The sealed reply: format byte, nonce, then AES-GCM of fingerprint and reply.

    >>> request = Request("r1", bytes(32))
    >>> first = FirstCreation("ab", 3, {0: "t"}, "admin", b"snap")
    >>> unseal(request, seal(request, first)) == first
    True
    """
    header = json.dumps(
        {
            "game_id": created.game_id,
            "version": created.version,
            "tokens": {str(seat): token for seat, token in created.tokens.items()},
            "admin_token": created.admin_token,
        }
    ).encode()
    plain = request.fingerprint + struct.pack(">I", len(header)) + header + created.snapshot
    nonce = os.urandom(NONCE_BYTES)
    return _SEALED_FORMAT + nonce + _cipher(request.request_id).encrypt(nonce, plain, None)


def unseal(request: Request, sealed: bytes) -> FirstCreation:
    """The first reply to this request id, if it was this same request.

    Raises:
        MalformedRequest: REQUEST_ID_REUSED, the id answered another request.
        ValueError: the stored bytes are not a reply sealed under this id.
    """
    if sealed[:1] != _SEALED_FORMAT:
        raise ValueError("not a sealed reply of a known format")
    nonce, body = sealed[1 : 1 + NONCE_BYTES], sealed[1 + NONCE_BYTES :]
    try:
        plain = _cipher(request.request_id).decrypt(nonce, body, None)
    except InvalidTag:
        raise ValueError("the sealed reply does not open under this request id") from None
    if plain[:FINGERPRINT_BYTES] != request.fingerprint:
        raise reused()
    (length,) = struct.unpack_from(">I", plain, FINGERPRINT_BYTES)
    start = FINGERPRINT_BYTES + 4
    header = json.loads(plain[start : start + length])
    return FirstCreation(
        game_id=header["game_id"],
        version=int(header["version"]),
        tokens={int(seat): token for seat, token in header["tokens"].items()},
        admin_token=header["admin_token"],
        snapshot=plain[start + length :],
    )
