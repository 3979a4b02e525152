"""Trick play: K-R16 .. K-R19, each rejection checked for its reason and rule ID."""

from __future__ import annotations

import dataclasses

import pytest
from klaberjass_positions import act, cards, play, position

from engine_service.core.errors import IllegalAction
from engine_service.games.klaberjass.actions import PlayCard, parse_action
from engine_service.games.klaberjass.rules import KlaberjassRules
from engine_service.games.klaberjass.state import KlaberjassState, Phase

RULES = KlaberjassRules()


def playable(state: KlaberjassState, seat: int) -> list[str]:
    """The cards ``seat`` may play, as text."""
    return sorted(
        {str(a.card) for a in RULES.legal_actions(state, seat) if isinstance(a, PlayCard)}
    )


def test_k_r16_the_non_dealer_leads_the_first_trick_and_the_winner_the_next() -> None:
    state = RULES.new_game(11)
    state = act(RULES, state, f"trump {state.turn_up.suit.letter}")
    while state.phase is Phase.DIX:
        state = act(RULES, state, "dix keep")
    assert state.phase is Phase.PLAYING and state.turn == state.elder
    assert RULES.current_seats(state) == (state.elder,)
    assert RULES.legal_actions(state, state.dealer) == ()
    after = RULES.apply(state, state.elder, RULES.legal_actions(state, state.elder)[0])
    assert after.turn == state.dealer
    done = RULES.apply(after, state.dealer, RULES.legal_actions(after, state.dealer)[0])
    assert done.last_trick is not None and done.trump is not None
    assert done.trick.leader == done.last_trick.winner(done.trump) == done.turn
    assert done.tricks_played == 1


def test_k_r16_a_seat_plays_only_on_its_turn() -> None:
    state = position(["AS", "7S"], leader=0)
    found = RULES.check(state, 1, PlayCard(cards("7S")[0]))
    assert found is not None and (found.reason, found.rule_id) == ("NOT_YOUR_TURN", "K-R16")


def test_k_r16_nine_tricks_make_a_deal() -> None:
    state = RULES.new_game(2)
    state = act(RULES, state, f"trump {state.turn_up.suit.letter}")
    while state.phase is Phase.DIX:
        state = act(RULES, state, "dix keep")
    tricks = 0
    while state.deal_number == 0:
        seat = state.turn
        state = RULES.apply(state, seat, RULES.legal_actions(state, seat)[0])
        tricks += not state.trick.cards
    assert tricks == 9 and len(state.deals) == 1


@pytest.mark.parametrize(
    ("hands", "trick", "expected", "refused", "why"),
    [
        # K-R17: follow suit
        (["AS", "7S 9S JH"], "AS", ["7S", "9S"], "JH", ("MUST_FOLLOW_SUIT", "K-R17")),
        # K-R17: void: must trump (any trump)
        (["AS", "7H 9H KD"], "AS", ["7H", "9H"], "KD", ("MUST_TRUMP", "K-R17")),
        # K-R17: neither suit nor trump: any card
        (["AS", "KD 7C"], "AS", ["7C", "KD"], None, None),
        # K-R18: a led trump must be beaten when able
        (["AH", "7H 9H JH KS"], "AH", ["9H", "JH"], "7H", ("MUST_OVERTRUMP", "K-R18")),
        # K-R18: unable to beat it: any trump
        (["JH", "7H 9H KS"], "JH", ["7H", "9H"], "KS", ("MUST_FOLLOW_SUIT", "K-R17")),
        # K-R18: no trump: any card
        (["JH", "KS 8D"], "JH", ["8D", "KS"], None, None),
        # K-R18: a plain suit carries no duty to play higher
        (["TS", "7S AS"], "TS", ["7S", "AS"], None, None),
    ],
)
def test_k_r17_k_r18_what_the_second_player_may_play(
    hands: list[str],
    trick: str,
    expected: list[str],
    refused: str | None,
    why: tuple[str, str] | None,
) -> None:
    state = position(["", hands[1]], trick=trick, leader=0, trump="H")
    assert playable(state, 1) == sorted(expected)
    if refused is not None:
        found = RULES.check(state, 1, PlayCard(cards(refused)[0]))
        assert found is not None and (found.reason, found.rule_id) == why


def test_k_r17_the_leader_may_lead_any_card() -> None:
    state = position(["AS JH 8D", "8S"], leader=0, trump="H")
    assert playable(state, 0) == ["8D", "AS", "JH"]


@pytest.mark.parametrize(
    ("trick", "winner"),
    [("AS TS", 0), ("TS AS", 1), ("AS 7H", 1), ("9H JH", 1), ("JH AS", 0), ("KD AS", 0)],
)
def test_k_r19_highest_trump_else_highest_of_the_suit_led_wins(trick: str, winner: int) -> None:
    first, second = cards(trick)
    state = position([str(first), str(second)], leader=0, trump="H", tricks_played=3)
    done = play(RULES, state, trick)
    assert done.trick.leader == winner and done.tricks_won[winner] == 1


def test_k_r19_the_last_trick_scores_ten() -> None:
    state = position(
        ["AS", "7S"], leader=0, trump="H", tricks_played=7, card_points=(30, 40), tricks_won=(4, 3)
    )
    before_last = play(RULES, state, "AS 7S")
    assert before_last.card_points == (41, 40)
    last = position(
        ["7C", "8C"], leader=0, trump="H", tricks_played=8, card_points=(70, 60), tricks_won=(4, 4)
    )
    done = play(RULES, last, "7C 8C")
    assert done.deals[-1].points == (70, 70)  # seat 1 took the last trick: +10


def test_k_r17_apply_refuses_and_leaves_the_state_equal() -> None:
    state = position(["", "7H KD"], trick="AS", leader=0, trump="H")
    # The same values in a new state: every field is immutable, and copy.deepcopy cannot
    # copy a mypyc-compiled frozen dataclass (it sets fields through the frozen __setattr__).
    before = dataclasses.replace(state)
    with pytest.raises(IllegalAction) as raised:
        RULES.apply(state, 1, parse_action("play KD"))
    assert raised.value.violation == RULES.check(state, 1, parse_action("play KD"))
    assert raised.value.reason == "MUST_TRUMP"
    assert state == before
