"""Scoring and the end of the game: H-R10 .. H-R17 (classic and "Special")."""

from __future__ import annotations

import pytest
from hearts_positions import end_hand, mask, play, position

from engine_service.core.cards import Card, cards_in
from engine_service.core.protocol import option_specs
from engine_service.games.hearts.actions import PassCards, PlayCard
from engine_service.games.hearts.config import (
    ClassicTie,
    HeartsConfig,
    LeaderEvaluated,
    PerfectHandExempt,
    Variant,
)
from engine_service.games.hearts.rules import HeartsRules
from engine_service.games.hearts.scoring import score_hand, trick_points
from engine_service.games.hearts.state import HeartsState, Phase
from tests.games.positions import random_walk

SPECIAL = HeartsRules()
CLASSIC = HeartsRules(HeartsConfig(variant=Variant.CLASSIC))


def is_over(state: HeartsState, winners: tuple[int, ...]) -> None:
    assert state.phase is Phase.GAME_OVER
    assert state.winners == winners


def plays_on(state: HeartsState, hand_number: int = 6) -> None:
    assert state.phase is not Phase.GAME_OVER
    assert state.winners == ()
    assert state.hand_number == hand_number
    assert [hand.bit_count() for hand in state.hands] == [13, 13, 13, 13]


# -- H-R10 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "points"),
    [("2H", 1), ("QS", 13), ("AS KS 2D 3C", 0), ("QS 2H 3H 4H", 16), ("QH KH AH JH", 4)],
)
def test_h_r10_one_point_per_heart_and_13_for_the_queen(cards: str, points: int) -> None:
    assert trick_points(mask(cards)) == points


def test_h_r10_hand_points_are_added_to_the_totals() -> None:
    state = position(
        ["QS", "AS", "5H", "6H"],
        tricks_played=12,
        hearts_broken=True,
        points=(3, 2, 4, 2),
        totals=(10, 20, 30, 40),
    )
    state = play(SPECIAL, state, "QS AS 5H 6H")  # seat 1 takes 13 + 2
    assert state.hand_scores == ((3, 17, 4, 2),)
    assert state.totals == (13, 37, 34, 42)
    plays_on(state, hand_number=1)
    assert state.points == (0, 0, 0, 0)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_h_r10_every_hand_holds_26_points(seed: int) -> None:
    *_, (final, _seat, _) = random_walk(SPECIAL, seed)
    assert final.phase is Phase.GAME_OVER
    assert final.hand_scores
    for scores in final.hand_scores:
        assert sum(scores) == 26 or sorted(scores) == [0, 13, 13, 13]
    assert tuple(map(sum, zip(*final.hand_scores, strict=True))) == final.totals


# -- H-R11 ------------------------------------------------------------------------------------


def test_h_r11_moon_gives_each_opponent_13() -> None:
    assert score_hand((0, 26, 0, 0), HeartsConfig()) == (13, 0, 13, 13)
    state = end_hand(SPECIAL, (5, 6, 7, 8), (0, 0, 26, 0))
    assert state.hand_scores == ((13, 13, 0, 13),)
    assert state.totals == (18, 19, 7, 21)


def test_h_r11_moon_penalty_option() -> None:
    config = HeartsConfig(moon_opponent_penalty=26)
    assert score_hand((0, 0, 0, 26), config) == (26, 26, 26, 0)
    state = end_hand(HeartsRules(config), (0, 0, 0, 0), (26, 0, 0, 0))
    assert state.totals == (0, 26, 26, 26)


def test_h_r11_25_points_is_not_the_moon() -> None:
    assert score_hand((25, 1, 0, 0), HeartsConfig()) == (25, 1, 0, 0)


def test_h_r11_moon_penalty_out_of_range_rejected() -> None:
    with pytest.raises(ValueError, match="moon_opponent_penalty"):
        HeartsConfig(moon_opponent_penalty=27)


# -- H-R12 ------------------------------------------------------------------------------------


def test_h_r12_game_ends_when_a_total_reaches_the_default_target_of_100() -> None:
    assert HeartsConfig().target == 100
    is_over(end_hand(CLASSIC, (50, 70, 70, 90), (10, 0, 6, 10)), (0,))  # 100 exactly
    is_over(end_hand(SPECIAL, (50, 70, 70, 95), (10, 6, 5, 5)), (0,))


def test_h_r12_below_target_deals_the_next_hand() -> None:
    state = end_hand(CLASSIC, (50, 70, 70, 89), (10, 0, 6, 10))
    plays_on(state)
    assert state.totals == (60, 70, 76, 99)
    assert CLASSIC.outcome(state) is None


