"""Whole games: one check behind listing and applying, termination, determinism, views.

Covers K-R1 .. K-R21 together under random play, for the default options and a set of other
options.
"""

from __future__ import annotations

import dataclasses
import itertools
import random

import pytest

from engine_service.core.cards import Suit
from engine_service.games.klaberjass.actions import (
    Dix,
    KlaberjassAction,
    PassBid,
    PlayCard,
    TakeTrump,
)
from engine_service.games.klaberjass.cards import PACK, PACK_MASK
from engine_service.games.klaberjass.config import EqualTotals, KlaberjassConfig, SecondDealOrder
from engine_service.games.klaberjass.rules import KlaberjassRules, original_turn_up
from engine_service.games.klaberjass.state import KlaberjassState, Phase
from tests.games.positions import random_walk

CONFIGS = [
    KlaberjassConfig(),
    KlaberjassConfig(
        target=300,
        equal_totals=EqualTotals.MAKER_WINS,
        second_deal_order=SecondDealOrder.PACKETS,
        dix_only_if_turnup_trump=False,
        score_all_winner_sequences=True,
        auto_declare_sequences=False,
        melds_need_a_trick=True,
    ),
]
IDS = ["default", "all_other"]


def every_action() -> list[KlaberjassAction]:
    """Every action value there is, legal or not somewhere."""
    plays = [
        PlayCard(card, bella, sequences)
        for card, bella, sequences in itertools.product(PACK, (True, False), (True, False))
    ]
    return [*(TakeTrump(s) for s in Suit), PassBid(), Dix(True), Dix(False), *plays]


ALL_ACTIONS = every_action()


def assert_agree(rules: KlaberjassRules, state: KlaberjassState) -> None:
    """For both seats: an action is listed exactly when ``check`` accepts it."""
    for seat in (0, 1):
        listed = set(rules.legal_actions(state, seat))
        accepted = {a for a in ALL_ACTIONS if rules.check(state, seat, a) is None}
        assert listed == accepted
        assert bool(listed) == (seat in rules.current_seats(state))


def assert_cards_conserved(state: KlaberjassState) -> None:
    """Every card is in exactly one place: a hand, the stock, the turn-up or played."""
    parts = [*state.hands, state.stock, state.turn_up.bit, *state.played]
    union = 0
    for part in parts:
        assert not union & part
        union |= part
    assert union == PACK_MASK


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@pytest.mark.parametrize("seed", [1, 2])
def test_k_r5_to_k_r19_legal_actions_and_check_agree_in_random_games(
    config: KlaberjassConfig, seed: int
) -> None:
    rules = KlaberjassRules(config)
    for index, (state, _, _) in enumerate(random_walk(rules, seed)):
        assert_cards_conserved(state)
        if index % 3 == 0:
            assert_agree(rules, state)


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@pytest.mark.parametrize("seed", [3, 4, 5, 6])
def test_k_r21_random_games_end_with_a_winner_at_the_target(
    config: KlaberjassConfig, seed: int
) -> None:
    rules = KlaberjassRules(config)
    *_, (final, _, _) = random_walk(rules, seed)
    outcome = rules.outcome(final)
    assert outcome is not None and final.phase is Phase.GAME_OVER
    (winner,) = outcome.winners
    assert final.totals[winner] >= config.target
    assert final.totals[winner] >= final.totals[1 - winner]
    assert final.totals == tuple(sum(d.scores[s] for d in final.deals) for s in (0, 1))
    dealers = [d.dealer for d in final.deals]
    assert all(a != b for a, b in itertools.pairwise(dealers))  # K-R4: the deal alternates


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_k_r4_a_game_is_defined_by_its_seed_and_actions(config: KlaberjassConfig) -> None:
    rules = KlaberjassRules(config)
    log = [(seat, action) for _, seat, action in random_walk(rules, 9) if seat is not None]
    random.seed(12345)  # global randomness must not matter
    state = rules.new_game(9)
    for seat, action in log:
        assert action is not None
        state = rules.apply(state, seat, action)
    *_, (final, _, _) = random_walk(rules, 9)
    assert state == final


def hidden(state: KlaberjassState, seat: int | None) -> int:
    """The cards ``seat`` may not see: the other hand (or both), and the stock but its bottom.

    Shown sequences and, after a dix swap, the turn-up it took from the table (K-R11) are
    public although in a hand.
    """
    others = [s for s in (0, 1) if s != seat]
    mask = state.stock & ~(state.bottom.bit if state.bottom is not None else 0)
    for other in others:
        mask |= state.hands[other]
    if state.sequences is not None:
        for card in state.sequences.cards:
            mask &= ~card.bit
    if state.dix_by is not None:
        mask &= ~original_turn_up(state.seed, state.deal_number).bit
    return mask


def cards_in_view(value: object) -> int:
    """Every card appearing anywhere in a view, as a mask."""
    from tests.conformance.adapter import cards_anywhere

    mask = 0
    for card in cards_anywhere(value):
        mask |= card.bit
    return mask


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_k_r10_views_never_show_the_other_hand_or_the_stock(config: KlaberjassConfig) -> None:
    rules = KlaberjassRules(config)
    for state, _, _ in random_walk(rules, 13):
        for seat in (0, 1, None):
            view = rules.view(state, seat)
            # The previous deal's tricks are cards of another deal, which may sit in this
            # deal's hands; the conformance suite tells the deals apart (CardId.deal).
            this_deal = dataclasses.replace(view, previous_deal=None)
            assert not cards_in_view(this_deal) & hidden(state, seat)
            assert "seed" not in {f.name for f in dataclasses.fields(view)}
            if seat is not None:
                assert set(view.hand) <= set(PACK) and len(view.hand) == view.hand_sizes[seat]
