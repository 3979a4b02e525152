"""Tribute, anti-tribute, returns and the lead after tribute: G-R29 .. G-R37."""

from __future__ import annotations

from collections.abc import Callable
from itertools import count

import pytest
from guandan_match_positions import finish, hand, position, returning, single

from engine_service.games.guandan.actions import GuandanAction, PassTurn, ReturnCard
from engine_service.games.guandan.cards import BLACK_JOKER, RED_JOKER, Hand, parse_kind, rank_of
from engine_service.games.guandan.config import GuandanConfig, TributeCopy
from engine_service.games.guandan.dealing import deal_hands, first_leader
from engine_service.games.guandan.rules import GuandanRules
from engine_service.games.guandan.state import GuandanState, Phase, Tribute
from engine_service.games.guandan.tribute import (
    TributePlan,
    pay,
    plan_tribute,
    red_joker_holders,
    returnable,
    tribute_card,
)

RULES = GuandanRules()
LOWEST = TributeCopy.LOWEST_SUIT
NEXT_DEAL = 2  # positions are in deal 1


def k(code: str) -> int:
    return parse_kind(code)


def seed_where(test: Callable[[tuple[Hand, ...]], bool]) -> int:
    """The first seed whose deal after :func:`finish` satisfies ``test``."""
    return next(seed for seed in count() if test(deal_hands(seed, NEXT_DEAL)))


def rejected(state: GuandanState, seat: int, action: GuandanAction) -> tuple[str, str]:
    violation = RULES.check(state, seat, action)
    assert violation is not None, f"{action} by seat {seat} was accepted"
    return violation.reason, violation.rule_id


def test_g_r29_first_deal_has_no_tribute_and_a_seeded_random_leader() -> None:
    """G-R29: deal 0 starts with play, led by a seat drawn from the seed."""
    leaders = set()
    for seed in range(20):
        state = RULES.new_game(seed)
        assert state.phase is Phase.PLAYING and state.tributes == () and state.top is None
        assert state.turn == first_leader(seed)
        leaders.add(state.turn)
    assert len(leaders) > 1


def test_g_r30_tribute_uses_the_new_hands_at_the_new_level() -> None:
    """G-R30: after 0-1-3-2 team 0 goes 2 -> 3; seat 2 pays a 3, the new level card."""
    seed = seed_where(
        lambda hands: (
            not hands[2][RED_JOKER]
            and not hands[2][BLACK_JOKER]
            and any(hands[2][k(c)] for c in ("3C", "3D", "3S"))
        )
    )
    after = finish(RULES, (0, 1, 3), seed=seed)
    assert after.level == 3
    (tribute,) = after.tributes
    assert (tribute.payer, tribute.receiver) == (2, 0)
    assert rank_of(tribute.card) == 3
    dealt = deal_hands(seed, NEXT_DEAL)
    assert after.hands[2][tribute.card] == dealt[2][tribute.card] - 1
    assert after.hands[0][tribute.card] == dealt[0][tribute.card] + 1


@pytest.mark.parametrize(
    ("order", "payer"), [((0, 1, 2), 3), ((0, 1, 3), 2), ((1, 2, 0), 3), ((3, 2, 1), 0)]
)
def test_g_r31_single_tribute_last_place_pays_first(order: tuple[int, ...], payer: int) -> None:
    """G-R31: after 1-3 or 1-4 the last seat pays 1st place (in 1-4, the winner's partner)."""
    plan = plan_tribute((*order, next(s for s in range(4) if s not in order)))
    assert plan == TributePlan(order[0], (payer,), (order[0],))


def test_g_r31_tribute_is_the_strongest_card_but_never_a_wild() -> None:
    """G-R31: at level 5 the wild 5H is skipped; a plain 5 or a red joker may be paid."""
    assert tribute_card(hand("2C 5H AS KD"), 5, LOWEST) == k("AS")
    assert tribute_card(hand("2C 5H 5S AS"), 5, LOWEST) == k("5S")
    assert tribute_card(hand("2C 5H 5S RJ BJ"), 5, LOWEST) == k("RJ")


def test_g_r31_single_tribute_moves_the_card_and_waits_for_the_return() -> None:
    """G-R31: in the next deal the receiver alone must return a card."""
    after = finish(RULES, (0, 1, 2), seed=seed_where(lambda h: h[3][RED_JOKER] < 2))
    (tribute,) = after.tributes
    assert (tribute.payer, tribute.receiver, tribute.returned) == (3, 0, None)
    assert after.phase is Phase.RETURNING and RULES.current_seats(after) == (0,)


