"""Typed exceptions for the engine's gRPC errors, read from the rich ``google.rpc.Status``.

The service sends every error as a ``google.rpc.Status`` whose details hold an ``ErrorInfo`` (a
stable ``reason`` such as ``MUST_FOLLOW_SUIT`` and ``metadata`` such as ``{"ruleId": "H-R4"}``),
plus a ``PreconditionFailure`` for rule breaks, a ``BadRequest`` for malformed fields or a
``RetryInfo`` and ``QuotaFailure`` for a service key over its quota, and a ``LocalizedMessage``
explaining the error in the language the call asked for (``EngineClient(..., language="fr")``;
English otherwise). Callers should branch on the exception class and ``reason``, never on the
message texts.

The conversion is split in two: :func:`from_status` is a pure function of a status code and
a status proto (easy to test), and :func:`from_rpc_error` only extracts those two from a
``grpc.RpcError``.

>>> from google.rpc import status_pb2
>>> err = from_status(grpc.StatusCode.ABORTED, status_pb2.Status(code=10, message="stale"))
>>> type(err).__name__, err.message, err.rule_id
('Aborted', 'stale', None)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Final, NamedTuple

import grpc
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

ERROR_DOMAIN: Final = "cardengine"
"""The ``ErrorInfo.domain`` of every error the engine itself raises."""

RULE_VIOLATION_TYPE: Final = "RULE"
"""The ``PreconditionFailure.Violation.type`` of a rule break; its subject is the rule ID."""


class Violation(NamedTuple):
    """One entry of a ``google.rpc.PreconditionFailure``: for rule breaks, type ``"RULE"``."""

    type: str
    subject: str
    description: str


class FieldViolation(NamedTuple):
    """One entry of a ``google.rpc.BadRequest``: the request field path and what is wrong."""

    field: str
    description: str


class QuotaViolation(NamedTuple):
    """One entry of a ``google.rpc.QuotaFailure``: whose quota (``"service_key:<name>"``), which."""

    subject: str
    description: str


class EngineError(Exception):
    """An error returned by the engine service (or by the transport on the way to it).

    Attributes:
        code: the gRPC status code.
        message: the human-readable message (English; do not parse it).
        reason: ``ErrorInfo.reason`` without the ``ERROR_REASON_`` prefix, e.g.
            ``"MUST_FOLLOW_SUIT"``; empty when the status carried no ``ErrorInfo`` (for
            example, a transport failure).
        domain: ``ErrorInfo.domain``; ``"cardengine"`` for the engine's own errors.
        metadata: ``ErrorInfo.metadata``, e.g. ``{"ruleId": "H-R4", "seat": "2"}``.
        violations: the ``PreconditionFailure`` entries.
        field_violations: the ``BadRequest`` entries.
        localized_message: the ``LocalizedMessage`` text, for showing to people (empty when
            the status carried none).
        locale: the ``LocalizedMessage`` locale, e.g. ``"fr"``.
        retry_delay: the ``RetryInfo`` delay in seconds, when the service said how long to
            wait before trying again (``None`` when it did not).
        quota_violations: the ``QuotaFailure`` entries.
    """

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        *,
        reason: str = "",
        domain: str = "",
        metadata: Mapping[str, str] | None = None,
        violations: Iterable[Violation] = (),
        field_violations: Iterable[FieldViolation] = (),
        localized_message: str = "",
        locale: str = "",
        retry_delay: float | None = None,
        quota_violations: Iterable[QuotaViolation] = (),
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason
        self.domain = domain
        self.metadata: dict[str, str] = dict(metadata or {})
        self.violations = list(violations)
        self.field_violations = list(field_violations)
        self.localized_message = localized_message
        self.locale = locale
        self.retry_delay = retry_delay
        self.quota_violations = list(quota_violations)

    @property
    def rule_id(self) -> str | None:
        """The rule the request broke (``metadata["ruleId"]``), e.g. ``"H-R4"``, if any."""
        return self.metadata.get("ruleId")

    def __str__(self) -> str:
        labels = [label for label in (self.reason, self.rule_id) if label]
        suffix = f" ({', '.join(labels)})" if labels else ""
        return f"{self.code.name}: {self.message}{suffix}"


class InvalidArgument(EngineError):
    """INVALID_ARGUMENT or OUT_OF_RANGE: the request is malformed; see ``field_violations``."""


class NotFound(EngineError):
    """NOT_FOUND: no such game, or it expired."""


class Unauthenticated(EngineError):
    """UNAUTHENTICATED: a seat token, admin token or service key is missing or wrong."""


class PermissionDenied(EngineError):
    """PERMISSION_DENIED: the token is another seat's, or the seat belongs to a bot."""


