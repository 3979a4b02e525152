"""A blocking client for the engine service that raises typed exceptions.

Every call goes through :meth:`EngineClient._call`, which turns ``grpc.RpcError`` into the
classes of :mod:`cardengine_client.errors` and retries UNAVAILABLE only: that code promises
the request was not processed. ABORTED (a stale ``expected_version``) is raised at once,
because the right reaction is to reload the view and decide again, which only the caller can
do. ``submit`` keeps one ``request_id`` across its retries, so a retry whose first attempt did
reach the service is answered from the service's idempotency record instead of applied twice.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from types import MappingProxyType, TracebackType
from typing import Final, Self, TypeAlias, TypeVar

import grpc
from cardengine.v1 import engine_service_pb2, engine_service_pb2_grpc, game_pb2

from cardengine_client.errors import from_rpc_error

SEAT_TOKEN_KEY: Final = "x-seat-token"
"""The gRPC metadata key that carries a seat's secret token."""

PLAYER_TYPES: Final = MappingProxyType(
    {
        "human": game_pb2.PLAYER_TYPE_HUMAN,
        "random": game_pb2.PLAYER_TYPE_BOT_RANDOM,
        "heuristic": game_pb2.PLAYER_TYPE_BOT_HEURISTIC,
    }
)
"""Short names accepted by :meth:`EngineClient.create_game` for each seat."""

SeatSpec: TypeAlias = "game_pb2.PlayerType.ValueType | str"
"""A seat of :meth:`EngineClient.create_game`: a PlayerType value or a key of PLAYER_TYPES."""

_Request = TypeVar("_Request")
_Response = TypeVar("_Response")


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


def _token_metadata(token: str | None) -> tuple[tuple[str, str], ...]:
    return ((SEAT_TOKEN_KEY, token),) if token is not None else ()


class EngineClient:
    """A connection to one engine service.

    Args:
        target: ``"host:port"`` of the service (ignored when ``channel`` is given).
        channel: a ready channel to use instead, e.g. a secure one; the caller keeps it and
            :meth:`close` leaves it open.
        retries: how many times a call that failed with UNAVAILABLE is tried again (0: never).
        backoff: seconds before the first retry; each later retry waits twice as long.
        timeout: deadline of each attempt, in seconds (``None``: no deadline).

    Raises (from every call):
        EngineError: a subclass per status family, see :mod:`cardengine_client.errors`.
    """

    def __init__(
        self,
        target: str,
        *,
        channel: grpc.Channel | None = None,
        retries: int = 3,
        backoff: float = 0.05,
        timeout: float | None = 30.0,
    ) -> None:
        if retries < 0:
            raise ValueError(f"retries must be at least 0, got {retries}")
        self._owns_channel = channel is None
        self._channel = channel if channel is not None else grpc.insecure_channel(target)
        self._stub = engine_service_pb2_grpc.EngineServiceStub(self._channel)
        self._retries = retries
        self._backoff = backoff
        self._timeout = timeout

    def close(self) -> None:
        """Close the channel if this client opened it."""
        if self._owns_channel:
            self._channel.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def list_game_types(self) -> engine_service_pb2.ListGameTypesResponse:
        """The game types the service hosts, with their options and defaults."""
        return self._call(self._stub.ListGameTypes, engine_service_pb2.ListGameTypesRequest())

    def create_game(
        self,
        game_type: str,
        seats: Sequence[SeatSpec],
        *,
        options: game_pb2.GameOptions | None = None,
        seed: int | None = None,
    ) -> engine_service_pb2.CreateGameResponse:
        """Create a game; the response holds its id and one token per human seat.

        Raises:
            ValueError: a seat's short name is unknown (nothing was sent).
            InvalidArgument: unknown game type, wrong seat count or a bad option value.
        """
        request = engine_service_pb2.CreateGameRequest(
            game_type=game_type, options=options, seats=[player_type(seat) for seat in seats]
        )
        if seed is not None:
            request.seed = seed
        return self._call(self._stub.CreateGame, request)

    def view(
        self, game_id: str, seat: int | None = None, token: str | None = None
    ) -> game_pb2.GameView:
        """A seat's view (``token`` is that seat's) or, with no seat, a spectator's view.

        Raises:
            NotFound, Unauthenticated, PermissionDenied, InvalidArgument.
        """
        request = engine_service_pb2.GetGameViewRequest(game_id=game_id, seat=seat)
        return self._call(self._stub.GetGameView, request, token).view

    def submit(
        self,
        game_id: str,
        seat: int,
        token: str,
        action: game_pb2.Action,
        expected_version: int,
        request_id: str | None = None,
    ) -> game_pb2.GameView:
        """Submit ``action`` for ``seat``, chosen from the view of ``expected_version``.

        Returns the seat's view after the action and the bots' replies. ``request_id`` makes
        the call idempotent; a fresh UUID is used when it is ``None``, and the same id is sent
        on every retry.

        Raises:
            IllegalAction: the rules forbid it (see ``rule_id`` and ``reason``).
            Aborted: the game is no longer at ``expected_version``: reload and decide again.
            InvalidArgument, NotFound, Unauthenticated, PermissionDenied.
        """
        request = engine_service_pb2.SubmitActionRequest(
            game_id=game_id,
            seat=seat,
            expected_version=expected_version,
            request_id=request_id if request_id is not None else str(uuid.uuid4()),
            action=action,
        )
        return self._call(self._stub.SubmitAction, request, token).view

    def action_log(
        self, game_id: str, seat: int | None = None, token: str | None = None
    ) -> engine_service_pb2.GetActionLogResponse:
        """The game's action log, as ``seat`` (with its token) or as a spectator may see it.

        Raises:
            NotFound, Unauthenticated, PermissionDenied, InvalidArgument.
        """
        request = engine_service_pb2.GetActionLogRequest(game_id=game_id, seat=seat)
        return self._call(self._stub.GetActionLog, request, token)

    def _call(
        self,
        method: grpc.UnaryUnaryMultiCallable[_Request, _Response],
        request: _Request,
        token: str | None = None,
    ) -> _Response:
        """Run one unary call, retrying UNAVAILABLE with exponential backoff."""
        metadata = _token_metadata(token)
        attempt = 0
        while True:
            try:
                return method(request, timeout=self._timeout, metadata=metadata)
            except grpc.RpcError as rpc_error:
                error = from_rpc_error(rpc_error)
                if error.code is not grpc.StatusCode.UNAVAILABLE or attempt >= self._retries:
                    raise error from rpc_error
            time.sleep(self._backoff * 2**attempt)
            attempt += 1
