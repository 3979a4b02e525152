"""The floor server: what a SubmitAction, and a watcher's delivery, cannot go below here.

It is the same kind of server as the engine's (``new_grpc_server``: a ``grpc.aio`` server on
one asyncio loop, over ``redis.asyncio`` with a connection pool of the same size, the garbage
collector tuned alike), serving the same ``SubmitAction`` method, but its handler does one
Redis GET of the game's value and one Lua compare-and-set of a value of the same size, and
nothing else. The script also XADDs the
new value to the game's stream, as the engine's ``save.lua`` adds each version to the game's
event stream in the same round trip. It answers with an empty reply.

For the fan-out figures it also serves ``/bench.Floor/Watch``, a server-streaming method of raw
bytes (no proto): the request is a game id, and the stream sends one message at once (version
0: subscribed) and then, for every entry XADDed to that game's stream, the entry's version and
value. Like the engine, one reader task per process blocks in ``XREAD BLOCK`` over the stream
of every watched game, on one Redis connection, and hands entries to the watchers' queues.
``/bench.Floor/WatchOwn`` is the other design, for reference: each stream blocks in its own
``XREAD`` on a Redis connection of its own (a connection per watcher).

Run it as ``python -m bench.floor --address 127.0.0.1:PORT --redis-url ...``.

A floor value is an 8-byte big-endian version followed by a payload the size of a real
snapshot, under ``floor:{game_id}``; :func:`seed_values` writes them before a run.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import signal
import sys
from collections.abc import AsyncIterator, Iterable
from typing import Any, Final

import grpc
import redis
import redis.asyncio as aioredis
from cardengine.v1 import engine_service_pb2, engine_service_pb2_grpc

from engine_service.api.server import REDIS_CONNECTIONS, new_grpc_server, tune_collector

VERSION_BYTES: Final = 8
CAS_SCRIPT: Final = """
local current = redis.call('GET', KEYS[1])
if current and string.sub(current, 1, 8) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2])
  redis.call('XADD', KEYS[2], ARGV[3], 'e', ARGV[2])
  return 1
end
return 0
"""
WATCH_METHOD: Final = "/bench.Floor/Watch"
"""The floor's server-streaming method: request = a game id, messages = version + value."""
OWN_WATCH_METHOD: Final = "/bench.Floor/WatchOwn"
"""The same, each stream blocking in ``XREAD`` on a Redis connection of its own."""
BLOCK_MILLISECONDS: Final = 1_000
"""How long one floor ``XREAD`` waits before the reader looks at its list of streams again."""
JOIN_TRIES: Final = 200
"""How often a new watcher nudges the reader (1 ms apart) until a read includes its stream."""


def floor_key(game_id: str) -> str:
    """Where the floor keeps a game's value."""
    return f"floor:{{{game_id}}}"


def floor_stream(game_id: str) -> str:
    """The floor's stream of a game's versions."""
    return f"floor:{{{game_id}}}:events"


def seed_values(client: redis.Redis, game_ids: Iterable[str], size: int) -> None:
    """Give each game a floor value at version 1 with a payload of ``size`` bytes."""
    value = (1).to_bytes(VERSION_BYTES, "big") + b"s" * size
    with client.pipeline(transaction=False) as pipe:
        for game_id in game_ids:
            pipe.set(floor_key(game_id), value)
            pipe.delete(floor_stream(game_id))
        pipe.execute()


def watch_message(version: int, value: bytes = b"") -> bytes:
    """One message of a floor watch stream."""
    return version.to_bytes(VERSION_BYTES, "big") + value


def version_of_message(message: bytes) -> int:
    """The version a floor watch message carries (0: subscribed)."""
    return int.from_bytes(message[:VERSION_BYTES], "big")


class FloorServicer(engine_service_pb2_grpc.EngineServiceServicer):
    """SubmitAction as one GET and one compare-and-set; every other method is unimplemented."""

    def __init__(self, client: aioredis.Redis) -> None:
        self._redis = client
        self._cas = client.register_script(CAS_SCRIPT)

    async def SubmitAction(  # noqa: N802 - the generated method name
        self,
        request: engine_service_pb2.SubmitActionRequest,
        context: grpc.aio.ServicerContext[Any, Any],
    ) -> engine_service_pb2.SubmitActionResponse:
        key = floor_key(request.game_id)
        value: Any = await self._redis.get(key)
        if value is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, "no floor value")
        version = request.expected_version + 1
        expected = request.expected_version.to_bytes(VERSION_BYTES, "big")
        new = version.to_bytes(VERSION_BYTES, "big") + value[VERSION_BYTES:]
        keys = [key, floor_stream(request.game_id)]
        if not await self._cas(keys=keys, args=[expected, new, f"{version}-0"]):
            await context.abort(grpc.StatusCode.ABORTED, "version moved")
        return engine_service_pb2.SubmitActionResponse()


