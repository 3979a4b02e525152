"""What the blocking and the asyncio clients share: everything but the I/O.

Request building, call metadata, the retry rule (UNAVAILABLE with exponential backoff,
RATE_LIMITED after the delay the service names, both for calls safe to repeat only) and
the bookkeeping that lets a ``WatchGame`` stream resume from the last version live here, so
:mod:`cardengine_client.client` and :mod:`cardengine_client.aio` differ only in how they wait
and how they read from the wire.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Final, NamedTuple, Protocol, TypeAlias

import grpc
from cardengine.v1 import engine_service_pb2, game_pb2
from google.protobuf import duration_pb2

try:  # optional: see trace_context
    from opentelemetry import propagate as _propagate
except ImportError:  # pragma: no cover (installed wherever the tests run)
    _propagate = None  # type: ignore[assignment]

from cardengine_client.errors import (
    EngineError,
    Internal,
    RateLimited,
    Unavailable,
    VersionExpired,
    WatcherTooSlow,
)

SEAT_TOKEN_KEY: Final = "x-seat-token"
"""The gRPC metadata key that carries a seat's secret token."""

ADMIN_TOKEN_KEY: Final = "x-admin-token"
"""The gRPC metadata key that carries a game's admin token (from ``CreateGame``)."""

SERVICE_KEY_KEY: Final = "x-service-key"
"""The gRPC metadata key that carries a backend's service key."""

LANGUAGE_KEY: Final = "accept-language"
"""The gRPC metadata key naming the languages wanted for texts (error explanations, summaries)."""

PLAYER_TYPES: Final = MappingProxyType(
    {
        "human": game_pb2.PLAYER_TYPE_HUMAN,
        "random": game_pb2.PLAYER_TYPE_BOT_RANDOM,
        "heuristic": game_pb2.PLAYER_TYPE_BOT_HEURISTIC,
        "search": game_pb2.PLAYER_TYPE_BOT_SEARCH,
    }
)
"""Short names accepted by ``create_game`` for each seat."""

EXPIRY_ACTIONS: Final = MappingProxyType(
    {
        "random": game_pb2.EXPIRY_ACTION_BOT_RANDOM,
        "heuristic": game_pb2.EXPIRY_ACTION_BOT_HEURISTIC,
        "forfeit": game_pb2.EXPIRY_ACTION_FORFEIT,
    }
)
"""Short names of what a clock does when a seat's time runs out (T-R5)."""

GAME_STATES: Final = MappingProxyType(
    {
        "waiting": engine_service_pb2.GAME_STATE_WAITING_FOR_HUMAN,
        "running": engine_service_pb2.GAME_STATE_RUNNING,
        "over": engine_service_pb2.GAME_STATE_OVER,
    }
)
"""Short names accepted by ``list_games`` for its state filter."""

SeatSpec: TypeAlias = "game_pb2.PlayerType.ValueType | str"
"""A seat of ``create_game``: a PlayerType value or a key of PLAYER_TYPES."""

WatchItem: TypeAlias = "engine_service_pb2.GameUpdate | engine_service_pb2.GameEnded"
"""What a watch yields: one update per version, then ``GameEnded`` if the game ends."""

LOG_PAGE_SIZE: Final = 200
"""Entries asked for per page when ``action_log_entries`` pages by itself."""

Metadata: TypeAlias = tuple[tuple[str, str], ...]


class Clock(NamedTuple):
    """A turn clock in seconds, the easy way to write a ``ClockPolicy`` (T-R4, T-R5).

    Attributes:
        per_decision: seconds each decision may take before the bank is drawn on.
        bank: extra seconds per seat for the whole game.
        on_expiry: ``"random"`` or ``"heuristic"`` (a bot makes that one move) or
            ``"forfeit"`` (the seat's side loses; refused for Hearts), or an ExpiryAction.
    """

    per_decision: float
    bank: float = 0.0
    on_expiry: game_pb2.ExpiryAction.ValueType | str = "heuristic"


ClockSpec: TypeAlias = "Clock | game_pb2.ClockPolicy | float"
"""A clock of ``create_game``: a :class:`Clock`, a ClockPolicy, or seconds per decision alone."""

