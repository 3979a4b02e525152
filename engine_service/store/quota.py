"""Per-key quotas in Redis: a token bucket of calls and a sliding window of games created.

Both live in Redis, so every server process on that Redis (a process group, replicas on
other hosts) counts one key's calls and games together, by Redis's clock. Each check is one
Lua script on one key, so it is atomic and a Redis Cluster runs it on the node of that slot.
The keys follow :mod:`engine_service.store.keys` (prefix ``ce:``, a hash tag per key name):

* ``ce:{key:<name>}:rate``: hash ``t`` (tokens left, a float), ``ms`` (last refill), kept
  until the bucket would be full again (:file:`rate.lua`);
* ``ce:{key:<name>}:games``: sorted set with one member per game created within the window,
  scored by when (:file:`games.lua`), kept for one window after the last game.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from importlib import resources
from typing import Final

import redis.asyncio as redis
from redis.asyncio.cluster import RedisCluster

RATE_SCRIPT: Final = resources.files(__package__).joinpath("rate.lua").read_text()
GAMES_SCRIPT: Final = resources.files(__package__).joinpath("games.lua").read_text()


def rate_key(name: str) -> str:
    """The key of a service key's token bucket."""
    return f"ce:{{key:{name}}}:rate"


def games_key(name: str) -> str:
    """The key of a service key's window of games created."""
    return f"ce:{{key:{name}}}:games"


@dataclass(frozen=True, slots=True)
class Verdict:
    """What a quota check found.

    Attributes:
        admitted: whether the call (or game) fits in the quota; it was counted if so.
        retry_ms: when refused, the milliseconds until it would fit.
        count: tokens left in the bucket, or games in the window counting this one.
        member: the game's entry, when counted by this call: taken back when the game was not
            created after all.
    """

    admitted: bool
    retry_ms: int
    count: int
    member: str = ""


class KeyQuotas:
    """The two checks over one Redis client (the store's: one connection pool per process)."""

    def __init__(self, client: redis.Redis | RedisCluster) -> None:
        self._client = client
        self._rate = client.register_script(RATE_SCRIPT)
        self._games = client.register_script(GAMES_SCRIPT)

    async def take_call(self, name: str, rate: float, burst: int) -> Verdict:
        """Take one token from the key's bucket (``rate`` per second, at most ``burst``)."""
        taken, wait, left = await self._rate(keys=[rate_key(name)], args=[rate, burst])
        return Verdict(bool(taken), int(wait), int(left))

    async def add_game(self, name: str, limit: int, window_ms: int, request_id: str) -> Verdict:
        """Count one more game for the key, unless ``limit`` were created within the window.

        A game asked for with a ``request_id`` counts once however often it is retried.
        """
        member = f"r:{request_id}" if request_id else f"n:{secrets.token_hex(8)}"
        admitted, wait, count, counted = await self._games(
            keys=[games_key(name)], args=[limit, window_ms, member]
        )
        return Verdict(bool(admitted), int(wait), int(count), member if counted else "")

    async def take_back_game(self, name: str, member: str) -> None:
        """Forget a counted game that was not created after all (the call was refused)."""
        await self._client.zrem(games_key(name), member)