def test_g_r32_double_tribute_higher_card_to_first_place() -> None:
    """G-R32: seat 3's ace beats seat 1's king, so seat 3 pays 1st place (seat 0)."""
    hands = (hand(""), hand("KC 3D"), hand(""), hand("AC 4D"))
    plan = plan_tribute((0, 2))
    assert plan.payers == (1, 3) and plan.receivers == (0, 2)
    assert pay(hands, plan, 2, LOWEST) == (Tribute(3, 0, k("AC")), Tribute(1, 2, k("KC")))


@pytest.mark.parametrize(("first", "payer_to_first"), [(0, 1), (1, 2), (2, 3), (3, 0)])
def test_g_r32_equal_cards_go_in_turn_order_from_first_place(
    first: int, payer_to_first: int
) -> None:
    """G-R32: with equal cards the payer seated right after 1st place pays 1st place."""
    hands = tuple(hand("AC 3D") if s % 2 != first % 2 else hand("") for s in range(4))
    plan = plan_tribute((first, (first + 2) % 4))
    payments = pay(hands, plan, 2, LOWEST)
    assert payments[0] == Tribute(payer_to_first, first, k("AC"))
    assert payments[1].receiver == (first + 2) % 4


def test_g_r32_double_tribute_both_receivers_return_at_once() -> None:
    """G-R32: after a 1-2 both opponents pay and both winners owe a return."""
    after = finish(RULES, (0, 2), seed=seed_where(lambda h: h[1][RED_JOKER] + h[3][RED_JOKER] < 2))
    assert {(t.payer, t.receiver) for t in after.tributes} <= {(1, 0), (3, 2), (3, 0), (1, 2)}
    assert after.tributes[0].receiver == 0
    assert RULES.current_seats(after) == (0, 2)


def test_g_r33_anti_tribute_holders() -> None:
    """G-R33: both red jokers with the payers, with one or two holders; else tribute stands."""
    hands = (hand("RJ"), hand("RJ"), hand(""), hand("RJ RJ"))
    assert red_joker_holders(hands, (3,)) == (3, 3)
    assert red_joker_holders(hands, (0, 1)) == (0, 1)
    assert red_joker_holders(hands, (1,)) == ()
    assert red_joker_holders(hands, (2,)) == ()


def test_g_r33_single_payer_with_both_red_jokers_cancels_tribute() -> None:
    """G-R33, G-R36: no tribute, no return, the previous 1st place leads."""
    seed = seed_where(lambda hands: hands[3][RED_JOKER] == 2)
    after = finish(RULES, (0, 1, 2), seed=seed)
    assert after.phase is Phase.PLAYING and after.tributes == ()
    assert after.anti_tribute and after.red_joker_holders == (3, 3)
    assert after.turn == 0 and after.hands == deal_hands(seed, NEXT_DEAL)


def test_g_r33_two_payers_with_one_red_joker_each_cancel_tribute() -> None:
    """G-R33: in a double tribute the two payers' red jokers count together."""
    seed = seed_where(lambda hands: hands[0][RED_JOKER] == 1 and hands[2][RED_JOKER] == 1)
    after = finish(RULES, (3, 1), seed=seed)
    assert after.tributes == () and after.red_joker_holders == (0, 2) and after.turn == 3


def test_g_r34_tribute_copy_option_picks_the_suit() -> None:
    """G-R34: among equal tribute cards the lowest or the highest suit is given."""
    held = hand("AS AD 3C")
    assert tribute_card(held, 2, TributeCopy.LOWEST_SUIT) == k("AD")
    assert tribute_card(held, 2, TributeCopy.HIGHEST_SUIT) == k("AS")


def returns(cards: str, tribute: str, *, level: int = 2, **options: bool) -> str:
    allowed = returnable(hand(cards), Tribute(1, 0, k(tribute)), level, GuandanConfig(**options))
    return " ".join(sorted(c for c in cards.split() if k(c) in allowed))


def test_g_r35_return_is_a_plain_card_of_rank_two_to_ten() -> None:
    """G-R35: jokers, wilds and ranks above 10 are not returnable."""
    assert returns("3C TD JC RJ AS", "AS") == "3C TD"
    assert returns("5H 9C QD", "QD", level=5) == "9C"


