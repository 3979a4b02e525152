"""``make load``: many simulated clients play whole games at once, then every game is checked.

Each simulated client creates a game of a registered type (chosen by a seeded generator), with
seat 0 human and each other seat human or a bot, and plays every human seat through the public
API only: a spectator ``GetGameView`` to learn who acts, the acting seat's view for its
``legal_actions`` and ``legal_choices``, and ``SubmitAction`` with a random legal action.
Seats that act at the same time (a Hearts pass) submit concurrently, so version races happen
and show as ABORTED, after which the client reloads. Now and then a submission is repeated
with the same ``request_id``, which must be answered without applying anything.

Bounded in games and in seconds. Reports actions per second, latency percentiles per RPC and
outcomes by status code, then checks every stored game (:mod:`bench.consistency`). Exits
non-zero on an inconsistent game or a status other than OK and ABORTED.

Starts its own redis-server and engine server on loopback unless ``--address`` and
``--redis-url`` name running ones.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import redis
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import game_pb2

from bench.consistency import check_all
from bench.driver import Metadata, open_stubs, random_legal, token_metadata
from bench.servers import engine_servers
from engine_service.devtools.local import redis_server
from engine_service.registry import REGISTRY

EXPECTED_CODES = {"OK", "ABORTED"}
REPEAT_EVERY = 40
OTHER_SEATS = (
    game_pb2.PLAYER_TYPE_HUMAN,
    game_pb2.PLAYER_TYPE_BOT_RANDOM,
    game_pb2.PLAYER_TYPE_BOT_HEURISTIC,
)


@dataclass
class Tally:
    """Latencies and status codes per RPC, over the whole load test."""

    latencies_ms: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    codes: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    games: list[str] = field(default_factory=list)
    finished: set[str] = field(default_factory=set)
    repeats_mismatched: int = 0
    acknowledged: dict[str, int] = field(default_factory=dict)
    """The highest version of each game a reply showed: what the store must still hold."""
    failures: list[tuple[float, str, str]] = field(default_factory=list)
    """(``time.perf_counter()`` at the reply, RPC, status code) of every failed call, so a
    caller can tell when failures came (during a cluster change, say), not only how many."""

    async def call(self, name: str, method: Any, request: Any, metadata: Metadata = ()) -> Any:
        """Call, time and count; returns the reply, or None on a failed status."""
        started = time.perf_counter()
        try:
            reply = await method(request, metadata=metadata)
        except grpc.aio.AioRpcError as error:
            self.codes[name][error.code().name] += 1
            self.failures.append((time.perf_counter(), name, error.code().name))
            return None
        self.latencies_ms[name].append((time.perf_counter() - started) * 1000)
        self.codes[name]["OK"] += 1
        return reply

    def saw(self, game_id: str, version: int) -> None:
        """A reply showed ``version`` of the game: a lost write would later show less."""
        self.acknowledged[game_id] = max(version, self.acknowledged.get(game_id, 0))


async def _act(
    tally: Tally, stub: Any, game_id: str, seat: int, md: Metadata, rng: random.Random
) -> None:
    """One human seat chooses a random legal action from its own view and submits it."""
    view_request = api.GetGameViewRequest(game_id=game_id, seat=seat)
    reply = await tally.call("GetGameView", stub.GetGameView, view_request, md)
    if reply is None or not (reply.view.legal_actions or reply.view.legal_choices):
        return
    view = reply.view
    request = api.SubmitActionRequest(
        game_id=game_id,
        seat=seat,
        expected_version=view.version,
        request_id=f"{seat}-{view.version}-{rng.randrange(1 << 30)}",
        action=random_legal(view, rng),
    )
    first = await tally.call("SubmitAction", stub.SubmitAction, request, md)
    if first is not None:
        tally.saw(game_id, first.view.version)
    if first is not None and rng.randrange(REPEAT_EVERY) == 0:
        again = await tally.call("SubmitAction (repeat)", stub.SubmitAction, request, md)
        if again is not None and again.view.version != first.view.version:
            tally.repeats_mismatched += 1


async def play_game(tally: Tally, stub: Any, seed: int, deadline: float) -> None:
    """Create one game and play its human seats until it ends or time is up."""
    rng = random.Random(seed)
    game = sorted(REGISTRY)[rng.randrange(len(REGISTRY))]
    seats = [game_pb2.PLAYER_TYPE_HUMAN]
    seats += [OTHER_SEATS[rng.randrange(len(OTHER_SEATS))] for _ in range(REGISTRY[game].seats - 1)]
    create = api.CreateGameRequest(game_type=game, seats=seats, seed=seed)
    created = await tally.call("CreateGame", stub.CreateGame, create)
    if created is None:
        return
    game_id = created.game_id
    tally.games.append(game_id)
    tally.saw(game_id, created.view.version)
    tokens = {t.seat: token_metadata(t.token) for t in created.seat_tokens}
    while time.perf_counter() < deadline:
        spectator = api.GetGameViewRequest(game_id=game_id)
        reply = await tally.call("GetGameView", stub.GetGameView, spectator)
        if reply is None:
            return
        tally.saw(game_id, reply.view.version)
        if reply.view.status == game_pb2.GAME_STATUS_FINISHED:
            tally.finished.add(game_id)
            return
        humans = [s for s in reply.view.to_act if s in tokens]
        await asyncio.gather(*(_act(tally, stub, game_id, s, tokens[s], rng) for s in humans))


async def generate(
    address: str, clients: int, games: int, seconds: float, tally: Tally | None = None
) -> tuple[Tally, float]:
    """``clients`` concurrent players share ``games`` games; bounded by ``seconds``.

    ``tally``: where to count (a new one by default); a caller that may cancel the load
    passes its own, which keeps what was counted until then.
    """
    tally = Tally() if tally is None else tally
    seeds = iter(range(1, games + 1))
    stubs, channels = open_stubs(address, min(clients, 16))
    deadline = time.perf_counter() + seconds

    async def client(index: int) -> None:
        for seed in seeds:
            if time.perf_counter() >= deadline:
                return
            await play_game(tally, stubs[index % len(stubs)], seed, deadline)

    started = time.perf_counter()
    try:
        await asyncio.gather(*(client(i) for i in range(clients)))
    finally:
        for channel in channels:
            await channel.close(None)
    return tally, time.perf_counter() - started


def _percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0


def summarize(tally: Tally, elapsed: float, problems: dict[str, list[str]]) -> dict[str, Any]:
    """The figures of a load test as one JSON-ready mapping."""
    submitted = tally.codes["SubmitAction"]["OK"]
    return {
        "seconds": round(elapsed, 2),
        "games_started": len(tally.games),
        "games_finished": len(tally.finished),
        "actions_per_second": round(submitted / elapsed, 1) if elapsed else 0.0,
        "rpcs": {
            name: {
                "codes": dict(tally.codes[name]),
                **{
                    f"p{int(q * 100)}_ms": round(_percentile(tally.latencies_ms[name], q), 3)
                    for q in (0.5, 0.9, 0.99)
                },
            }
            for name in sorted(tally.codes)
        },
        "repeats_mismatched": tally.repeats_mismatched,
        "inconsistent_games": problems,
    }


def markdown(summary: dict[str, Any]) -> str:
    """The load test's figures as Markdown."""
    lines = [
        f"Load test: {summary['games_started']} games started, {summary['games_finished']} "
        f"finished in {summary['seconds']} s; {summary['actions_per_second']} human actions/s "
        "(bots' replies come on top, inside the same calls).",
        "",
        "| RPC | p50 ms | p90 ms | p99 ms | status codes |",
        "|---|---:|---:|---:|---|",
    ]
    for name, rpc in summary["rpcs"].items():
        codes = ", ".join(f"{code} {n}" for code, n in sorted(rpc["codes"].items()))
        lines.append(f"| {name} | {rpc['p50_ms']} | {rpc['p90_ms']} | {rpc['p99_ms']} | {codes} |")
    bad = summary["inconsistent_games"]
    lines += [
        "",
        f"Repeated requests answered differently: {summary['repeats_mismatched']}.",
        f"Consistency: {len(bad)} inconsistent game(s) of every stored game."
        + "".join(f"\n- {game_id}: {'; '.join(p)}" for game_id, p in bad.items()),
    ]
    return "\n".join(lines) + "\n"


