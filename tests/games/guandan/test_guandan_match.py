"""Whole matches: termination, determinism from the seed, ``check`` agreeing with the listing."""

from __future__ import annotations

import random
from itertools import islice

import pytest

from engine_service.bots.guandan_heuristic import GuandanHeuristicBot
from engine_service.core.errors import IllegalAction
from engine_service.games.guandan.actions import GuandanAction, PassTurn, ReturnCard
from engine_service.games.guandan.cards import kinds_in
from engine_service.games.guandan.combos import plays
from engine_service.games.guandan.config import GuandanConfig
from engine_service.games.guandan.rules import GuandanRules
from engine_service.games.guandan.state import TOP_LEVEL, GuandanState, Phase, team_of
from tests.games.positions import random_walk

RULES = GuandanRules()
VARIANT = GuandanRules(GuandanConfig(end_deal_on_double_win=False, return_may_be_tribute_card=True))


@pytest.mark.parametrize(("rules", "seed"), [(RULES, 1), (RULES, 2), (VARIANT, 3)])
def test_random_matches_end_with_a_team_at_ace(rules: GuandanRules, seed: int) -> None:
    """G-R26: seeded random matches end; the winners are one team, at A."""
    *_, (final, seat, _) = random_walk(rules, seed)
    assert seat is None and final.phase is Phase.GAME_OVER
    outcome = rules.outcome(final)
    assert outcome is not None
    first, second = outcome.winners
    assert team_of(first) == team_of(second) and second == first + 2
    assert final.levels[team_of(first)] == TOP_LEVEL
    assert final.deal_number > 0


def test_determinism_same_seed_same_match_and_replay() -> None:
    """All randomness comes from the seed: a replay of the action log rebuilds every state."""
    walk = list(random_walk(RULES, 5))
    again = list(random_walk(RULES, 5))
    assert walk == again
    state = RULES.new_game(5)
    for recorded, seat, action in walk:
        assert state == recorded
        if seat is None or action is None:
            break
        state = RULES.apply(state, seat, action)
    assert RULES.new_game(5).hands != RULES.new_game(6).hands


def candidates(state: GuandanState, seat: int) -> list[GuandanAction]:
    """Actions to try: every lead play of the hand, a pass, a return of every held card."""
    hand = state.hands[seat]
    found: list[GuandanAction] = list(plays(hand, state.level, None, RULES.config))
    found.append(PassTurn())
    found.extend(ReturnCard(kind) for kind in set(kinds_in(hand)))
    return found


def test_check_agrees_with_legal_actions() -> None:
    """``check`` accepts exactly the listed actions among the candidates, for every seat."""
    for state, _, _ in islice(random_walk(RULES, 8), 0, 3000, 37):
        for seat in range(4):
            legal = set(RULES.legal_actions(state, seat))
            for action in legal:
                assert RULES.check(state, seat, action) is None, (action, seat)
            for action in candidates(state, seat):
                if action not in legal:
                    assert RULES.check(state, seat, action) is not None, (action, seat)
                    with pytest.raises(IllegalAction):
                        RULES.apply(state, seat, action)


def test_heuristic_bots_play_a_match_to_the_end() -> None:
    """The heuristic bot picks a legal action in every situation and matches still end."""
    bot = GuandanHeuristicBot()
    rng = random.Random(4)
    state = RULES.new_game(4)
    for _ in range(20_000):
        seats = RULES.current_seats(state)
        if not seats:
            break
        seat = seats[0]
        legal = RULES.legal_actions(state, seat)
        action = bot.choose(RULES.view(state, seat), legal, rng)
        assert action in legal
        state = RULES.apply(state, seat, action)
    assert state.phase is Phase.GAME_OVER