class IllegalAction(EngineError):
    """FAILED_PRECONDITION: the rules forbid the action now; ``rule_id`` names the rule."""


class Aborted(EngineError):
    """ABORTED: the game moved on since the view the action was chosen from.

    Reload the view and decide again; resending the same action blindly could be wrong.
    """


class Unavailable(EngineError):
    """UNAVAILABLE, DEADLINE_EXCEEDED or RESOURCE_EXHAUSTED: the service could not answer now.

    Unary calls retry UNAVAILABLE, because only it guarantees nothing was done, and wait out
    :class:`RateLimited` (the call was refused before it did anything), both only for calls
    that are safe to repeat. A watch changes nothing, so ``EngineClient.watch`` resumes after
    UNAVAILABLE and :class:`WatcherTooSlow` alike.
    """


class VersionExpired(InvalidArgument):
    """OUT_OF_RANGE with reason VERSION_EXPIRED: a watch asked for versions no longer kept.

    The events before some version are gone, so the stream cannot be continued from where the
    caller was: reload the view (``EngineClient.view``) and watch again from its version, or
    watch with ``reload_on_expiry=True`` to have the client do exactly that.
    """


class WatcherTooSlow(Unavailable):
    """RESOURCE_EXHAUSTED with reason WATCHER_TOO_SLOW: a watch took no message for too long.

    Nothing is lost: watching again from the last version received continues without a gap,
    which ``EngineClient.watch`` does by itself (up to its retry limit).
    """


class StorageFull(Unavailable):
    """RESOURCE_EXHAUSTED with reason STORAGE_FULL: the service's Redis is full, nothing was done.

    Never retried by the clients: sending the call again cannot succeed until the service's
    operator makes room.
    """


class QuotaExceeded(Unavailable):
    """RESOURCE_EXHAUSTED from a service key's quota: the call was refused, nothing was done.

    ``retry_delay`` says in how many seconds it would fit, ``quota_violations`` which key's
    quota it met, ``metadata["key"]`` the key's name.
    """


class RateLimited(QuotaExceeded):
    """RESOURCE_EXHAUSTED with reason RATE_LIMITED: the service key made too many calls.

    A token comes back to the key's bucket within ``retry_delay`` seconds. The clients wait
    that long and send a call that is safe to repeat again (``rate_limit_waits`` times, never
    waiting more than ``max_rate_limit_wait``); table changes are raised at once.
    """


class GameQuotaExceeded(QuotaExceeded):
    """RESOURCE_EXHAUSTED with reason GAME_QUOTA_EXCEEDED: the key made its games for now.

    ``metadata["limit"]`` is the key's games per window; the oldest leaves the window in
    ``retry_delay`` seconds. Never retried by the clients: a game quota is a budget to plan
    around, not a burst to wait out. A ``create_game`` sent again with the ``request_id`` of a
    game already made is answered, never counted twice.
    """


class Cancelled(EngineError):
    """CANCELLED: the call was cancelled on the client's side (e.g. its channel was closed).

    Not a fault of the service; a watch stopped this way can be continued from its last
    version on another channel.
    """


class AlreadyExists(EngineError):
    """ALREADY_EXISTS: what the request would create exists already; ``metadata`` names it."""


class AdminTokenInvalid(Unauthenticated):
    """UNAUTHENTICATED with reason ADMIN_TOKEN_INVALID: no valid ``x-admin-token`` (or key).

    Only the backend that created the game holds its admin token (``CreateGame``'s
    ``admin_token``); a seat token is never accepted in its place.
    """


