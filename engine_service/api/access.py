"""Service keys at the door of every port: which key may call what, and how often.

With service keys configured (``--service-key``), every EngineService call that carries an
``x-service-key`` must carry one of them (else UNAUTHENTICATED, ``SERVICE_KEY_INVALID``), and
the methods that use a key's powers need its scope (:data:`METHOD_SCOPES`):

* ``CreateGame`` needs a key with ``create``, and ``ListGames`` one with ``list``: without
  a key UNAUTHENTICATED, with a key lacking it PERMISSION_DENIED (``SERVICE_KEY_SCOPE``);
* ``GetGame`` (``list``) and ``UpdateSeat``, ``EndGame``, ``RematchGame`` (``admin``) take
  the game's admin token instead: a key lacking the scope is refused only when no admin token
  came with it, and never stands in for one (:func:`engine_service.app.seats.call_scope`);
* ``RematchGame`` makes a game, so it also needs what ``CreateGame`` needs: a key with
  ``create``, whose games window counts the rematch (the admin token alone made games past
  every quota);
* seat-token calls (views, moves, suggestions, watches) take any of the keys; players send
  none.

Every call made with a key then takes a token from that key's bucket (one per call, whatever
it costs: ``SuggestAction`` searches for up to a few hundred milliseconds of CPU, bounded by
its budget cap in :mod:`engine_service.app.suggest` rather than by more tokens), and every
``CreateGame`` or ``RematchGame`` made with a key counts one game in its window
(:mod:`engine_service.store.quota`): over either, RESOURCE_EXHAUSTED (``RATE_LIMITED``,
``GAME_QUOTA_EXCEEDED``) with a ``RetryInfo`` and a ``QuotaFailure``. A game whose call then
fails is taken back out of the window. Calls without a key are not metered here.

With no keys configured none of this runs (no door): a local setup, as logged at start.
The door stands in front of each method's handler where the handlers are registered
(:func:`engine_service.api.wire.method_handlers`), so the gRPC port and the web port (the
browser gateway) apply one policy, with one log line per refusal.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2

from engine_service.api.errors import DOMAIN, abort, unexpected_status
from engine_service.api.servicer import ADMIN_HEADER, SERVICE_KEY_HEADER, language_of, metadata_of
from engine_service.api.session import Refused as RequestRefused
from engine_service.api.wire import Unreadable, is_session
from engine_service.app.seats import ADMIN, CREATE, LIST, ServiceKey, ServiceKeys, call_scope
from engine_service.i18n import explain
from engine_service.settings import Settings
from engine_service.store.quota import KeyQuotas

Context = grpc.aio.ServicerContext[Any, Any]
Behaviour = Callable[..., Any]
"""A method's handler function: a coroutine function, or an async generator function."""
log = logging.getLogger(__name__)
rpc_log = logging.getLogger("engine_service.rpc")

METHOD_SCOPES: Final[Mapping[str, tuple[str, bool]]] = {
    "CreateGame": (CREATE, True),
    "ListGames": (LIST, True),
    "GetGame": (LIST, False),
    "UpdateSeat": (ADMIN, False),
    "EndGame": (ADMIN, False),
    "RematchGame": (ADMIN, False),
}
"""The scope each method asks of a key, and whether it needs one (else the admin token may do)."""
CREATING: Final = frozenset({"CreateGame", "RematchGame"})
"""The methods that make a game, counted in the key's games window."""


@dataclass(frozen=True, slots=True)
class QuotaDefaults:
    """The quotas of a key whose configuration line sets none of its own.

    Attributes:
        rate: calls per second into each key's bucket (0: calls are not limited).
        burst: the bucket's size.
        games: games each key may create within ``window_ms`` (0: not limited).
        window_ms: the games window.
    """

    rate: float
    burst: int
    games: int
    window_ms: int

    @classmethod
    def of(cls, settings: Settings) -> QuotaDefaults:
        """The defaults the settings give; a window of 0 is the game TTL."""
        window = settings.key_games_window_seconds or settings.game_ttl_seconds
        return cls(settings.key_rate, settings.key_burst, settings.key_games, window * 1000)


class Refused(Exception):
    """A call the door turns away, with the status that says why."""

    def __init__(self, status: status_pb2.Status) -> None:
        super().__init__(status.message)
        self.status = status


