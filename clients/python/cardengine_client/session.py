"""A Play session: one stream for many moves and many games (asyncio).

A backend that makes many moves opens one session instead of a call per move and a watch per
game: :meth:`PlaySession.move` is SubmitAction (same arguments, same reply, same typed errors,
each move answered on its own), :meth:`PlaySession.join` follows a game as WatchGame does, and
:meth:`PlaySession.updates` yields every joined game's messages as they come. Open one with
:meth:`cardengine_client.aio.AsyncEngineClient.session`.

>>> async def main(client):  # doctest: +SKIP
...     async with client.session() as session:
...         await session.join(game_id, seat=0, token=token)
...         view = await session.move(game_id, 0, token, action, expected_version=3)
...         async for game_id, message in session.updates():
...             print(game_id, message.WhichOneof("message"))

A session does not reopen itself: when its stream fails, every move waiting for its answer
and :meth:`PlaySession.updates` raise the stream's error (UNAVAILABLE when the server stops),
and the caller opens another session (joining again from the last versions it received, as
with a watch; a move resent with its request id is applied once).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import AsyncIterator
from types import TracebackType
from typing import Any, Final, Self

import grpc
from cardengine.v1 import engine_service_pb2, engine_service_pb2_grpc, game_pb2
from google.rpc import status_pb2

from cardengine_client._shared import Metadata, submit_request, watch_request
from cardengine_client.errors import EngineError, from_rpc_error, from_status

__all__ = ["PlaySession"]

_CODES: Final = {code.value[0]: code for code in grpc.StatusCode}
_CLOSED: Final = object()


def _error(status: status_pb2.Status) -> EngineError:
    code = _CODES.get(status.code, grpc.StatusCode.UNKNOWN)
    return from_status(code, status, status.message)


class PlaySession:
    """One open Play stream; see the module docstring.

    Args:
        stub: the client's stub.
        metadata: the client's metadata (service key, language, trace context).
    """

    def __init__(self, stub: engine_service_pb2_grpc.EngineServiceStub, metadata: Metadata) -> None:
        # No request iterator: the requests are written one by one (grpc.aio allows it).
        self._call: Any = stub.Play(metadata=metadata)  # type: ignore[call-arg]
        self._refs = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[engine_service_pb2.PlayResponse]] = {}
        self._updates: asyncio.Queue[Any] = asyncio.Queue()
        self._reader = asyncio.create_task(self._read())
        self._failure: EngineError | None = None
        # grpc.aio takes one write at a time on a call: requests sent from several tasks wait
        # their turn here, and go in the order their refs were given.
        self._writing = asyncio.Lock()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        """Say that no more requests come, wait for the answers in flight, and end the stream."""
        with contextlib.suppress(Exception):
            await self._call.done_writing()
        with contextlib.suppress(Exception):
            await self._reader
        self._call.cancel()

    async def move(
        self,
        game_id: str,
        seat: int,
        token: str,
        action: game_pb2.Action,
        expected_version: int,
        request_id: str | None = None,
    ) -> game_pb2.GameView:
        """Submit one action, as :meth:`AsyncEngineClient.submit`; the seat's view after it.

        Raises:
            EngineError: the move's own error (its typed subclass), or the stream's.
        """
        submit = submit_request(game_id, seat, action, expected_version, request_id)
        return (await self._submit(token, submit, brief=False)).view

    async def move_brief(
        self,
        game_id: str,
        seat: int,
        token: str,
        action: game_pb2.Action,
        expected_version: int,
        request_id: str | None = None,
    ) -> int:
        """Submit one action as :meth:`move` does; the version it reached, without the view.

        For a seat that joined the game on this session: its view of that version comes as
        the update, so the server builds and sends it once instead of twice.

        Raises:
            EngineError: the move's own error (its typed subclass), or the stream's.
        """
        submit = submit_request(game_id, seat, action, expected_version, request_id)
        return (await self._submit(token, submit, brief=True)).version

    async def _submit(
        self, token: str, submit: engine_service_pb2.SubmitActionRequest, brief: bool
    ) -> engine_service_pb2.SubmitActionResponse:
        request = engine_service_pb2.PlayRequest(token=token, move=submit, brief=brief)
        return (await self._ask(request)).moved

    async def join(
        self,
        game_id: str,
        seat: int | None = None,
        token: str | None = None,
        from_version: int = 0,
        events_only: bool = False,
    ) -> None:
        """Follow a game on this session: its WatchGame messages come from :meth:`updates`.

        Joining a game again follows it from the newly asked version.
        """
        join = watch_request(game_id, seat, from_version, events_only)
        await self._send(engine_service_pb2.PlayRequest(token=token or "", join=join))

    async def leave(self, game_id: str) -> None:
        """Stop following a game; no update of it comes after this returns."""
        leave = engine_service_pb2.PlayLeave(game_id=game_id)
        await self._ask(engine_service_pb2.PlayRequest(leave=leave))

    async def updates(self) -> AsyncIterator[tuple[str, engine_service_pb2.WatchGameResponse]]:
        """``(game_id, message)`` of every joined game as they come, until the session ends.

        Raises:
            EngineError: a join's error (say, NOT_FOUND or VERSION_EXPIRED), which ends this
                iteration only: call ``updates()`` again to go on; or the stream's, which
                ends the session.
        """
        while True:
            item = await self._updates.get()
            if item is _CLOSED:
                if self._failure is not None:
                    raise self._failure
                return
            if isinstance(item, EngineError):
                raise item
            yield item

    async def _ask(
        self, request: engine_service_pb2.PlayRequest
    ) -> engine_service_pb2.PlayResponse:
        answer: asyncio.Future[engine_service_pb2.PlayResponse] = (
            asyncio.get_running_loop().create_future()
        )
        ref = await self._send(request, answer)
        try:
            response = await answer
        finally:
            self._waiting.pop(ref, None)
        if response.HasField("error"):
            raise _error(response.error)
        return response

    async def _send(
        self,
        request: engine_service_pb2.PlayRequest,
        answer: asyncio.Future[engine_service_pb2.PlayResponse] | None = None,
    ) -> int:
        if self._failure is not None:
            raise self._failure
        async with self._writing:
            request.ref = next(self._refs)
            if answer is not None:
                self._waiting[request.ref] = answer
            try:
                await self._call.write(request)
            except grpc.aio.AioRpcError as err:
                raise from_rpc_error(err) from err
        return request.ref

    async def _read(self) -> None:
        try:
            async for response in self._call:
                answer = self._waiting.pop(response.ref, None)
                if answer is not None:
                    answer.set_result(response)
                elif response.HasField("error"):
                    self._updates.put_nowait(_error(response.error))
                elif response.HasField("watch"):
                    self._updates.put_nowait((response.game_id, response.watch))
        except grpc.aio.AioRpcError as err:
            if err.code() != grpc.StatusCode.CANCELLED:
                self._failure = from_rpc_error(err)
        finally:
            failure = self._failure
            for answer in self._waiting.values():
                if not answer.done():
                    if failure is not None:
                        answer.set_exception(failure)
                    else:
                        answer.cancel()
            self._updates.put_nowait(_CLOSED)
