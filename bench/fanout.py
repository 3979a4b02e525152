"""Part 5: fan-out. How fast a move reaches its watchers, and what open watchers cost.

(a) **Delivery**: ``N`` watchers (1, 100, 1,000) are open on one engine process, each on its
own game, watching as seat 0 with views (what a player's client does). One caller replays the
recorded moves of those games, one SubmitAction at a time, round-robin over the watched games;
a delivery's latency runs from sending the SubmitAction to the game's watcher receiving the
update of the version it made. Beside it, the **floor**: the floor server (:mod:`bench.floor`)
with the same number of watchers of its own ``Watch`` stream, each on its own game, and the
same calls: its SubmitAction is one GET and one Lua compare-and-set that also XADDs the
version, and its watchers are fed by one ``XREAD BLOCK`` reader per process through the same
kind of gRPC stream. For reference a third side, the floor with a Redis connection per watcher
(``/bench.Floor/WatchOwn``), shows what the one-reader design itself costs. All sides keep
their watchers open throughout and take turns.

(b) **Idle watchers**: SubmitAction calls per second, at a fixed number in flight, on an engine
process holding 1,000 open watchers of games nobody moves in, beside an engine process with
none, started in the same run; the two take turns.

Every client is a ``grpc.aio`` channel in this process (a few channels, many streams each);
everything is on loopback and bounded in calls and in time.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
import redis
from cardengine.v1 import engine_service_pb2 as api

from bench.driver import Game, RunResult, Script, engine_games, floor_games, open_stubs
from bench.floor import OWN_WATCH_METHOD, WATCH_METHOD, version_of_message
from bench.servers import cpu_seconds, engine_servers
from bench.service import ROUNDS, on_engine, ratio, timed_run

STREAMS_PER_CHANNEL = 250
"""Watch streams per client connection."""
DELIVERY_TIMEOUT = 5.0
"""A version not delivered this long after its SubmitAction was sent counts as lost."""
OPEN_TIMEOUT = 60.0
"""Longest wait for every watcher's first message."""
WARMUP_CALLS = 20
SETTLE_SECONDS = 0.3
"""Pause after the watchers opened, before the warm-up."""
RATE_CEILING = 2000
"""Deliveries per second a slice may reach before its cap ends it early."""
CREATE_BATCH = 100