GameStateSpec: TypeAlias = "engine_service_pb2.GameState.ValueType | str"
"""A state filter of ``list_games``: a GameState value or a key of GAME_STATES."""


def _named(names: Mapping[str, int], value: int | str, what: str) -> int:
    """The enum value of a short name (a value passes through); ValueError if unknown."""
    if not isinstance(value, str):
        return value
    try:
        return names[value.lower()]
    except KeyError:
        known = ", ".join(names)
        raise ValueError(f"unknown {what} {value!r}; expected one of {known}") from None


def _duration(seconds: float) -> duration_pb2.Duration:
    duration = duration_pb2.Duration()
    duration.FromNanoseconds(round(seconds * 1e9))
    return duration


def clock_policy(clock: ClockSpec) -> game_pb2.ClockPolicy:
    """The ClockPolicy of a clock given as a :class:`Clock`, a policy or seconds per decision.

    Raises:
        ValueError: an unknown ``on_expiry`` name (the service judges the durations).
    """
    if isinstance(clock, game_pb2.ClockPolicy):
        return clock
    spec = clock if isinstance(clock, Clock) else Clock(float(clock))
    on_expiry = _named(EXPIRY_ACTIONS, spec.on_expiry, "expiry action")
    return game_pb2.ClockPolicy(
        per_decision=_duration(spec.per_decision),
        bank=_duration(spec.bank),
        on_expiry=game_pb2.ExpiryAction.ValueType(on_expiry),
    )


def game_state(state: GameStateSpec) -> engine_service_pb2.GameState.ValueType:
    """The GameState of a filter given by value or short name (ValueError if unknown)."""
    return engine_service_pb2.GameState.ValueType(_named(GAME_STATES, state, "game state"))


def player_type(seat: SeatSpec) -> game_pb2.PlayerType.ValueType:
    """The PlayerType of a seat given by value or short name.

    Raises:
        ValueError: an unknown short name.
    """
    if not isinstance(seat, str):
        return seat
    try:
        return PLAYER_TYPES[seat.lower()]
    except KeyError:
        known = ", ".join(PLAYER_TYPES)
        raise ValueError(f"unknown player type {seat!r}; expected one of {known}") from None


def trace_context() -> Metadata:
    """The current OpenTelemetry context as metadata (``traceparent``, ``tracestate``).

    So the service's spans join the caller's trace; nothing without OpenTelemetry or an
    active span. OpenTelemetry is optional: the client works the same without it installed.
    """
    if _propagate is None:
        return ()
    carrier: dict[str, str] = {}
    _propagate.inject(carrier)
    return tuple(carrier.items())


class ClientSettings:
    """The options both clients take, and what follows from them alone.

    Args:
        retries: how many times a call that failed with UNAVAILABLE is tried again (0: never).
        backoff: seconds before the first retry; each later retry waits twice as long.
        timeout: deadline of each attempt, in seconds (``None``: no deadline).
        language: an ``accept-language`` value sent with every call.
        service_key: an ``x-service-key`` value sent with every call (for backends).
        rate_limit_waits: how many times a call refused with RATE_LIMITED waits out the
            ``retry_delay`` and is sent again (0: never).
        max_rate_limit_wait: the longest such wait, in seconds: a refusal that asks for a
            longer one is raised at once.
    """

    def __init__(
        self,
        *,
        retries: int,
        backoff: float,
        timeout: float | None,
        language: str | None,
        service_key: str | None = None,
        rate_limit_waits: int = 3,
        max_rate_limit_wait: float = 5.0,
    ) -> None:
        if retries < 0 or rate_limit_waits < 0:
            raise ValueError(
                f"retries and rate_limit_waits must be at least 0, got {retries}, "
                f"{rate_limit_waits}"
            )
        self.retries = retries
        self.backoff = backoff
        self.timeout = timeout
        self.language = language
        self.service_key = service_key
        self.rate_limit_waits = rate_limit_waits
        self.max_rate_limit_wait = max_rate_limit_wait

    def metadata(self, token: str | None, admin_token: str | None = None) -> Metadata:
        """The seat token, the admin token, the service key and the language, as far as set.

        Also the caller's trace context (``traceparent``) when it has an active span.
        """
        pairs = (
            (SEAT_TOKEN_KEY, token),
            (ADMIN_TOKEN_KEY, admin_token),
            (SERVICE_KEY_KEY, self.service_key),
            (LANGUAGE_KEY, self.language or None),
        )
        given = tuple((key, value) for key, value in pairs if value is not None)
        return given + trace_context()

    def delay(self, attempt: int) -> float:
        """Seconds to wait before retry number ``attempt`` (from 0).

        The backoff, doubled per attempt, of which a random half or more, so that callers
        turned away together (a burst the service shed) do not all come back at once.
        """
        return self.backoff * float(2**attempt) * random.uniform(0.5, 1.0)

    def retries_of(self, *, idempotent: bool) -> CallRetries:
        """The retry bookkeeping of one unary call (see :class:`CallRetries`)."""
        return CallRetries(self, idempotent=idempotent)


