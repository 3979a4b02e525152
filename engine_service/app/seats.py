"""Seat tokens: random secrets handed out once and stored only as SHA-256 hashes."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from engine_service.core.errors import PermissionDenied, Unauthenticated
from engine_service.core.record import GameRecord

TOKEN_BYTES = 24  # 192 bits


def new_token() -> tuple[str, bytes]:
    """A fresh token and the hash to store in its place."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    return token, token_hash(token)


def token_hash(token: str) -> bytes:
    """The stored form of a token."""
    return hashlib.sha256(token.encode()).digest()


def authorize(record: GameRecord, seat: int, token: str | None) -> None:
    """Check that ``token`` is ``seat``'s, comparing against every seat in constant time.

    Raises:
        Unauthenticated: no token (TOKEN_MISSING), or it is no seat's (TOKEN_INVALID).
        PermissionDenied: the token belongs to another seat (SEAT_NOT_YOURS).
    """
    if not token:
        raise Unauthenticated("send the seat's token as x-seat-token metadata", "TOKEN_MISSING")
    digest = token_hash(token)
    owner = None
    for index, entry in enumerate(record.seats):
        if hmac.compare_digest(entry.token_sha256, digest):
            owner = index
    if owner is None:
        raise Unauthenticated("the token belongs to no seat of this game", "TOKEN_INVALID")
    if owner != seat:
        raise PermissionDenied(f"the token is not seat {seat}'s")
