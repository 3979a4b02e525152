"""Seat tokens and service keys: secrets the service keeps only as SHA-256 hashes.

Seat and admin tokens are handed out once by the service; service keys are made by the
operator and configured by their hash, name and scopes (:func:`parse_key_spec`).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Final

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


CREATE: Final = "create"
LIST: Final = "list"
ADMIN: Final = "admin"
SCOPES: Final = (CREATE, LIST, ADMIN)
"""What a service key may do: create games, list and read any game's metadata, manage any game."""
_NAME: Final = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_HEX: Final = re.compile(r"[0-9a-f]{64}")
_LIMITS: Final = ("rate", "burst", "games")
_CALL_SCOPE: ContextVar[str] = ContextVar("service_key_scope", default=ADMIN)
_CALLER: ContextVar[str] = ContextVar("service_key_caller", default="")


class KeySpecError(ValueError):
    """A service key's configuration line that cannot be read."""


@dataclass(frozen=True, slots=True)
class KeyLimits:
    """A key's own quotas; ``None`` takes the service's default (``--key-rate`` and so on).

    Attributes:
        rate: calls per second refilled into the key's token bucket (0: no rate limit).
        burst: the bucket's size, the most calls in a burst.
        games: the most games the key may create within the games window (0: no limit).
    """

    rate: float | None = None
    burst: int | None = None
    games: int | None = None


@dataclass(frozen=True, slots=True)
class ServiceKey:
    """One configured key: its name (logs, quotas), scopes, SHA-256 and own limits."""

    name: str
    scopes: frozenset[str]
    sha256: bytes
    limits: KeyLimits = KeyLimits()


def parse_key_spec(spec: str) -> ServiceKey:
    """Read ``name:scope,scope:sha256hex[:rate=R,burst=B,games=G]`` (the key's own limits).

    The configuration holds the key's SHA-256 only, so it gives nothing away when read.

    >>> key = parse_key_spec("lobby:create,list:" + "ab" * 32 + ":rate=5,games=100")
    >>> key.name, sorted(key.scopes), key.limits
    ('lobby', ['create', 'list'], KeyLimits(rate=5.0, burst=None, games=100))

    Raises:
        KeySpecError: the line does not have that form.
    """
    parts = spec.strip().split(":")
    if len(parts) not in (3, 4):
        raise KeySpecError(
            f"service key {_shown(spec)!r} is not name:scope,scope:sha256hex[:rate=R,burst=B,"
            "games=G]; the configuration holds the key's SHA-256, not the key: "
            "python -m engine_service.api.keys hash --name NAME --scopes create,list"
        )
    name, scopes_text, digest = parts[:3]
    if not _NAME.fullmatch(name):
        raise KeySpecError(f"service key name {name!r}: use 1 to 64 of A-Z a-z 0-9 _ . -")
    scopes = frozenset(scope.strip() for scope in scopes_text.split(",") if scope.strip())
    unknown = sorted(scopes - set(SCOPES))
    if unknown or not scopes:
        raise KeySpecError(
            f"service key {name}: scopes {scopes_text!r}; give one or more of {', '.join(SCOPES)}"
        )
    if not _HEX.fullmatch(digest.lower()):
        raise KeySpecError(f"service key {name}: {_shown(digest)!r} is not 64 hex digits (SHA-256)")
    limits = _limits_of(name, parts[3]) if len(parts) == 4 else KeyLimits()
    return ServiceKey(name, scopes, bytes.fromhex(digest), limits)


def _shown(text: str) -> str:
    """At most the start of what was configured: a key pasted by mistake stays mostly unsaid."""
    return text if len(text) <= 12 else f"{text[:6]}..."


def _limits_of(name: str, text: str) -> KeyLimits:
    values: dict[str, str] = {}
    for item in text.split(","):
        field, _, value = item.partition("=")
        if field.strip() not in _LIMITS or not value.strip():
            raise KeySpecError(f"service key {name}: limit {item!r}; use rate=R,burst=B,games=G")
        values[field.strip()] = value.strip()
    try:
        rate = float(values["rate"]) if "rate" in values else None
        burst = int(values["burst"]) if "burst" in values else None
        games = int(values["games"]) if "games" in values else None
    except ValueError:
        raise KeySpecError(f"service key {name}: limits {text!r} are not numbers") from None
    if any(value is not None and value < 0 for value in (rate, burst, games)) or burst == 0:
        raise KeySpecError(f"service key {name}: limits {text!r} must be positive")
    return KeyLimits(rate, burst, games)


def key_spec(name: str, key: str, scopes: Iterable[str]) -> str:
    """The configuration line of ``key``: what ``python -m engine_service.api.keys`` prints.

    >>> key_spec("ops", "secret", ["admin"]).rpartition(":")[0]
    'ops:admin'
    """
    return f"{name}:{','.join(scopes)}:{token_hash(key).hex()}"


@contextlib.contextmanager
def call_scope(scope: str, caller: str = "") -> Iterator[None]:
    """Let :meth:`ServiceKeys.valid` answer for ``scope`` during the current call.

    The door that admits service keys on every port (:mod:`engine_service.api.access`) knows
    the method, the servicer's handlers only the key; this tells them which of the key's
    scopes the call needs, and who calls (:func:`caller`). Outside it (no keys configured,
    so no door) a key stands in only with ``admin``.
    """
    scope_token, caller_token = _CALL_SCOPE.set(scope), _CALLER.set(caller)
    try:
        yield
    finally:
        _CALL_SCOPE.reset(scope_token)
        _CALLER.reset(caller_token)


def caller() -> str:
    """The name of the service key the current call came with; empty for none (anonymous)."""
    return _CALLER.get()


@dataclass(frozen=True, slots=True)
class ServiceKeys:
    """The service keys backends may send, kept as hashes; none configured: none needed."""

    keys: frozenset[ServiceKey]

    @classmethod
    def of(cls, specs: Iterable[str]) -> ServiceKeys:
        """The keys configured by ``specs`` (see :func:`parse_key_spec`).

        Raises:
            KeySpecError: a line cannot be read, or two keys share a name or a hash.
        """
        keys = [parse_key_spec(spec) for spec in specs]
        for attribute in ("name", "sha256"):
            if len({getattr(key, attribute) for key in keys}) < len(keys):
                raise KeySpecError(f"two service keys have the same {attribute}")
        return cls(frozenset(keys))

    @property
    def required(self) -> bool:
        """Whether listing needs a key (some are configured)."""
        return bool(self.keys)

    def find(self, key: str | None) -> ServiceKey | None:
        """The configured key ``key`` is, compared with each in constant time; else ``None``."""
        if not key or not self.keys:
            return None
        digest = token_hash(key)
        found = None
        for known in self.keys:
            if hmac.compare_digest(digest, known.sha256):
                found = known
        return found

    def valid(self, key: str | None) -> bool:
        """Whether ``key`` is one of the service's keys with the scope the current call needs."""
        found = self.find(key)
        return found is not None and _CALL_SCOPE.get() in found.scopes