class ServiceKeyInvalid(Unauthenticated):
    """UNAUTHENTICATED with reason SERVICE_KEY_INVALID: the service wants a service key.

    Pass one as ``EngineClient(..., service_key=...)``; it goes with every call.
    """


class SeatPlayedByBot(IllegalAction):
    """FAILED_PRECONDITION with reason SEAT_PLAYED_BY_BOT (T-R1): a bot plays the seat now.

    Its former player cannot act or leave until the admin hands it back (``update_seat``).
    """


class NothingToChange(IllegalAction):
    """FAILED_PRECONDITION with reason NOTHING_TO_CHANGE (T-R6): the seat is played so already."""


class GameNotOver(IllegalAction):
    """FAILED_PRECONDITION with reason GAME_NOT_OVER (T-R9): only a finished game is rematched."""


class AlreadyRematched(AlreadyExists):
    """ALREADY_EXISTS with reason ALREADY_REMATCHED (T-R9): see ``metadata["rematchId"]``.

    A game has at most one rematch, so a second ``rematch_game`` (for instance a retry whose
    first reply was lost) names the one that exists instead of making another.
    """

    @property
    def rematch_id(self) -> str | None:
        """The id of the rematch that exists already."""
        return self.metadata.get("rematchId")


class NoForfeitInGame(InvalidArgument):
    """INVALID_ARGUMENT with reason NO_FORFEIT_IN_GAME (T-R5): this game cannot forfeit on time."""


class RequestIdReused(InvalidArgument):
    """INVALID_ARGUMENT with reason REQUEST_ID_REUSED (AIP-155): the id came with another request.

    The first request's reply stays bound to the id, so a new request needs a new id.
    """


class Internal(EngineError):
    """Any other code (INTERNAL, UNKNOWN, UNIMPLEMENTED, ...): a fault in the service."""


_CLASS_BY_CODE: Final[Mapping[grpc.StatusCode, type[EngineError]]] = MappingProxyType(
    {
        grpc.StatusCode.INVALID_ARGUMENT: InvalidArgument,
        grpc.StatusCode.OUT_OF_RANGE: InvalidArgument,
        grpc.StatusCode.NOT_FOUND: NotFound,
        grpc.StatusCode.UNAUTHENTICATED: Unauthenticated,
        grpc.StatusCode.PERMISSION_DENIED: PermissionDenied,
        grpc.StatusCode.FAILED_PRECONDITION: IllegalAction,
        grpc.StatusCode.ABORTED: Aborted,
        grpc.StatusCode.UNAVAILABLE: Unavailable,
        grpc.StatusCode.DEADLINE_EXCEEDED: Unavailable,
        grpc.StatusCode.RESOURCE_EXHAUSTED: Unavailable,
        grpc.StatusCode.CANCELLED: Cancelled,
        grpc.StatusCode.ALREADY_EXISTS: AlreadyExists,
    }
)