def test_h_r12_target_option() -> None:
    rules = HeartsRules(HeartsConfig(variant=Variant.CLASSIC, target=50))
    is_over(end_hand(rules, (20, 35, 40, 45), (10, 0, 6, 10)), (0,))  # 30 35 46 55
    plays_on(end_hand(rules, (20, 35, 40, 35), (10, 0, 6, 10)))  # 30 35 46 45
    with pytest.raises(ValueError, match="target"):
        HeartsConfig(target=0)


def test_h_r12_target_is_checked_only_at_the_end_of_a_hand() -> None:
    state = position(
        ["2D 3C", "3D 4C", "4D 5C", "5D 6C"],
        tricks_played=6,
        points=(26, 0, 0, 0),
        totals=(99,) * 4,
    )
    state = play(CLASSIC, state, "2D 3D 4D 5D")
    assert state.phase is Phase.PLAYING
    assert state.tricks_played == 7


def test_h_r12_outcome_names_the_lowest_total() -> None:
    state = end_hand(CLASSIC, (50, 70, 70, 95), (10, 0, 6, 10))
    outcome = CLASSIC.outcome(state)
    assert outcome is not None
    assert outcome.winners == (0,)
    assert outcome.scores == (60, 70, 76, 105)
    assert outcome.summary == "seat 0 wins with 60 points."


# -- H-R13 ------------------------------------------------------------------------------------

TIED = ((40, 45, 60, 95), (5, 0, 10, 11))  # totals after: 45 45 70 106


def test_h_r13_classic_tie_for_lowest_is_shared_by_default() -> None:
    state = end_hand(CLASSIC, *TIED)
    is_over(state, (0, 1))
    outcome = CLASSIC.outcome(state)
    assert outcome is not None and outcome.summary == "seat 0, seat 1 share the win with 45 points."


def test_h_r13_classic_tie_play_on_option() -> None:
    rules = HeartsRules(HeartsConfig(variant=Variant.CLASSIC, classic_tie=ClassicTie.PLAY_ON))
    plays_on(end_hand(rules, *TIED))


def test_h_r13_classic_ignores_perfect_hands() -> None:
    is_over(end_hand(CLASSIC, (50, 70, 70, 95), (10, 0, 6, 10)), (0,))


# -- H-R14 ------------------------------------------------------------------------------------


def test_h_r14_special_is_the_default_variant() -> None:
    assert HeartsConfig().variant is Variant.SPECIAL
    spec = next(s for s in option_specs(HeartsConfig) if s.name == "variant")
    assert (spec.rule_id, spec.default, spec.choices) == (
        "H-R14",
        "special",
        ("classic", "special"),
    )


def test_h_r14_a_player_far_behind_keeps_the_game_alive() -> None:
    # Seat 2 reaches 100; seat 3, 35 points behind the leader, takes nothing.
    position_ = ((50, 70, 90, 95), (10, 6, 10, 0))
    is_over(end_hand(CLASSIC, *position_), (0,))
    plays_on(end_hand(SPECIAL, *position_))


# -- H-R15 ------------------------------------------------------------------------------------

# Seat 1 (not the leader) takes no points; the leader, seat 0, takes 10. After: 60 70 76 105.
NON_LEADER_PERFECT = ((50, 70, 70, 95), (10, 0, 6, 10))


def test_h_r15_perfect_hand_of_a_non_leader_plays_on() -> None:
    state = end_hand(SPECIAL, *NON_LEADER_PERFECT)
    plays_on(state)
    assert state.totals == (60, 70, 76, 105)


def test_h_r15_leader_also_perfect_ends_the_game() -> None:
    is_over(end_hand(SPECIAL, (50, 70, 70, 95), (0, 0, 13, 13)), (0,))


def test_h_r15_perfect_leader_alone_ends_the_game() -> None:
    is_over(end_hand(SPECIAL, (50, 70, 70, 95), (0, 5, 8, 13)), (0,))


# Leader before this hand: seat 1 (55); after it: seat 0 (60). Seats 0 and 2 are perfect.
LEADER_CHANGES = ((60, 55, 80, 95), (0, 20, 0, 6))  # totals after: 60 75 80 101


def test_h_r15a_leader_evaluated_after_scoring_by_default() -> None:
    # H-R15a
    assert HeartsConfig().leader_evaluated is LeaderEvaluated.AFTER_SCORING
    is_over(end_hand(SPECIAL, *LEADER_CHANGES), (0,))


def test_h_r15a_leader_evaluated_before_scoring_option() -> None:
    # H-R15a
    rules = HeartsRules(HeartsConfig(leader_evaluated=LeaderEvaluated.BEFORE_SCORING))
    plays_on(end_hand(rules, *LEADER_CHANGES))
    is_over(end_hand(rules, (50, 70, 70, 95), (0, 0, 13, 13)), (0,))