def _status(
    code: int, reason: str, message: str, metadata: Mapping[str, str], language: str, *extra: Any
) -> status_pb2.Status:
    """A status as :mod:`engine_service.api.errors` builds them: ErrorInfo, details, text."""
    details = []
    info = error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata=metadata)
    text = error_details_pb2.LocalizedMessage(
        locale=language, message=explain(reason, metadata, language)
    )
    for detail in (info, *extra, text):
        holder = any_pb2.Any()
        holder.Pack(detail)
        details.append(holder)
    return status_pb2.Status(code=code, message=message, details=details)


def _seconds(ms: int) -> str:
    """Milliseconds as seconds for people: ``1500`` -> ``"1.5"``."""
    return f"{ms / 1000:.3f}".rstrip("0").rstrip(".")


def _lacks(method: str, key: ServiceKey, scope: str, language: str) -> Refused:
    """PERMISSION_DENIED (``SERVICE_KEY_SCOPE``): ``key`` lacks the ``scope`` ``method`` needs."""
    return Refused(
        _status(
            code_pb2.PERMISSION_DENIED,
            "SERVICE_KEY_SCOPE",
            f"{method}: service key {key.name} lacks the scope {scope}",
            {"key": key.name, "scope": scope},
            language,
        )
    )


def _exhausted(
    reason: str, key: ServiceKey, ms: int, what: str, language: str, **metadata: str
) -> Refused:
    """RESOURCE_EXHAUSTED with when to retry (RetryInfo) and which quota (QuotaFailure)."""
    delay = duration_pb2.Duration(seconds=ms // 1000, nanos=(ms % 1000) * 1_000_000)
    violation = error_details_pb2.QuotaFailure.Violation(
        subject=f"service_key:{key.name}", description=what
    )
    facts = {"key": key.name, "retrySeconds": _seconds(ms), **metadata}
    return Refused(
        _status(
            code_pb2.RESOURCE_EXHAUSTED,
            reason,
            f"service key {key.name}: {what}; retry in {facts['retrySeconds']} s",
            facts,
            language,
            error_details_pb2.RetryInfo(retry_delay=delay),
            error_details_pb2.QuotaFailure(violations=[violation]),
        )
    )


@dataclass(frozen=True, slots=True)
class Admission:
    """An admitted call: the scope it asks of a key, and the game it counted (to take back)."""

    scope: str
    key: ServiceKey | None = None
    game: str = ""

    @property
    def caller(self) -> str:
        """The key's name, or empty for a call without a key."""
        return "" if self.key is None else self.key.name


class Door:
    """The checks of one call, over the configured keys and the quotas in Redis."""

    def __init__(self, keys: ServiceKeys, quotas: KeyQuotas, defaults: QuotaDefaults) -> None:
        self._keys = keys
        self._quotas = quotas
        self._defaults = defaults

    async def admit(self, method: str, request: Any, context: Context) -> Admission:
        """Check the call's key, scope and quotas, and count it.

        Raises:
            Refused: the key, its scope or a quota does not let the call in.
        """
        language = language_of(context)
        sent = metadata_of(context, SERVICE_KEY_HEADER)
        key = self._keys.find(sent)
        scope, needs_key = METHOD_SCOPES.get(method, (ADMIN, False))
        makes_game = method in CREATING
        if key is None and (sent or needs_key or makes_game):
            needed = CREATE if makes_game else scope
            what = "is no key of this service" if sent else f"with scope {needed} is needed"
            raise Refused(
                _status(
                    code_pb2.UNAUTHENTICATED,
                    "SERVICE_KEY_INVALID",
                    f"{method}: an x-service-key {what}",
                    {},
                    language,
                )
            )
        if key is None:
            return Admission(scope)
        lacking = method in METHOD_SCOPES and scope not in key.scopes
        if lacking and (needs_key or not metadata_of(context, ADMIN_HEADER)):
            raise _lacks(method, key, scope, language)
        if makes_game and CREATE not in key.scopes:
            raise _lacks(method, key, CREATE, language)
        await self._take_call(key, language)
        game = await self._count_game(key, request, language) if makes_game else ""
        return Admission(scope, key, game)

    async def _take_call(self, key: ServiceKey, language: str) -> None:
        rate = self._defaults.rate if key.limits.rate is None else key.limits.rate
        burst = key.limits.burst or self._defaults.burst
        if rate <= 0:
            return
        verdict = await self._quotas.take_call(key.name, rate, burst)
        if not verdict.admitted:
            what = f"more than {rate:g} calls per second (bursts of {burst})"
            raise _exhausted("RATE_LIMITED", key, verdict.retry_ms, what, language)

    async def _count_game(self, key: ServiceKey, request: Any, language: str) -> str:
        limit = self._defaults.games if key.limits.games is None else key.limits.games
        if limit <= 0:
            return ""
        window = self._defaults.window_ms
        request_id = getattr(request, "request_id", "")
        asked = request_id if isinstance(request_id, str) else ""
        verdict = await self._quotas.add_game(key.name, limit, window, asked)
        if not verdict.admitted:
            what = f"{limit} games per {_seconds(window)} s created"
            raise _exhausted(
                "GAME_QUOTA_EXCEEDED", key, verdict.retry_ms, what, language, limit=str(limit)
            )
        return verdict.member

    async def take_back(self, admission: Admission) -> None:
        """Forget the game an admitted call counted, when the call failed (nothing made)."""
        if admission.key is not None and admission.game:
            with contextlib.suppress(Exception):  # the call's own status is what the client needs
                await self._quotas.take_back_game(admission.key.name, admission.game)

    async def enter(self, method: str, request: Any, context: Context) -> Admission:
        """The admission, or the call ended with the refusal's status (logged as one line)."""
        started = time.perf_counter()
        try:
            return await self.admit(method, request, context)
        except Refused as refused:
            status = refused.status
        except Exception as error:  # Redis down: UNAVAILABLE; anything else INTERNAL, logged
            status = unexpected_status(error, method, language_of(context))
        info = error_details_pb2.ErrorInfo()
        status.details[0].Unpack(info)
        rpc_log.info(
            "rpc",
            extra={
                "rpc": method,
                "result": info.reason,
                "key": info.metadata.get("key"),
                "ms": round((time.perf_counter() - started) * 1000, 3),
            },
        )
        await abort(context, status)
        raise AssertionError("abort() always raises")  # pragma: no cover

    async def _metered(
        self, requests: AsyncIterator[Any], key: ServiceKey | None, context: Context
    ) -> AsyncGenerator[Any, None]:
        """A session's requests, each taking a call from the key's bucket (when one came).

        A request over the rate comes through as :class:`Refused`, which the session answers
        with the refusal: the request fails, the session goes on.
        """
        async for request in requests:
            if key is not None and not isinstance(request, Unreadable):
                try:
                    await self._take_call(key, language_of(context))
                except Refused as refused:
                    yield RequestRefused(request.ref, refused.status)
                    continue
            yield request

    def guard(self, method: str, behaviour: Behaviour) -> Behaviour:
        """``method``'s ``behaviour`` behind the door.

        The call is admitted first; a failed create's game is given back; the call's scope
        is set for the servicer (:func:`call_scope`). A session (Play) is admitted once, and
        then each of its requests takes a call from the key's bucket (:meth:`_metered`).
        """
        enter = self.enter
        if is_session(method):

            async def session(requests: Any, context: Context) -> AsyncIterator[Any]:
                admission = await enter(method, None, context)
                metered = self._metered(requests, admission.key, context)
                async with contextlib.aclosing(metered):
                    async for reply in behaviour(metered, context):
                        yield reply

            return session
        if inspect.isasyncgenfunction(behaviour):

            async def stream(request: Any, context: Context) -> AsyncIterator[Any]:
                await enter(method, request, context)
                async for reply in behaviour(request, context):
                    yield reply

            return stream

        async def unary(request: Any, context: Context) -> Any:
            admission = await enter(method, request, context)
            try:
                with call_scope(admission.scope, admission.caller):
                    return await behaviour(request, context)
            except Exception:  # refused or failed: no game (a cancelled call may have one)
                await self.take_back(admission)
                raise

        return unary


def access_door(settings: Settings, client: Any) -> Door | None:
    """The door for the configured keys over ``client`` (the store's Redis); none without keys.

    Raises:
        KeySpecError: a configured key cannot be read (``parse_settings`` checks them first).
    """
    keys = ServiceKeys.of(settings.service_keys)
    if not keys.required:
        log.info(
            "no service keys: CreateGame, ListGames and GetGame need no key, and nothing is "
            "rate-limited (a local setup); give --service-key for a shared service"
        )
        return None
    defaults = QuotaDefaults.of(settings)
    log.info(
        "service keys",
        extra={
            "keys": sorted(key.name for key in keys.keys),
            "rate": defaults.rate,
            "burst": defaults.burst,
            "games": defaults.games,
            "games_window_seconds": defaults.window_ms // 1000,
        },
    )
    return Door(keys, KeyQuotas(client), defaults)