_CLASS_BY_REASON: Final[Mapping[tuple[grpc.StatusCode, str], type[EngineError]]] = MappingProxyType(
    {
        (grpc.StatusCode.OUT_OF_RANGE, "VERSION_EXPIRED"): VersionExpired,
        (grpc.StatusCode.RESOURCE_EXHAUSTED, "WATCHER_TOO_SLOW"): WatcherTooSlow,
        (grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED"): RateLimited,
        (grpc.StatusCode.RESOURCE_EXHAUSTED, "GAME_QUOTA_EXCEEDED"): GameQuotaExceeded,
        (grpc.StatusCode.RESOURCE_EXHAUSTED, "STORAGE_FULL"): StorageFull,
        (grpc.StatusCode.UNAUTHENTICATED, "ADMIN_TOKEN_INVALID"): AdminTokenInvalid,
        (grpc.StatusCode.UNAUTHENTICATED, "SERVICE_KEY_INVALID"): ServiceKeyInvalid,
        (grpc.StatusCode.FAILED_PRECONDITION, "SEAT_PLAYED_BY_BOT"): SeatPlayedByBot,
        (grpc.StatusCode.FAILED_PRECONDITION, "NOTHING_TO_CHANGE"): NothingToChange,
        (grpc.StatusCode.FAILED_PRECONDITION, "GAME_NOT_OVER"): GameNotOver,
        (grpc.StatusCode.ALREADY_EXISTS, "ALREADY_REMATCHED"): AlreadyRematched,
        (grpc.StatusCode.INVALID_ARGUMENT, "NO_FORFEIT_IN_GAME"): NoForfeitInGame,
        (grpc.StatusCode.INVALID_ARGUMENT, "REQUEST_ID_REUSED"): RequestIdReused,
    }
)
"""Reasons whose remedy differs from the rest of their family get a subclass of their own."""


def error_class(code: grpc.StatusCode, reason: str = "") -> type[EngineError]:
    """The exception class for a status code and reason (:class:`Internal` if unlisted).

    The reason only ever picks a subclass of the code's own class, so code that catches the
    family (``Unavailable``) keeps working when a reason gains a class.
    """
    return _CLASS_BY_REASON.get((code, reason)) or _CLASS_BY_CODE.get(code, Internal)


def from_status(
    code: grpc.StatusCode, status: status_pb2.Status | None, message: str = ""
) -> EngineError:
    """The typed exception for a status code and its rich status (``None`` if none was sent).

    ``message`` is used only when there is no status proto (its own message wins otherwise).
    Details of unknown types are skipped, so a newer server cannot break an older client.
    """
    if status is None:
        return error_class(code)(code, message)
    info = error_details_pb2.ErrorInfo()
    violations: list[Violation] = []
    field_violations: list[FieldViolation] = []
    localized = error_details_pb2.LocalizedMessage()
    retry_delay: float | None = None
    quota_violations: list[QuotaViolation] = []
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            detail.Unpack(info)
        elif detail.Is(error_details_pb2.PreconditionFailure.DESCRIPTOR):
            failure = error_details_pb2.PreconditionFailure()
            detail.Unpack(failure)
            violations.extend(
                Violation(v.type, v.subject, v.description) for v in failure.violations
            )
        elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad_request = error_details_pb2.BadRequest()
            detail.Unpack(bad_request)
            field_violations.extend(
                FieldViolation(v.field, v.description) for v in bad_request.field_violations
            )
        elif detail.Is(error_details_pb2.LocalizedMessage.DESCRIPTOR):
            detail.Unpack(localized)
        elif detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            retry = error_details_pb2.RetryInfo()
            detail.Unpack(retry)
            retry_delay = retry.retry_delay.ToNanoseconds() / 1e9
        elif detail.Is(error_details_pb2.QuotaFailure.DESCRIPTOR):
            quota = error_details_pb2.QuotaFailure()
            detail.Unpack(quota)
            quota_violations.extend(
                QuotaViolation(v.subject, v.description) for v in quota.violations
            )
    reason_class = error_class(code, info.reason if info.domain == ERROR_DOMAIN else "")
    return reason_class(
        code,
        status.message or message,
        reason=info.reason,
        domain=info.domain,
        metadata=dict(info.metadata),
        violations=violations,
        field_violations=field_violations,
        localized_message=localized.message,
        locale=localized.locale,
        retry_delay=retry_delay,
        quota_violations=quota_violations,
    )


def from_rpc_error(err: grpc.RpcError) -> EngineError:
    """The typed exception for an error raised by a gRPC call, blocking or asyncio.

    Both ``grpc.Call`` errors and ``grpc.aio.AioRpcError`` carry their code, details and
    trailing metadata synchronously, so one conversion serves both clients. A status whose
    details disagree with the call's code or message (which ``grpc_status`` reports as
    ``ValueError``) is treated as having no details: the call's own code is what the
    transport acted on.
    """
    if not isinstance(err, grpc.Call | grpc.aio.AioRpcError):
        return Internal(grpc.StatusCode.UNKNOWN, str(err) or type(err).__name__)
    try:
        # An AioRpcError has the same synchronous code/details/trailing_metadata methods.
        status = rpc_status.from_call(err)  # type: ignore[arg-type]
    except ValueError:
        status = None
    return from_status(err.code(), status, err.details() or "")
