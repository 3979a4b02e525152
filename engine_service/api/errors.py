"""The one place where domain errors become gRPC statuses with google.rpc details.

Every status carries an ``ErrorInfo`` (domain ``cardengine``, a stable reason, metadata);
rule breaks add a ``PreconditionFailure`` naming the rule, bad fields a ``BadRequest``, and
every status a ``LocalizedMessage`` explaining it in the caller's language
(:mod:`engine_service.i18n`).
Storage trouble becomes UNAVAILABLE (:mod:`engine_service.store.failures`); anything else
unexpected becomes INTERNAL and is logged; nothing a client sends can cause it.
Texts that may hold what the client sent carry a bounded prefix only
(:mod:`engine_service.api.bounds`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Final

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from engine_service.api.bounds import bounded
from engine_service.core.errors import (
    AlreadyExists,
    EngineError,
    GameNotFound,
    IllegalAction,
    MalformedRequest,
    NoSearchBot,
    PermissionDenied,
    ShuttingDown,
    Unauthenticated,
    VersionConflict,
    VersionExpired,
    WatcherTooSlow,
)
from engine_service.i18n import ENGLISH, explain
from engine_service.store.failures import storage_trouble

DOMAIN: Final = "cardengine"
log = logging.getLogger(__name__)


class RequestTooLarge(EngineError):
    """More request bytes than the service accepts (RESOURCE_EXHAUSTED), never parsed."""

    reason = "REQUEST_TOO_LARGE"


_CODES: Final[Mapping[type[EngineError], int]] = {
    IllegalAction: code_pb2.FAILED_PRECONDITION,
    NoSearchBot: code_pb2.FAILED_PRECONDITION,
    MalformedRequest: code_pb2.INVALID_ARGUMENT,
    GameNotFound: code_pb2.NOT_FOUND,
    Unauthenticated: code_pb2.UNAUTHENTICATED,
    PermissionDenied: code_pb2.PERMISSION_DENIED,
    VersionConflict: code_pb2.ABORTED,
    VersionExpired: code_pb2.OUT_OF_RANGE,
    WatcherTooSlow: code_pb2.RESOURCE_EXHAUSTED,
    ShuttingDown: code_pb2.UNAVAILABLE,
    AlreadyExists: code_pb2.ALREADY_EXISTS,
    RequestTooLarge: code_pb2.RESOURCE_EXHAUSTED,
}


def _packed(*messages: object) -> list[any_pb2.Any]:
    packed = []
    for message in messages:
        holder = any_pb2.Any()
        holder.Pack(message)  # type: ignore[arg-type]
        packed.append(holder)
    return packed


def _localized(
    reason: str, particulars: Mapping[str, str], language: str
) -> error_details_pb2.LocalizedMessage:
    """The ``LocalizedMessage`` explaining ``reason`` in ``language`` (a supported one)."""
    return error_details_pb2.LocalizedMessage(
        locale=language, message=explain(reason, particulars, language)
    )


def status_for(error: EngineError, language: str = ENGLISH) -> status_pb2.Status:
    """The google.rpc.Status reporting a domain error, explained in ``language``."""
    metadata: dict[str, str] = {}
    details: list[object] = []
    particulars: dict[str, str] = {}
    if isinstance(error, IllegalAction):
        violation = error.violation
        metadata = {"ruleId": violation.rule_id, **violation.metadata}
        details.append(
            error_details_pb2.PreconditionFailure(
                violations=[
                    error_details_pb2.PreconditionFailure.Violation(
                        type="RULE", subject=violation.rule_id, description=violation.message
                    )
                ]
            )
        )
    elif isinstance(error, MalformedRequest):
        particulars = {"field": bounded(error.field_path)}
        details.append(
            error_details_pb2.BadRequest(
                field_violations=[
                    error_details_pb2.BadRequest.FieldViolation(
                        field=bounded(error.field_path), description=bounded(error.description)
                    )
                ]
            )
        )
    elif isinstance(error, AlreadyExists):
        metadata = dict(error.metadata)
    elif isinstance(error, VersionConflict):
        metadata = {"expectedVersion": str(error.expected), "currentVersion": str(error.current)}
    metadata = {key: bounded(value) for key, value in metadata.items()}
    info = error_details_pb2.ErrorInfo(reason=error.reason, domain=DOMAIN, metadata=metadata)
    localized = _localized(error.reason, {**metadata, **particulars}, language)
    return status_pb2.Status(
        code=_CODES.get(type(error), code_pb2.INTERNAL),
        message=bounded(str(error)),
        details=_packed(info, *details, localized),
    )


def unexpected_status(error: Exception, method: str, language: str = ENGLISH) -> status_pb2.Status:
    """UNAVAILABLE for storage trouble (its kind in ``storageError``), INTERNAL for the rest.

    Storage trouble (:func:`~engine_service.store.failures.storage_trouble`) is logged as a
    warning: the call wrote nothing and the client may retry. A full Redis (``OOM``) is the
    exception: RESOURCE_EXHAUSTED ``STORAGE_FULL``, since a retry cannot succeed until the
    operator makes room, and a client that retries UNAVAILABLE would retry it forever.
    Anything else is a bug, logged with its traceback.
    """
    trouble = storage_trouble(error)
    metadata: dict[str, str] = {}
    if trouble == "OOM":
        log.warning("storage full", extra={"rpc": method, "error": str(error)})
        reason, code, message = "STORAGE_FULL", code_pb2.RESOURCE_EXHAUSTED, "storage full"
        metadata = {"storageError": trouble}
    elif trouble is not None:
        log.warning(
            "storage unavailable", extra={"rpc": method, "trouble": trouble, "error": str(error)}
        )
        reason, code, message = "STORAGE_UNAVAILABLE", code_pb2.UNAVAILABLE, "storage unavailable"
        metadata = {"storageError": trouble}
    else:
        log.exception("unexpected error", extra={"rpc": method})
        reason, code, message = "INTERNAL", code_pb2.INTERNAL, "internal error"
    info = error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata=metadata)
    localized = _localized(reason, {}, language)
    return status_pb2.Status(code=code, message=message, details=_packed(info, localized))


async def abort(context: grpc.aio.ServicerContext[Any, Any], status: status_pb2.Status) -> None:
    """End the call with ``status`` and its details (raises, as ``context.abort`` does)."""
    as_grpc = rpc_status.to_status(status)
    await context.abort(as_grpc.code, as_grpc.details, as_grpc.trailing_metadata)