class CallRetries:
    """When one unary call is sent again, and after how long.

    Only calls that are safe to repeat: reads, and the calls that carry a request id
    (``create_game`` and ``submit`` resend the same ``request_id``, so even a reply lost after
    the service acted is answered again, never acted on twice). Table changes
    (``leave_game``, ``update_seat``, ``end_game``, ``rematch_game``) carry no request id, so
    they are never sent twice: an UNAVAILABLE whose request did arrive after all would come
    back as a second change or a confusing refusal. The caller can look with ``get_game`` and
    decide. A RATE_LIMITED table change is raised at once too, so the caller decides when.

    Of those calls, UNAVAILABLE is retried ``retries`` times with doubling backoff, and
    :class:`RateLimited` (the service key's bucket is empty; nothing was done) waits the
    ``retry_delay`` the service names, ``rate_limit_waits`` times, each wait at most
    ``max_rate_limit_wait`` seconds. A repeat is a call: it takes a token from the key's
    bucket, but a ``create_game`` repeated with its request id never counts a second game.
    """

    def __init__(self, settings: ClientSettings, *, idempotent: bool) -> None:
        self._settings = settings
        self._idempotent = idempotent
        self._unavailable = 0
        self._rate_limited = 0

    def wait_after(self, error: EngineError) -> float | None:
        """Seconds to wait before sending the call again after ``error``; ``None``: raise it."""
        settings = self._settings
        if not self._idempotent:
            return None
        if error.code is grpc.StatusCode.UNAVAILABLE and self._unavailable < settings.retries:
            self._unavailable += 1
            return settings.delay(self._unavailable - 1)
        if isinstance(error, RateLimited) and self._rate_limited < settings.rate_limit_waits:
            delay = error.retry_delay
            if delay is None:
                delay = settings.delay(self._rate_limited)
            if delay > settings.max_rate_limit_wait:
                return None
            self._rate_limited += 1
            return delay
        return None


def create_game_request(
    game_type: str,
    seats: Sequence[SeatSpec],
    options: game_pb2.GameOptions | None,
    seed: int | None,
    clock: ClockSpec | None = None,
    labels: Mapping[str, str] | None = None,
    request_id: str | None = None,
) -> engine_service_pb2.CreateGameRequest:
    """The CreateGame request (raises ValueError for an unknown seat or expiry name).

    Its ``request_id`` (a fresh UUID4 if ``None``) goes on retries, so a retry whose first
    attempt did create the game gets that game back rather than a second one.
    """
    request = engine_service_pb2.CreateGameRequest(
        game_type=game_type,
        options=options,
        seats=[player_type(seat) for seat in seats],
        clock=clock_policy(clock) if clock is not None else None,
        labels=labels,
        request_id=request_id if request_id is not None else str(uuid.uuid4()),
    )
    if seed is not None:
        request.seed = seed
    return request


def list_games_request(
    game_type: str | None,
    state: GameStateSpec | None,
    labels: Mapping[str, str] | None,
    page_size: int,
    page_token: str,
) -> engine_service_pb2.ListGamesRequest:
    """The ListGames request for one page (raises ValueError for an unknown state name)."""
    return engine_service_pb2.ListGamesRequest(
        game_type=game_type or "",
        state=game_state(state) if state is not None else engine_service_pb2.GAME_STATE_UNSPECIFIED,
        labels=labels,
        page_size=page_size,
        page_token=page_token,
    )


