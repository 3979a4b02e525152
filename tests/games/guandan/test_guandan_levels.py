"""Deal end, promotion and the match win: G-R4, G-R21, G-R22, G-R24 .. G-R28."""

from __future__ import annotations

import pytest
from guandan_match_positions import finish, kinds, position

from engine_service.games.guandan.actions import PassTurn, PlayCards
from engine_service.games.guandan.config import FailAtAce, GuandanConfig
from engine_service.games.guandan.reading import Reading
from engine_service.games.guandan.rules import GuandanRules
from engine_service.games.guandan.state import Phase

RULES = GuandanRules()
PLAY_ON = GuandanRules(GuandanConfig(end_deal_on_double_win=False))
TWO_TRIES = GuandanRules(GuandanConfig(ace_attempts=2, fail_at_ace=FailAtAce.DEMOTE_TO_TWO))


def test_g_r4_first_deal_at_two_then_the_winners_level() -> None:
    """G-R4: the first deal is at 2 with no declarer; the next at the winners' new level."""
    first = RULES.new_game(3)
    assert (first.levels, first.level, first.declarer) == ((2, 2), 2, None)
    after = finish(RULES, (1, 0, 3), levels=(6, 2), level=6, declarer=0)
    assert (after.levels, after.level, after.declarer, after.deal_number) == ((6, 4), 4, 1, 2)


def test_g_r21_double_win_ends_the_deal_at_once() -> None:
    """G-R21: partners 1st and 2nd end the deal; the order keeps only the two winners."""
    after = finish(RULES, (0, 2))
    assert after.previous_order == (0, 2) and after.deal_number == 2
    assert after.levels == (5, 2)


def test_g_r21_option_off_plays_on_after_a_double_win() -> None:
    """G-R21 option: with ``end_deal_on_double_win`` off the opponents play on."""
    state = position(["", "4C 5C", "KC", "4D 5D"], turn=2, finished=(0,))
    state = PLAY_ON.apply(state, 2, PlayCards.of(kinds("KC"), Reading.parse("single:13:1")))
    assert state.phase is Phase.PLAYING and state.deal_number == 1
    assert state.finished == (0, 2) and state.turn == 3


def test_g_r22_third_finisher_ends_the_deal_and_the_rest_is_last() -> None:
    """G-R22: the deal ends when the third seat finishes; the fourth is last."""
    after = finish(RULES, (1, 0, 3))
    assert after.previous_order == (1, 0, 3, 2)


@pytest.mark.parametrize(
    ("order", "levels"),
    [((0, 2), (5, 2)), ((0, 1, 2), (4, 2)), ((0, 1, 3), (3, 2)), ((3, 1), (2, 5))],
)
def test_g_r24_promotion_by_the_partners_place(
    order: tuple[int, ...], levels: tuple[int, int]
) -> None:
    """G-R24: +3, +2, +1 for a partner 2nd, 3rd, 4th; the losers' level does not move."""
    assert finish(RULES, order).levels == levels


def test_g_r25_levels_stop_at_ace() -> None:
    """G-R25: K + 3 = A."""
    after = finish(RULES, (0, 2), levels=(13, 5), level=13, declarer=0)
    assert after.levels == (14, 5) and after.level == 14


@pytest.mark.parametrize("order", [(0, 2), (0, 1, 2), (2, 3, 0)])
def test_g_r26_match_won_at_ace_with_a_one_two_or_one_three(order: tuple[int, ...]) -> None:
    """G-R26: a team at A, in a deal at A, finishing 1-2 or 1-3, wins the match."""
    over = finish(RULES, order, levels=(14, 5), level=14, declarer=0)
    assert over.phase is Phase.GAME_OVER and over.winners == (0, 2)
    assert not any(any(over.hands[seat]) for seat in order)
    outcome = RULES.outcome(over)
    assert outcome is not None
    assert outcome.winners == (0, 2) and outcome.scores == (14, 5, 14, 5)
    assert RULES.current_seats(over) == ()
    violation = RULES.check(over, 0, PassTurn())
    assert violation is not None and (violation.reason, violation.rule_id) == ("GAME_OVER", "G-R26")


