"""The asyncio flavour of :class:`~cardengine_client.EngineClient`, on ``grpc.aio``.

The same methods with the same arguments, awaited; the same typed errors from
:mod:`cardengine_client.errors`; the same retry of UNAVAILABLE and wait on RATE_LIMITED (``submit``
keeps its ``request_id``); ``watch`` is an async iterator that resumes by itself. Requests,
metadata, the retry rule and the watch bookkeeping come from the code the blocking client uses
(``cardengine_client._shared``), so the two behave alike by construction.

>>> async def main():  # doctest: +SKIP
...     async with AsyncEngineClient("127.0.0.1:50051") as client:
...         game = await client.create_game("hearts", ["human", "random", "random", "random"])
...         token = game.seat_tokens[0].token
...         async for update in client.watch(game.game_id, seat=0, token=token):
...             print(update.version)
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from types import TracebackType
from typing import Self, TypeVar

import grpc
from cardengine.v1 import engine_service_pb2, engine_service_pb2_grpc, game_pb2

from cardengine_client._shared import (
    DEFAULT_FIRST_MESSAGE_TIMEOUT,
    LOG_PAGE_SIZE,
    ClientSettings,
    ClockSpec,
    GameStateSpec,
    PageTokens,
    SeatSpec,
    WatchItem,
    WatchState,
    action_log_request,
    create_game_request,
    list_games_request,
    submit_request,
    suggest_request,
    update_seat_request,
    view_request,
    watch_request,
)
from cardengine_client.errors import EngineError, from_rpc_error
from cardengine_client.session import PlaySession
from cardengine_client.tls import Tls

__all__ = ["AsyncEngineClient", "AsyncGameWatch"]

_Request = TypeVar("_Request")
_Response = TypeVar("_Response")


class AsyncEngineClient:
    """An asyncio connection to one engine service; see :class:`~cardengine_client.EngineClient`.

    Args:
        target: ``"host:port"`` of the service (ignored when ``channel`` is given).
        channel: a ready ``grpc.aio`` channel to use instead; the caller keeps it and
            :meth:`close` leaves it open.
        retries, backoff, timeout, language, service_key, tls, rate_limit_waits,
            max_rate_limit_wait: as for ``EngineClient``.

    Raises (from every call):
        EngineError: a subclass per status family, see :mod:`cardengine_client.errors`.
    """

    def __init__(
        self,
        target: str,
        *,
        channel: grpc.aio.Channel | None = None,
        retries: int = 3,
        backoff: float = 0.05,
        timeout: float | None = 30.0,
        language: str | None = None,
        service_key: str | None = None,
        tls: Tls | None = None,
        rate_limit_waits: int = 3,
        max_rate_limit_wait: float = 5.0,
    ) -> None:
        self._settings = ClientSettings(
            retries=retries,
            backoff=backoff,
            timeout=timeout,
            language=language,
            service_key=service_key,
            rate_limit_waits=rate_limit_waits,
            max_rate_limit_wait=max_rate_limit_wait,
        )
        self._owns_channel = channel is None
        if channel is None:
            if tls is None:
                channel = grpc.aio.insecure_channel(target)
            else:
                channel = grpc.aio.secure_channel(target, tls.credentials())
        self._channel = channel
        self._stub = engine_service_pb2_grpc.EngineServiceStub(self._channel)

    async def close(self) -> None:
        """Close the channel if this client opened it."""
        if self._owns_channel:
            await self._channel.close(None)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    async def list_game_types(self) -> engine_service_pb2.ListGameTypesResponse:
        """The game types the service hosts, with their options and defaults."""
        request = engine_service_pb2.ListGameTypesRequest()
        return await self._call(self._stub.ListGameTypes, request)

    async def create_game(
        self,
        game_type: str,
        seats: Sequence[SeatSpec],
        *,
        options: game_pb2.GameOptions | None = None,
        seed: int | None = None,
        clock: ClockSpec | None = None,
        labels: Mapping[str, str] | None = None,
        request_id: str | None = None,
    ) -> engine_service_pb2.CreateGameResponse:
        """Create a game, as :meth:`EngineClient.create_game <cardengine_client.EngineClient>`."""
        request = create_game_request(game_type, seats, options, seed, clock, labels, request_id)
        return await self._call(self._stub.CreateGame, request)

    async def list_games(
        self,
        game_type: str | None = None,
        state: GameStateSpec | None = None,
        labels: Mapping[str, str] | None = None,
        page_size: int = 0,
        page_token: str = "",
    ) -> engine_service_pb2.ListGamesResponse:
        """One page of games, newest first, as ``EngineClient.list_games``."""
        request = list_games_request(game_type, state, labels, page_size, page_token)
        return await self._call(self._stub.ListGames, request)

    async def list_all_games(
        self,
        game_type: str | None = None,
        state: GameStateSpec | None = None,
        labels: Mapping[str, str] | None = None,
        page_size: int = 0,
    ) -> AsyncIterator[engine_service_pb2.GameInfo]:
        """Every game :meth:`list_games` finds, page after page, fetched lazily."""
        tokens = PageTokens("ListGames")
        page_token: str | None = ""
        while page_token is not None:
            page = await self.list_games(game_type, state, labels, page_size, page_token)
            for game in page.games:
                yield game
            page_token = tokens.after(page)

    async def get_game(
        self, game_id: str, admin_token: str | None = None
    ) -> engine_service_pb2.GameInfo:
        """A game's metadata for its admin (or a client with a service key)."""
        request = engine_service_pb2.GetGameRequest(game_id=game_id)
        return (await self._call(self._stub.GetGame, request, admin_token=admin_token)).game

    async def leave_game(
        self, game_id: str, seat: int, token: str, resign: bool = False
    ) -> game_pb2.GameView:
        """The seat's player leaves (or resigns, T-R2/T-R3); sent once, never retried."""
        request = engine_service_pb2.LeaveGameRequest(game_id=game_id, seat=seat, resign=resign)
        return (await self._call(self._stub.LeaveGame, request, token, idempotent=False)).view

    async def update_seat(
        self,
        game_id: str,
        seat: int,
        admin_token: str | None,
        player_type: SeatSpec | None = None,
        reissue_token: bool = False,
    ) -> engine_service_pb2.UpdateSeatResponse:
        """Hand a seat over (T-R6) and/or issue it a new token (T-R7); sent once."""
        request = update_seat_request(game_id, seat, player_type, reissue_token)
        return await self._call(
            self._stub.UpdateSeat, request, admin_token=admin_token, idempotent=False
        )

    async def end_game(
        self, game_id: str, admin_token: str | None, reason: str
    ) -> game_pb2.GameView:
        """End the game now with ``reason`` (T-R8); the spectator's view; sent once."""
        request = engine_service_pb2.EndGameRequest(game_id=game_id, reason=reason)
        response = await self._call(
            self._stub.EndGame, request, admin_token=admin_token, idempotent=False
        )
        return response.view

    async def rematch_game(
        self, game_id: str, admin_token: str | None
    ) -> engine_service_pb2.CreateGameResponse:
        """A new game from a finished one (T-R9); sent once."""
        request = engine_service_pb2.RematchGameRequest(game_id=game_id)
        response = await self._call(
            self._stub.RematchGame, request, admin_token=admin_token, idempotent=False
        )
        return response.game

    async def view(
        self, game_id: str, seat: int | None = None, token: str | None = None
    ) -> game_pb2.GameView:
        """A seat's view (with its token) or, with no seat, a spectator's view."""
        response = await self._call(self._stub.GetGameView, view_request(game_id, seat), token)
        return response.view

    async def submit(
        self,
        game_id: str,
        seat: int,
        token: str,
        action: game_pb2.Action,
        expected_version: int,
        request_id: str | None = None,
    ) -> game_pb2.GameView:
        """Submit ``action`` for ``seat``; the same ``request_id`` goes with every retry.

        Raises:
            IllegalAction: the rules forbid it (see ``rule_id`` and ``reason``).
            Aborted: the game is no longer at ``expected_version``: reload and decide again.
            InvalidArgument, NotFound, Unauthenticated, PermissionDenied.
        """
        request = submit_request(game_id, seat, action, expected_version, request_id)
        return (await self._call(self._stub.SubmitAction, request, token)).view

    async def suggest_action(
        self, game_id: str, seat: int, token: str, playouts: int | None = None
    ) -> engine_service_pb2.SuggestActionResponse:
        """The move the game's search bot would make for ``seat`` now (see the blocking client)."""
        return await self._call(
            self._stub.SuggestAction, suggest_request(game_id, seat, playouts), token
        )

    async def action_log(
        self,
        game_id: str,
        seat: int | None = None,
        token: str | None = None,
        *,
        page_size: int = 0,
        page_token: str = "",
        from_index: int = 0,
    ) -> engine_service_pb2.GetActionLogResponse:
        """One page of the game's action log (the defaults: its first 1000 entries)."""
        request = action_log_request(game_id, seat, page_size, page_token, from_index)
        return await self._call(self._stub.GetActionLog, request, token)

    async def action_log_pages(
        self,
        game_id: str,
        seat: int | None = None,
        token: str | None = None,
        *,
        page_size: int = LOG_PAGE_SIZE,
        from_index: int = 0,
    ) -> AsyncIterator[engine_service_pb2.GetActionLogResponse]:
        """Every page of the log from ``from_index``, fetched lazily, each ``page_size`` long."""
        tokens = PageTokens()
        page_token: str | None = ""
        while page_token is not None:
            page = await self.action_log(
                game_id,
                seat,
                token,
                page_size=page_size,
                page_token=page_token,
                from_index=from_index,
            )
            yield page
            page_token = tokens.after(page)

    async def action_log_entries(
        self,
        game_id: str,
        seat: int | None = None,
        token: str | None = None,
        *,
        page_size: int = LOG_PAGE_SIZE,
        from_index: int = 0,
    ) -> AsyncIterator[game_pb2.LogEntry]:
        """Every log entry from ``from_index`` on, in order, paging as it goes."""
        pages = self.action_log_pages(
            game_id, seat, token, page_size=page_size, from_index=from_index
        )
        async for page in pages:
            for entry in page.entries:
                yield entry

    def watch(
        self,
        game_id: str,
        seat: int | None = None,
        token: str | None = None,
        from_version: int = 0,
        events_only: bool = False,
        *,
        reload_on_expiry: bool = False,
        first_message_timeout: float = DEFAULT_FIRST_MESSAGE_TIMEOUT,
    ) -> AsyncGameWatch:
        """Follow a game as it is played: ``async for`` one update per version, in order.

        The arguments and the resuming are those of ``EngineClient.watch``: a dropped
        connection, UNAVAILABLE or WATCHER_TOO_SLOW re-opens the stream from the last
        version received (up to ``retries`` times in a row), as does a stream that never
        started (shed with CANCELLED, or silent for ``first_message_timeout`` seconds), then
        ``GameEnded`` ends it.
        """
        request = watch_request(game_id, seat, from_version, events_only)
        state = WatchState(
            request,
            settings=self._settings,
            reload_on_expiry=reload_on_expiry,
            first_message_timeout=first_message_timeout,
        )
        return AsyncGameWatch(self, state, token)

    def session(self, token: str | None = None) -> PlaySession:
        """Open a Play session: many moves and games on one stream (:mod:`.session`).

        ``token``: the seat token of every request that gives none of its own. The session
        has no deadline; close it (or use it as ``async with``) when done.
        """
        return PlaySession(self._stub, self._settings.metadata(token))

    def _open_watch(
        self, request: engine_service_pb2.WatchGameRequest, token: str | None
    ) -> grpc.aio.UnaryStreamCall[
        engine_service_pb2.WatchGameRequest, engine_service_pb2.WatchGameResponse
    ]:
        """Start one WatchGame call (no deadline: a game lasts as long as its players)."""
        return self._stub.WatchGame(request, metadata=self._settings.metadata(token))

    async def _call(
        self,
        method: grpc.aio.UnaryUnaryMultiCallable[_Request, _Response],
        request: _Request,
        token: str | None = None,
        *,
        admin_token: str | None = None,
        idempotent: bool = True,
    ) -> _Response:
        """Run one unary call; if idempotent, retry UNAVAILABLE and wait out RATE_LIMITED.

        The retries are bounded by the settings (:class:`~cardengine_client._shared.CallRetries`).
        """
        metadata = self._settings.metadata(token, admin_token)
        retries = self._settings.retries_of(idempotent=idempotent)
        while True:
            try:
                return await method(request, timeout=self._settings.timeout, metadata=metadata)
            except grpc.aio.AioRpcError as rpc_error:
                error = from_rpc_error(rpc_error)
                delay = retries.wait_after(error)
                if delay is None:
                    raise error from rpc_error
            await asyncio.sleep(delay)


