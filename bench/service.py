"""Parts 2 and 3: SubmitAction beside the floor server, and throughput per process count.

Every run opens its own connections, creates its own fresh games, warms up briefly on other
games, then replays recorded moves for a bounded time (:mod:`bench.driver`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import redis

from bench.driver import (
    RATE_CEILING,
    Game,
    RunResult,
    Script,
    engine_games,
    floor_games,
    open_stubs,
    pool_size,
    replay,
)
from bench.servers import cpu_seconds, engine_servers

WARMUP_SECONDS = 0.3
ROUNDS = 3
"""Engine and floor take turns this many times per level, so both meet the same machine."""
GameMaker = Callable[[Any, int], Awaitable[list[Game]]]


async def timed_run(
    address: str, scripts: Sequence[Script], in_flight: int, seconds: float, make: GameMaker
) -> RunResult:
    """One warmed-up run of ``in_flight`` callers against ``address``."""
    stubs, channels = open_stubs(address)
    try:
        cap = int(RATE_CEILING * seconds)
        warm = await make(stubs[0], 2 * in_flight)
        games = await make(stubs[0], pool_size(scripts, in_flight, cap))
        await replay(stubs, warm, in_flight, WARMUP_SECONDS, cap)
        cpu_before = cpu_seconds(address)
        result = await replay(stubs, games, in_flight, seconds, cap)
        result.server_cpu_seconds = cpu_seconds(address) - cpu_before
        return result
    finally:
        for channel in channels:
            await channel.close(None)


def on_engine(scripts: Sequence[Script]) -> GameMaker:
    """Fresh engine games for the scripts."""

    async def make(stub: Any, count: int) -> list[Game]:
        return await engine_games(stub, scripts, count)

    return make


def on_floor(store: redis.Redis, scripts: Sequence[Script]) -> GameMaker:
    """Fresh floor values for the scripts."""

    async def make(stub: Any, count: int) -> list[Game]:
        return floor_games(store, scripts, count)

    return make


def take_turns(
    sides: Sequence[tuple[str, GameMaker]], scripts: Sequence[Script], level: int, seconds: float
) -> list[RunResult]:
    """Each side's pooled runs at ``level`` in flight, the sides taking turns.

    Each side runs ``ROUNDS`` times for a share of ``seconds``, in forward then reverse order,
    so a burst of other work on a shared machine lands on every side rather than on one.
    """
    pooled = [RunResult(level, 0.0) for _ in sides]
    for turn in range(ROUNDS):
        order = list(range(len(sides)))[:: 1 if turn % 2 == 0 else -1]
        for index in order:
            address, make = sides[index]
            run = asyncio.run(timed_run(address, scripts, level, seconds / ROUNDS, make))
            pooled[index].add(run)
    return pooled


def beside_floor(
    engine: str,
    floor: str,
    store: redis.Redis,
    scripts: Sequence[Script],
    levels: Sequence[int],
    seconds: float,
) -> list[dict[str, Any]]:
    """Engine and floor at each in-flight level, taking turns; with the ratios."""
    rows = []
    sides = [(engine, on_engine(scripts)), (floor, on_floor(store, scripts))]
    for level in levels:
        real, base = take_turns(sides, scripts, level, seconds)
        rows.append(
            {
                "in_flight": level,
                "engine": real.summary(),
                "floor": base.summary(),
                "p50_ratio": ratio(real.percentile(0.5), base.percentile(0.5)),
                "p99_ratio": ratio(real.percentile(0.99), base.percentile(0.99)),
                "throughput_ratio": ratio(real.throughput, base.throughput),
                "cpu_ratio": ratio(real.cpu_us_per_call, base.cpu_us_per_call),
            }
        )
    return rows


def scaling(
    redis_url: str,
    scripts: Sequence[Script],
    counts: Sequence[int],
    in_flight: int,
    seconds: float,
) -> list[dict[str, Any]]:
    """Throughput of 1, 2, 4... engine processes sharing one address and one Redis.

    Every group is started first (idle processes cost nothing), then the groups take turns.
    """
    with contextlib.ExitStack() as stack:
        groups = [stack.enter_context(engine_servers(redis_url, n)) for n in counts]
        sides = [(address, on_engine(scripts)) for address in groups]
        results = take_turns(sides, scripts, in_flight, seconds)
    return [{"processes": n, **r.summary()} for n, r in zip(counts, results, strict=True)]


def ratio(value: float, floor: float) -> float:
    return round(value / floor, 3) if floor else float("nan")
