"""H-R1 (the deal) and H-R2 (the simultaneous pass and its four-hand cycle)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hearts_positions import mask, position

from engine_service.core.cards import FULL_DECK_MASK, Card, cards_in
from engine_service.games.hearts.actions import PassCards, PlayCard
from engine_service.games.hearts.config import HeartsConfig
from engine_service.games.hearts.rules import TWO_OF_CLUBS, HeartsRules
from engine_service.games.hearts.state import HeartsState, PassDirection, Phase
from tests.games.positions import random_walk

RULES = HeartsRules()


def lowest_three(state: HeartsState, seat: int) -> PassCards:
    return PassCards.of(*list(cards_in(state.hands[seat]))[:3])


def pass_all(state: HeartsState, order: tuple[int, ...] = (0, 1, 2, 3)) -> HeartsState:
    for seat in order:
        state = RULES.apply(state, seat, lowest_three(state, seat))
    return state


def reason(state: HeartsState, seat: int, action: PassCards | PlayCard) -> tuple[str, str]:
    violation = RULES.check(state, seat, action)
    assert violation is not None, f"{action} by seat {seat} was accepted"
    return violation.reason, violation.rule_id


# -- H-R1 ----------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 42, 2**40])
def test_h_r1_deal_gives_13_cards_each_from_one_deck(seed: int) -> None:
    state = RULES.new_game(seed)
    assert [hand.bit_count() for hand in state.hands] == [13, 13, 13, 13]
    union = 0
    for hand in state.hands:
        assert not union & hand
        union |= hand
    assert union == FULL_DECK_MASK
    assert state.totals == (0, 0, 0, 0)
    assert state.hand_number == 0


def test_h_r1_deal_is_fixed_by_the_seed() -> None:
    assert RULES.new_game(7) == RULES.new_game(7)
    assert RULES.new_game(7).hands != RULES.new_game(8).hands


def test_h_r1_pass_of_a_card_not_held_is_rejected() -> None:
    state = RULES.new_game(3)
    foreign = next(cards_in(state.hands[1]))
    own = list(cards_in(state.hands[0]))[:2]
    violation = RULES.check(state, 0, PassCards.of(*own, foreign))
    assert violation is not None
    assert (violation.reason, violation.rule_id) == ("CARD_NOT_IN_HAND", "H-R1")
    assert violation.metadata["card"] == str(foreign)


def test_h_r1_play_of_a_card_not_held_is_rejected() -> None:
    state = position(["2C 3C", "4C 5C", "6C 7C", "8C 9C"], tricks_played=0)
    assert reason(state, 0, PlayCard(Card.parse("4C"))) == ("CARD_NOT_IN_HAND", "H-R1")


# -- H-R2: what may be passed ----------------------------------------------------------------


@pytest.mark.parametrize("size", [0, 1, 2, 4, 13])
def test_h_r2_pass_must_be_exactly_three_cards(size: int) -> None:
    state = RULES.new_game(5)
    chosen = PassCards.of(*list(cards_in(state.hands[2]))[:size])
    assert reason(state, 2, chosen) == ("WRONG_PASS_SIZE", "H-R2")


def test_h_r2_every_three_card_choice_is_listed_while_passing() -> None:
    state = RULES.new_game(5)
    legal = RULES.legal_actions(state, 1)
    assert len(legal) == 286  # 13 choose 3
    assert len(set(legal)) == 286
    assert all(isinstance(a, PassCards) and a.mask & ~state.hands[1] == 0 for a in legal)
    assert all(RULES.check(state, 1, action) is None for action in legal)


def test_h_r2_a_seat_passes_only_once() -> None:
    state = RULES.apply(RULES.new_game(5), 0, lowest_three(RULES.new_game(5), 0))
    again = PassCards.of(*list(cards_in(state.hands[0]))[3:6])
    assert reason(state, 0, again) == ("ALREADY_PASSED", "H-R2")
    assert RULES.legal_actions(state, 0) == ()
    assert RULES.current_seats(state) == (1, 2, 3)


def test_h_r2_no_card_is_played_before_everyone_has_passed() -> None:
    state = pass_all(RULES.new_game(5), order=(0, 1, 2))
    holder = next(s for s in range(4) if state.hands[s] >> TWO_OF_CLUBS & 1)
    assert reason(state, holder, PlayCard(TWO_OF_CLUBS)) == ("PASSING_NOT_FINISHED", "H-R2")


def test_h_r2_no_pass_during_play() -> None:
    state = pass_all(RULES.new_game(5))
    assert state.phase is Phase.PLAYING
    assert reason(state, 0, lowest_three(state, 0)) == ("NOT_PASSING_NOW", "H-R2")
    played = position(["2C 3C 4C", "5C 6C 7C", "8C 9C TC", "JC QC KC"])
    assert reason(played, 0, PassCards(mask("2C 3C 4C"))) == ("NOT_PASSING_NOW", "H-R2")


# -- H-R2: simultaneous exchange and direction ----------------------------------------------


@pytest.mark.parametrize("order", [(0, 1, 2, 3), (3, 1, 0, 2), (2, 3, 1, 0)])
def test_h_r2_cards_move_only_after_the_fourth_choice(order: tuple[int, ...]) -> None:
    dealt = RULES.new_game(11)
    state = dealt
    for count, seat in enumerate(order, 1):
        state = RULES.apply(state, seat, lowest_three(dealt, seat))
        if count < 4:
            assert state.hands == dealt.hands
            assert state.phase is Phase.PASSING
            assert seat not in RULES.current_seats(state)
    assert state.phase is Phase.PLAYING
    assert state.hands != dealt.hands
    assert state == pass_all(dealt)  # the order of the choices does not matter


@pytest.mark.parametrize(
    ("hand_number", "direction", "receiver_offset"),
    [
        (0, PassDirection.LEFT, 1),
        (1, PassDirection.RIGHT, 3),
        (2, PassDirection.ACROSS, 2),
        (4, PassDirection.LEFT, 1),
        (5, PassDirection.RIGHT, 3),
        (6, PassDirection.ACROSS, 2),
        (8, PassDirection.LEFT, 1),
    ],
)
def test_h_r2_cards_go_left_right_across(
    hand_number: int, direction: PassDirection, receiver_offset: int
) -> None:
    dealt = replace(RULES.new_game(13), hand_number=hand_number)
    assert dealt.pass_direction is direction
    after = pass_all(dealt)
    for seat in range(4):
        given = lowest_three(dealt, seat).mask
        receiver = (seat + receiver_offset) % 4  # left is the next seat clockwise
        assert after.hands[receiver] & given == given
        assert not after.hands[seat] & given
        assert after.hands[receiver] == dealt.hands[receiver] & ~after.passed[receiver] | given
        assert after.hands[receiver].bit_count() == 13


def test_h_r2_pass_cycle_repeats_with_a_keep_hand_every_fourth() -> None:
    rules = HeartsRules(HeartsConfig(target=10_000))
    seen: dict[int, tuple[Phase, PassDirection]] = {}
    for state, _seat, _action in random_walk(rules, seed=21, max_actions=5_000):
        if state.hand_number > 8:
            break
        seen.setdefault(state.hand_number, (state.phase, state.pass_direction))
    none, left, right, across = (
        PassDirection.NONE,
        PassDirection.LEFT,
        PassDirection.RIGHT,
        PassDirection.ACROSS,
    )
    expected = [left, right, across, none, left, right, across, none, left]
    assert [seen[n][1] for n in range(9)] == expected
    assert [seen[n][0] is Phase.PLAYING for n in range(9)] == [d is none for d in expected]


def test_h_r2_keep_hand_starts_with_play_and_no_pass() -> None:
    rules = HeartsRules(HeartsConfig(target=10_000))
    state = next(s for s, _, _ in random_walk(rules, seed=4) if s.hand_number == 3)
    assert state.phase is Phase.PLAYING
    assert RULES.current_seats(state) == (state.opener,)
    assert reason(state, 0, lowest_three(state, 0)) == ("NOT_PASSING_NOW", "H-R2")


def test_h_r2_a_pass_holds_only_cards_of_the_deck() -> None:
    with pytest.raises(ValueError, match="not a set of cards"):
        PassCards(1 << 52)
