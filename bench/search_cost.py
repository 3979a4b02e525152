"""CPU per decision of each game's search bot on its default budget, in real positions.

``python -m bench.search_cost [--decisions N] [--every K]``: heuristic bots play seeded games;
at every ``K``-th move with more than one candidate the search bot decides for the seat to
act, timed with ``time.process_time`` (CPU of this process only, so other load on the machine
counts little). Prints p50, p90, p99 and the largest per game; docs/bots.md's figures and the
per-game budgets (``engine_service/bots/*_worlds.py``: ``SEARCH_BUDGET``) come from it. Run
it compiled (``make compiled``) for the service's figures; ``CARDENGINE_PURE=1`` for the
sources'.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from engine_service.bots.search import SearchBot
from engine_service.registry import REGISTRY

MAX_SEEDS = 200
MAX_MOVES = 5000
"""Bounds: games tried, and moves of one game (far above any game's length)."""


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def decision_ms(game: str, decisions: int, every: int) -> list[float]:
    """CPU milliseconds of ``decisions`` search decisions in heuristic-played games."""
    spec = REGISTRY[game]
    rules: Any = spec.make_rules(None)
    search = spec.bots["search"]
    assert isinstance(search, SearchBot)
    heuristic = spec.bots["heuristic"]
    times: list[float] = []
    moves = 0
    for seed in range(1, MAX_SEEDS):
        state = rules.new_game(seed)
        for _ in range(MAX_MOVES):
            seats = rules.current_seats(state)
            if len(times) >= decisions or not seats or rules.outcome(state) is not None:
                break
            seat = seats[0]
            view, legal = rules.view(state, seat), rules.legal_actions(state, seat)
            rng = random.Random(f"{seed}:{moves}")
            moves += 1
            if moves % every == 0 and len(search.worlds.candidates(view, legal)) > 1:
                started = time.process_time()
                search.choose_under(rules, view, legal, rng)
                times.append((time.process_time() - started) * 1000)
            state = rules.apply(state, seat, heuristic.choose(view, legal, rng))
        if len(times) >= decisions:
            break
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--decisions", type=int, default=100)
    parser.add_argument("--every", type=int, default=2)
    args = parser.parse_args()
    print("| game | budget | decisions | p50 ms | p90 ms | p99 ms | max ms |")
    print("|---|---|---|---|---|---|---|")
    for game, spec in REGISTRY.items():
        search = spec.bots.get("search")
        if not isinstance(search, SearchBot):
            continue
        times = decision_ms(game, args.decisions, args.every)
        figures = [percentile(times, share) for share in (0.5, 0.9, 0.99)] + [max(times)]
        cells = " | ".join(f"{value:.1f}" for value in figures)
        print(f"| {game} | {search.budget} | {len(times)} | {cells} |", flush=True)


if __name__ == "__main__":
    main()
