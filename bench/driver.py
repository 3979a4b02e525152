"""A grpc.aio client that times SubmitAction with a fixed number of calls in flight.

A fair "one action": every seat of a measured game is human-driven by this client, so each
SubmitAction applies exactly one action and no bot moves inside the call. To keep choosing
out of the timed loop, each game type's moves are first *recorded*: seeded random games are
played through the generic API (``GetGameView`` for the seat to act, a random legal action
drawn from ``GameView.legal_actions`` and ``legal_choices``, ``SubmitAction``). The timed
runs then create fresh games with the same seeds and *replay* those moves, so a run sends
SubmitAction calls and nothing else.
The floor server receives the very same requests.
"""

from __future__ import annotations

import asyncio
import math
import random
import secrets
import time
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
import redis
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import engine_service_pb2_grpc, game_pb2

from bench.floor import seed_values
from engine_service.registry import REGISTRY
from engine_service.store.keys import game_key

CHANNELS = 16
"""Client connections per run: enough for the kernel to spread them over several processes."""
RATE_CEILING = 5000
"""Calls per second a run may reach before its action cap ends it early."""

Metadata = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Script:
    """The moves of one seeded game of ``game``, every seat human: (seat, action) in order."""

    game: str
    seed: int
    steps: tuple[tuple[int, game_pb2.Action], ...]
    snapshot_bytes: tuple[int, ...]


@dataclass(frozen=True)
class Game:
    """A stored game ready for replay: its id, each seat's token metadata, and its script."""

    game_id: str
    metadata: dict[int, Metadata]
    script: Script


@dataclass
class RunResult:
    """What one timed run measured."""

    in_flight: int
    seconds: float
    latencies_ms: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    server_cpu_seconds: float = 0.0

    @property
    def calls(self) -> int:
        return len(self.latencies_ms)

    @property
    def throughput(self) -> float:
        return self.calls / self.seconds if self.seconds else 0.0

    def percentile(self, fraction: float) -> float:
        """Nearest-rank percentile of the latencies, in milliseconds."""
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0

    def add(self, other: RunResult) -> None:
        """Pool another run of the same kind into this one."""
        self.seconds += other.seconds
        self.latencies_ms += other.latencies_ms
        self.errors += other.errors
        self.server_cpu_seconds += other.server_cpu_seconds

    @property
    def cpu_us_per_call(self) -> float:
        """Server CPU time per call, in microseconds (0 when the server is not ours)."""
        return self.server_cpu_seconds / self.calls * 1e6 if self.calls else 0.0

    def summary(self) -> dict[str, Any]:
        return {
            "in_flight": self.in_flight,
            "calls": self.calls,
            "seconds": round(self.seconds, 3),
            "throughput": round(self.throughput, 1),
            "p50_ms": round(self.percentile(0.5), 3),
            "p99_ms": round(self.percentile(0.99), 3),
            "cpu_us_per_call": round(self.cpu_us_per_call),
            "errors": dict(self.errors),
        }


def token_metadata(token: str) -> Metadata:
    """The call metadata that carries a seat token."""
    return (("x-seat-token", token),)


def open_stubs(address: str, count: int = CHANNELS) -> tuple[list[Any], list[grpc.aio.Channel]]:
    """``count`` stubs, each over its own connection (no shared subchannel)."""
    channels = [
        grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
        for _ in range(count)
    ]
    return [engine_service_pb2_grpc.EngineServiceStub(c) for c in channels], channels


async def create_game(stub: Any, game: str, seed: int) -> tuple[str, dict[int, Metadata]]:
    """A new game of ``game`` with every seat human; its id and each seat's metadata."""
    seats = [game_pb2.PLAYER_TYPE_HUMAN] * REGISTRY[game].seats
    created = await stub.CreateGame(api.CreateGameRequest(game_type=game, seats=seats, seed=seed))
    return created.game_id, {t.seat: token_metadata(t.token) for t in created.seat_tokens}


async def record_script(
    stub: Any, store: redis.Redis, game: str, seed: int, max_actions: int
) -> Script:
    """Play one seeded random game through the generic API and keep its moves."""
    game_id, metadata = await create_game(stub, game, seed)
    rng = random.Random(seed)
    steps: list[tuple[int, game_pb2.Action]] = []
    sizes: list[int] = []
    status, to_act = game_pb2.GAME_STATUS_IN_PROGRESS, None
    view_request = api.GetGameViewRequest(game_id=game_id)
    to_act = (await stub.GetGameView(view_request)).view.to_act
    while status == game_pb2.GAME_STATUS_IN_PROGRESS and len(steps) < max_actions:
        seat = to_act[0]
        request = api.GetGameViewRequest(game_id=game_id, seat=seat)
        view = (await stub.GetGameView(request, metadata=metadata[seat])).view
        action = random_legal(view, rng)
        submit = api.SubmitActionRequest(
            game_id=game_id,
            seat=seat,
            expected_version=view.version,
            request_id=str(view.version),
            action=action,
        )
        reply = (await stub.SubmitAction(submit, metadata=metadata[seat])).view
        steps.append((seat, action))
        sizes.append(int(store.hstrlen(game_key(game_id), "s")))
        status, to_act = reply.status, reply.to_act
    return Script(game, seed, tuple(steps), tuple(sizes))


