"""The floor server: what a SubmitAction cannot go below on this machine.

It is the same kind of server as the engine's (``new_grpc_server``: same gRPC server, same
thread pool, same Redis connection pool), serving the same ``SubmitAction`` method, but its
handler does one Redis GET of the game's value and one Lua compare-and-set of a value of the
same size, and nothing else. It answers with an empty reply. Run it as
``python -m bench.floor --address 127.0.0.1:PORT --redis-url ... --workers N``.

A floor value is an 8-byte big-endian version followed by a payload the size of a real
snapshot, under ``floor:{game_id}``; :func:`seed_values` writes them before a run.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Iterable
from typing import Final

import grpc
import redis
from cardengine.v1 import engine_service_pb2, engine_service_pb2_grpc

from engine_service.api.server import new_grpc_server

VERSION_BYTES: Final = 8
CAS_SCRIPT: Final = """
local current = redis.call('GET', KEYS[1])
if current and string.sub(current, 1, 8) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2])
  return 1
end
return 0
"""


def floor_key(game_id: str) -> str:
    """Where the floor keeps a game's value."""
    return f"floor:{{{game_id}}}"


def seed_values(client: redis.Redis, game_ids: Iterable[str], size: int) -> None:
    """Give each game a floor value at version 1 with a payload of ``size`` bytes."""
    value = (1).to_bytes(VERSION_BYTES, "big") + b"s" * size
    with client.pipeline(transaction=False) as pipe:
        for game_id in game_ids:
            pipe.set(floor_key(game_id), value)
        pipe.execute()


class FloorServicer(engine_service_pb2_grpc.EngineServiceServicer):
    """SubmitAction as one GET and one compare-and-set; every other method is unimplemented."""

    def __init__(self, client: redis.Redis) -> None:
        self._redis = client
        self._cas = client.register_script(CAS_SCRIPT)

    def SubmitAction(  # noqa: N802 - the generated method name
        self, request: engine_service_pb2.SubmitActionRequest, context: grpc.ServicerContext
    ) -> engine_service_pb2.SubmitActionResponse:
        key = floor_key(request.game_id)
        value = self._redis.get(key)
        if value is None:
            context.abort(grpc.StatusCode.NOT_FOUND, "no floor value")
        expected = request.expected_version.to_bytes(VERSION_BYTES, "big")
        new = (request.expected_version + 1).to_bytes(VERSION_BYTES, "big") + value[VERSION_BYTES:]
        if not self._cas(keys=[key], args=[expected, new]):
            context.abort(grpc.StatusCode.ABORTED, "version moved")
        return engine_service_pb2.SubmitActionResponse()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--address", required=True)
    parser.add_argument("--redis-url", required=True)
    parser.add_argument("--workers", type=int, default=16)
    args = parser.parse_args()
    pool = redis.BlockingConnectionPool.from_url(args.redis_url, max_connections=args.workers + 4)
    server = new_grpc_server(args.workers)
    servicer = FloorServicer(redis.Redis(connection_pool=pool))
    engine_service_pb2_grpc.add_EngineServiceServicer_to_server(servicer, server)
    if not server.add_insecure_port(args.address):
        sys.exit(f"cannot bind {args.address}")
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    server.start()
    stop.wait()
    server.stop(1.0).wait()


if __name__ == "__main__":
    main()