HAND_OPENER = HeartsRules(HeartsConfig(perfect_hand_exempt=PerfectHandExempt.HAND_OPENER))


def test_h_r15b_hand_opener_option_exempts_whoever_led_the_first_trick() -> None:
    # H-R15b
    is_over(end_hand(HAND_OPENER, *NON_LEADER_PERFECT, opener=1), (0,))
    plays_on(end_hand(HAND_OPENER, *NON_LEADER_PERFECT, opener=0))
    plays_on(end_hand(HAND_OPENER, *NON_LEADER_PERFECT, opener=3))
    # The opener's own perfect hand also cancels another player's.
    is_over(end_hand(HAND_OPENER, (50, 70, 70, 95), (0, 0, 13, 13), opener=1), (0,))


def test_h_r15b_opener_is_the_holder_of_two_of_clubs_after_the_pass() -> None:
    # H-R15b
    state = SPECIAL.new_game(17)
    for seat in range(4):
        state = SPECIAL.apply(state, seat, PassCards.of(*list(cards_in(state.hands[seat]))[:3]))
    assert state.hands[state.opener] >> Card.parse("2C") & 1
    assert SPECIAL.current_seats(state) == (state.opener,)


# Seat 1 shoots the moon; the leader after the hand is seat 0 (53).
MOON = ((40, 70, 75, 90), (0, 26, 0, 0))  # totals after: 53 70 88 103


def test_h_r15c_moon_counts_as_perfect_by_default() -> None:
    # H-R15c
    plays_on(end_hand(SPECIAL, *MOON))


def test_h_r15c_moon_counts_as_perfect_option_off() -> None:
    # H-R15c
    rules = HeartsRules(HeartsConfig(moon_counts_as_perfect=False))
    is_over(end_hand(rules, *MOON), (0,))


# -- H-R16 ------------------------------------------------------------------------------------


def test_h_r16_special_tie_for_lowest_plays_on() -> None:
    plays_on(end_hand(SPECIAL, *TIED))


def test_h_r16_tie_above_the_lowest_does_not_matter() -> None:
    is_over(end_hand(SPECIAL, (40, 60, 60, 99), (5, 10, 10, 1)), (0,))  # 45 70 70 100


def test_h_r16_hands_continue_until_a_single_lowest_total() -> None:
    state = end_hand(SPECIAL, *TIED)
    plays_on(state)
    assert state.totals == (45, 45, 70, 106)
    again = end_hand(SPECIAL, state.totals, (3, 3, 10, 10), hand_number=6)
    plays_on(again, hand_number=7)
    final = end_hand(SPECIAL, again.totals, (4, 3, 9, 10), hand_number=7)
    is_over(final, (1,))
    assert final.totals == (52, 51, 89, 126)


# -- H-R17 ------------------------------------------------------------------------------------


def test_h_r17_tie_is_checked_before_perfect_hands() -> None:
    # Seat 1 is perfect and tied for the lead: the tie alone decides to play on.
    plays_on(end_hand(SPECIAL, (40, 45, 60, 95), (5, 0, 10, 11)))


def test_h_r17_every_hand_after_the_target_repeats_the_check() -> None:
    extended = end_hand(SPECIAL, *NON_LEADER_PERFECT)
    plays_on(extended)
    assert max(extended.totals) >= 100
    final = end_hand(SPECIAL, extended.totals, (5, 5, 6, 10), hand_number=6)
    is_over(final, (0,))
    assert final.totals == (65, 75, 82, 115)


def test_h_r17_next_hand_keeps_totals_and_history() -> None:
    state = end_hand(SPECIAL, (1, 2, 3, 4), (6, 7, 8, 5), hand_number=2)
    assert state.hand_number == 3
    assert state.totals == (7, 9, 11, 9)
    assert state.hand_scores == ((6, 7, 8, 5),)
    assert state.phase is Phase.PLAYING  # the fourth hand has no pass (H-R2)


def test_h_r17_no_action_after_the_game_is_over() -> None:
    state = end_hand(SPECIAL, (50, 70, 70, 95), (0, 0, 13, 13))
    assert SPECIAL.current_seats(state) == ()
    for seat in range(4):
        assert SPECIAL.legal_actions(state, seat) == ()
        for action in (PlayCard(Card.parse("2C")), PassCards(mask("2C 3C 4C"))):
            violation = SPECIAL.check(state, seat, action)
            assert violation is not None
            assert (violation.reason, violation.rule_id) == ("GAME_OVER", "H-R17")
