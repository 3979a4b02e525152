"""Part 1: the rules alone, on one core, for every registered game; Hearts beside OpenSpiel.

Random games drive the rules through the generic ``Rules`` calls only (``current_seats``,
``legal_actions``, ``apply``, ``outcome``), so a new game in the registry is measured with no
new code. Building views is left out: the figure is the rules' own cost.

Times are this process's CPU time (``time.process_time``), not wall time: on a machine shared
with other work a wall clock also counts the time other processes held the core. Hearts and
OpenSpiel are run in alternating slices so that both see the same machine.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine_service.core.protocol import Outcome, Rules
from engine_service.games.hearts.config import HeartsConfig, Variant
from engine_service.registry import REGISTRY


@dataclass(frozen=True)
class RulesRate:
    """Random games per second and the cost of one action, one game type."""

    game: str
    games: int
    actions: int
    seconds: float

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds

    @property
    def micros_per_action(self) -> float:
        return self.seconds / self.actions * 1e6


def _play_random(rules: Rules[Any, Any, Any], seeds: range) -> tuple[int, float]:
    actions = 0
    started = time.process_time()
    for seed in seeds:
        rng = random.Random(seed)
        state = rules.new_game(seed)
        while rules.outcome(state) is None:
            seat = rules.current_seats(state)[0]
            legal = rules.legal_actions(state, seat)
            state = rules.apply(state, seat, legal[rng.randrange(len(legal))])
            actions += 1
    return actions, time.process_time() - started


def rules_rate(game: str, games: int, seconds: float = math.inf) -> RulesRate:
    """Random games of ``game`` under its default options.

    Plays ``games`` games, or fewer if ``seconds`` of CPU time run out first (checked
    between games).
    """
    spec = REGISTRY[game]
    rules = spec.make_rules(spec.config_type())
    played, actions, spent = 0, 0, 0.0
    while played < games and spent < seconds:
        more, used = _play_random(rules, range(played, played + 1))
        played, actions, spent = played + 1, actions + more, spent + used
    return RulesRate(game, played, actions, spent)


ONE_DEAL = HeartsConfig(target=1, variant=Variant.CLASSIC)
"""Hearts that ends after its first deal, like OpenSpiel's Hearts game (a tie is shared)."""


SLICES = 10
"""Alternations of our Hearts and OpenSpiel's in one comparison."""


def hearts_beside_openspiel(games: int) -> tuple[RulesRate, RulesRate | None]:
    """Our Hearts (one deal per game) and OpenSpiel's, ``games`` random games each.

    OpenSpiel's is ``None`` when ``open_spiel`` is not installed.
    """
    ours = REGISTRY["hearts"].make_rules(ONE_DEAL)
    theirs = _openspiel_hearts()
    mine, spiel = [0, 0.0], [0, 0.0]
    step = max(1, games // SLICES)
    for first in range(0, games, step):
        seeds = range(first, min(games, first + step))
        _add(mine, _play_random(ours, seeds))
        if theirs is not None:
            _add(spiel, _play_openspiel(theirs, seeds))
    mine_rate = RulesRate("hearts (one deal)", games, int(mine[0]), mine[1])
    if theirs is None:
        return mine_rate, None
    return mine_rate, RulesRate("OpenSpiel hearts", games, int(spiel[0]), spiel[1])


def _add(total: list[float], part: tuple[int, float]) -> None:
    total[0] += part[0]
    total[1] += part[1]


def _openspiel_hearts() -> Any:
    try:
        import pyspiel
    except ImportError:
        return None
    return pyspiel.load_game("hearts", {"pass_cards": True})


def _play_openspiel(game: Any, seeds: range) -> tuple[int, float]:
    """OpenSpiel's Hearts (C++, one deal, passing on) driven from Python.

    Chance nodes (the deal) are sampled by the same Python generator as the players' moves,
    so both sides pay Python's cost of choosing.
    """
    actions = 0
    started = time.process_time()
    for seed in seeds:
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
            actions += 1
    return actions, time.process_time() - started


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


def heuristic_win_rate(game: str, games: int, seconds: float = math.inf) -> tuple[float, int]:
    """Share of seeded games that seat 0 (heuristic bot) wins, alone or shared, against random.

    Plays ``games`` games, or fewer if ``seconds`` of wall time run out first; returns the
    share and the number of games played.
    """
    seats = REGISTRY[game].seats
    deadline = time.perf_counter() + seconds
    wins = played = 0
    while played < games and time.perf_counter() < deadline:
        outcome = play_out(game, played, ["heuristic"] + ["random"] * (seats - 1))
        wins, played = wins + (0 in outcome.winners), played + 1
    return wins / played, played