def update_seat_request(
    game_id: str, seat: int, player: SeatSpec | None, reissue_token: bool
) -> engine_service_pb2.UpdateSeatRequest:
    """The UpdateSeat request; no ``player`` keeps who plays the seat."""
    return engine_service_pb2.UpdateSeatRequest(
        game_id=game_id,
        seat=seat,
        player_type=player_type(player) if player is not None else game_pb2.PLAYER_TYPE_UNSPECIFIED,
        reissue_token=reissue_token,
    )


def view_request(game_id: str, seat: int | None) -> engine_service_pb2.GetGameViewRequest:
    """The GetGameView request (no seat: a spectator's view)."""
    return engine_service_pb2.GetGameViewRequest(game_id=game_id, seat=seat)


def submit_request(
    game_id: str,
    seat: int,
    action: game_pb2.Action,
    expected_version: int,
    request_id: str | None,
) -> engine_service_pb2.SubmitActionRequest:
    """The SubmitAction request; its ``request_id`` (fresh UUID if ``None``) goes on retries."""
    return engine_service_pb2.SubmitActionRequest(
        game_id=game_id,
        seat=seat,
        expected_version=expected_version,
        request_id=request_id if request_id is not None else str(uuid.uuid4()),
        action=action,
    )


def suggest_request(
    game_id: str, seat: int, playouts: int | None
) -> engine_service_pb2.SuggestActionRequest:
    """The SuggestAction request (no ``playouts``: the game's default budget)."""
    return engine_service_pb2.SuggestActionRequest(game_id=game_id, seat=seat, playouts=playouts)


def action_log_request(
    game_id: str, seat: int | None, page_size: int, page_token: str, from_index: int
) -> engine_service_pb2.GetActionLogRequest:
    """The GetActionLog request for one page."""
    return engine_service_pb2.GetActionLogRequest(
        game_id=game_id,
        seat=seat,
        page_size=page_size,
        page_token=page_token,
        from_index=from_index,
    )


def watch_request(
    game_id: str, seat: int | None, from_version: int, events_only: bool
) -> engine_service_pb2.WatchGameRequest:
    """The first WatchGame request; :class:`WatchState` moves its ``from_version`` on."""
    return engine_service_pb2.WatchGameRequest(
        game_id=game_id, seat=seat, from_version=from_version, events_only=events_only
    )


class Page(Protocol):
    """A page of a paged call (GetActionLog, ListGames): it names the page after it."""

    @property
    def next_page_token(self) -> str: ...


class PageTokens:
    """Paging bookkeeping: the next page token, refusing one the service already gave.

    Args:
        method: the paged RPC's name, for the error.
    """

    def __init__(self, method: str = "GetActionLog") -> None:
        self._method = method
        self._seen: set[str] = set()

    def after(self, page: Page) -> str | None:
        """The token of the page after ``page``; ``None`` when it was the last.

        Raises:
            Internal: the token was handed back before (paging would never end).
        """
        token = page.next_page_token
        if not token:
            return None
        if token in self._seen:
            raise Internal(grpc.StatusCode.INTERNAL, f"{self._method} repeated a page token")
        self._seen.add(token)
        return token


def resumable(error: EngineError) -> bool:
    """Whether watching again from the last version can get past ``error``.

    UNAVAILABLE covers dropped connections and a server shutting down; WATCHER_TOO_SLOW is the
    service shedding a reader that fell behind. A stream that ends without GameEnded is
    treated as a drop too (:meth:`WatchState.cut`).
    """
    return isinstance(error, WatcherTooSlow) or error.code is grpc.StatusCode.UNAVAILABLE


DEFAULT_FIRST_MESSAGE_TIMEOUT: Final = 10.0
"""Seconds a watch waits for the first message of a stream it opened before opening it again.

The service sends one at once (the view, the next version or a heartbeat), so only a stream
that never started is silent this long.
"""


