"""EngineService handlers: decode the request, call the use case, encode the reply.

Each handler is a few lines; errors never leave as Python exceptions but as statuses with
details (:mod:`engine_service.api.errors`), and every call is logged as one JSON line.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable
from typing import Final, TypeVar

import grpc
from cardengine.v1 import engine_service_pb2, engine_service_pb2_grpc

from engine_service.api import messages
from engine_service.api.errors import abort, status_for, unexpected_status
from engine_service.app.engine import Engine
from engine_service.core.errors import EngineError

TOKEN_HEADER: Final = "x-seat-token"
log = logging.getLogger("engine_service.rpc")

RequestT = TypeVar("RequestT")
ReplyT = TypeVar("ReplyT")
Handler = Callable[["EngineServicer", RequestT, grpc.ServicerContext], ReplyT]


def rpc(handler: Handler[RequestT, ReplyT]) -> Handler[RequestT, ReplyT]:
    """Turn domain errors into statuses, hide unexpected ones, and log the call."""

    @functools.wraps(handler)
    def wrapper(self: EngineServicer, request: RequestT, context: grpc.ServicerContext) -> ReplyT:
        started = time.perf_counter()
        outcome = "OK"
        try:
            return handler(self, request, context)
        except EngineError as error:
            outcome = error.reason
            abort(context, status_for(error))
        except Exception as error:  # the boundary: nothing may escape raw
            outcome = "UNEXPECTED"
            abort(context, unexpected_status(error, handler.__name__))
        finally:
            log.info(
                "rpc",
                extra={
                    "rpc": handler.__name__,
                    "game_id": getattr(request, "game_id", None),
                    "result": outcome,
                    "ms": round((time.perf_counter() - started) * 1000, 3),
                },
            )
        raise AssertionError("abort() always raises")  # pragma: no cover

    return wrapper


def token_of(context: grpc.ServicerContext) -> str | None:
    """The seat token sent as metadata, if any."""
    for key, value in context.invocation_metadata():
        if key == TOKEN_HEADER:
            return value if isinstance(value, str) else value.decode()
    return None


class EngineServicer(engine_service_pb2_grpc.EngineServiceServicer):
    """The EngineService over one :class:`Engine`."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    @rpc
    def ListGameTypes(
        self, request: engine_service_pb2.ListGameTypesRequest, context: grpc.ServicerContext
    ) -> engine_service_pb2.ListGameTypesResponse:
        """Every hosted game with its options."""
        types = [messages.encode_game_type(spec) for spec in self._engine.game_types]
        return engine_service_pb2.ListGameTypesResponse(game_types=types)

    @rpc
    def CreateGame(
        self, request: engine_service_pb2.CreateGameRequest, context: grpc.ServicerContext
    ) -> engine_service_pb2.CreateGameResponse:
        """Deal a game and hand out the human seats' tokens."""
        spec = self._engine.spec(request.game_type)
        config = messages.config_of(spec, request.options)
        seed = request.seed if request.HasField("seed") else None
        created = self._engine.create_game(spec.name, config, messages.seats_of(request), seed)
        return messages.encode_created(created)

    @rpc
    def GetGameView(
        self, request: engine_service_pb2.GetGameViewRequest, context: grpc.ServicerContext
    ) -> engine_service_pb2.GetGameViewResponse:
        """A seat's or a spectator's view."""
        seat = request.seat if request.HasField("seat") else None
        game_id = messages.game_id_of(request.game_id)
        seat_view = self._engine.view(game_id, seat, token_of(context))
        return engine_service_pb2.GetGameViewResponse(view=messages.encode_view(seat_view))

    @rpc
    def SubmitAction(
        self, request: engine_service_pb2.SubmitActionRequest, context: grpc.ServicerContext
    ) -> engine_service_pb2.SubmitActionResponse:
        """Apply one action and the bots' replies."""
        game_id = messages.game_id_of(request.game_id)
        request_id = messages.request_id_of(request.request_id)
        expected = messages.version_of(request.expected_version)
        game, action = messages.action_of(request.action)
        seat_view = self._engine.submit(
            game_id, request.seat, token_of(context), expected, request_id, game, action
        )
        return engine_service_pb2.SubmitActionResponse(view=messages.encode_view(seat_view))

    @rpc
    def GetActionLog(
        self, request: engine_service_pb2.GetActionLogRequest, context: grpc.ServicerContext
    ) -> engine_service_pb2.GetActionLogResponse:
        """The log, redacted for the reader while the game runs."""
        seat = request.seat if request.HasField("seat") else None
        game_id = messages.game_id_of(request.game_id)
        return messages.encode_log(self._engine.action_log(game_id, seat, token_of(context)))
