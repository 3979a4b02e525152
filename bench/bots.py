"""Part 6: bot work beside people. Does a long all-bot game slow down the people's moves?

Bot work per request is bounded (T-R10) and a game left with bots to move is played on by
the timer loop in slices, each at most ``bot_moves_per_slice`` moves or
``bot_seconds_per_slice`` seconds. The loop runs in timer worker processes at the lowest CPU
priority (the default), or on the server's event loop spending at most ``timer_share`` of
its time. This part measures what that costs normal traffic, on one engine server per
setting:

* **Normal traffic**: Hearts games of one human seat (this client) and three random bots, at
  1 and 16 calls in flight; each caller plays its own game with random legal moves taken from
  the seat's view in each reply, and only SubmitAction is timed (each call is the human's move
  and the bots' replies). A caller whose bots were cut short by the budget waits, untimed, for
  the timer loop to hand the turn back.
* **(a) alone** beside **(b) with a long all-bot game** on the same process: four random bots,
  Hearts to 10,000 points, created as a new user would create it (no seed, no clock), played
  on by the timer loop all through the run and ended (EndGame) after it. The two take turns,
  so a burst of other work on the shared machine lands on both. The floor of (b) is (a).
* The all-bot game's **CreateGame** latency, beside the CreateGame of an all-human Hearts game
  (no bot work at all) on the same process in the same run, and the **bot moves per second**
  the all-bot game made meanwhile (its version count over the time it ran).

The machine's load average is kept with each setting, since the benchmark shares its cores.
``python -m bench.bots`` runs this part alone, for trying other settings.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Final

import grpc
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import game_pb2, hearts_pb2

from bench.driver import RunResult, open_stubs, random_legal, token_metadata
from bench.servers import cpu_seconds, engine_servers
from bench.service import ROUNDS, WARMUP_SECONDS, ratio
from engine_service.devtools.local import redis_server
from engine_service.settings import DEFAULT_BACKGROUND_WORKERS, Settings

HUMAN: Final = game_pb2.PLAYER_TYPE_HUMAN
RANDOM_BOT: Final = game_pb2.PLAYER_TYPE_BOT_RANDOM
LONG_TARGET: Final = 10_000
"""The all-bot game's target: tens of thousands of moves, more than any run plays."""
TURN_POLL_SECONDS: Final = 0.005
"""How often a caller whose bots were cut short looks whether its turn has come back."""
TURN_WAIT_SECONDS: Final = 5.0
"""Longest wait for that turn; a caller that waits longer starts a new game."""
CALL_CAP: Final = 20_000
"""SubmitAction calls one run may make at most (the runs are bounded in time first)."""
FLOOR_CREATES: Final = 3
"""All-human CreateGame calls per round, the floor of the all-bot game's CreateGame."""
ADMIN_TOKEN_KEY: Final = "x-admin-token"


@dataclass(frozen=True)
class BotSetting:
    """Where the timer loop runs and how its slices are bounded.

    ``workers`` 0 runs the loop on the server's event loop, paced to ``share`` of the time;
    otherwise it runs in that many timer worker processes at the lowest CPU priority.
    """

    moves: int
    seconds: float
    share: float
    workers: int

    def flags(self) -> list[str]:
        """The engine server's command-line flags for this setting."""
        return [
            f"--bot-moves-per-slice={self.moves}",
            f"--bot-seconds-per-slice={self.seconds}",
            f"--timer-share={self.share}",
            f"--background-workers={self.workers}",
        ]


_DEFAULTS = Settings()
ENGINE_DEFAULTS: Final = BotSetting(
    _DEFAULTS.bot_moves_per_slice,
    _DEFAULTS.bot_seconds_per_slice,
    _DEFAULTS.timer_share,
    DEFAULT_BACKGROUND_WORKERS,
)
ON_EVENT_LOOP: Final = replace(ENGINE_DEFAULTS, workers=0)
"""The same slices played on the server's event loop: what the timer workers buy."""


@dataclass
class _Background:
    """What the all-bot games of one setting did, over every round."""

    create_ms: list[float] = field(default_factory=list)
    floor_create_ms: list[float] = field(default_factory=list)
    moves_at_create: list[int] = field(default_factory=list)
    moves: int = 0
    seconds: float = 0.0
    idle_rounds: int = 0
    """Rounds in which the all-bot game made no move after its CreateGame."""

    def summary(self) -> dict[str, Any]:
        created, floor = sorted(self.create_ms), sorted(self.floor_create_ms)
        median = _median(created)
        floor_median = _median(floor)
        return {
            "create_p50_ms": round(median, 3),
            "create_max_ms": round(created[-1], 3) if created else 0.0,
            "floor_create_p50_ms": round(floor_median, 3),
            "create_ratio": ratio(median, floor_median),
            "moves_at_create": max(self.moves_at_create, default=0),
            "moves": self.moves,
            "seconds": round(self.seconds, 3),
            "moves_per_second": round(self.moves / self.seconds, 1) if self.seconds else 0.0,
            "idle_rounds": self.idle_rounds,
        }


