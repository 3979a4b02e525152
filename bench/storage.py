"""Part 4: what one active game costs in Redis, per game type.

Games are played in this process through the engine's use cases (no gRPC), every seat human,
each stopped at a seeded random point of its game, so the stored games look like a live
population: some just dealt, some near the end. Redis memory is read from ``INFO memory``
before and after, on a private redis-server, and split by key kind with ``MEMORY USAGE``: the
game's hash (snapshot and the replies remembered for idempotent retries, one per action), its
log and its event stream (one entry per version, what watchers read).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import statistics
from collections.abc import AsyncIterator
from typing import Any

import redis
import redis.asyncio as aioredis

from engine_service.app.engine import Engine, NewGame
from engine_service.app.idempotency import Request
from engine_service.core.record import PlayerKind
from engine_service.registry import REGISTRY
from engine_service.store.keys import game_key
from engine_service.store.redis_store import RedisGameStore

TTL_SECONDS = 3600
WHOLE_GAME_CAP = 3000
"""Most actions of the one game followed from start to end (a bound on the part's time)."""


async def play(engine: Engine, game: str, seed: int, stop_after: int) -> AsyncIterator[str]:
    """Play a seeded random all-human game for up to ``stop_after`` actions.

    Yields the game's id after every action.
    """
    spec = REGISTRY[game]
    seats = [PlayerKind.HUMAN] * spec.seats
    created = await engine.create_game(game, seats, NewGame(spec.config_type(), seed))
    rng = random.Random(seed)
    game_id, view, done = created.game_id, created.view, 0
    while view.outcome is None and done < stop_after:
        seat = view.to_act[0]
        token = created.tokens[seat]
        legal = (await engine.view(game_id, seat, token)).legal
        action = legal[rng.randrange(len(legal))]
        # A fingerprint of the same size as the api's (SHA-256), so the stored replies weigh
        # what they weigh in service.
        request = Request(str(done), bytes(32))
        reached = await engine.submit(game_id, seat, token, view.version, request, game, action)
        view = reached.seat_view(seat)
        done += 1
        yield game_id


def _memory(client: redis.Redis, pattern: str) -> int:
    return sum(int(client.memory_usage(key) or 0) for key in client.scan_iter(pattern))


@contextlib.asynccontextmanager
async def local_engine(redis_url: str) -> AsyncIterator[Engine]:
    """The engine's use cases in this process over ``redis_url``: games at the rules' speed.

    The store is the service's own, so what it writes is what the service would write.
    """
    store = aioredis.Redis.from_url(redis_url)
    try:
        yield Engine(RedisGameStore(store, TTL_SECONDS))
    finally:
        await store.aclose()


async def _populate(
    client: redis.Redis, redis_url: str, game: str, games: int
) -> tuple[list[int], int]:
    """Snapshot sizes over one whole game; then ``games`` live games (and the memory before)."""
    async with local_engine(redis_url) as engine:
        played = play(engine, game, 0, WHOLE_GAME_CAP)
        whole = [int(client.hstrlen(game_key(g), "s")) async for g in played]
        client.flushdb()
        before = int(client.info("memory")["used_memory"])
        rng = random.Random(1)
        for seed in range(1, games + 1):
            async for _ in play(engine, game, seed, rng.randrange(len(whole))):
                pass
        return whole, before


def storage(redis_url: str, game: str, games: int) -> dict[str, Any]:
    """Snapshot bytes over one whole game, and Redis bytes per game over ``games`` live games."""
    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    whole, before = asyncio.run(_populate(client, redis_url, game, games))
    used = int(client.info("memory")["used_memory"]) - before
    snapshots = [int(client.hstrlen(key, "s")) for key in client.scan_iter("ce:*:game")]
    figures = {
        "game": game,
        "actions_in_whole_game": len(whole),
        "snapshot_bytes_mean": round(statistics.fmean(whole)),
        "snapshot_bytes_max": max(whole),
        "live_games": games,
        "live_snapshot_bytes_mean": round(statistics.fmean(snapshots)),
        "redis_bytes_per_game": round(used / games),
        "game_hash_bytes_per_game": round(_memory(client, "ce:*:game") / games),
        "log_bytes_per_game": round(_memory(client, "ce:*:log") / games),
        "events_bytes_per_game": round(_memory(client, "ce:*:events") / games),
    }
    client.close()
    return figures
