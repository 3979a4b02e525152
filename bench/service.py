"""Parts 2 and 3: SubmitAction beside the floor server, and throughput per process count.

Every run opens its own connections, creates its own fresh games, warms up briefly on other
games, then replays recorded moves for a bounded time (:mod:`bench.driver`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
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
Probe = Callable[[], contextlib.AbstractContextManager[object]]
"""Opens a measurement around the timed part of a run only (not game creation or warm-up)."""


async def timed_run(
    address: str,
    scripts: Sequence[Script],
    in_flight: int,
    seconds: float,
    make: GameMaker,
    probe: Probe | None = None,
) -> RunResult:
    """One warmed-up run of ``in_flight`` callers against ``address``.

    ``probe``, when given, is open during the timed replay alone, so what it measures (Redis's
    CPU and commands, say) belongs to the SubmitAction calls counted and nothing else.
    """
    stubs, channels = open_stubs(address)
    try:
        cap = int(RATE_CEILING * seconds)
        warm = await make(stubs[0], 2 * in_flight)
        games = await make(stubs[0], pool_size(scripts, in_flight, cap))
        await replay(stubs, warm, in_flight, WARMUP_SECONDS, cap)
        with probe() if probe else contextlib.nullcontext():
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
    sides: Sequence[tuple[str, GameMaker]],
    scripts: Sequence[Script],
    level: int,
    seconds: float,
    probes: Sequence[Probe] | None = None,
) -> tuple[list[RunResult], list[list[RunResult]]]:
    """Each side's pooled runs at ``level`` in flight, the sides taking turns; and each round's.

    Each side runs ``ROUNDS`` times for a share of ``seconds``, in forward then reverse order,
    so a burst of other work on a shared machine lands on every side rather than on one. The
    rounds (per round, one run per side) show how far the figures spread between turns.
    ``probes``, one per side, measure each side's timed replays (:func:`timed_run`).
    """
    pooled = [RunResult(level, 0.0) for _ in sides]
    rounds = []
    for turn in range(ROUNDS):
        order = list(range(len(sides)))[:: 1 if turn % 2 == 0 else -1]
        runs: dict[int, RunResult] = {}
        for index in order:
            address, make = sides[index]
            probe = probes[index] if probes else None
            timed = timed_run(address, scripts, level, seconds / ROUNDS, make, probe)
            runs[index] = asyncio.run(timed)
        rounds.append([runs[index] for index in range(len(sides))])
        for side, run in zip(pooled, rounds[-1], strict=True):
            side.add(run)
    return pooled, rounds


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
        (real, base), rounds = take_turns(sides, scripts, level, seconds)
        rows.append(
            {
                "in_flight": level,
                "engine": real.summary(),
                "floor": base.summary(),
                "p50_ratio": ratio(real.percentile(0.5), base.percentile(0.5)),
                "p99_ratio": ratio(real.percentile(0.99), base.percentile(0.99)),
                "throughput_ratio": ratio(real.throughput, base.throughput),
                "cpu_ratio": ratio(real.cpu_us_per_call, base.cpu_us_per_call),
                "rounds": [
                    _round_ratios(engine_run, floor_run) for engine_run, floor_run in rounds
                ],
            }
        )
    return rows


def _round_ratios(real: RunResult, base: RunResult) -> dict[str, float]:
    """Engine ÷ floor of one round, the spread the plots show around the pooled ratio."""
    return {
        "p50_ratio": ratio(real.percentile(0.5), base.percentile(0.5)),
        "p99_ratio": ratio(real.percentile(0.99), base.percentile(0.99)),
        "throughput_ratio": ratio(real.throughput, base.throughput),
        "cpu_ratio": ratio(real.cpu_us_per_call, base.cpu_us_per_call),
    }


def scaling(
    redis_url: str,
    scripts: Sequence[Script],
    counts: Sequence[int],
    in_flight: int,
    seconds: float,
) -> list[dict[str, Any]]:
    """Throughput of 1, 2, 4... engine processes sharing one address and one Redis.

    Each count is one process group of ``python -m engine_service --processes N``
    (:mod:`engine_service.api.launcher`), as deployed. Every group is started first (idle
    processes cost nothing), then the groups take turns. Beside each: the CPU time per call
    of the servers, of this load generator and of Redis, since on a machine of few cores the
    load generator and Redis take cores the servers would otherwise use.
    """
    with contextlib.ExitStack() as stack:
        groups = [stack.enter_context(engine_servers(redis_url, n)) for n in counts]
        sides = [(address, on_engine(scripts)) for address in groups]
        client = redis.Redis.from_url(redis_url)
        stack.callback(client.close)
        load_before, cpu_before = os.getloadavg(), _other_cpu(client)
        results, rounds = take_turns(sides, scripts, in_flight, seconds)
        load_after, cpu_after = os.getloadavg(), _other_cpu(client)
    calls = sum(r.calls for r in results) or 1
    shares = {k: round((cpu_after[k] - cpu_before[k]) / calls * 1e6) for k in cpu_before}
    return [
        {
            "processes": n,
            **result.summary(),
            "round_throughput": [r[index].throughput for r in rounds],
            "client_cpu_us_per_call": shares["client"],
            "redis_cpu_us_per_call": shares["redis"],
            "load_average": [*load_before, *load_after],
            "cores": len(os.sched_getaffinity(0)),
        }
        for index, (n, result) in enumerate(zip(counts, results, strict=True))
    ]


def _other_cpu(client: redis.Redis) -> dict[str, float]:
    """CPU seconds used so far by this process (the load generator) and by Redis."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    info = client.info("cpu")
    return {
        "client": usage.ru_utime + usage.ru_stime,
        "redis": float(info["used_cpu_user"]) + float(info["used_cpu_sys"]),
    }


def ratio(value: float, floor: float) -> float:
    return round(value / floor, 3) if floor else float("nan")
