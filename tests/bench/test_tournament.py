"""The tournament's Hearts bridge to OpenSpiel, and its duplicate deals.

Tiny runs only (random bots, a handful of ISMCTS simulations, small search budgets): the
point is that both engines agree on every legal move and point of whole hands, not strength.
Skipped when ``open_spiel`` (the bench extra) is not installed.
"""

from __future__ import annotations

import random

import pytest

pytest.importorskip("pyspiel")

from bench.tournament import hearts, spiel, teams
from bench.tournament.seats import HEURISTIC, SEARCH
from engine_service.core.cards import CARDS, FULL_DECK_MASK
from engine_service.games.hearts.rules import TWO_OF_CLUBS, HeartsRules

TINY = hearts.Settings(simulations=4, uct_c=2.0, search_budget=8)


def test_card_numbers_map_one_to_one_and_name_the_same_cards() -> None:
    state = spiel.spiel_game().new_initial_state()
    state.apply_action(1)
    assert sorted(spiel.to_spiel(card) for card in CARDS) == list(range(52))
    for card in CARDS:
        assert spiel.to_ours(spiel.to_spiel(card)) == card
        assert state.action_to_string(spiel.to_spiel(card)) == str(card)


def test_openspiel_deal_gives_every_seat_our_cards() -> None:
    deal = hearts.deal_of(7)
    shadow = spiel.dealt_state(deal.hands, 0)
    assert spiel.legal_cards(shadow) == {TWO_OF_CLUBS}  # no passing: the 2C holder leads
    for seat in range(4):
        resampled = shadow.resample_from_infostate(seat, random.Random(seat).random)
        assert resampled.information_state_string(seat) == shadow.information_state_string(seat)
    opener = hearts.start_state(HeartsRules(spiel.COMMON_CONFIG), deal).turn
    assert shadow.current_player() == opener


@pytest.mark.parametrize("index", range(8))
def test_random_hands_agree_on_every_legal_move_and_the_points(index: int) -> None:
    # play_hand asserts at every step that both engines list the same legal cards, that the
    # turn is the same seat's, and at the end that they took the same points.
    block = hearts.play_block(index, ("random", "random"), TINY)
    assert _hand_totals(block) <= {26, 39}  # 26 points, or 3 x 13 when a moon was shot


def _hand_totals(block: hearts.Block) -> set[int]:
    return {round(h + 3 * o) for h, o in zip(block.hero, block.others, strict=True)}


def test_ismcts_and_our_bots_play_whole_hands_through_the_bridge() -> None:
    for index, lineup in ((1, (SEARCH, hearts.ISMCTS)), (2, (hearts.ISMCTS, HEURISTIC))):
        block = hearts.play_block(index, lineup, TINY)
        assert _hand_totals(block) <= {26, 39}
        assert hearts.ISMCTS in block.times_ms


def test_duplicate_rotation_replays_the_same_deal_with_the_hero_in_each_seat() -> None:
    deal = hearts.deal_of(3)
    assert deal == hearts.deal_of(3)
    assert deal != hearts.deal_of(4)
    hands = deal.hands
    assert all(a & b == 0 for a in hands for b in hands if a is not b)
    assert sum(hands) == FULL_DECK_MASK
    rules = HeartsRules(spiel.COMMON_CONFIG)
    assert hearts.start_state(rules, deal).hands == hands
    assert [hearts.deal_of(i).hand_number % 4 for i in range(4)] == [0, 1, 2, 3]
    block = hearts.play_block(3, ("heuristic", "random"), TINY)
    assert len(block.hero) == len(block.others) == 4


def test_team_duplicates_play_each_seed_both_ways() -> None:
    pair = teams.guandan_pair(5, budget=4)
    assert len(pair.results) == 2 and 0.0 <= pair.score <= 1.0
    assert set(pair.times_ms) <= {SEARCH, HEURISTIC}
