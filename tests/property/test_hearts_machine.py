"""Hypothesis drives Hearts through the real rules, mixing legal and arbitrary actions.

The state machine plays legal moves one at a time or in bursts, and throws arbitrary plays and
passes at the rules (H-R1 .. H-R9 decide which are legal); after every move the conformance
invariants hold: cards conserved, no view leaks, scores add up (H-R10 .. H-R17), and the log
replays to the same state. Failures shrink to a short sequence of moves.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from engine_service.core.cards import CARDS
from engine_service.core.errors import IllegalAction
from engine_service.core.protocol import GameSpec
from engine_service.games.hearts.actions import HeartsAction, PassCards, PlayCard
from engine_service.games.hearts.config import HeartsConfig
from engine_service.games.hearts.state import SEATS, HeartsState
from engine_service.registry import REGISTRY
from tests.conformance.checks import (
    CheckedGame,
    Views,
    adapter_for,
    check_illegal_rejected,
    check_outcome,
    check_replay,
    check_to_act,
    field_values,
)
from tests.conformance.options import config_from_texts
from tests.volume import volume

pytestmark = pytest.mark.volume

HEARTS = REGISTRY["hearts"]
ADAPTER = adapter_for("hearts")
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


def configs(spec: GameSpec[Any, Any, Any, Any], int_ranges: Mapping[str, tuple[int, int]]) -> Any:
    """Configs with every option drawn by Hypothesis (integer options from ``int_ranges``)."""
    texts = {
        spec_option.name: (
            st.integers(*int_ranges[spec_option.name]).map(str)
            if spec_option.kind == "int"
            else st.sampled_from(spec_option.choices)
        )
        for spec_option in spec.options
    }
    return st.fixed_dictionaries(texts).map(lambda t: config_from_texts(spec.config_type, t))


def pick_random(views: Views, legal: Mapping[int, Any], rng: random.Random) -> tuple[int, Any]:
    seat = rng.choice(sorted(legal))
    return seat, rng.choice(legal[seat])


class HeartsMachine(RuleBasedStateMachine):
    """One Hearts game per run, under a random rule set and seed."""

    game: CheckedGame

    @initialize(config=configs(HEARTS, ADAPTER.int_ranges), seed=SEEDS)
    def deal(self, config: HeartsConfig, seed: int) -> None:
        self.game = CheckedGame(HEARTS, ADAPTER, config, seed)

    @precondition(lambda self: not self.game.finished)
    @rule(pick=st.integers(min_value=0, max_value=10**6))
    def play_a_legal_move(self, pick: int) -> None:
        to_act = self.game.rules.current_seats(self.game.state)
        seat = to_act[pick % len(to_act)]
        legal = self.game.rules.legal_actions(self.game.state, seat)
        self.game.apply(seat, legal[pick // len(to_act) % len(legal)])

    @precondition(lambda self: not self.game.finished)
    @rule(moves=st.integers(min_value=1, max_value=30), seed=SEEDS)
    def play_random_moves(self, moves: int, seed: int) -> None:
        """A burst of checked random moves, so that runs reach later hands and the game end."""
        rng = random.Random(seed)
        for _ in range(moves):
            if self.game.finished:
                return
            self.game.step(pick_random, rng)

    @rule(seed=SEEDS)
    def refuse_a_sampled_illegal_move(self, seed: int) -> None:
        check_illegal_rejected(self.game.rules, ADAPTER, self.game.state, random.Random(seed))

    @rule(seat=st.integers(min_value=0, max_value=SEATS - 1), card=st.sampled_from(CARDS))
    def try_any_play(self, seat: int, card: Any) -> None:
        self.try_action(seat, PlayCard(card))

    @rule(
        seat=st.integers(min_value=0, max_value=SEATS - 1),
        cards=st.lists(st.sampled_from(CARDS), max_size=5, unique=True),
    )
    def try_any_pass(self, seat: int, cards: list[Any]) -> None:
        self.try_action(seat, PassCards.of(*cards))

    def try_action(self, seat: int, action: HeartsAction) -> None:
        """Apply an arbitrary action if the rules list it; otherwise it must be refused."""
        rules, state = self.game.rules, self.game.state
        listed = action in rules.legal_actions(state, seat)
        assert (rules.check(state, seat, action) is None) == listed, f"{action} listed={listed}"
        if listed:
            self.game.apply(seat, action)
            return
        snapshot = field_values(state)
        with pytest.raises(IllegalAction):
            rules.apply(state, seat, action)
        assert field_values(state) == snapshot

    @invariant()
    def somebody_acts_until_the_end(self) -> None:
        if not check_to_act(self.game.rules, self.game.state):
            check_outcome(self.game.rules, ADAPTER, self.game.config, self.game.state)

    def teardown(self) -> None:
        if hasattr(self, "game"):
            check_replay(self.game.rules, self.game.seed, self.game.log, self.game.state)
            hands = len(self.game.state.hand_scores)
            event(f"hands completed: {hands}, over: {self.game.finished}")


HeartsMachine.TestCase.settings = settings(
    max_examples=volume(100, 1000), stateful_step_count=60, deadline=None
)
test_hearts_machine = HeartsMachine.TestCase


def play_by_choices(config: HeartsConfig, seed: int, choices: int) -> list[HeartsState]:
    """Every state of a game whose moves are picked by ``Random(choices)``."""
    rules = HEARTS.make_rules(config)
    rng = random.Random(choices)
    states = [rules.new_game(seed)]
    while to_act := rules.current_seats(states[-1]):
        seat = rng.choice(to_act)
        states.append(
            rules.apply(states[-1], seat, rng.choice(rules.legal_actions(states[-1], seat)))
        )
    return states


@settings(max_examples=volume(40, 400), deadline=None)
@given(
    config=configs(HEARTS, {"target": (1, 100), "moon_opponent_penalty": (0, 26)}),
    seed=SEEDS,
    choices=SEEDS,
    stir=SEEDS,
)
def test_same_seed_and_choices_give_the_same_game(
    config: HeartsConfig, seed: int, choices: int, stir: int
) -> None:
    """H-R1: a game is its config, seed and moves; the global RNG must play no part."""
    first = play_by_choices(config, seed, choices)
    random.seed(stir)
    random.random()
    assert play_by_choices(config, seed, choices) == first
