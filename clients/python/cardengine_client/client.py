"""A blocking client for the engine service that raises typed exceptions.

Every call goes through :meth:`EngineClient._call`, which turns ``grpc.RpcError`` into the classes
of :mod:`cardengine_client.errors` and retries UNAVAILABLE (that code promises the request was not
processed) and RATE_LIMITED (refused at the door, after the ``retry_delay`` the service names), for
calls that are safe to repeat only, a bounded number of times. ABORTED (a stale
``expected_version``) is raised at once, because the right reaction is to reload the view and decide
again, which only the caller can do. ``submit`` keeps one ``request_id`` across its retries, so a
retry whose first attempt did reach the service is answered from the service's idempotency record
instead of applied twice.

:meth:`EngineClient.watch` follows a game as it is played (the ``WatchGame`` stream). Watching
changes nothing, so it may be re-opened freely: after a dropped connection, UNAVAILABLE or
WATCHER_TOO_SLOW it is opened again from the last version received, and the caller sees every
version once, in order, as if nothing had happened.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from types import TracebackType
from typing import Self, TypeVar

import grpc
from cardengine.v1 import engine_service_pb2, engine_service_pb2_grpc, game_pb2

from cardengine_client._shared import (
    ADMIN_TOKEN_KEY,
    DEFAULT_FIRST_MESSAGE_TIMEOUT,
    LANGUAGE_KEY,
    LOG_PAGE_SIZE,
    PLAYER_TYPES,
    SEAT_TOKEN_KEY,
    SERVICE_KEY_KEY,
    ClientSettings,
    Clock,
    ClockSpec,
    GameStateSpec,
    PageTokens,
    SeatSpec,
    WatchItem,
    WatchState,
    action_log_request,
    create_game_request,
    list_games_request,
    player_type,
    submit_request,
    suggest_request,
    update_seat_request,
    view_request,
    watch_request,
)
from cardengine_client.errors import EngineError, from_rpc_error
from cardengine_client.tls import Tls

__all__ = [
    "ADMIN_TOKEN_KEY",
    "LANGUAGE_KEY",
    "LOG_PAGE_SIZE",
    "PLAYER_TYPES",
    "SEAT_TOKEN_KEY",
    "SERVICE_KEY_KEY",
    "Clock",
    "ClockSpec",
    "EngineClient",
    "GameStateSpec",
    "GameWatch",
    "SeatSpec",
    "WatchItem",
    "player_type",
]

_Request = TypeVar("_Request")
_Response = TypeVar("_Response")


class EngineClient:
    """A connection to one engine service.

    Args:
        target: ``"host:port"`` of the service (ignored when ``channel`` is given).
        channel: a ready channel to use instead, e.g. a secure one; the caller keeps it and
            :meth:`close` leaves it open.
        retries: how many times a call that failed with UNAVAILABLE is tried again (0: never).
        backoff: seconds before the first retry; each later retry waits twice as long.
        timeout: deadline of each attempt, in seconds (``None``: no deadline).
        language: an ``accept-language`` value sent with every call (``"fr"``,
            ``"fr-CH, fr;q=0.9, de;q=0.5"``): errors then carry ``localized_message`` and
            finished games' summaries come in that language (en, es, fr, de, nl; else English).
        service_key: a backend's service key, sent as ``x-service-key`` with every call: on
            a service that has keys, it lets through what its scopes allow (``create``:
            :meth:`create_game`; ``list``: :meth:`list_games`, :meth:`get_game`; ``admin``:
            stands in for any game's admin token).
        tls: speak TLS (:class:`~cardengine_client.tls.Tls`: the roots to trust and, for
            mutual TLS, the client's certificate); ``None``: plaintext (ignored with
            ``channel``).
        rate_limit_waits: how many times a read, ``create_game`` or ``submit`` refused with
            RATE_LIMITED (the service key's bucket is empty) waits the ``retry_delay`` the
            service names and is sent again (0: never); table changes never are.
        max_rate_limit_wait: the longest such wait in seconds; a refusal asking for longer is
            raised at once (:class:`~cardengine_client.errors.RateLimited`).

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
                channel = grpc.insecure_channel(target)
            else:
                channel = grpc.secure_channel(target, tls.credentials())
        self._channel = channel
        self._stub = engine_service_pb2_grpc.EngineServiceStub(self._channel)

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
        clock: ClockSpec | None = None,
        labels: Mapping[str, str] | None = None,
        request_id: str | None = None,
    ) -> engine_service_pb2.CreateGameResponse:
        """Create a game; the response holds its id, one token per human seat, the admin token.

        ``clock`` gives the human seats a turn clock: ``Clock(30, bank=120,
        on_expiry="heuristic")``, seconds per decision alone, or a ``ClockPolicy``. ``labels``
        are the creator's tags, for :meth:`list_games` filters. Keep ``admin_token`` on the
        backend: it manages the game (:meth:`get_game`, :meth:`update_seat`, ...).

        ``request_id`` makes the call idempotent: a fresh UUID4 is used when it is ``None``,
        and the same id is sent on every retry, so a retry after a lost reply returns the game
        the first attempt created (same id and tokens) instead of creating a second one. Pass
        your own (unguessable) id to retry across calls; the same id with other arguments is
        refused (InvalidArgument, reason ``REQUEST_ID_REUSED``).

        Raises:
            ValueError: a seat's or ``on_expiry``'s short name is unknown (nothing was sent).
            InvalidArgument: unknown game type, wrong seat count, a bad option, clock or label
                (NoForfeitInGame: a forfeiting clock for a game without forfeits, T-R5), or
                a reused ``request_id``.
        """
        request = create_game_request(game_type, seats, options, seed, clock, labels, request_id)
        return self._call(self._stub.CreateGame, request)

    def list_games(
        self,
        game_type: str | None = None,
        state: GameStateSpec | None = None,
        labels: Mapping[str, str] | None = None,
        page_size: int = 0,
        page_token: str = "",
    ) -> engine_service_pb2.ListGamesResponse:
        """One page of games, newest first, filtered by type, state and every label given.

        ``state`` is a GameState or ``"waiting"``, ``"running"``, ``"over"``. Pass the
        response's ``next_page_token`` (with the same filters) for the next page; a page may
        be short even when more follow. :meth:`list_all_games` does the paging.

        Raises:
            ValueError: an unknown state name (nothing was sent).
            ServiceKeyInvalid: the service has service keys and this client sent none of them.
            InvalidArgument: a bad filter, page size or token.
        """
        request = list_games_request(game_type, state, labels, page_size, page_token)
        return self._call(self._stub.ListGames, request)

    def list_all_games(
        self,
        game_type: str | None = None,
        state: GameStateSpec | None = None,
        labels: Mapping[str, str] | None = None,
        page_size: int = 0,
    ) -> Iterator[engine_service_pb2.GameInfo]:
        """Every game :meth:`list_games` finds, page after page, fetched lazily.

        Paging ends with the service's last page; a page token handed back twice raises
        ``Internal`` rather than looping for ever.
        """
        tokens = PageTokens("ListGames")
        page_token: str | None = ""
        while page_token is not None:
            page = self.list_games(game_type, state, labels, page_size, page_token)
            yield from page.games
            page_token = tokens.after(page)

    def get_game(self, game_id: str, admin_token: str | None = None) -> engine_service_pb2.GameInfo:
        """A game's metadata (seats, state, clocks, outcome, labels; no card) for its admin.

        ``admin_token`` may be ``None`` when this client has a service key.

        Raises:
            NotFound, AdminTokenInvalid, InvalidArgument.
        """
        request = engine_service_pb2.GetGameRequest(game_id=game_id)
        return self._call(self._stub.GetGame, request, admin_token=admin_token).game

    def leave_game(
        self, game_id: str, seat: int, token: str, resign: bool = False
    ) -> game_pb2.GameView:
        """The seat's player leaves and a bot plays the seat on (T-R2); the seat's view after.

        With ``resign`` a game that has forfeits (Guandan, Klaberjass) ends, the seat's side
        losing (T-R3); in Hearts resigning is leaving. Sent once (see ``ClientSettings.retry``).

        Raises:
            SeatPlayedByBot: a bot plays the seat already (T-R1).
            IllegalAction (reason GAME_OVER), NotFound, Unauthenticated, PermissionDenied.
        """
        request = engine_service_pb2.LeaveGameRequest(game_id=game_id, seat=seat, resign=resign)
        return self._call(self._stub.LeaveGame, request, token, idempotent=False).view

    def update_seat(
        self,
        game_id: str,
        seat: int,
        admin_token: str | None,
        player_type: SeatSpec | None = None,
        reissue_token: bool = False,
    ) -> engine_service_pb2.UpdateSeatResponse:
        """Hand a seat to another kind of player (T-R6) and/or issue it a new token (T-R7).

        The response's ``token`` is the seat's new token when one was issued (the old one
        stops working at once). Sent once (see ``ClientSettings.retry``).

        Raises:
            ValueError: an unknown player type name (nothing was sent).
            NothingToChange: the seat is played that way already (T-R6).
            AdminTokenInvalid, IllegalAction (GAME_OVER), NotFound, InvalidArgument.
        """
        request = update_seat_request(game_id, seat, player_type, reissue_token)
        return self._call(self._stub.UpdateSeat, request, admin_token=admin_token, idempotent=False)

    def end_game(self, game_id: str, admin_token: str | None, reason: str) -> game_pb2.GameView:
        """End the game now, with no winner and ``reason`` in the log and outcome (T-R8).

        Returns the spectator's view of the ended game. Sent once.

        Raises:
            AdminTokenInvalid, IllegalAction (GAME_OVER), NotFound, InvalidArgument (reason).
        """
        request = engine_service_pb2.EndGameRequest(game_id=game_id, reason=reason)
        return self._call(
            self._stub.EndGame, request, admin_token=admin_token, idempotent=False
        ).view

    def rematch_game(
        self, game_id: str, admin_token: str | None
    ) -> engine_service_pb2.CreateGameResponse:
        """A new game from a finished one (T-R9): players one seat on, new tokens.

        Sent once: a second call names the first rematch instead (``AlreadyRematched``).

        Raises:
            GameNotOver: the game is still being played.
            AlreadyRematched: it has a rematch already (``rematch_id``).
            AdminTokenInvalid, NotFound, InvalidArgument.
        """
        request = engine_service_pb2.RematchGameRequest(game_id=game_id)
        return self._call(
            self._stub.RematchGame, request, admin_token=admin_token, idempotent=False
        ).game

    def view(
        self, game_id: str, seat: int | None = None, token: str | None = None
    ) -> game_pb2.GameView:
        """A seat's view (``token`` is that seat's) or, with no seat, a spectator's view.

        Raises:
            NotFound, Unauthenticated, PermissionDenied, InvalidArgument.
        """
        return self._call(self._stub.GetGameView, view_request(game_id, seat), token).view

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
        request = submit_request(game_id, seat, action, expected_version, request_id)
        return self._call(self._stub.SubmitAction, request, token).view

    def suggest_action(
        self, game_id: str, seat: int, token: str, playouts: int | None = None
    ) -> engine_service_pb2.SuggestActionResponse:
        """The move the game's search bot would make for ``seat`` now, with the values it compared.

        ``playouts`` is the search's budget (``None``: the game's default; more than the
        reply's ``max_playouts`` is lowered to it). The reply's ``action`` may be submitted as
        it is with the reply's ``version``; each of its ``candidates`` has a mean ``value`` in
        the unit ``value_kind`` names (higher is better) and the ``playouts`` it rests on.
        Deterministic, and changes nothing.

        Raises:
            IllegalAction: the seat has nothing to do now (e.g. ``NOT_YOUR_TURN``), the game
                is over (``GAME_OVER``) or a bot plays the seat, see ``rule_id``; or reason
                ``NO_SEARCH_BOT``: the service offers no search bot for the game.
            InvalidArgument, NotFound, Unauthenticated, PermissionDenied.
        """
        return self._call(self._stub.SuggestAction, suggest_request(game_id, seat, playouts), token)

    def action_log(
        self,
        game_id: str,
        seat: int | None = None,
        token: str | None = None,
        *,
        page_size: int = 0,
        page_token: str = "",
        from_index: int = 0,
    ) -> engine_service_pb2.GetActionLogResponse:
        """One page of the game's action log, as ``seat`` (with its token) or a spectator sees it.

        With the defaults this is the log's first 1000 entries (a Hearts game's whole log).
        ``page_size`` caps the entries (0 or more than 1000: 1000);
        pass the response's ``next_page_token`` as ``page_token`` (with the same other
        arguments) for the next page, which starts where this one stopped even if the game
        moved on meanwhile. ``from_index`` starts the first page at that log index.
        :meth:`action_log_entries` does the paging.

        Raises:
            NotFound, Unauthenticated, PermissionDenied, InvalidArgument (bad page size/token).
        """
        request = action_log_request(game_id, seat, page_size, page_token, from_index)
        return self._call(self._stub.GetActionLog, request, token)

    def action_log_pages(
        self,
        game_id: str,
        seat: int | None = None,
        token: str | None = None,
        *,
        page_size: int = LOG_PAGE_SIZE,
        from_index: int = 0,
    ) -> Iterator[engine_service_pb2.GetActionLogResponse]:
        """Every page of the log from ``from_index``, fetched lazily, each ``page_size`` long.

        Raises:
            Internal: the service handed back a page token it had already given (paging
                would never end).
            NotFound, Unauthenticated, PermissionDenied, InvalidArgument.
        """
        tokens = PageTokens()
        page_token: str | None = ""
        while page_token is not None:
            page = self.action_log(
                game_id,
                seat,
                token,
                page_size=page_size,
                page_token=page_token,
                from_index=from_index,
            )
            yield page
            page_token = tokens.after(page)

    def action_log_entries(
        self,
        game_id: str,
        seat: int | None = None,
        token: str | None = None,
        *,
        page_size: int = LOG_PAGE_SIZE,
        from_index: int = 0,
    ) -> Iterator[game_pb2.LogEntry]:
        """Every log entry from ``from_index`` on, in order, paging as it goes.

        Pages keep a long log's replies small; the caller just sees one sequence of entries.

        Raises:
            Like :meth:`action_log_pages`.
        """
        for page in self.action_log_pages(
            game_id, seat, token, page_size=page_size, from_index=from_index
        ):
            yield from page.entries

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
    ) -> GameWatch:
        """Follow a game as it is played: an iterator of one update per version, in order.

        ``from_version`` is the last version the caller already knows; 0 starts with an
        update carrying the current view (no events). The iterator yields ``GameUpdate``
        messages and, once the game is over, one ``GameEnded``, then stops; heartbeats are
        consumed. A dropped connection, UNAVAILABLE or WATCHER_TOO_SLOW re-opens the stream
        from the last version received (up to ``retries`` times in a row, with this client's
        backoff), so no version is missed or repeated; so does a stream that never started:
        one the service shed with CANCELLED before its first message, or one silent for
        ``first_message_timeout``. Close the returned watch (or leave its ``with`` block) to
        stop early; the stream has no deadline.

        Args:
            game_id: the game to watch.
            seat: watch as this seat (with its ``token``); ``None`` for a spectator, who sees
                public events only.
            token: the seat's token.
            from_version: the last version already known; 0 for the current view first.
            events_only: ask for events without views (for callers keeping their own state).
            reload_on_expiry: when the service no longer keeps the versions after
                ``from_version`` (VERSION_EXPIRED), load the view with :meth:`view`, yield it
                as an update with no events (even with ``events_only``) and continue from
                its version, instead of raising.
            first_message_timeout: seconds to wait for the first message of each open (the
                service sends one at once) before opening the stream again.

        Raises (while iterating):
            VersionExpired: ``from_version`` is older than the events kept (unless
                ``reload_on_expiry``): reload the view and watch from its version.
            Unavailable: the stream failed more than ``retries`` times in a row.
            Cancelled: this client's channel was closed under the watch.
            InvalidArgument, NotFound, Unauthenticated, PermissionDenied.
        """
        request = watch_request(game_id, seat, from_version, events_only)
        state = WatchState(
            request,
            settings=self._settings,
            reload_on_expiry=reload_on_expiry,
            first_message_timeout=first_message_timeout,
        )
        return GameWatch(self, state, token)

    def _open_watch(
        self, request: engine_service_pb2.WatchGameRequest, token: str | None
    ) -> grpc.CallIterator[engine_service_pb2.WatchGameResponse]:
        """Start one WatchGame call (no deadline: a game lasts as long as its players)."""
        return self._stub.WatchGame(request, metadata=self._settings.metadata(token))

    def _call(
        self,
        method: grpc.UnaryUnaryMultiCallable[_Request, _Response],
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
                return method(request, timeout=self._settings.timeout, metadata=metadata)
            except grpc.RpcError as rpc_error:
                error = from_rpc_error(rpc_error)
                delay = retries.wait_after(error)
                if delay is None:
                    raise error from rpc_error
            time.sleep(delay)


class GameWatch(Iterator[WatchItem]):
    """A resuming ``WatchGame`` stream; made by :meth:`EngineClient.watch`.

    Iterate it for ``GameUpdate`` messages, one per version with consecutive versions (the
    first one after ``from_version`` 0 or a reload carries the current version; a watcher far
    behind gets the versions it missed merged into one, ``first_version`` to ``version``),
    then a final ``GameEnded`` once the game is over. :attr:`version` is the last version
    received, the one to watch again from on another channel if this one fails for good.
    """

    def __init__(self, client: EngineClient, state: WatchState, token: str | None) -> None:
        self._client = client
        self._state = state
        self._token = token
        self._call: grpc.CallIterator[engine_service_pb2.WatchGameResponse] | None = None
        self._messages: Iterator[engine_service_pb2.WatchGameResponse] = iter(())
        self._first_message_timer: threading.Timer | None = None
        self._silenced: object = None  # the call the timer cancelled for want of a message

    @property
    def version(self) -> int:
        """The last version received (``from_version`` until the first update arrives)."""
        return self._state.version

    @property
    def reopened(self) -> int:
        """How many times the stream was opened again after the first (for logs and tests)."""
        return self._state.reopened

    @property
    def ended(self) -> bool:
        """Whether ``GameEnded`` has been received."""
        return self._state.ended

    def close(self) -> None:
        """Stop watching: cancel the stream; iteration stops. Safe from another thread."""
        self._state.closed = True
        self._stop_call()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __iter__(self) -> Self:
        return self

    def __next__(self) -> WatchItem:
        while not self._state.done:
            response = self._receive()
            item = self._state.take(response) if response is not None else None
            if item is not None:
                if self._state.ended:
                    self._stop_call()
                return item
        raise StopIteration

    def _receive(self) -> engine_service_pb2.WatchGameResponse | None:
        """The next message of the stream, opening it as needed; ``None`` after a failure.

        A failure that watching again can get past is waited out here; any other is raised.
        """
        if self._call is None:
            self._call = self._client._open_watch(self._state.open_request(), self._token)
            self._messages = iter(self._call)
            self._start_first_message_timer(self._call)
        error: EngineError
        cause: grpc.RpcError | None = None
        try:
            response = next(self._messages)
            self._stop_first_message_timer()
            return response
        except StopIteration:
            error = self._state.cut()
        except grpc.RpcError as rpc_error:
            error, cause = from_rpc_error(rpc_error), rpc_error
            if self._silenced is self._call:
                error = self._state.silent()
        self._stop_first_message_timer()
        self._call = None
        if self._state.closed:
            return None
        if self._state.reloads(error):
            state = self._state
            return state.reloaded(self._client.view(state.request.game_id, state.seat, self._token))
        time.sleep(self._state.failure(error, cause))
        return None

    def _start_first_message_timer(
        self, call: grpc.CallIterator[engine_service_pb2.WatchGameResponse]
    ) -> None:
        """Cancel ``call`` if no message comes within the first-message timeout.

        A blocking read has no deadline of its own; the timer's thread cancels the call and
        marks it, so :meth:`_receive` takes the CANCELLED for a silent stream.
        """

        def silence() -> None:
            self._silenced = call
            call.cancel()  # type: ignore[no-untyped-call]

        timer = threading.Timer(self._state.first_message_timeout, silence)
        timer.daemon = True
        self._first_message_timer = timer
        timer.start()

    def _stop_first_message_timer(self) -> None:
        """Drop the first-message timer, if one runs (a message came, or the call is over)."""
        timer, self._first_message_timer = self._first_message_timer, None
        if timer is not None:
            timer.cancel()

    def _stop_call(self) -> None:
        """Cancel the open call, if any (grpc's stubs leave ``cancel`` untyped)."""
        self._stop_first_message_timer()
        call, self._call = self._call, None
        if call is not None:
            call.cancel()  # type: ignore[no-untyped-call]