class FloorFeed:
    """One ``XREAD BLOCK`` over every watched stream, on one connection, for the process."""

    def __init__(self, url: str, control: aioredis.Redis) -> None:
        self._reader = aioredis.Redis.from_url(
            url, single_connection_client=True, socket_timeout=None
        )
        self._control = control
        self._cursors: dict[str, str] = {}
        self._queues: dict[str, set[asyncio.Queue[bytes]]] = collections.defaultdict(set)
        self._changed = asyncio.Event()
        self._generation = 0
        self._read_generation = -1
        self._reader_id: int | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._reader_id = int(await self._reader.client_id())
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self._reader.aclose()

    async def subscribe(self, stream: str) -> asyncio.Queue[bytes]:
        """A queue of the stream's entries from its start; returns once a read includes it."""
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        self._queues[stream].add(queue)
        if stream not in self._cursors:
            self._cursors[stream] = "0-0"
            self._generation += 1
            wanted = self._generation
            self._changed.set()
            for _ in range(JOIN_TRIES):
                if self._read_generation >= wanted:
                    break
                if self._reader_id is not None:
                    await self._control.client_unblock(self._reader_id)
                await asyncio.sleep(0.001)
        return queue

    def unsubscribe(self, stream: str, queue: asyncio.Queue[bytes]) -> None:
        queues = self._queues.get(stream)
        if queues is None:
            return
        queues.discard(queue)
        if not queues:
            del self._queues[stream]
            self._cursors.pop(stream, None)

    async def _run(self) -> None:
        while True:
            if not self._cursors:
                self._read_generation = self._generation
                self._changed.clear()
                await self._changed.wait()
                continue
            self._read_generation = self._generation
            found: Any = await self._reader.xread(dict(self._cursors), block=BLOCK_MILLISECONDS)  # type: ignore[arg-type]
            for key, entries in found or ():
                stream = key.decode()
                if stream not in self._cursors:
                    continue
                for entry_id, fields in entries:
                    self._cursors[stream] = entry_id.decode()
                    version = int(entry_id.split(b"-", 1)[0])
                    message = watch_message(version, fields[b"e"][VERSION_BYTES:])
                    for queue in self._queues.get(stream, ()):
                        queue.put_nowait(message)


def watch_handler(feed: FloorFeed, redis_url: str) -> grpc.GenericRpcHandler[Any, Any]:
    """The generic handlers of :data:`WATCH_METHOD` (over ``feed``) and :data:`OWN_WATCH_METHOD`."""

    async def watch(
        request: bytes, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[bytes]:
        stream = floor_stream(request.decode())
        queue = await feed.subscribe(stream)
        try:
            yield watch_message(0)
            while True:
                yield await queue.get()
        finally:
            feed.unsubscribe(stream, queue)

    async def watch_own(
        request: bytes, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[bytes]:
        stream, cursor = floor_stream(request.decode()), "0-0"
        connection = aioredis.Redis.from_url(
            redis_url, single_connection_client=True, socket_timeout=None
        )
        try:
            yield watch_message(0)
            while True:
                found: Any = await connection.xread({stream: cursor}, block=0)
                for _, entries in found or ():
                    for entry_id, fields in entries:
                        cursor = entry_id.decode()
                        version = int(entry_id.split(b"-", 1)[0])
                        yield watch_message(version, fields[b"e"][VERSION_BYTES:])
        finally:
            await connection.aclose()

    service, method = WATCH_METHOD.strip("/").split("/")
    own = OWN_WATCH_METHOD.rsplit("/", 1)[1]
    handlers = {  # bytes in, bytes out: no serializers
        method: grpc.unary_stream_rpc_method_handler(watch),
        own: grpc.unary_stream_rpc_method_handler(watch_own),
    }
    return grpc.method_handlers_generic_handler(service, handlers)


async def serve(address: str, redis_url: str) -> None:
    """Serve the floor on ``address`` until SIGTERM or SIGINT."""
    pool = aioredis.BlockingConnectionPool.from_url(redis_url, max_connections=REDIS_CONNECTIONS)
    client = aioredis.Redis(connection_pool=pool)
    feed = FloorFeed(redis_url, client)
    server = new_grpc_server()
    engine_service_pb2_grpc.add_EngineServiceServicer_to_server(FloorServicer(client), server)  # type: ignore[abstract]
    server.add_generic_rpc_handlers((watch_handler(feed, redis_url),))
    if not server.add_insecure_port(address):
        sys.exit(f"cannot bind {address}")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await feed.start()
    await server.start()
    await stop.wait()
    await feed.stop()
    await server.stop(1.0)
    await client.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--address", required=True)
    parser.add_argument("--redis-url", required=True)
    args = parser.parse_args()
    tune_collector()  # as the engine's serving process does
    asyncio.run(serve(args.address, args.redis_url))


if __name__ == "__main__":
    main()
