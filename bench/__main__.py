"""``make bench``: rules speed on one core, and SubmitAction latency through a live service.

Every game in the registry is measured. The service part starts its own redis-server and
engine server on loopback, plays seeded games with one human seat and three bots, and times
each SubmitAction round trip (the bots' replies happen inside the same call, as in
production). Run with ``--quick`` for a smoke run.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import uuid
from collections.abc import Sequence
from typing import Any

import grpc
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import engine_service_pb2_grpc, game_pb2

from engine_service.core.protocol import Outcome
from engine_service.devtools.local import local_service
from engine_service.games import REGISTRY


def play_out(game: str, seed: int, players: Sequence[str]) -> Outcome:
    """Play one game with the named registry bots in seat order; its outcome."""
    spec = REGISTRY[game]
    rules = spec.make_rules(spec.config_type())
    bots = [spec.bots[name] for name in players]
    rng = random.Random(seed)
    state = rules.new_game(seed)
    while (outcome := rules.outcome(state)) is None:
        seat = rules.current_seats(state)[0]
        legal = rules.legal_actions(state, seat)
        state = rules.apply(state, seat, bots[seat].choose(rules.view(state, seat), legal, rng))
    return outcome


def rules_rate(game: str, games: int) -> tuple[float, float]:
    """Random games per second and microseconds per action, rules alone, this thread only.

    The random bot picks from the legal actions without looking at its view; building the
    view is left out so that the figure is the rules' own cost.
    """
    spec = REGISTRY[game]
    rules = spec.make_rules(spec.config_type())
    actions = 0
    started = time.perf_counter()
    for seed in range(games):
        rng = random.Random(seed)
        state = rules.new_game(seed)
        while rules.outcome(state) is None:
            seat = rules.current_seats(state)[0]
            legal = rules.legal_actions(state, seat)
            state = rules.apply(state, seat, legal[rng.randrange(len(legal))])
            actions += 1
    elapsed = time.perf_counter() - started
    return games / elapsed, elapsed / actions * 1e6


def heuristic_win_rate(game: str, games: int) -> float:
    """Share of seeded games that seat 0 (heuristic bot) wins, alone or shared, against random."""
    seats = REGISTRY[game].seats
    wins = sum(
        0 in play_out(game, seed, ["heuristic"] + ["random"] * (seats - 1)).winners
        for seed in range(games)
    )
    return wins / games


def percentile(samples: list[float], fraction: float) -> float:
    """The sample at ``fraction`` of the sorted list (nearest rank)."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def submit_latencies(game: str, stub: Any, actions: int) -> list[float]:
    """Milliseconds per SubmitAction over whole games of one human seat against bots."""
    spec = REGISTRY[game]
    seats = [game_pb2.PLAYER_TYPE_HUMAN] + [game_pb2.PLAYER_TYPE_BOT_HEURISTIC] * (spec.seats - 1)
    samples: list[float] = []
    seed = 0
    while len(samples) < actions:
        seed += 1
        created = stub.CreateGame(api.CreateGameRequest(game_type=game, seats=seats, seed=seed))
        token = created.seat_tokens[0].token
        metadata = (("x-seat-token", token),)
        request = api.GetGameViewRequest(game_id=created.game_id, seat=0)
        view = stub.GetGameView(request, metadata=metadata).view
        rng = random.Random(seed)
        while view.status == game_pb2.GAME_STATUS_IN_PROGRESS and len(samples) < actions:
            submit = api.SubmitActionRequest(
                game_id=created.game_id,
                seat=0,
                expected_version=view.version,
                request_id=uuid.uuid4().hex,
                action=rng.choice(view.legal_actions),
            )
            started = time.perf_counter()
            view = stub.SubmitAction(submit, metadata=metadata).view
            samples.append((time.perf_counter() - started) * 1000)
    return samples


def main() -> None:
    """Print one table per part."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small counts, for a smoke run")
    args = parser.parse_args()
    games, actions = (20, 200) if args.quick else (300, 3000)

    print(f"## Rules alone, one core ({games} random games each)")
    print("| game | games/s | µs/action |")
    print("|---|---:|---:|")
    for game in REGISTRY:
        rate, per_action = rules_rate(game, games)
        print(f"| {game} | {rate:.1f} | {per_action:.1f} |")

    print(f"\n## Heuristic bot in seat 0 against random bots ({games} seeded games each)")
    print("| game | seat 0 wins | an even share would be |")
    print("|---|---:|---:|")
    for game in REGISTRY:
        share = 1 / REGISTRY[game].seats
        print(f"| {game} | {heuristic_win_rate(game, games):.1%} | {share:.0%} |")

    print(f"\n## SubmitAction through the service over loopback ({actions} calls each)")
    print("| game | p50 ms | p99 ms | mean ms |")
    print("|---|---:|---:|---:|")
    with local_service() as address, grpc.insecure_channel(address) as channel:
        stub = engine_service_pb2_grpc.EngineServiceStub(channel)
        for game in REGISTRY:
            samples = submit_latencies(game, stub, actions)
            p50, p99 = percentile(samples, 0.5), percentile(samples, 0.99)
            print(f"| {game} | {p50:.2f} | {p99:.2f} | {statistics.fmean(samples):.2f} |")


if __name__ == "__main__":
    main()
