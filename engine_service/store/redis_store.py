"""Games in Redis: one hash per game, a list for its log, one key per remembered request.

Key schema (the ``{game_id}`` hash tag keeps a game's keys in one Redis Cluster slot):

* ``ce:{<id>}:game``: hash with ``v`` (version), ``s`` (snapshot bytes) and, per remembered
  request, ``r:<request key>``: the reply it produced, for idempotent retries
* ``ce:{<id>}:log``: list of encoded log entries, oldest first

Keeping the replies in the game's hash lets a move be loaded with one plain ``HMGET`` (version,
snapshot and the request's reply), and they expire with the game. Writes go through one Lua
script (:file:`save.lua`), a single round trip that checks the version and writes everything
or nothing. Every write refreshes the expiry of both keys.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from typing import Any, Final

import redis

from engine_service.core.errors import GameNotFound, VersionConflict
from engine_service.store.protocol import StoredGame

SAVE_SCRIPT: Final = resources.files(__package__).joinpath("save.lua").read_text()


def game_key(game_id: str) -> str:
    """The key of a game's snapshot hash."""
    return f"ce:{{{game_id}}}:game"


def _log_key(game_id: str) -> str:
    return f"ce:{{{game_id}}}:log"


def _reply_field(request_key: str) -> str:
    return f"r:{request_key}"


class RedisGameStore:
    """A :class:`~engine_service.store.protocol.GameStore` over one Redis (or a cluster)."""

    def __init__(self, client: redis.Redis, ttl_seconds: int) -> None:
        self._redis = client
        self._ttl = ttl_seconds
        self._save = client.register_script(SAVE_SCRIPT)

    @classmethod
    def from_url(cls, url: str, ttl_seconds: int, max_connections: int = 64) -> RedisGameStore:
        """A store with its own connection pool."""
        pool = redis.BlockingConnectionPool.from_url(url, max_connections=max_connections)
        return cls(redis.Redis(connection_pool=pool), ttl_seconds)

    def create(self, game_id: str, snapshot: bytes, log: Sequence[bytes]) -> int:
        """Store a new game (ids are random, so there is nothing to collide with)."""
        version = 1 + len(log)
        with self._redis.pipeline(transaction=True) as pipe:
            pipe.hset(game_key(game_id), mapping={"v": version, "s": snapshot})
            pipe.expire(game_key(game_id), self._ttl)
            if log:
                pipe.rpush(_log_key(game_id), *log)
                pipe.expire(_log_key(game_id), self._ttl)
            pipe.execute()
        return version

    def load(self, game_id: str, request_key: str | None = None) -> StoredGame:
        """One command for the game and, when given, the request's remembered reply."""
        fields = ["v", "s"] if request_key is None else ["v", "s", _reply_field(request_key)]
        values: list[Any] = self._redis.hmget(game_key(game_id), fields)
        version, snapshot, *replay = values
        if version is None or snapshot is None:
            raise GameNotFound(f"no game {game_id!r}")
        return StoredGame(
            snapshot=snapshot, version=int(version), replay=replay[0] if replay else None
        )

    def save(
        self,
        game_id: str,
        expected_version: int,
        snapshot: bytes,
        log: Sequence[bytes],
        request_key: str,
        reply: bytes,
    ) -> int:
        """Compare-and-set through :file:`save.lua`."""
        new_version = expected_version + len(log)
        keys = [game_key(game_id), _log_key(game_id)]
        reply_field = _reply_field(request_key)
        args: list[Any] = [expected_version, new_version, snapshot, self._ttl, reply, reply_field]
        args += log
        result = self._save(keys=keys, args=args)
        status = result[0]
        if status == b"OK":
            return new_version
        if status == b"MISSING":
            raise GameNotFound(f"no game {game_id!r}")
        raise VersionConflict(expected_version, int(result[1]))

    def log(self, game_id: str) -> tuple[StoredGame, list[bytes]]:
        """The game and its log, read in one transaction so they match."""
        with self._redis.pipeline(transaction=True) as pipe:
            pipe.hmget(game_key(game_id), ["v", "s"])
            pipe.lrange(_log_key(game_id), 0, -1)
            (version, snapshot), entries = pipe.execute()
        if version is None or snapshot is None:
            raise GameNotFound(f"no game {game_id!r}")
        return StoredGame(snapshot=snapshot, version=int(version)), list(entries)
