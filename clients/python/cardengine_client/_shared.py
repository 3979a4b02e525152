"""What the blocking and the asyncio clients share: everything but the I/O.

Request building, call metadata, the retry rule (UNAVAILABLE only, exponential backoff) and
the bookkeeping that lets a ``WatchGame`` stream resume from the last version live here, so
:mod:`cardengine_client.client` and :mod:`cardengine_client.aio` differ only in how they wait
and how they read from the wire.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from types import MappingProxyType
from typing import Final, TypeAlias

import grpc
from cardengine.v1 import engine_service_pb2, game_pb2

from cardengine_client.errors import (
    EngineError,
    Internal,
    Unavailable,
    VersionExpired,
    WatcherTooSlow,
)

SEAT_TOKEN_KEY: Final = "x-seat-token"
"""The gRPC metadata key that carries a seat's secret token."""

LANGUAGE_KEY: Final = "accept-language"
"""The gRPC metadata key naming the languages wanted for texts (error explanations, summaries)."""

PLAYER_TYPES: Final = MappingProxyType(
    {
        "human": game_pb2.PLAYER_TYPE_HUMAN,
        "random": game_pb2.PLAYER_TYPE_BOT_RANDOM,
        "heuristic": game_pb2.PLAYER_TYPE_BOT_HEURISTIC,
    }
)
"""Short names accepted by ``create_game`` for each seat."""

SeatSpec: TypeAlias = "game_pb2.PlayerType.ValueType | str"
"""A seat of ``create_game``: a PlayerType value or a key of PLAYER_TYPES."""

WatchItem: TypeAlias = "engine_service_pb2.GameUpdate | engine_service_pb2.GameEnded"
"""What a watch yields: one update per version, then ``GameEnded`` if the game ends."""

LOG_PAGE_SIZE: Final = 200
"""Entries asked for per page when ``action_log_entries`` pages by itself."""

Metadata: TypeAlias = tuple[tuple[str, str], ...]


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


class ClientSettings:
    """The options both clients take, and what follows from them alone.

    Args:
        retries: how many times a call that failed with UNAVAILABLE is tried again (0: never).
        backoff: seconds before the first retry; each later retry waits twice as long.
        timeout: deadline of each attempt, in seconds (``None``: no deadline).
        language: an ``accept-language`` value sent with every call.
    """

    def __init__(
        self, *, retries: int, backoff: float, timeout: float | None, language: str | None
    ) -> None:
        if retries < 0:
            raise ValueError(f"retries must be at least 0, got {retries}")
        self.retries = retries
        self.backoff = backoff
        self.timeout = timeout
        self.language = language

    def metadata(self, token: str | None) -> Metadata:
        """The seat token and the language, as far as each is set."""
        seat = ((SEAT_TOKEN_KEY, token),) if token is not None else ()
        language = ((LANGUAGE_KEY, self.language),) if self.language else ()
        return seat + language

    def delay(self, attempt: int) -> float:
        """Seconds to wait before retry number ``attempt`` (from 0): the backoff, doubled."""
        return self.backoff * float(2**attempt)

    def retry(self, error: EngineError, attempt: int) -> bool:
        """Whether a unary call that failed with ``error`` on try ``attempt`` is sent again.

        Only UNAVAILABLE: it promises the request was not processed (and ``submit`` resends
        the same ``request_id``, so even a lost reply is answered, never applied twice).
        """
        return error.code is grpc.StatusCode.UNAVAILABLE and attempt < self.retries


def create_game_request(
    game_type: str,
    seats: Sequence[SeatSpec],
    options: game_pb2.GameOptions | None,
    seed: int | None,
) -> engine_service_pb2.CreateGameRequest:
    """The CreateGame request (raises ValueError for an unknown seat name)."""
    request = engine_service_pb2.CreateGameRequest(
        game_type=game_type, options=options, seats=[player_type(seat) for seat in seats]
    )
    if seed is not None:
        request.seed = seed
    return request


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


class PageTokens:
    """Paging bookkeeping: the next page token, refusing one the service already gave."""

    def __init__(self) -> None:
        self._seen: set[str] = set()

    def after(self, page: engine_service_pb2.GetActionLogResponse) -> str | None:
        """The token of the page after ``page``; ``None`` when it was the last.

        Raises:
            Internal: the token was handed back before (paging would never end).
        """
        token = page.next_page_token
        if not token:
            return None
        if token in self._seen:
            raise Internal(grpc.StatusCode.INTERNAL, "GetActionLog repeated a page token")
        self._seen.add(token)
        return token


def resumable(error: EngineError) -> bool:
    """Whether watching again from the last version can get past ``error``.

    UNAVAILABLE covers dropped connections and a server shutting down; WATCHER_TOO_SLOW is the
    service shedding a reader that fell behind. A stream that ends without GameEnded is
    treated as a drop too (:meth:`WatchState.cut`).
    """
    return isinstance(error, WatcherTooSlow) or error.code is grpc.StatusCode.UNAVAILABLE


class WatchState:
    """Where a resuming watch stands: the last version, failures in a row, opens, the end.

    The blocking and the asyncio watch each own one and only move messages between it and
    the wire: :meth:`open_request` before each (re)open, :meth:`take` for every message,
    :meth:`failure` when the stream breaks (it says how long to wait, or raises).
    """

    def __init__(
        self,
        request: engine_service_pb2.WatchGameRequest,
        *,
        settings: ClientSettings,
        reload_on_expiry: bool,
    ) -> None:
        self.request = request
        self.settings = settings
        self.reload_on_expiry = reload_on_expiry
        self.version = request.from_version
        self.failures = 0
        self.opened = 0
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
        self.request.from_version = self.version
        return self.request

    def take(self, response: engine_service_pb2.WatchGameResponse) -> WatchItem | None:
        """What to yield for ``response``, or ``None`` (a heartbeat, a repeated version).

        Raises:
            Internal: the stream skipped versions (the service promises it never does).
        """
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

    def reloads(self, error: EngineError) -> bool:
        """Whether ``error`` is answered by reloading the view instead of raising."""
        return isinstance(error, VersionExpired) and self.reload_on_expiry

    def failure(self, error: EngineError, cause: BaseException | None) -> float:
        """Seconds to wait before watching again after ``error``.

        Raises:
            EngineError: ``error`` itself, when watching again cannot help or the failures
                in a row used up the retries.
        """
        if not resumable(error) or self.failures >= self.settings.retries:
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
        if not first and update.version != self.version + 1:
            raise Internal(
                grpc.StatusCode.INTERNAL,
                f"WatchGame jumped from version {self.version} to {update.version}",
            )
        self.version = update.version
        self.failures = 0
        return update
