"""EngineService handlers: decode the request, call the use case, encode the reply.

Each handler is a few lines; errors never leave as Python exceptions but as statuses with
details (:mod:`engine_service.api.errors`), and every call is logged as one JSON line (a
stream when it ends). Handlers are coroutines on the ``grpc.aio`` server, so an open watch
costs a suspended coroutine, not a thread.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import Any, Final, TypeVar

import grpc
from cardengine.v1 import engine_service_pb2, engine_service_pb2_grpc, guandan_pb2, rulebook_pb2
from google.rpc import status_pb2

from engine_service.api import game_messages, messages, request_ids
from engine_service.api.bounds import MAX_LOGGED, bounded
from engine_service.api.errors import abort, status_for, unexpected_status
from engine_service.api.rulebook import encode_description
from engine_service.api.session import Session
from engine_service.api.wire import readable
from engine_service.app.engine import Engine
from engine_service.app.explain import explain_play
from engine_service.app.games import game_info, list_games
from engine_service.app.seats import Admin, ServiceKeys, caller
from engine_service.app.suggest import suggest_action
from engine_service.app.tables import end_game, leave_game, rematch, update_seat
from engine_service.app.watch import WatchItem, watch
from engine_service.codec.guandan_explain import decode_asked_cards, encode_explained
from engine_service.codec.players import decode_player_type
from engine_service.core.errors import EngineError, Unauthenticated
from engine_service.i18n import negotiate
from engine_service.rulebook import describe
from engine_service.store.protocol import EventFeed

TOKEN_HEADER: Final = "x-seat-token"
ADMIN_HEADER: Final = "x-admin-token"
SERVICE_KEY_HEADER: Final = "x-service-key"
LANGUAGE_HEADER: Final = "accept-language"
NO_SERVICE_KEYS: Final = ServiceKeys(frozenset())
log = logging.getLogger("engine_service.rpc")

RequestT = TypeVar("RequestT")
ReplyT = TypeVar("ReplyT")
Context = grpc.aio.ServicerContext[Any, Any]
UnaryHandler = Callable[["EngineServicer", RequestT, Context], Awaitable[ReplyT]]
StreamHandler = Callable[["EngineServicer", RequestT, Context], AsyncGenerator[ReplyT, None]]


def _log_call(name: str, request: Any, outcome: str, started: float) -> None:
    game_id = getattr(request, "game_id", None)
    log.info(
        "rpc",
        extra={
            "rpc": name,
            "game_id": bounded(game_id, MAX_LOGGED) if isinstance(game_id, str) else None,
            "result": outcome,
            "ms": round((time.perf_counter() - started) * 1000, 3),
        },
    )


def _status_of(error: Exception, name: str, language: str) -> tuple[str, status_pb2.Status]:
    """The logged outcome and the status that reports ``error`` (explained in ``language``)."""
    if isinstance(error, EngineError):
        return error.reason, status_for(error, language)
    return "UNEXPECTED", unexpected_status(error, name, language)


def rpc(handler: UnaryHandler[RequestT, ReplyT]) -> UnaryHandler[RequestT, ReplyT]:
    """Turn domain errors into statuses, hide unexpected ones, and log the call.

    A request whose bytes did not parse arrives as a marker (:mod:`engine_service.api.wire`)
    and is refused here, before the handler sees it.
    """

    @functools.wraps(handler)
    async def wrapper(self: EngineServicer, request: RequestT, context: Context) -> ReplyT:
        started = time.perf_counter()
        outcome = "OK"
        try:
            readable(request)
            return await handler(self, request, context)
        except Exception as error:  # the boundary: nothing may escape raw
            outcome, status = _status_of(error, handler.__name__, language_of(context))
            await abort(context, status)
        finally:
            _log_call(handler.__name__, request, outcome, started)
        raise AssertionError("abort() always raises")  # pragma: no cover

    return wrapper


def stream_rpc(handler: StreamHandler[RequestT, ReplyT]) -> StreamHandler[RequestT, ReplyT]:
    """:func:`rpc` for a server stream: errors end the stream with a status."""

    @functools.wraps(handler)
    async def wrapper(
        self: EngineServicer, request: RequestT, context: Context
    ) -> AsyncGenerator[ReplyT, None]:
        started = time.perf_counter()
        outcome: str | None = "OK"
        try:
            readable(request)
            async with contextlib.aclosing(handler(self, request, context)) as replies:
                async for reply in replies:
                    yield reply
        except Exception as error:  # the boundary: nothing may escape raw
            outcome, status = _status_of(error, handler.__name__, language_of(context))
            # Logged before the status is sent: it waits behind the messages on their way,
            # which a client that stopped reading may never take.
            _log_call(handler.__name__, request, outcome, started)
            outcome = None
            await abort(context, status)
        finally:
            if outcome is not None:
                _log_call(handler.__name__, request, outcome, started)

    return wrapper


def metadata_of(context: Context, header: str) -> str | None:
    """The value of one metadata entry, if sent."""
    for key, value in context.invocation_metadata() or ():
        if key == header:
            return value if isinstance(value, str) else value.decode(errors="replace")
    return None


def token_of(context: Context) -> str | None:
    """The seat token sent as metadata, if any."""
    return metadata_of(context, TOKEN_HEADER)


def language_of(context: Context) -> str:
    """The supported language the caller's ``accept-language`` metadata prefers (else English)."""
    values = [
        value if isinstance(value, str) else value.decode(errors="replace")
        for key, value in context.invocation_metadata() or ()
        if key == LANGUAGE_HEADER
    ]
    return negotiate(", ".join(values))


