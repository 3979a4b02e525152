"""Views: own hand only, card counts (G-R23), tribute facts and hidden returns (G-R33, G-R37)."""

from __future__ import annotations

import dataclasses
from itertools import islice

from guandan_match_positions import position, returning

from engine_service.games.guandan.actions import ReturnCard
from engine_service.games.guandan.cards import kinds_in, parse_kind
from engine_service.games.guandan.config import CardCountVisibility, GuandanConfig
from engine_service.games.guandan.rules import GuandanRules
from engine_service.games.guandan.state import Tribute
from engine_service.games.guandan.view import HIDDEN_COUNT, GuandanView
from tests.games.positions import random_walk

RULES = GuandanRules()
SEATS_AND_SPECTATOR = (0, 1, 2, 3, None)


def test_views_show_the_own_hand_and_never_another() -> None:
    """Each seat sees its own cards; a spectator none; no view carries the seed or all hands."""
    names = {f.name for f in dataclasses.fields(GuandanView)}
    assert not names & {"seed", "hands"}
    for state, _, _ in islice(random_walk(RULES, 11), 0, 400, 7):
        for seat in SEATS_AND_SPECTATOR:
            view = RULES.view(state, seat)
            expected = kinds_in(state.hands[seat]) if seat is not None else ()
            assert view.hand == expected
            assert view.to_act == RULES.current_seats(state)
            assert view.card_counts == tuple(sum(h) for h in state.hands)


def test_views_show_levels_declarer_and_the_previous_order() -> None:
    """G-R4, G-R24: both levels, the level in play, the declarer and last deal's order."""
    state = position(["3C"] * 4, level=5, levels=(5, 3), declarer=0, previous_order=(0, 2))
    view = RULES.view(state, None)
    assert (view.levels, view.level, view.declarer, view.previous_order) == ((5, 3), 5, 0, (0, 2))


def test_g_r23_counts_hidden_above_ten_by_option() -> None:
    """G-R23: ``ten_or_fewer`` hides counts above 10 from others, shows the own count."""
    eleven = " ".join(["3C", "3D", "4C", "4D", "5C", "5D", "6C", "6D", "7C", "7D", "8C"])
    state = position([eleven, "3S 3H 4S 4H 5S 5H 6S 6H 7S 7H", "4S", ""])
    assert RULES.view(state, 1).card_counts == (11, 10, 1, 0)
    rules = GuandanRules(GuandanConfig(card_count_visibility=CardCountVisibility.TEN_OR_FEWER))
    assert rules.view(state, 1).card_counts == (HIDDEN_COUNT, 10, 1, 0)
    assert rules.view(state, 0).card_counts == (11, 10, 1, 0)
    assert rules.view(state, None).card_counts[0] == HIDDEN_COUNT


def test_g_r37_pending_return_hidden_until_both_are_in() -> None:
    """G-R37: only the receiver sees its own pending return; then both are shown."""
    tributes = (Tribute(1, 0, parse_kind("AC")), Tribute(3, 2, parse_kind("KC")))
    state = returning(["AC 3C", "5C", "KC 7D", "9D"], tributes, turn=1)
    state = RULES.apply(state, 0, ReturnCard(parse_kind("3C")))
    assert RULES.view(state, 0).tributes[0].returned == parse_kind("3C")
    for seat in (1, 2, 3, None):
        view = RULES.view(state, seat)
        assert [t.returned for t in view.tributes] == [None, None]
        assert [t.card for t in view.tributes] == [parse_kind("AC"), parse_kind("KC")]
    state = RULES.apply(state, 2, ReturnCard(parse_kind("7D")))
    for seat in SEATS_AND_SPECTATOR:
        returned = [t.returned for t in RULES.view(state, seat).tributes]
        assert returned == [parse_kind("3C"), parse_kind("7D")]


def test_g_r33_anti_tribute_holders_shown_by_option() -> None:
    """G-R33: the red joker holders are public unless ``announce_anti_tribute`` is off."""
    state = dataclasses.replace(position(["3C", "4C", "5C", "6C"]), red_joker_holders=(1, 3))
    view = RULES.view(state, 0)
    assert view.anti_tribute and view.red_joker_holders == (1, 3)
    quiet = GuandanRules(GuandanConfig(announce_anti_tribute=False)).view(state, 0)
    assert quiet.anti_tribute and quiet.red_joker_holders == ()