def test_g_r35_without_such_a_card_the_lowest_strength_is_returned() -> None:
    """G-R35: with nothing of rank 2..10, any card of the lowest strength."""
    assert returns("JC JD QC RJ AS", "AS") == "JC JD"


def test_g_r35a_level_rank_option() -> None:
    """G-R35a: a plain level card of rank <= 10 is returnable unless the option excludes it."""
    assert returns("5S 9C", "AS", level=5) == "5S 9C"
    assert returns("5S 9C", "AS", level=5, return_excludes_level_rank=True) == "9C"


def test_g_r35b_the_tribute_card_itself() -> None:
    """G-R35b: the card just received goes back only by option, or as an older copy."""
    assert returns("8C JC QC", "8C") == "JC"
    assert returns("8C JC QC", "8C", return_may_be_tribute_card=True) == "8C"
    assert returns("8C 8C JC", "8C") == "8C 8C"


def double_returning() -> GuandanState:
    tributes = (Tribute(1, 0, k("AC")), Tribute(3, 2, k("KC")))
    hands = ["AC 3C 4C", "5C 6C", "KC 7D 8D", "9D TD"]
    return returning(hands, tributes, turn=1)


def test_g_r35_rejections() -> None:
    """G-R35: wrong seat, wrong card, second return, return outside the phase."""
    state = double_returning()
    assert rejected(state, 1, ReturnCard(k("5C"))) == ("NOT_YOUR_TURN", "G-R35")
    assert rejected(state, 0, ReturnCard(k("AC"))) == ("RETURN_NOT_ALLOWED", "G-R35")
    assert rejected(state, 0, ReturnCard(k("9C"))) == ("CARD_NOT_IN_HAND", "G-R1")
    chose = RULES.apply(state, 0, ReturnCard(k("3C")))
    assert rejected(chose, 0, ReturnCard(k("4C"))) == ("ALREADY_RETURNED", "G-R35")
    playing = position(["3C", "4C", "5C", "6C"])
    assert rejected(playing, 0, ReturnCard(k("3C"))) == ("NOT_RETURNING_NOW", "G-R35")


def test_g_r35c_play_waits_for_every_return() -> None:
    """G-R35c, G-R36: no play or pass while a return is outstanding."""
    state = double_returning()
    assert rejected(state, 1, single("5C")) == ("RETURNS_NOT_FINISHED", "G-R36")
    assert rejected(state, 1, PassTurn()) == ("RETURNS_NOT_FINISHED", "G-R36")
    assert RULES.legal_actions(state, 1) == ()
    listed = RULES.legal_actions(state, 0)
    assert listed == (ReturnCard(k("3C")), ReturnCard(k("4C")))


def test_g_r36_payer_to_first_place_leads_after_the_returns() -> None:
    """G-R36: once both returns are in, the payer whose card went to 1st place leads."""
    state = RULES.apply(double_returning(), 2, ReturnCard(k("7D")))
    done = RULES.apply(state, 0, ReturnCard(k("3C")))
    assert done.phase is Phase.PLAYING and RULES.current_seats(done) == (1,)


def test_g_r36_single_tribute_payer_leads() -> None:
    """G-R36: after a single tribute and its return, the payer leads."""
    after = finish(RULES, (0, 1, 2), seed=seed_where(lambda h: h[3][RED_JOKER] < 2))
    assert after.turn == 3
    choice = RULES.legal_actions(after, 0)[0]
    played = RULES.apply(after, 0, choice)
    assert played.phase is Phase.PLAYING and RULES.current_seats(played) == (3,)


def test_g_r37_double_returns_move_together() -> None:
    """G-R37: a first return moves nothing; both move when the second is in."""
    state = double_returning()
    first = RULES.apply(state, 0, ReturnCard(k("3C")))
    assert first.hands == state.hands and RULES.current_seats(first) == (2,)
    done = RULES.apply(first, 2, ReturnCard(k("7D")))
    assert done.hands[1] == hand("3C 5C 6C") and done.hands[3] == hand("7D 9D TD")
    assert done.hands[0] == hand("AC 4C") and done.hands[2] == hand("KC 8D")
    assert [t.returned for t in done.tributes] == [k("3C"), k("7D")]
    assert RULES.is_secret(ReturnCard(k("3C"))) and not RULES.is_secret(PassTurn())