@dataclass
class DeliveryResult:
    """What the delivery slices of one side measured."""

    watchers: int
    seconds: float = 0.0
    latencies_ms: list[float] = field(default_factory=list)
    submit_ms: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    server_cpu_seconds: float = 0.0
    open_seconds: float = 0.0

    def percentile(self, fraction: float) -> float:
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0

    @property
    def cpu_us_per_delivery(self) -> float:
        """Server CPU per SubmitAction and its delivery, in microseconds."""
        calls = len(self.latencies_ms)
        return self.server_cpu_seconds / calls * 1e6 if calls else 0.0

    def summary(self) -> dict[str, Any]:
        calls = len(self.latencies_ms)
        submits = sorted(self.submit_ms)
        return {
            "watchers": self.watchers,
            "deliveries": calls,
            "seconds": round(self.seconds, 3),
            "p50_ms": round(self.percentile(0.5), 3),
            "p99_ms": round(self.percentile(0.99), 3),
            "submit_p50_ms": round(submits[len(submits) // 2], 3) if submits else 0.0,
            "cpu_us_per_delivery": round(self.cpu_us_per_delivery),
            "open_seconds": round(self.open_seconds, 2),
            "errors": dict(self.errors),
        }


@dataclass
class _Watched:
    """One watched game: its stream, where its replay stands, who waits for which version."""

    game: Game
    call: Any = None
    step: int = 0
    waiting: dict[int, asyncio.Future[float]] = field(default_factory=dict)


def engine_version(message: api.WatchGameResponse) -> int | None:
    """The version an engine watch message delivers (None: a heartbeat or the end)."""
    return message.update.version if message.WhichOneof("message") == "update" else None


def floor_version(message: bytes) -> int | None:
    """The version a floor watch message delivers."""
    return version_of_message(message)


class _Side:
    """One server under watch: its channels, its watched games and their streams."""

    def __init__(self, address: str, watchers: int) -> None:
        self.address = address
        count = 1 + (watchers + STREAMS_PER_CHANNEL - 1) // STREAMS_PER_CHANNEL
        self.stubs, self.channels = open_stubs(address, count)
        self.watched: list[_Watched] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.result = DeliveryResult(watchers)
        self.next = 0
        self.closing = False

    def open_stream(self, index: int, game: Game) -> Any:
        """A watch stream of ``game``, on one of the watch channels."""
        raise NotImplementedError

    def version_of(self, message: Any) -> int | None:
        """The version a message of the stream delivers."""
        raise NotImplementedError

    async def open(self, games: Sequence[Game]) -> None:
        """Open one watcher per game; returns once each has had its first message."""
        started = time.perf_counter()
        firsts: list[asyncio.Future[float]] = []
        for index, game in enumerate(games):
            watched = _Watched(game)
            watched.call = self.open_stream(index, game)
            first: asyncio.Future[float] = asyncio.get_running_loop().create_future()
            firsts.append(first)
            self.watched.append(watched)
            self.tasks.append(asyncio.create_task(self._follow(watched, first)))
        await asyncio.wait_for(asyncio.gather(*firsts), OPEN_TIMEOUT)
        self.result.open_seconds = time.perf_counter() - started

    async def _follow(self, watched: _Watched, first: asyncio.Future[float]) -> None:
        try:
            await self._read(watched, first)
        except grpc.aio.AioRpcError as error:
            if not self.closing:
                self.result.errors[f"watch {error.code().name}"] += 1
        else:
            if not self.closing:
                self.result.errors["watch ended"] += 1
        if not first.done():
            first.set_exception(RuntimeError(f"watch of {watched.game.game_id} ended at once"))

    async def _read(self, watched: _Watched, first: asyncio.Future[float]) -> None:
        with contextlib.suppress(asyncio.CancelledError):
            async for message in watched.call:
                arrived = time.perf_counter()
                version = self.version_of(message)
                if version is None:
                    continue
                if not first.done():
                    first.set_result(arrived)
                    continue
                waiter = watched.waiting.pop(version, None)
                if waiter is not None and not waiter.done():
                    waiter.set_result(arrived)

    def usable_steps(self) -> int:
        """Moves left to replay over every watched game (each game's last move is kept back)."""
        return sum(max(0, len(w.game.script.steps) - 1 - w.step) for w in self.watched)

    async def deliver(self, calls: int, seconds: float, timed: bool) -> None:
        """Up to ``calls`` SubmitActions one at a time, each waited for at its watcher."""
        stub = self.stubs[0]
        loop = asyncio.get_running_loop()
        result = self.result
        deadline = time.perf_counter() + seconds
        cpu_before = cpu_seconds(self.address)
        started = time.perf_counter()
        done = 0
        skipped = 0
        while done < calls and time.perf_counter() < deadline and skipped < len(self.watched):
            watched = self.watched[self.next % len(self.watched)]
            self.next += 1
            steps = watched.game.script.steps
            if watched.step >= len(steps) - 1:
                skipped += 1
                continue
            skipped = 0
            seat, action = steps[watched.step]
            version = watched.step + 1
            arrival: asyncio.Future[float] = loop.create_future()
            watched.waiting[version + 1] = arrival
            request = api.SubmitActionRequest(
                game_id=watched.game.game_id,
                seat=seat,
                expected_version=version,
                request_id=str(version),
                action=action,
            )
            sent = time.perf_counter()
            try:
                await stub.SubmitAction(request, metadata=watched.game.metadata[seat])
            except grpc.aio.AioRpcError as error:
                result.errors[error.code().name] += 1
                watched.step = len(steps)
                continue
            replied = time.perf_counter()
            watched.step += 1
            done += 1
            try:
                arrived = await asyncio.wait_for(arrival, DELIVERY_TIMEOUT)
            except TimeoutError:
                result.errors["NOT_DELIVERED"] += 1
                continue
            if timed:
                result.latencies_ms.append((arrived - sent) * 1000)
                result.submit_ms.append((replied - sent) * 1000)
        if timed:
            result.seconds += time.perf_counter() - started
            result.server_cpu_seconds += cpu_seconds(self.address) - cpu_before

    async def close(self) -> None:
        self.closing = True
        for watched in self.watched:
            if watched.call is not None:
                watched.call.cancel()
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        for channel in self.channels:
            await channel.close(None)


class _EngineSide(_Side):
    def version_of(self, message: Any) -> int | None:
        return engine_version(message)

    def open_stream(self, index: int, game: Game) -> Any:
        stub = self.stubs[1 + index % (len(self.stubs) - 1)]
        request = api.WatchGameRequest(game_id=game.game_id, seat=0, from_version=0)
        return stub.WatchGame(request, metadata=game.metadata[0])


class _FloorSide(_Side):
    def __init__(self, address: str, watchers: int, method: str = WATCH_METHOD) -> None:
        super().__init__(address, watchers)
        self.method = method

    def version_of(self, message: Any) -> int | None:
        return floor_version(message)

    def open_stream(self, index: int, game: Game) -> Any:
        channel = self.channels[1 + index % (len(self.channels) - 1)]
        method = channel.unary_stream(
            self.method, request_serializer=None, response_deserializer=None
        )
        return method(game.game_id.encode())


async def _create(stub: Any, scripts: Sequence[Script], count: int) -> list[Game]:
    games: list[Game] = []
    while len(games) < count:
        games += await engine_games(stub, scripts, min(CREATE_BATCH, count - len(games)))
    return games


async def _deliveries(
    engine: str,
    floor: str,
    store: redis.Redis,
    scripts: Sequence[Script],
    watchers: int,
    seconds: float,
) -> list[DeliveryResult]:
    sides: list[_Side] = [
        _EngineSide(engine, watchers),
        _FloorSide(floor, watchers),
        _FloorSide(floor, watchers, OWN_WATCH_METHOD),
    ]
    try:
        await sides[0].open(await _create(sides[0].stubs[0], scripts, watchers))
        for side in sides[1:]:
            await side.open(floor_games(store, scripts, watchers))
        await asyncio.sleep(SETTLE_SECONDS)
        warm = min(WARMUP_CALLS, sides[0].usable_steps() // (ROUNDS + 1))
        for side in sides:
            await side.deliver(warm, seconds, timed=False)
        share = seconds / ROUNDS
        cap = min(int(RATE_CEILING * share), sides[0].usable_steps() // ROUNDS)
        for turn in range(ROUNDS):
            for side in sides[:: 1 if turn % 2 == 0 else -1]:
                await side.deliver(cap, share, timed=True)
        return [side.result for side in sides]
    finally:
        for side in sides:
            await side.close()


def deliveries(
    engine: str,
    floor: str,
    store: redis.Redis,
    scripts: Sequence[Script],
    counts: Sequence[int],
    seconds: float,
) -> list[dict[str, Any]]:
    """Submit-to-delivery latency with each number of watchers, beside the floor's.

    ``floor_own`` is the floor with a Redis connection per watcher instead of one reader per
    process, for reference; the ratios are to ``floor``, the same design as the engine's.
    """
    rows = []
    for watchers in counts:
        real, base, own = asyncio.run(_deliveries(engine, floor, store, scripts, watchers, seconds))
        rows.append(
            {
                "watchers": watchers,
                "engine": real.summary(),
                "floor": base.summary(),
                "floor_own": own.summary(),
                "p50_ratio": ratio(real.percentile(0.5), base.percentile(0.5)),
                "p99_ratio": ratio(real.percentile(0.99), base.percentile(0.99)),
                "cpu_ratio": ratio(real.cpu_us_per_delivery, base.cpu_us_per_delivery),
            }
        )
    return rows


async def _idle(
    watched: str,
    bare: str,
    scripts: Sequence[Script],
    watchers: int,
    in_flight: int,
    seconds: float,
) -> tuple[RunResult, RunResult, float]:
    side = _EngineSide(watched, watchers)
    try:
        await side.open(await _create(side.stubs[0], scripts, watchers))
        make = on_engine(scripts)
        pooled = [RunResult(in_flight, 0.0), RunResult(in_flight, 0.0)]
        order = [watched, bare]
        for turn in range(ROUNDS):
            for index in range(2)[:: 1 if turn % 2 == 0 else -1]:
                run = await timed_run(order[index], scripts, in_flight, seconds / ROUNDS, make)
                pooled[index].add(run)
        if any(task.done() for task in side.tasks):
            pooled[0].errors["WATCHER_ENDED"] += sum(task.done() for task in side.tasks)
        return pooled[0], pooled[1], side.result.open_seconds
    finally:
        await side.close()


def idle_watchers(
    redis_url: str,
    scripts: Sequence[Script],
    watchers: int,
    in_flight: int,
    seconds: float,
) -> dict[str, Any]:
    """SubmitAction on a process holding ``watchers`` idle watchers, beside one without."""
    with engine_servers(redis_url) as watched, engine_servers(redis_url) as bare:
        with_them, without, opened = asyncio.run(
            _idle(watched, bare, scripts, watchers, in_flight, seconds)
        )
    return {
        "watchers": watchers,
        "in_flight": in_flight,
        "open_seconds": round(opened, 2),
        "with_watchers": with_them.summary(),
        "without": without.summary(),
        "throughput_ratio": ratio(with_them.throughput, without.throughput),
        "p50_ratio": ratio(with_them.percentile(0.5), without.percentile(0.5)),
        "cpu_ratio": ratio(with_them.cpu_us_per_call, without.cpu_us_per_call),
    }
