"""``python -m bench.klaberjass``: Klaberjass rules speed and the heuristic bot's strength.

Two figures, both on this one thread:

* random deals per second of the rules alone (legal actions, a uniform pick, apply; no views),
  per second of this process's CPU time, so that other load on the machine does not count;
* the heuristic bot's game win rate against the random bot in seeded games to the target,
  with the heuristic bot dealing first in every other game.
"""

from __future__ import annotations

import argparse
import random
import time

from engine_service.games.klaberjass.rules import KlaberjassRules
from engine_service.registry import REGISTRY


def random_deal_rate(seconds: float) -> tuple[float, float]:
    """Deals per CPU second and CPU microseconds per action of random play, rules alone."""
    rules = KlaberjassRules()
    deals = actions = 0
    seed = 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        rng = random.Random(seed)
        state = rules.new_game(seed)
        while rules.outcome(state) is None:
            seat = state.turn
            legal = rules.legal_actions(state, seat)
            state = rules.apply(state, seat, legal[rng.randrange(len(legal))])
            actions += 1
        deals += len(state.deals)
        seed += 1
    elapsed = time.process_time() - started
    return deals / elapsed, elapsed / actions * 1e6


def heuristic_wins(games: int) -> tuple[int, int]:
    """Games the heuristic bot wins against the random bot, and deals played in all."""
    rules = KlaberjassRules()
    bots = REGISTRY["klaberjass"].bots
    heuristic, randomly = bots["heuristic"], bots["random"]
    wins = deals = 0
    for game in range(games):
        rng = random.Random(game)
        state = rules.new_game(game)
        smart = state.dealer if game % 2 == 0 else 1 - state.dealer
        while (outcome := rules.outcome(state)) is None:
            seat = state.turn
            bot = heuristic if seat == smart else randomly
            view = rules.view(state, seat)
            state = rules.apply(
                state, seat, bot.choose(view, rules.legal_actions(state, seat), rng)
            )
        wins += smart in outcome.winners
        deals += len(state.deals)
    return wins, deals


def main() -> None:
    """Print both figures as a small table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=1000, help="heuristic-vs-random games")
    parser.add_argument("--seconds", type=float, default=5.0, help="CPU seconds for the speed run")
    args = parser.parse_args()
    rate, per_action = random_deal_rate(args.seconds)
    started = time.perf_counter()
    wins, deals = heuristic_wins(args.games)
    elapsed = time.perf_counter() - started
    print("| measure | value |")
    print("|---|---:|")
    print(f"| random deals/s, rules alone, one core | {rate:,.0f} |")
    print(f"| µs per action | {per_action:.1f} |")
    print(f"| heuristic vs random, games to 500 | {args.games} |")
    print(f"| heuristic game win rate | {wins / args.games:.1%} |")
    print(f"| deals per game | {deals / args.games:.1f} |")
    print(f"| wall time for the bot games | {elapsed:.0f} s |")


if __name__ == "__main__":
    main()