class AsyncGameWatch(AsyncIterator[WatchItem]):
    """A resuming ``WatchGame`` stream; made by :meth:`AsyncEngineClient.watch`.

    ``async for`` it for ``GameUpdate`` messages with consecutive versions (a watcher far
    behind gets several merged into one, from ``first_version``), then a final
    ``GameEnded``. :attr:`version` is the last version received. :meth:`close` (or leaving
    an ``async with`` block) cancels the stream and ends the iteration.
    """

    def __init__(self, client: AsyncEngineClient, state: WatchState, token: str | None) -> None:
        self._client = client
        self._state = state
        self._token = token
        self._call: (
            grpc.aio.UnaryStreamCall[
                engine_service_pb2.WatchGameRequest, engine_service_pb2.WatchGameResponse
            ]
            | None
        ) = None
        self._messages: AsyncIterator[engine_service_pb2.WatchGameResponse] | None = None

    @property
    def version(self) -> int:
        """The last version received (``from_version`` until the first update arrives)."""
        return self._state.version

    @property
    def reopened(self) -> int:
        """How many times the stream was opened again after the first."""
        return self._state.reopened

    @property
    def ended(self) -> bool:
        """Whether ``GameEnded`` has been received."""
        return self._state.ended

    def close(self) -> None:
        """Stop watching: cancel the stream; iteration stops."""
        self._state.closed = True
        self._stop_call()

    async def aclose(self) -> None:
        """:meth:`close`, awaitable (for ``contextlib.aclosing``)."""
        self.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> WatchItem:
        while not self._state.done:
            response = await self._receive()
            item = self._state.take(response) if response is not None else None
            if item is not None:
                if self._state.ended:
                    self._stop_call()
                return item
        raise StopAsyncIteration

    async def _receive(self) -> engine_service_pb2.WatchGameResponse | None:
        """The next message of the stream, opening it as needed; ``None`` after a failure."""
        if self._call is None or self._messages is None:
            self._call = self._client._open_watch(self._state.open_request(), self._token)
            self._messages = aiter(self._call)
        error: EngineError
        cause: BaseException | None = None
        try:
            if self._state.heard:
                return await anext(self._messages)
            timeout = self._state.first_message_timeout
            return await asyncio.wait_for(anext(self._messages), timeout)
        except TimeoutError:
            error = self._state.silent()
            self._stop_call()
        except StopAsyncIteration:
            error = self._state.cut()
        except grpc.aio.AioRpcError as rpc_error:
            error, cause = from_rpc_error(rpc_error), rpc_error
        except asyncio.CancelledError:
            # close() cancelled the call under us; a cancelled task still gets its error.
            task = asyncio.current_task()
            if not self._state.closed or (task is not None and task.cancelling()):
                raise
            return None
        self._call = self._messages = None
        if self._state.closed:
            return None
        if self._state.reloads(error):
            state = self._state
            view = await self._client.view(state.request.game_id, state.seat, self._token)
            return state.reloaded(view)
        await asyncio.sleep(self._state.failure(error, cause))
        return None

    def _stop_call(self) -> None:
        """Cancel the open call, if any."""
        call, self._call, self._messages = self._call, None, None
        if call is not None:
            call.cancel()