async def record_scripts(
    address: str, store: redis.Redis, game: str, count: int, max_actions: int
) -> list[Script]:
    """``count`` scripts of ``game`` from seeds 1..count."""
    stubs, channels = open_stubs(address, 1)
    try:
        return [
            await record_script(stubs[0], store, game, seed, max_actions)
            for seed in range(1, count + 1)
        ]
    finally:
        for channel in channels:
            await channel.close(None)


def filled_choice(choice: game_pb2.CardChoice, cards: Sequence[Any]) -> game_pb2.Action:
    """The action a ``CardChoice`` describes, with ``cards`` filled in."""
    action = game_pb2.Action()
    action.CopyFrom(choice.action)
    inner = getattr(action, str(action.WhichOneof("game")))
    getattr(inner, str(inner.WhichOneof("action"))).cards.extend(cards)
    return action


def random_legal(view: game_pb2.GameView, rng: random.Random) -> game_pb2.Action:
    """A random legal action of a seat's view: a listed one, or a card choice filled at random.

    Every listed action and every card choice is one option, drawn evenly (a Hearts pass is
    one ``CardChoice`` of 3 among the hand rather than 286 listed passes).
    """
    listed = len(view.legal_actions)
    index = rng.randrange(listed + len(view.legal_choices))
    if index < listed:
        return view.legal_actions[index]
    choice = view.legal_choices[index - listed]
    return filled_choice(choice, rng.sample(list(choice.cards), choice.count))


def pool_size(scripts: Sequence[Script], in_flight: int, cap: int) -> int:
    """Games enough for ``cap`` calls from ``in_flight`` workers that each may leave one unused."""
    shortest = min(len(s.steps) for s in scripts)
    return 2 * in_flight + math.ceil(cap / shortest)


async def engine_games(stub: Any, scripts: Sequence[Script], count: int) -> list[Game]:
    """``count`` fresh stored games on the engine, cycling over ``scripts``' seeds."""
    chosen = [scripts[i % len(scripts)] for i in range(count)]
    created = await asyncio.gather(*(create_game(stub, s.game, s.seed) for s in chosen))
    return [Game(game_id, md, s) for (game_id, md), s in zip(created, chosen, strict=True)]


def floor_games(store: redis.Redis, scripts: Sequence[Script], count: int) -> list[Game]:
    """``count`` floor values, each the mean size of the scripts' snapshots, with fake tokens."""
    sizes = [size for script in scripts for size in script.snapshot_bytes]
    games = [
        Game(
            secrets.token_hex(16),
            {seat: token_metadata(secrets.token_urlsafe(24)) for seat in range(16)},
            scripts[i % len(scripts)],
        )
        for i in range(count)
    ]
    seed_values(store, [g.game_id for g in games], round(sum(sizes) / len(sizes)))
    return games


async def replay(
    stubs: Sequence[Any], games: Sequence[Game], in_flight: int, seconds: float, cap: int
) -> RunResult:
    """Replay the games' scripts with ``in_flight`` callers, bounded in time and in calls."""
    queue = deque(games)
    result = RunResult(in_flight, 0.0)
    latencies = result.latencies_ms
    deadline = time.perf_counter() + seconds

    async def caller(index: int) -> None:
        stub = stubs[index % len(stubs)]
        while queue:
            game = queue.popleft()
            for version, (seat, action) in enumerate(game.script.steps, start=1):
                if len(latencies) >= cap or time.perf_counter() >= deadline:
                    return
                request = api.SubmitActionRequest(
                    game_id=game.game_id,
                    seat=seat,
                    expected_version=version,
                    request_id=str(version),
                    action=action,
                )
                started = time.perf_counter()
                try:
                    await stub.SubmitAction(request, metadata=game.metadata[seat])
                except grpc.aio.AioRpcError as error:
                    result.errors[error.code().name] += 1
                    break
                latencies.append((time.perf_counter() - started) * 1000)

    started = time.perf_counter()
    await asyncio.gather(*(caller(i) for i in range(in_flight)))
    result.seconds = time.perf_counter() - started
    if not queue and result.seconds < seconds and len(latencies) < cap:
        result.errors["POOL_EXHAUSTED"] += 1
    return result