class EngineServicer(engine_service_pb2_grpc.EngineServiceServicer):
    """The EngineService over one :class:`Engine` and this process's event feed."""

    def __init__(
        self,
        engine: Engine,
        feed: EventFeed,
        watch_idle_seconds: float,
        service_keys: ServiceKeys = NO_SERVICE_KEYS,
    ) -> None:
        self._engine = engine
        self._feed = feed
        self._idle = watch_idle_seconds
        self._keys = service_keys

    def _admin(self, context: Context) -> Admin:
        """The caller's admin credential: the game's admin token, or a valid service key."""
        key = self._keys.valid(metadata_of(context, SERVICE_KEY_HEADER))
        return Admin(metadata_of(context, ADMIN_HEADER), key)

    def _check_lister(self, context: Context) -> None:
        """Listing needs a service key once the service has any."""
        if self._keys.required and not self._keys.valid(metadata_of(context, SERVICE_KEY_HEADER)):
            raise Unauthenticated(
                "send one of the service's keys as x-service-key metadata", "SERVICE_KEY_INVALID"
            )

    @rpc
    async def ListGameTypes(
        self, request: engine_service_pb2.ListGameTypesRequest, context: Context
    ) -> engine_service_pb2.ListGameTypesResponse:
        """Every hosted game with its options."""
        types = [messages.encode_game_type(spec) for spec in self._engine.game_types]
        return engine_service_pb2.ListGameTypesResponse(game_types=types)

    @rpc
    async def DescribeGame(
        self, request: rulebook_pb2.DescribeGameRequest, context: Context
    ) -> rulebook_pb2.DescribeGameResponse:
        """A game's rules and options as text, in the language asked for (else English)."""
        spec = self._engine.spec(messages.game_type_of(request.game_type))
        return encode_description(describe(spec.name, spec.options, request.language))

    @rpc
    async def CreateGame(
        self, request: engine_service_pb2.CreateGameRequest, context: Context
    ) -> engine_service_pb2.CreateGameResponse:
        """Deal a game and hand out the human seats' tokens."""
        spec = self._engine.spec(messages.game_type_of(request.game_type))
        new = messages.new_game_of(spec, request)
        seats = messages.seats_of(request)
        asked = request_ids.optional_request_of(request, caller())
        created = await self._engine.create_game(spec.name, seats, new, asked)
        return messages.encode_created(created, language_of(context))

    @rpc
    async def GetGameView(
        self, request: engine_service_pb2.GetGameViewRequest, context: Context
    ) -> engine_service_pb2.GetGameViewResponse:
        """A seat's or a spectator's view."""
        seat = request.seat if request.HasField("seat") else None
        game_id = messages.game_id_of(request.game_id)
        seat_view = await self._engine.view(game_id, seat, token_of(context))
        reply = engine_service_pb2.GetGameViewResponse()
        messages.encode_view(seat_view, language_of(context), reply.view)
        return reply

    @rpc
    async def ExplainPlay(
        self, request: guandan_pb2.ExplainPlayRequest, context: Context
    ) -> guandan_pb2.ExplainPlayResponse:
        """The readings a Guandan seat's cards allow, each with its legality now."""
        game_id = messages.game_id_of(request.game_id)
        cards = decode_asked_cards(request.cards)
        options = await explain_play(self._engine, game_id, request.seat, token_of(context), cards)
        return encode_explained(options, language_of(context))

    @rpc
    async def SuggestAction(
        self, request: engine_service_pb2.SuggestActionRequest, context: Context
    ) -> engine_service_pb2.SuggestActionResponse:
        """What the game's search bot would play for the seat now, and the values it compared.

        A read like GetGameView, but a costly one: a search on the default budget takes about
        50 ms of CPU, on the largest about 200 ms (:mod:`engine_service.app.suggest`).
        """
        game_id = messages.game_id_of(request.game_id)
        playouts = messages.playouts_of(request)
        suggestion = await suggest_action(
            self._engine, game_id, request.seat, token_of(context), playouts
        )
        return messages.encode_suggestion(suggestion)

    @rpc
    async def SubmitAction(
        self, request: engine_service_pb2.SubmitActionRequest, context: Context
    ) -> engine_service_pb2.SubmitActionResponse:
        """Apply one action and the bots' replies."""
        reply = engine_service_pb2.SubmitActionResponse()
        await self._submit(request, token_of(context), language_of(context), reply)
        return reply

    async def _submit(
        self,
        request: engine_service_pb2.SubmitActionRequest,
        token: str | None,
        language: str,
        reply: engine_service_pb2.SubmitActionResponse,
        brief: bool = False,
    ) -> None:
        """SubmitAction's work, for a call or a session's move, written into ``reply``.

        ``brief`` (a session's move that asked for it) answers with the version only.
        """
        game_id = messages.game_id_of(request.game_id)
        asked = request_ids.request_of(request, "expected_version")
        expected = messages.version_of(request.expected_version)
        game, action = messages.action_of(request.action)
        reached = await self._engine.submit(
            game_id, request.seat, token, expected, asked, game, action
        )
        reply.version = reached.version
        if not brief:
            messages.encode_view(reached.seat_view(request.seat), language, reply.view)

    @rpc
    async def GetActionLog(
        self, request: engine_service_pb2.GetActionLogRequest, context: Context
    ) -> engine_service_pb2.GetActionLogResponse:
        """A page of the log, redacted for the reader while the game runs."""
        seat = request.seat if request.HasField("seat") else None
        game_id = messages.game_id_of(request.game_id)
        start = messages.page_start(request, game_id, seat)
        page = await self._engine.action_log(
            game_id, seat, token_of(context), start, request.page_size
        )
        token = ""
        if page.next_index is not None:
            token = messages.page_token(game_id, seat, page.next_index)
        return messages.encode_log(page, token)

    @stream_rpc
    async def WatchGame(
        self, request: engine_service_pb2.WatchGameRequest, context: Context
    ) -> AsyncGenerator[engine_service_pb2.WatchGameResponse, None]:
        """Every version after ``from_version`` as the viewer may see it, then new ones live."""
        language = language_of(context)
        async for item in self._follow(request, token_of(context)):
            yield messages.encode_watch_item(item, language)

    def _follow(
        self, request: engine_service_pb2.WatchGameRequest, token: str | None
    ) -> AsyncGenerator[WatchItem, None]:
        """WatchGame's items, for a call or a session's join (each encodes them itself)."""
        seat = request.seat if request.HasField("seat") else None
        game_id = messages.game_id_of(request.game_id)
        return watch(
            self._engine,
            self._feed,
            game_id,
            seat,
            token,
            request.from_version,
            events_only=request.events_only,
            idle_seconds=self._idle,
        )

    @stream_rpc
    async def Play(
        self, requests: AsyncIterator[Any], context: Context
    ) -> AsyncGenerator[engine_service_pb2.PlayResponse, None]:
        """Moves in; their answers and the joined games' messages out (:mod:`.session`).

        Each move is logged as one line (``Play.move``) as a SubmitAction call is, and so is
        each refused join (``Play.join``) and each request that is none (``Play.request``).
        """
        language = language_of(context)

        async def answer(
            move: engine_service_pb2.SubmitActionRequest,
            token: str | None,
            brief: bool,
            reply: engine_service_pb2.SubmitActionResponse,
        ) -> None:
            started = time.perf_counter()
            outcome = "OK"
            try:
                await self._submit(move, token, language, reply, brief)
            except Exception as error:
                outcome = error.reason if isinstance(error, EngineError) else "UNEXPECTED"
                raise
            finally:
                _log_call("Play.move", move, outcome, started)

        def explain(error: Exception, kind: str) -> status_pb2.Status:
            outcome, status = _status_of(error, f"Play.{kind}", language)
            if kind != "move":  # a move's line is written by answer(), refused or not
                _log_call(f"Play.{kind}", None, outcome, time.perf_counter())
            return status

        def encode(item: WatchItem, out: engine_service_pb2.WatchGameResponse) -> None:
            messages.encode_watch_item(item, language, out)

        session = Session(answer, self._follow, encode, explain, token_of(context))
        async for response in session.run(requests):
            yield response

    @rpc
    async def ListGames(
        self, request: engine_service_pb2.ListGamesRequest, context: Context
    ) -> engine_service_pb2.ListGamesResponse:
        """A page of games matching the filters, newest first."""
        self._check_lister(context)
        wanted = game_messages.filter_of(request)
        cursor = game_messages.list_cursor(request)
        found, after = await list_games(self._engine, wanted, cursor, request.page_size)
        language = language_of(context)
        return engine_service_pb2.ListGamesResponse(
            games=[game_messages.encode_game_info(info, language) for info in found],
            next_page_token="" if after is None else game_messages.list_token(request, after),
        )

    @rpc
    async def GetGame(
        self, request: engine_service_pb2.GetGameRequest, context: Context
    ) -> engine_service_pb2.GetGameResponse:
        """A game's metadata for its admin."""
        game_id = messages.game_id_of(request.game_id)
        info = await game_info(self._engine, game_id, self._admin(context))
        game = game_messages.encode_game_info(info, language_of(context))
        return engine_service_pb2.GetGameResponse(game=game)

    @rpc
    async def LeaveGame(
        self, request: engine_service_pb2.LeaveGameRequest, context: Context
    ) -> engine_service_pb2.LeaveGameResponse:
        """The seat's player leaves or resigns."""
        game_id = messages.game_id_of(request.game_id)
        seat_view = await leave_game(
            self._engine, game_id, request.seat, token_of(context), request.resign
        )
        view = messages.encode_view(seat_view, language_of(context))
        return engine_service_pb2.LeaveGameResponse(view=view)

    @rpc
    async def UpdateSeat(
        self, request: engine_service_pb2.UpdateSeatRequest, context: Context
    ) -> engine_service_pb2.UpdateSeatResponse:
        """The admin hands a seat over and/or issues it a new token."""
        game_id = messages.game_id_of(request.game_id)
        kind = None
        if request.player_type:
            kind = decode_player_type(request.player_type, "player_type")
        token, seat_view = await update_seat(
            self._engine, game_id, request.seat, self._admin(context), kind, request.reissue_token
        )
        view = messages.encode_view(seat_view, language_of(context))
        return engine_service_pb2.UpdateSeatResponse(token=token or "", view=view)

    @rpc
    async def EndGame(
        self, request: engine_service_pb2.EndGameRequest, context: Context
    ) -> engine_service_pb2.EndGameResponse:
        """The admin ends the game early."""
        game_id = messages.game_id_of(request.game_id)
        reason = messages.reason_of(request.reason)
        seat_view = await end_game(self._engine, game_id, self._admin(context), reason)
        view = messages.encode_view(seat_view, language_of(context))
        return engine_service_pb2.EndGameResponse(view=view)

    @rpc
    async def RematchGame(
        self, request: engine_service_pb2.RematchGameRequest, context: Context
    ) -> engine_service_pb2.RematchGameResponse:
        """A new game from a finished one."""
        game_id = messages.game_id_of(request.game_id)
        created = await rematch(self._engine, game_id, self._admin(context))
        game = messages.encode_created(created, language_of(context))
        return engine_service_pb2.RematchGameResponse(game=game)
