"""Games in Redis: a hash per game, a list for its log, a stream of its versions' events.

Key schema (the ``{game_id}`` hash tag keeps a game's keys in one Redis Cluster slot):

* ``ce:{<id>}:game``: hash with ``v`` (version), ``s`` (snapshot bytes) and, per remembered
  request, ``r:<request key>``: the reply it produced, for idempotent retries
* ``ce:{<id>}:log``: list of encoded log entries, oldest first; entry ``i`` made version
  ``i + 2``. Kept whole for the life of the game, so it can always be replayed.
* ``ce:{<id>}:events``: stream with one entry per version after the first, ID
  ``<version>-0``, fields ``a`` (the log entry) and ``e`` (the encoded events). Trimmed to
  about the newest ``event_retention`` versions; watchers read it to catch up and to follow.

Keeping the replies in the game's hash lets a move be loaded with one plain ``HMGET`` (version,
snapshot and the request's reply), and they expire with the game. Writes go through one Lua
script (:file:`save.lua`), a single round trip that checks the version and writes everything
or nothing. Every write refreshes the expiry of all three keys.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from typing import Any, Final

import redis.asyncio as redis

from engine_service.core.errors import GameNotFound, VersionConflict
from engine_service.store.protocol import NewVersion, StoredGame, StoredVersion

SAVE_SCRIPT: Final = resources.files(__package__).joinpath("save.lua").read_text()
DEFAULT_EVENT_RETENTION: Final = 10_000
"""Versions of events kept per game: a whole Hearts game or a long Guandan match."""


def game_key(game_id: str) -> str:
    """The key of a game's snapshot hash."""
    return f"ce:{{{game_id}}}:game"


def log_key(game_id: str) -> str:
    """The key of a game's action log."""
    return f"ce:{{{game_id}}}:log"


def events_key(game_id: str) -> str:
    """The key of a game's event stream."""
    return f"ce:{{{game_id}}}:events"


def stream_id(version: int) -> str:
    """The event-stream entry ID of a version."""
    return f"{version}-0"


def version_of_stream_id(entry_id: bytes | str) -> int:
    """The version an event-stream entry ID stands for.

    >>> version_of_stream_id(b"17-0")
    17
    """
    text = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    return int(text.partition("-")[0])


def stored_version(entry_id: bytes | str, fields: dict[bytes, bytes]) -> StoredVersion:
    """A stream entry as a :class:`StoredVersion`."""
    return StoredVersion(version_of_stream_id(entry_id), fields[b"a"], fields[b"e"])


def _reply_field(request_key: str) -> str:
    return f"r:{request_key}"


class RedisGameStore:
    """A :class:`~engine_service.store.protocol.GameStore` over one Redis (asyncio client)."""

    def __init__(
        self,
        client: redis.Redis,
        ttl_seconds: int,
        event_retention: int = DEFAULT_EVENT_RETENTION,
    ) -> None:
        self.client = client
        self._ttl = ttl_seconds
        self._retention = event_retention
        self._save = client.register_script(SAVE_SCRIPT)

    @classmethod
    def from_url(
        cls,
        url: str,
        ttl_seconds: int,
        event_retention: int = DEFAULT_EVENT_RETENTION,
        max_connections: int = 64,
    ) -> RedisGameStore:
        """A store with its own connection pool."""
        pool = redis.BlockingConnectionPool.from_url(url, max_connections=max_connections)
        return cls(redis.Redis(connection_pool=pool), ttl_seconds, event_retention)

    async def create(self, game_id: str, snapshot: bytes, moves: Sequence[NewVersion]) -> int:
        """Store a new game (ids are random, so there is nothing to collide with)."""
        version = 1 + len(moves)
        keys = (game_key(game_id), log_key(game_id), events_key(game_id))
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.hset(keys[0], mapping={"v": version, "s": snapshot})
            for number, move in enumerate(moves, start=2):
                pipe.rpush(keys[1], move.entry)
                fields: Any = {"a": move.entry, "e": move.events}
                pipe.xadd(
                    keys[2],
                    fields,
                    id=stream_id(number),
                    maxlen=self._retention,
                    approximate=True,
                )
            for key in keys:
                pipe.expire(key, self._ttl)
            await pipe.execute()
        return version

    async def load(self, game_id: str, request_key: str | None = None) -> StoredGame:
        """One command for the game and, when given, the request's remembered reply."""
        fields = ["v", "s"] if request_key is None else ["v", "s", _reply_field(request_key)]
        values: list[Any] = await self.client.hmget(game_key(game_id), fields)
        version, snapshot, *replay = values
        if version is None or snapshot is None:
            raise GameNotFound(f"no game {game_id!r}")
        return StoredGame(
            snapshot=snapshot, version=int(version), replay=replay[0] if replay else None
        )

    async def save(
        self,
        game_id: str,
        expected_version: int,
        snapshot: bytes,
        moves: Sequence[NewVersion],
        request_key: str,
        reply: bytes,
    ) -> int:
        """Compare-and-set through :file:`save.lua`."""
        new_version = expected_version + len(moves)
        keys = [game_key(game_id), log_key(game_id), events_key(game_id)]
        reply_field = _reply_field(request_key)
        args: list[Any] = [expected_version, new_version, snapshot, self._ttl, reply, reply_field]
        args.append(self._retention)
        for move in moves:
            args += (move.entry, move.events)
        result = await self._save(keys=keys, args=args)
        status = result[0]
        if status == b"OK":
            return new_version
        if status == b"MISSING":
            raise GameNotFound(f"no game {game_id!r}")
        raise VersionConflict(expected_version, int(result[1]))

    async def log(
        self, game_id: str, start: int = 0, stop: int | None = None
    ) -> tuple[StoredGame, list[bytes]]:
        """The game and a slice of its log, read in one transaction so they match."""
        if stop is not None and stop <= start:
            return await self.load(game_id), []
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.hmget(game_key(game_id), ["v", "s"])
            pipe.lrange(log_key(game_id), start, -1 if stop is None else stop - 1)
            (version, snapshot), entries = await pipe.execute()
        if version is None or snapshot is None:
            raise GameNotFound(f"no game {game_id!r}")
        return StoredGame(snapshot=snapshot, version=int(version)), list(entries)

    async def versions_after(self, game_id: str, version: int) -> list[StoredVersion]:
        """XRANGE from the next version to the newest."""
        found: Any = await self.client.xrange(events_key(game_id), min=stream_id(version + 1))
        return [stored_version(entry_id, fields) for entry_id, fields in found]