def test_g_r26_a_one_four_at_ace_only_keeps_ace() -> None:
    """G-R26: a 1-4 win at A is not a match win; the team stays at A."""
    after = finish(RULES, (0, 1, 3), levels=(14, 5), level=14, declarer=0)
    assert after.phase is not Phase.GAME_OVER and after.levels == (14, 5)
    assert RULES.outcome(after) is None


def test_g_r26_winning_at_the_opponents_lower_level_never_wins() -> None:
    """G-R26: team 0 at A wins 1-2 a deal played at team 1's level 8: no match win."""
    after = finish(RULES, (0, 2), levels=(14, 8), level=8, declarer=1)
    assert after.phase is not Phase.GAME_OVER and after.levels == (14, 8)
    assert (after.level, after.declarer) == (14, 0)


def test_g_r26_reaching_ace_in_this_deal_does_not_win() -> None:
    """G-R26: the team must already be at A before the deal."""
    after = finish(RULES, (0, 2), levels=(12, 14), level=12, declarer=0)
    assert after.phase is not Phase.GAME_OVER and after.levels == (14, 14)


def test_g_r26_both_at_ace_a_deal_declared_by_the_opponents_counts() -> None:
    """G-R26: a deal declared at A by the opponents is still played at A."""
    over = finish(RULES, (1, 3), levels=(14, 14), level=14, declarer=0)
    assert over.phase is Phase.GAME_OVER and over.winners == (1, 3)


def test_g_r27_default_counts_failures_without_consequence() -> None:
    """G-R27: by default a failed deal at A is only counted."""
    after = finish(RULES, (1, 3), levels=(14, 5), level=14, declarer=0, ace_failures=(4, 0))
    assert after.levels == (14, 8) and after.ace_failures == (5, 0)


def test_g_r27_demoted_to_two_after_the_last_attempt() -> None:
    """G-R27 options: the second failed attempt drops the declarer to 2 and resets its count."""
    once = finish(TWO_TRIES, (1, 3), levels=(14, 5), level=14, declarer=0)
    assert once.levels == (14, 8) and once.ace_failures == (1, 0)
    twice = finish(TWO_TRIES, (1, 3), levels=(14, 5), level=14, declarer=0, ace_failures=(1, 0))
    assert twice.levels == (2, 8) and twice.ace_failures == (0, 0)


def test_g_r27_a_one_four_win_at_the_last_attempt_also_demotes() -> None:
    """G-R27: the declarer's own 1-4 win at A is a failed attempt too."""
    after = finish(TWO_TRIES, (0, 1, 3), levels=(14, 5), level=14, declarer=0, ace_failures=(1, 0))
    assert after.levels == (2, 5) and (after.level, after.declarer) == (2, 0)


def test_g_r27_only_the_declarer_at_ace_fails() -> None:
    """G-R27: a team at A that did not declare this deal has made no attempt."""
    after = finish(TWO_TRIES, (1, 3), levels=(14, 5), level=5, declarer=1, ace_failures=(1, 0))
    assert after.levels == (14, 8) and after.ace_failures == (1, 0)


def test_g_r28_bombs_earn_nothing_and_a_new_match_starts_at_two() -> None:
    """G-R28: going out with a bomb promotes like any play; every new match starts at 2."""
    state = position(["", "4C", "9C 9D 9S 9H", "4D"], turn=2, finished=(0,))
    bomb = PlayCards.of(kinds("9C 9D 9S 9H"), Reading.parse("bomb:9:4"))
    assert RULES.apply(state, 2, bomb).levels == (5, 2)
    assert all(RULES.new_game(seed).levels == (2, 2) for seed in range(5))
