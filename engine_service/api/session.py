"""Play: one long-lived stream that carries a caller's moves in and its games' updates out.

A backend or a frontend that makes many moves pays for a unary call per move (a new HTTP/2
stream, its headers, the interceptors, the log line) and for a watch per game. On a Play
session it opens one stream and then exchanges small messages: ``join`` follows a game as
WatchGame does, ``move`` is a SubmitAction, ``leave`` stops following a game. Every request
carries the caller's ``ref``, and its answer (the move's view, or its error) carries it back;
updates of a joined game carry the join's ``ref``. A move sent ``brief`` is answered with the
version it reached only: a caller that joined the game as that seat gets the view once, as
the update, instead of twice.

Every answer is built in the message that is written (the move's reply and the update are
encoded into the PlayResponse's own fields), so nothing is built apart and then copied.

The session changes nothing in what a move is: the same use cases run (the engine's submit
and the watch), so the rules, tokens, versions, idempotency and durability are those of the
unary calls: a move is answered only after its compare-and-set, and a joined game's update
comes from the stored stream, so nothing is told before Redis holds it. An error answers its
request, never the stream: the session goes on. Only a fault of the session itself (the
client stopped reading, the server is stopping) ends it, with a status.

Moves are answered as they complete, up to :data:`MOVES_IN_FLIGHT` at once per session
(more wait to be read, so a caller cannot queue unbounded work); the answers of one game's
moves come in the order its moves were made. When the caller closes its side, the moves in
flight are answered and the session ends; its joined games stop with it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import Any, Final

from cardengine.v1 import engine_service_pb2 as api
from google.rpc import status_pb2

from engine_service.api.wire import Unreadable
from engine_service.app.watch import WatchItem
from engine_service.core.errors import MalformedRequest

MOVES_IN_FLIGHT: Final = 64
"""Moves of one session being judged and written at once."""
QUEUED_ANSWERS: Final = 256
"""Answers and updates waiting to be written; past it the session waits for the client."""

AnswerMove = Callable[
    [api.SubmitActionRequest, str | None, bool, api.SubmitActionResponse], Awaitable[None]
]
"""Judges and stores one move (SubmitAction's use case) and writes its answer into the given
reply, briefly (the version only) when asked; raises the move's error."""
FollowGame = Callable[[api.WatchGameRequest, str | None], AsyncGenerator[WatchItem, None]]
"""WatchGame's items for one game."""
EncodeItem = Callable[[WatchItem, api.WatchGameResponse], None]
"""Writes one of those items into a WatchGame message."""
Explain = Callable[[Exception, str], status_pb2.Status]
"""The status reporting an error of one request, by the request's kind ("move", "join",
"request" for one that is none of them), which also logs it."""


def play_error(status: status_pb2.Status) -> api.PlayError:
    """``status`` as the PlayError that carries it (the same fields, the same bytes)."""
    return api.PlayError.FromString(status.SerializeToString())


class Refused:
    """Stands in the request stream for a request the door refused (a service key's quota).

    Attributes:
        ref: the refused request's ``ref``.
        status: why.
    """

    def __init__(self, ref: int, status: status_pb2.Status) -> None:
        self.ref = ref
        self.status = status


_END: Final = object()


class Session:
    """One Play stream: reads requests, runs them, and queues their answers to be written."""

    def __init__(
        self,
        answer_move: AnswerMove,
        follow: FollowGame,
        encode: EncodeItem,
        explain: Explain,
        token: str | None,
    ) -> None:
        self._answer_move = answer_move
        self._follow = follow
        self._encode = encode
        self._explain = explain
        self._token = token
        self._out: asyncio.Queue[Any] = asyncio.Queue(QUEUED_ANSWERS)
        self._moves = asyncio.Semaphore(MOVES_IN_FLIGHT)
        self._running: set[asyncio.Task[None]] = set()
        self._joined: dict[str, asyncio.Task[None]] = {}
        self._last_move: dict[str, asyncio.Future[None]] = {}

    async def run(self, requests: AsyncIterator[Any]) -> AsyncIterator[api.PlayResponse]:
        """The answers and updates, as they come, until the caller is done and all answered."""
        reader = asyncio.create_task(self._read(requests))
        try:
            while True:
                item = await self._out.get()
                if item is _END:
                    break
                yield item
            await reader  # a failure of the reading itself ends the stream with it
        finally:
            reader.cancel()
            for task in [*self._running, *self._joined.values()]:
                task.cancel()

    async def _read(self, requests: AsyncIterator[Any]) -> None:
        try:
            async for request in requests:
                await self._take(request)
            if self._running:
                await asyncio.gather(*self._running, return_exceptions=True)
        finally:
            for follower in self._joined.values():
                follower.cancel()
            await self._out.put(_END)

    async def _take(self, request: Any) -> None:
        if isinstance(request, Unreadable):
            await self._answer_error(0, request.error(), "request")
            return
        if isinstance(request, Refused):
            await self._out.put(api.PlayResponse(ref=request.ref, error=play_error(request.status)))
            return
        token = request.token or self._token
        kind = request.WhichOneof("request")
        if kind == "move":
            await self._moves.acquire()
            self._start(self._move(request.ref, request.move, token, request.brief))
        elif kind == "join":
            self._join(request.ref, request.join, token)
        elif kind == "leave":
            await self._leave(request.ref, request.leave.game_id)
        else:
            nothing = MalformedRequest("request", "set one of join, move or leave")
            await self._answer_error(request.ref, nothing, "request")

    def _start(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def _move(
        self, ref: int, move: api.SubmitActionRequest, token: str | None, brief: bool
    ) -> None:
        """One move, after the previous move of its game (so a game's answers keep its order)."""
        before = self._last_move.get(move.game_id)
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._last_move[move.game_id] = done
        try:
            if before is not None:
                await before
            answer = api.PlayResponse(ref=ref, game_id=move.game_id)
            try:
                await self._answer_move(move, token, brief, answer.moved)
            except Exception as error:  # the boundary of one request: it answers, nothing else
                await self._answer_error(ref, error, "move", move.game_id)
                return
            await self._out.put(answer)
        finally:
            done.set_result(None)
            if self._last_move.get(move.game_id) is done:
                del self._last_move[move.game_id]
            self._moves.release()

    def _join(self, ref: int, join: api.WatchGameRequest, token: str | None) -> None:
        game_id = join.game_id
        if game_id in self._joined:
            self._joined.pop(game_id).cancel()  # joined again: from the version asked now
        follower = asyncio.create_task(self._pump(ref, join, token))
        self._joined[game_id] = follower
        follower.add_done_callback(lambda done: self._forget(game_id, done))

    def _forget(self, game_id: str, follower: asyncio.Task[None]) -> None:
        if self._joined.get(game_id) is follower:
            del self._joined[game_id]

    async def _pump(self, ref: int, join: api.WatchGameRequest, token: str | None) -> None:
        try:
            async with contextlib.aclosing(self._follow(join, token)) as items:
                async for item in items:
                    answer = api.PlayResponse(ref=ref, game_id=join.game_id)
                    self._encode(item, answer.watch)
                    await self._out.put(answer)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the boundary of one join: it answers, nothing else
            await self._answer_error(ref, error, "join", join.game_id)

    async def _leave(self, ref: int, game_id: str) -> None:
        follower = self._joined.pop(game_id, None)
        if follower is not None:
            follower.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await follower
        await self._out.put(api.PlayResponse(ref=ref, game_id=game_id, left=api.PlayLeft()))

    async def _answer_error(self, ref: int, error: Exception, kind: str, game_id: str = "") -> None:
        answer = play_error(self._explain(error, kind))
        await self._out.put(api.PlayResponse(ref=ref, game_id=game_id, error=answer))
