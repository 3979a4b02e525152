"""Domain errors. The api layer maps each class to a gRPC status; nothing here knows gRPC.

Every error carries a stable ``reason`` (UPPER_SNAKE_CASE) that clients can switch on; the
reasons are listed in ``protos/cardengine/v1/errors.proto``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class RuleViolation:
    """An action that breaks a rule of the game.

    Attributes:
        reason: a stable, machine-readable code, e.g. ``MUST_FOLLOW_SUIT``.
        rule_id: the rule in ``seeds/`` that forbids the action, e.g. ``H-R4``.
        message: an English sentence for people.
        metadata: extra string facts for clients (the led suit, whose turn it is...).
    """

    reason: str
    rule_id: str
    message: str
    metadata: Mapping[str, str] = field(default_factory=dict)


def violation(reason: str, rule_id: str, message: str, **metadata: str) -> RuleViolation:
    """A :class:`RuleViolation` written the short way every game's ``check`` uses.

    >>> violation("GAME_OVER", "H-R17", "The game is over.", seat="2").metadata
    {'seat': '2'}
    """
    return RuleViolation(reason=reason, rule_id=rule_id, message=message, metadata=metadata)


class EngineError(Exception):
    """Base class of every error the engine reports to a client."""

    reason = "UNSPECIFIED"

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        if reason is not None:
            self.reason = reason


class IllegalAction(EngineError):
    """A well-formed action that the rules forbid now (FAILED_PRECONDITION)."""

    def __init__(self, violation: RuleViolation) -> None:
        super().__init__(violation.message, violation.reason)
        self.violation = violation


def refuse(found: RuleViolation | None) -> None:
    """Stop an ``apply`` whose action its game's ``check`` found illegal, before anything changes.

    Raises:
        IllegalAction: ``found`` is a violation; ``None`` lets the action through.
    """
    if found is not None:
        raise IllegalAction(found)


class MalformedRequest(EngineError):
    """A request field that cannot be understood at all (INVALID_ARGUMENT).

    Kept apart from :class:`IllegalAction`: a malformed request is wrong in any position,
    an illegal action only in this one.
    """

    reason = "INVALID_FIELD"

    def __init__(self, field_path: str, description: str, reason: str | None = None) -> None:
        super().__init__(f"{field_path}: {description}", reason)
        self.field_path = field_path
        self.description = description


class GameNotFound(EngineError):
    """No game has this id, or it has expired (NOT_FOUND)."""

    reason = "GAME_NOT_FOUND"


class Unauthenticated(EngineError):
    """The seat token is missing (TOKEN_MISSING) or matches no seat (TOKEN_INVALID)."""

    reason = "TOKEN_INVALID"


class PermissionDenied(EngineError):
    """The token is another seat's, or the seat is played by a bot (PERMISSION_DENIED)."""

    reason = "SEAT_NOT_YOURS"


class NoSearchBot(EngineError):
    """The operator took the game's search bot off (FAILED_PRECONDITION): nothing searches.

    ``--search-budget GAME=0`` takes the search bot off a game for its CPU, and with it
    SuggestAction, which would spend that CPU on the same search.
    """

    reason = "NO_SEARCH_BOT"


class VersionConflict(EngineError):
    """The game moved on since the version the client saw (ABORTED): reload and decide again."""

    reason = "VERSION_MISMATCH"

    def __init__(self, expected: int, current: int) -> None:
        super().__init__(f"expected version {expected}, but the game is at version {current}")
        self.expected = expected
        self.current = current


class VersionExpired(EngineError):
    """A watch asked for versions older than the events kept (OUT_OF_RANGE): reload the view."""

    reason = "VERSION_EXPIRED"


class WatcherTooSlow(EngineError):
    """A watcher took no message for too long and was cut off (RESOURCE_EXHAUSTED): watch again."""

    reason = "WATCHER_TOO_SLOW"


class ShuttingDown(EngineError):
    """The server is stopping (UNAVAILABLE): watch again, on this or another server."""

    reason = "SHUTTING_DOWN"


class AlreadyExists(EngineError):
    """What the request would create exists already (ALREADY_EXISTS); ``metadata`` names it."""

    reason = "ALREADY_REMATCHED"

    def __init__(self, message: str, **metadata: str) -> None:
        super().__init__(message)
        self.metadata = metadata
