"""Seat tokens: random secrets handed out once and stored only as SHA-256 hashes."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass

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


@dataclass(frozen=True, slots=True)
class Admin:
    """A caller's admin credential: a game's admin token, or a valid service key."""

    token: str | None
    service_key: bool = False


def authorize_admin(record: GameRecord, admin: Admin) -> None:
    """Check that the caller may manage this game: a service key, or the game's admin token.

    Raises:
        Unauthenticated: neither (ADMIN_TOKEN_INVALID).
    """
    if admin.service_key:
        return
    if not admin.token or not record.admin_sha256:
        raise Unauthenticated(
            "send the game's admin token (from CreateGame) as x-admin-token metadata, or a "
            "service key as x-service-key",
            "ADMIN_TOKEN_INVALID",
        )
    if not hmac.compare_digest(record.admin_sha256, token_hash(admin.token)):
        raise Unauthenticated("the admin token is not this game's", "ADMIN_TOKEN_INVALID")


@dataclass(frozen=True, slots=True)
class ServiceKeys:
    """The service keys backends may send, kept as hashes; none configured: none needed."""

    hashes: frozenset[bytes]

    @classmethod
    def of(cls, keys: Iterable[str]) -> ServiceKeys:
        """The hashes of ``keys``."""
        return cls(frozenset(token_hash(key) for key in keys))

    @property
    def required(self) -> bool:
        """Whether listing needs a key (some are configured)."""
        return bool(self.hashes)

    def valid(self, key: str | None) -> bool:
        """Whether ``key`` is one of the service's keys."""
        if not key or not self.hashes:
            return False
        digest = token_hash(key)
        return any(hmac.compare_digest(digest, known) for known in self.hashes)