def _median(ordered: Sequence[float]) -> float:
    return ordered[len(ordered) // 2] if ordered else 0.0


@dataclass
class _Traffic(RunResult):
    """A timed run of normal traffic, with how often a caller waited for bots to finish.

    A wait means a reply came back with bots still to move (their budget ran out), and the
    timer loop had to hand the turn back; it is no error, so it is counted apart.
    """

    turn_waits: int = 0

    def add(self, other: RunResult) -> None:
        super().add(other)
        if isinstance(other, _Traffic):
            self.turn_waits += other.turn_waits

    def summary(self) -> dict[str, Any]:
        return {**super().summary(), "turn_waits": self.turn_waits}


@dataclass
class _Table:
    """One caller's game: its id, the human seat's metadata and its latest view."""

    game_id: str
    metadata: tuple[tuple[str, str], ...]
    view: game_pb2.GameView


async def _new_table(stub: Any, rng: random.Random) -> _Table:
    """A fresh game of one human seat (0) and three random bots."""
    request = api.CreateGameRequest(
        game_type="hearts",
        seats=[HUMAN, RANDOM_BOT, RANDOM_BOT, RANDOM_BOT],
        seed=rng.getrandbits(63),
    )
    created = await stub.CreateGame(request)
    metadata = token_metadata(created.seat_tokens[0].token)
    return _Table(created.game_id, metadata, await _seat_view(stub, created.game_id, metadata))


async def _seat_view(stub: Any, game_id: str, metadata: Any) -> game_pb2.GameView:
    reply = await stub.GetGameView(
        api.GetGameViewRequest(game_id=game_id, seat=0), metadata=metadata
    )
    view: game_pb2.GameView = reply.view
    return view


async def _turn_back(stub: Any, table: _Table) -> bool:
    """Wait (bounded) until seat 0 is to act again or the game is over; whether it came."""
    deadline = time.perf_counter() + TURN_WAIT_SECONDS
    while time.perf_counter() < deadline:
        await asyncio.sleep(TURN_POLL_SECONDS)
        table.view = await _seat_view(stub, table.game_id, table.metadata)
        if 0 in table.view.to_act or table.view.status != game_pb2.GAME_STATUS_IN_PROGRESS:
            return True
    return False


async def _caller(stub: Any, seed: int, result: _Traffic, deadline: float) -> None:
    """Play seat 0 of one game after another until ``deadline``, timing each SubmitAction."""
    rng = random.Random(seed)
    table = await _new_table(stub, rng)
    while time.perf_counter() < deadline and result.calls < CALL_CAP:
        view = table.view
        if view.status != game_pb2.GAME_STATUS_IN_PROGRESS:
            table = await _new_table(stub, rng)
            continue
        if 0 not in view.to_act:
            result.turn_waits += 1
            if not await _turn_back(stub, table):
                result.errors["TURN_NOT_BACK"] += 1
                table = await _new_table(stub, rng)
            continue
        request = api.SubmitActionRequest(
            game_id=table.game_id,
            seat=0,
            expected_version=view.version,
            request_id=str(view.version),
            action=random_legal(view, rng),
        )
        started = time.perf_counter()
        try:
            reply = await stub.SubmitAction(request, metadata=table.metadata)
        except grpc.aio.AioRpcError as error:
            result.errors[error.code().name] += 1
            table = await _new_table(stub, rng)
            continue
        result.latencies_ms.append((time.perf_counter() - started) * 1000)
        table.view = reply.view


async def _traffic(
    address: str, stubs: Sequence[Any], in_flight: int, seconds: float, seed: int
) -> _Traffic:
    """``in_flight`` callers for ``seconds``, with the server's CPU time over the run."""
    result = _Traffic(in_flight, 0.0)
    cpu_before = cpu_seconds(address)
    started = time.perf_counter()
    deadline = started + seconds
    callers = (
        _caller(stubs[i % len(stubs)], seed * 1000 + i, result, deadline) for i in range(in_flight)
    )
    await asyncio.gather(*callers)
    result.seconds = time.perf_counter() - started
    result.server_cpu_seconds = cpu_seconds(address) - cpu_before
    return result


async def _spectated_version(stub: Any, game_id: str) -> int:
    version: int = (await stub.GetGameView(api.GetGameViewRequest(game_id=game_id))).view.version
    return version


async def _beside_long_game(
    address: str, stubs: Sequence[Any], in_flight: int, seconds: float, seed: int, bg: _Background
) -> _Traffic:
    """The traffic while an all-bot game to 10,000 is played on beside it, then ended."""
    stub = stubs[0]
    for _ in range(FLOOR_CREATES):
        started = time.perf_counter()
        await stub.CreateGame(api.CreateGameRequest(game_type="hearts", seats=[HUMAN] * 4))
        bg.floor_create_ms.append((time.perf_counter() - started) * 1000)
    long_game = api.CreateGameRequest(
        game_type="hearts",
        seats=[RANDOM_BOT] * 4,
        options=game_pb2.GameOptions(hearts=hearts_pb2.HeartsOptions(target=LONG_TARGET)),
    )
    started = time.perf_counter()
    created = await stub.CreateGame(long_game)
    created_at = time.perf_counter()
    bg.create_ms.append((created_at - started) * 1000)
    bg.moves_at_create.append(created.view.version - 1)
    try:
        result = await _traffic(address, stubs, in_flight, seconds, seed)
        version = await _spectated_version(stub, created.game_id)
        bg.seconds += time.perf_counter() - created_at
        bg.moves += version - created.view.version
        bg.idle_rounds += version == created.view.version
    finally:
        end = api.EndGameRequest(game_id=created.game_id, reason="benchmark round over")
        await stub.EndGame(end, metadata=((ADMIN_TOKEN_KEY, created.admin_token),))
    return result


async def _measure(
    address: str, levels: Sequence[int], seconds: float
) -> tuple[list[dict[str, Any]], _Background]:
    stubs, channels = open_stubs(address)
    bg = _Background()
    try:
        await _traffic(address, stubs, max(levels), WARMUP_SECONDS, 0)
        rows = []
        for level in levels:
            alone, beside = _Traffic(level, 0.0), _Traffic(level, 0.0)
            share = seconds / ROUNDS
            for turn in range(ROUNDS):
                seed = level * ROUNDS + turn
                for with_bots in (False, True)[:: 1 if turn % 2 == 0 else -1]:
                    if with_bots:
                        beside.add(await _beside_long_game(address, stubs, level, share, seed, bg))
                    else:
                        alone.add(await _traffic(address, stubs, level, share, seed))
            rows.append(
                {
                    "in_flight": level,
                    "alone": alone.summary(),
                    "beside": beside.summary(),
                    "p50_ratio": ratio(beside.percentile(0.5), alone.percentile(0.5)),
                    "p99_ratio": ratio(beside.percentile(0.99), alone.percentile(0.99)),
                    "cpu_share_alone": round(alone.server_cpu_seconds / alone.seconds, 3),
                    "cpu_share_beside": round(beside.server_cpu_seconds / beside.seconds, 3),
                }
            )
        return rows, bg
    finally:
        for channel in channels:
            await channel.close(None)


def beside_bots(
    redis_url: str, setting: BotSetting, levels: Sequence[int], seconds: float
) -> dict[str, Any]:
    """SubmitAction alone and beside a long all-bot game, on one engine process set so."""
    load_before = os.getloadavg()
    with engine_servers(redis_url, 1, *setting.flags()) as address:
        rows, bg = asyncio.run(_measure(address, levels, seconds))
    return {
        "setting": asdict(setting),
        "levels": rows,
        "long_game": bg.summary(),
        "load_average": [round(x, 2) for x in (*load_before, *os.getloadavg())],
    }


def main() -> None:
    """Run this part alone with chosen settings and print its figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--moves", type=int, default=ENGINE_DEFAULTS.moves)
    parser.add_argument("--seconds-per-slice", type=float, default=ENGINE_DEFAULTS.seconds)
    parser.add_argument("--share", type=float, default=ENGINE_DEFAULTS.share)
    parser.add_argument("--workers", type=int, default=ENGINE_DEFAULTS.workers)
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 16])
    parser.add_argument("--seconds", type=float, default=4.0, help="per side and level")
    args = parser.parse_args()
    setting = BotSetting(args.moves, args.seconds_per_slice, args.share, args.workers)
    with redis_server() as url:
        print(json.dumps(beside_bots(url, setting, args.levels, args.seconds), indent=2))


if __name__ == "__main__":
    main()
