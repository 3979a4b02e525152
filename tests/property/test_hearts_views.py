"""What a Hearts view shows while cards are being passed must not depend on the deal (H-R2).

The card-level leak check of the conformance suite cannot see a leak that names no card, such
as showing who holds 2C before the pass. Here two deals are compared instead: before play
starts, a seat's view minus its own cards must be the same whatever the deal.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine_service.games.hearts.actions import PassCards
from engine_service.games.hearts.config import HeartsConfig
from engine_service.games.hearts.rules import HeartsRules
from engine_service.games.hearts.state import HeartsState, Phase
from engine_service.games.hearts.view import HeartsView
from tests.volume import volume

pytestmark = pytest.mark.volume

RULES = HeartsRules(HeartsConfig())
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
VIEWERS = st.sampled_from([0, 1, 2, 3, None])


def without_own_cards(view: HeartsView) -> HeartsView:
    return dataclasses.replace(view, hand=(), passed=())


def after_passes(seed: int, passers: list[int]) -> HeartsState:
    """The first hand after ``passers`` (in order) chose their lowest three cards."""
    state = RULES.new_game(seed)
    for seat in passers:
        state = RULES.apply(state, seat, PassCards(_lowest_three(state.hands[seat])))
    return state


def _lowest_three(hand: int) -> int:
    mask = 0
    for _ in range(3):
        low = hand & -hand
        mask |= low
        hand ^= low
    return mask


@settings(max_examples=volume(60, 600), deadline=None)
@given(
    first=SEEDS,
    second=SEEDS,
    viewer=VIEWERS,
    passers=st.permutations([0, 1, 2, 3]).map(lambda seats: seats[:3]),
    count=st.integers(min_value=0, max_value=3),
)
def test_h_r2_views_while_passing_do_not_depend_on_the_deal(
    first: int, second: int, viewer: int | None, passers: list[int], count: int
) -> None:
    one, other = after_passes(first, passers[:count]), after_passes(second, passers[:count])
    assert one.phase is other.phase is Phase.PASSING
    assert without_own_cards(RULES.view(one, viewer)) == without_own_cards(
        RULES.view(other, viewer)
    )