class WatchState:
    """Where a resuming watch stands: the last version, failures in a row, opens, the end.

    The blocking and the asyncio watch each own one and only move messages between it and
    the wire: :meth:`open_request` before each (re)open, :meth:`take` for every message,
    :meth:`failure` when the stream breaks (it says how long to wait, or raises), and
    :meth:`silent` for a stream that sent nothing within ``first_message_timeout``.
    """

    def __init__(
        self,
        request: engine_service_pb2.WatchGameRequest,
        *,
        settings: ClientSettings,
        reload_on_expiry: bool,
        first_message_timeout: float = DEFAULT_FIRST_MESSAGE_TIMEOUT,
    ) -> None:
        self.request = request
        self.settings = settings
        self.reload_on_expiry = reload_on_expiry
        self.first_message_timeout = first_message_timeout
        self.version = request.from_version
        self.failures = 0
        self.opened = 0
        self.heard = False
        self.closed = False
        self.ended = False

    @property
    def done(self) -> bool:
        """Whether iteration is over: closed by the caller or GameEnded received."""
        return self.closed or self.ended

    @property
    def reopened(self) -> int:
        """How many times the stream was opened again after the first."""
        return max(0, self.opened - 1)

    @property
    def seat(self) -> int | None:
        """The seat watched as (``None``: a spectator)."""
        return self.request.seat if self.request.HasField("seat") else None

    def open_request(self) -> engine_service_pb2.WatchGameRequest:
        """The request for the next open: from the last version received."""
        self.opened += 1
        self.heard = False
        self.request.from_version = self.version
        return self.request

    def take(self, response: engine_service_pb2.WatchGameResponse) -> WatchItem | None:
        """What to yield for ``response``, or ``None`` (a heartbeat, a repeated version).

        Raises:
            Internal: the stream skipped versions (the service promises it never does).
        """
        self.heard = True
        kind = response.WhichOneof("message")
        if kind == "update":
            return self._accept(response.update)
        if kind == "ended":
            self.ended = True
            self.version = max(self.version, response.ended.version)
            return response.ended
        # A heartbeat (or a message kind newer than this client) only shows the stream is
        # alive, which is what the failure count needs to know.
        self.failures = 0
        return None

    def cut(self) -> EngineError:
        """The error for a stream that ended before GameEnded (the service never does that)."""
        return Unavailable(grpc.StatusCode.UNAVAILABLE, "the stream ended before the game")

    def silent(self) -> EngineError:
        """The error for a stream that sent nothing within ``first_message_timeout``."""
        return Unavailable(
            grpc.StatusCode.UNAVAILABLE,
            f"WatchGame sent nothing within {self.first_message_timeout} s of opening",
        )

    def reloads(self, error: EngineError) -> bool:
        """Whether ``error`` is answered by reloading the view instead of raising."""
        return isinstance(error, VersionExpired) and self.reload_on_expiry

    def failure(self, error: EngineError, cause: BaseException | None) -> float:
        """Seconds to wait before watching again after ``error``.

        A CANCELLED before the stream's first message is taken for a call the service shed
        before it started (gRPC does so under a burst of new calls): watching again helps.

        Raises:
            EngineError: ``error`` itself, when watching again cannot help or the failures
                in a row used up the retries.
        """
        shed = error.code is grpc.StatusCode.CANCELLED and not self.heard
        if not (resumable(error) or shed) or self.failures >= self.settings.retries:
            raise error from cause
        delay = self.settings.delay(self.failures)
        self.failures += 1
        return delay

    def reloaded(self, view: game_pb2.GameView) -> engine_service_pb2.WatchGameResponse:
        """The reloaded ``view`` as an update to take; the watch goes on from its version."""
        self.version = view.version - 1  # so that _accept takes it as the next version
        return engine_service_pb2.WatchGameResponse(
            update=engine_service_pb2.GameUpdate(version=view.version, view=view)
        )

    def _accept(
        self, update: engine_service_pb2.GameUpdate
    ) -> engine_service_pb2.GameUpdate | None:
        first = self.request.from_version == 0 and self.version == 0
        if not first and update.version <= self.version:
            return None
        # A watcher far behind gets the versions it missed merged into one update.
        begins = update.first_version or update.version
        if not first and begins != self.version + 1:
            raise Internal(
                grpc.StatusCode.INTERNAL,
                f"WatchGame jumped from version {self.version} to {begins}",
            )
        self.version = update.version
        self.failures = 0
        return update