@contextlib.contextmanager
def _target(
    address: str | None, redis_url: str | None, processes: int
) -> Iterator[tuple[str, str]]:
    if address and redis_url:
        yield address, redis_url
        return
    with redis_server() as url, engine_servers(url, processes) as served:
        yield served, url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a smoke run of a few seconds")
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--games", type=int, default=96)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--address", help="a running engine (with --redis-url)")
    parser.add_argument("--redis-url", help="the Redis that engine uses")
    parser.add_argument(
        "--processes", type=int, default=1, help="engine processes on one address (SO_REUSEPORT)"
    )
    parser.add_argument("--out", type=Path, default=Path("results"))
    args = parser.parse_args()
    clients, games, seconds = (
        (4, 4, 5.0) if args.quick else (args.clients, args.games, args.seconds)
    )
    with _target(args.address, args.redis_url, args.processes) as (address, url):
        tally, elapsed = asyncio.run(generate(address, clients, games, seconds))
        with contextlib.closing(redis.Redis.from_url(url)) as client:
            problems = check_all(client, tally.finished, tally.acknowledged)
    summary = summarize(tally, elapsed, problems)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "load.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(markdown(summary))
    unexpected = {
        code
        for rpc in summary["rpcs"].values()
        for code in rpc["codes"]
        if code not in EXPECTED_CODES
    }
    if problems or unexpected or tally.repeats_mismatched:
        sys.exit(
            f"load test failed: unexpected codes {sorted(unexpected)}, {len(problems)} bad games"
        )


if __name__ == "__main__":
    main()
