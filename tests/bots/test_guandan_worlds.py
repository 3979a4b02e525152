"""Every world the Guandan adapter samples agrees with every public fact of the view.

Positions come from seeded random matches played through the rules, through several deals so
that tribute, anti-tribute and returns occur; at each sampled decision the worlds drawn for
the seat to act are checked against the true state: the seat's view of the world is its real
view (own hand, counts, every seat's plays, tribute), its legal actions are the same, each
hidden hand has its true size, each kind's copies are the plays and the hands (G-R17a), each
payer holds nothing stronger than its tribute, a receiver or payer holds what it took in
unless it played a card of that kind, and the deal can be played on from the world.
"""

from __future__ import annotations

import random
from itertools import pairwise

import pytest

from engine_service.bots.guandan_eval import position_value
from engine_service.bots.guandan_worlds import GuandanWorlds, sample_world
from engine_service.games.guandan.actions import PassTurn
from engine_service.games.guandan.cards import (
    COPIES,
    KIND_COUNT,
    RED_JOKER,
    is_wild,
    rank_of,
    strength,
)
from engine_service.games.guandan.config import (
    CardCountVisibility,
    GuandanConfig,
    TributeCopy,
)
from engine_service.games.guandan.rules import GuandanRules
from engine_service.games.guandan.state import SEATS, GuandanState, Phase
from tests.bots.worlds_checks import check_sampling_depends_only_on_the_view

DEALS = 3
MOVES_PER_MATCH = 900
SAMPLE_EVERY = 9
WORLDS_PER_DECISION = 2
CONFIGS = (
    GuandanConfig(),
    GuandanConfig(
        card_count_visibility=CardCountVisibility.TEN_OR_FEWER,
        tribute_copy=TributeCopy.HIGHEST_SUIT,
        return_may_be_tribute_card=True,
        end_deal_on_double_win=False,
    ),
)


def _positions(rules: GuandanRules, seed: int) -> list[GuandanState]:
    """States of a random match (passing seldom, so deals end soon), up to :data:`DEALS`."""
    rng = random.Random(seed)
    state = rules.new_game(seed)
    states = []
    for _ in range(MOVES_PER_MATCH):
        seats = rules.current_seats(state)
        if not seats or state.deal_number >= DEALS:
            break
        states.append(state)
        legal = list(rules.legal_actions(state, seats[0]))
        plays = [a for a in legal if not isinstance(a, PassTurn)]
        pick = plays if plays and rng.random() < 0.8 else legal
        state = rules.apply(state, seats[0], pick[rng.randrange(len(pick))])
    return states


def _check_world(rules: GuandanRules, true: GuandanState, seat: int, world: GuandanState) -> None:
    view = rules.view(true, seat)
    assert rules.view(world, seat) == view
    assert world.hands[seat] == true.hands[seat]
    assert rules.legal_actions(world, seat) == rules.legal_actions(true, seat)
    for kind in range(KIND_COUNT):
        seen = sum(played[kind] for played in true.played)
        assert seen + sum(hand[kind] for hand in world.hands) == COPIES
    assert [sum(hand) for hand in world.hands] == [sum(hand) for hand in true.hands]
    playing = true.phase is Phase.PLAYING
    for tribute in true.tributes:
        payer = world.hands[tribute.payer]
        paid = strength(rank_of(tribute.card), true.level)
        for kind in range(KIND_COUNT):
            held = payer[kind] - (1 if playing and kind == tribute.returned else 0)
            if held > 0 and not is_wild(kind, true.level):
                assert strength(rank_of(kind), true.level) <= paid
        receiver = tribute.receiver
        if tribute.returned != tribute.card and not true.played[receiver][tribute.card]:
            assert world.hands[receiver][tribute.card] > 0
        if (
            playing
            and tribute.returned is not None
            and not true.played[tribute.payer][tribute.returned]
        ):
            assert world.hands[tribute.payer][tribute.returned] > 0
    for holder in true.red_joker_holders:
        if not true.played[holder][RED_JOKER]:
            assert world.hands[holder][RED_JOKER] > 0


@pytest.mark.parametrize("config", CONFIGS, ids=("default", "variants"))
def test_every_sampled_world_fits_the_view(config: GuandanConfig) -> None:
    rules = GuandanRules(config)
    tributes = 0
    for seed in range(3):
        for index, true in enumerate(_positions(rules, seed)):
            tributes += bool(true.tributes)
            if index % SAMPLE_EVERY and true.phase is not Phase.RETURNING:
                continue
            seat = rules.current_seats(true)[0]
            view = rules.view(true, seat)
            rng = random.Random(f"{seed}:{index}")
            for _ in range(WORLDS_PER_DECISION):
                world = sample_world(rules, view, rng)
                _check_world(rules, true, seat, world)
            if index % (SAMPLE_EVERY * 8) == 0:
                assert _deal_ends(rules, world, rng)
    assert tributes


def _deal_ends(rules: GuandanRules, world: GuandanState, rng: random.Random) -> bool:
    """Whether random moves from ``world`` reach the deal's end (the world is playable)."""
    state = world
    for _ in range(MOVES_PER_MATCH):
        seat = rules.current_seats(state)[0]
        state = rules.apply(state, seat, rng.choice(rules.legal_actions(state, seat)))
        if state.deal_number != world.deal_number or state.phase is Phase.GAME_OVER:
            return True
    return False


def test_sampling_depends_only_on_the_view() -> None:
    rules = GuandanRules()
    for seed in range(2):
        positions = _positions(rules, seed)[::40]
        check_sampling_depends_only_on_the_view(rules, positions, sample_world, str(seed))


def test_deal_value_is_the_winners_steps() -> None:
    rules = GuandanRules()
    worlds = GuandanWorlds()
    states = _positions(rules, 5)
    ended = [(a, b) for a, b in pairwise(states) if b.deal_number != a.deal_number]
    assert ended
    for before, after in ended:
        assert worlds.hand_over(before, after)
        result = after.previous_deal
        assert result is not None
        winners = result.team
        value = worlds.value(rules, after, winners)
        assert value in (1.0, 2.0, 3.0)
        assert worlds.value(rules, after, winners + 1) == -value


def test_a_playout_stops_when_a_seat_goes_out_and_values_the_deal_so_far() -> None:
    rules = GuandanRules()
    worlds = GuandanWorlds()
    states = _positions(rules, 6)
    outs = [(a, b) for a, b in pairwise(states) if len(b.finished) > len(a.finished)]
    assert outs
    for before, after in outs:
        assert worlds.hand_over(before, after)
    for before, after in pairwise(states[:30]):
        assert not worlds.hand_over(before, after)
        for seat in range(SEATS):
            value = worlds.value(rules, after, seat)
            assert value == position_value(after, seat)
            assert worlds.value(rules, after, seat + 1) == -value
