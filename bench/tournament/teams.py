"""Duplicate Guandan and Klaberjass: search against heuristic, each seed played both ways.

Guandan: a seed's first deal (level 2, no tribute) played twice, the search team in seats 0
and 2, then in 1 and 3; a deal is won by the team of its first finisher (G-R24), as in
``bench.guandan_bots``. Klaberjass: a seed's whole game to 500 played twice, the search bot
in seat 0, then in seat 1; a shared win counts half. Only our rules are involved, through the
registry, and every bot sees only its seat's view.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from bench.tournament.seats import HEURISTIC, SEARCH, bot_of, decide
from engine_service.games.guandan.state import team_of
from engine_service.registry import REGISTRY

MAX_MOVES = 20_000
"""A bound on any one deal or game, far above what any takes."""


@dataclass
class Pair:
    """One seed played both ways: the search side's result each time (1 win, 0.5 shared, 0)."""

    seed: int
    results: list[float] = field(default_factory=list)
    times_ms: dict[str, list[float]] = field(default_factory=dict)

    @property
    def score(self) -> float:
        """The search side's mean result over both seatings."""
        return sum(self.results) / len(self.results)


def _play(game: str, seed: int, kinds: list[str], budget: int | None, pair: Pair) -> Any:
    """Play ``game``'s seed with ``kinds`` by seat until its first deal (Guandan) or game ends.

    Returns the final state and the outcome (``None`` when stopped after the first deal).
    """
    spec = REGISTRY[game]
    rules = spec.make_rules(spec.config_type())
    bots = [bot_of(spec, kind, budget) for kind in kinds]
    rng = random.Random(f"tournament:{game}:{seed}:{kinds[0]}")
    state = rules.new_game(seed)
    for _ in range(MAX_MOVES):
        outcome = rules.outcome(state)
        if outcome is not None:
            return state, outcome
        seat = rules.current_seats(state)[0]
        times = pair.times_ms.setdefault(kinds[seat], [])
        before = state
        state = rules.apply(state, seat, decide(bots[seat], rules, state, seat, rng, times))
        if game == "guandan" and state.deal_number != before.deal_number:
            return before, None
    raise AssertionError(f"{game} seed {seed} did not end within {MAX_MOVES} moves")


def guandan_pair(seed: int, budget: int | None) -> Pair:
    """Seed ``seed``'s first deal with the search team in seats 0 and 2, then 1 and 3."""
    pair = Pair(seed)
    for search_team in (0, 1):
        kinds = [SEARCH if team_of(seat) == search_team else HEURISTIC for seat in range(4)]
        state, outcome = _play("guandan", seed, kinds, budget, pair)
        first = state.finished[0] if state.finished else outcome.winners[0]
        pair.results.append(1.0 if team_of(first) == search_team else 0.0)
    return pair


def klaberjass_pair(seed: int, budget: int | None) -> Pair:
    """Seed ``seed``'s game to 500 with the search bot in seat 0, then in seat 1."""
    pair = Pair(seed)
    for search_seat in (0, 1):
        kinds = [SEARCH if seat == search_seat else HEURISTIC for seat in range(2)]
        _, outcome = _play("klaberjass", seed, kinds, budget, pair)
        winners = outcome.winners
        pair.results.append((search_seat in winners) / len(winners))
    return pair
