"""Turn flow: G-R1, G-R2, G-R8, G-R13, G-R16 .. G-R20, each rejection with reason and rule ID."""

from __future__ import annotations

from guandan_match_positions import kinds, play, position, single, top

from engine_service.games.guandan.actions import GuandanAction, PassTurn, PlayCards
from engine_service.games.guandan.config import GuandanConfig
from engine_service.games.guandan.reading import Reading
from engine_service.games.guandan.rules import GuandanRules
from engine_service.games.guandan.state import GuandanState

RULES = GuandanRules()
PLAY_ON = GuandanRules(GuandanConfig(end_deal_on_double_win=False))
HANDS = ["3C 7C 9C 9D", "4C 8C TC", "5C 6C JC", "6D KC KD"]


def rejected(state: GuandanState, seat: int, action: GuandanAction) -> tuple[str, str]:
    violation = RULES.check(state, seat, action)
    assert violation is not None, f"{action} by seat {seat} was accepted"
    return violation.reason, violation.rule_id


def test_g_r2_turn_passes_to_the_next_seat_counter_clockwise() -> None:
    """G-R2: after seat s comes seat s + 1; anyone else is refused."""
    state = play(RULES, position(HANDS), "play single:3:1 3C")
    assert RULES.current_seats(state) == (1,)
    assert rejected(state, 2, single("5C")) == ("NOT_YOUR_TURN", "G-R2")
    state = play(RULES, state, "play single:4:1 4C")
    assert state.turn == 2


def test_g_r17_leader_must_play() -> None:
    """G-R17: the leader may not pass, and is not offered a pass."""
    state = position(HANDS)
    assert rejected(state, 0, PassTurn()) == ("LEADER_MUST_PLAY", "G-R17")
    assert PassTurn() not in RULES.legal_actions(state, 0)


def test_g_r17_follower_may_pass_and_play_again_later_in_the_trick() -> None:
    """G-R17: a seat that passed gets the turn again on the next round and may play."""
    state = play(RULES, position(HANDS), "play single:3:1 3C", "pass")
    assert state.passed == (1,)
    state = play(RULES, state, "play single:5:1 5C")
    assert state.passed == ()
    state = play(RULES, state, "pass", "play single:7:1 7C")
    assert state.turn == 1 and state.passed == ()
    assert RULES.check(state, 1, single("8C")) is None


def test_g_r17_beating_the_partner_is_legal() -> None:
    """G-R17: seat 2 may overtake its partner seat 0."""
    state = play(RULES, position(HANDS), "play single:3:1 3C", "pass")
    assert RULES.check(state, 2, single("JC")) is None


def test_g_r18_turn_returns_to_the_top_play_which_leads_again() -> None:
    """G-R18: when the turn comes back to the top play's seat, it leads a fresh trick."""
    state = play(RULES, position(HANDS), "play single:3:1 3C", "play single:4:1 4C")
    state = play(RULES, state, "pass", "pass", "pass")
    assert state.turn == 1 and state.top is None and state.passed == ()
    assert rejected(state, 1, PassTurn()) == ("LEADER_MUST_PLAY", "G-R17")


def test_g_r18_finished_seats_are_skipped() -> None:
    """G-R18: seat 1 has played out, so seat 2 follows seat 0."""
    hands = ["3C 7C", "", "5C 6C", "6D KC"]
    state = play(RULES, position(hands, finished=(1,)), "play single:3:1 3C")
    assert state.turn == 2
    state = play(RULES, state, "pass", "pass")
    assert state.turn == 0 and state.top is None


def test_g_r19_jiefeng_partner_leads_after_a_last_card_wins() -> None:
    """G-R19: seat 0 wins the trick with its last card, so its partner seat 2 leads."""
    hands = ["AC", "4C 8C", "5C 6C", "6D KC"]
    state = play(RULES, position(hands), "play single:14:1 AC")
    assert state.finished == (0,) and state.turn == 1
    state = play(RULES, state, "pass", "pass", "pass")
    assert state.turn == 2 and state.top is None


def test_g_r19_jiefeng_when_the_partner_is_out_too_next_active_seat_leads() -> None:
    """G-R19 fallback: with both partners out (G-R21 option off), the next active seat leads."""
    hands = ["AC", "4C 8C", "", "6D KC"]
    state = play(PLAY_ON, position(hands, finished=(2,)), "play single:14:1 AC")
    assert state.finished == (2, 0)
    state = play(PLAY_ON, state, "pass", "pass")
    assert state.turn == 1 and state.top is None


def test_g_r20_last_cards_must_form_one_play() -> None:
    """G-R20: two unrelated last cards cannot go out together; no such play is offered."""
    state = position(["3C 9D", "4C", "5C", "6C"])
    unrelated = PlayCards.of(kinds("3C 9D"), Reading.parse("pair:9:2"))
    assert rejected(state, 0, unrelated) == ("NOT_A_COMBINATION", "G-R8")
    assert all(len(a.cards) == 1 for a in RULES.legal_actions(state, 0) if isinstance(a, PlayCards))


def test_g_r8_cards_without_a_reading_are_refused() -> None:
    """G-R8 (and G-R9): two pairs are no combination at all."""
    state = position(["3C 3D 9C 9D", "4C", "5C", "6C"])
    two_pairs = PlayCards.of(kinds("3C 3D 9C 9D"), Reading.parse("pair:9:2"))
    assert rejected(state, 0, two_pairs) == ("NOT_A_COMBINATION", "G-R8")


def test_g_r13_the_declared_reading_must_fit_the_cards() -> None:
    """G-R13: a pair of 9s may not be declared a pair of kings."""
    state = position(HANDS)
    assert rejected(state, 0, PlayCards.of(kinds("9C 9D"), Reading.parse("pair:13:2"))) == (
        "NOT_A_COMBINATION",
        "G-R13",
    )


def test_g_r13a_any_physical_copies_support_a_listed_play() -> None:
    """G-R13a: plays are listed once per distinct play; any suits of the hand are accepted."""
    state = position(["9C 9D 9S 9H", "4C", "5C", "6C"])
    pairs = [a for a in RULES.legal_actions(state, 0) if str(a).startswith("play pair:9")]
    assert len(pairs) == 1
    for cards in ("9C 9D", "9S 9H", "9D 9S"):
        assert RULES.check(state, 0, PlayCards.of(kinds(cards), Reading.parse("pair:9:2"))) is None


def test_g_r16_a_play_must_beat_the_top() -> None:
    """G-R16: a lower pair is refused; a bomb beats the pair."""
    hands = ["3C", "8C 8D 4S 4D 4H 4C", "5C", "6C"]
    state = position(hands, turn=1, top_play=top(0, "pair:9:2", "9C 9D"))
    lower = PlayCards.of(kinds("8C 8D"), Reading.parse("pair:8:2"))
    assert rejected(state, 1, lower) == ("DOES_NOT_BEAT", "G-R16")
    bomb = PlayCards.of(kinds("4S 4D 4H 4C"), Reading.parse("bomb:4:4"))
    assert RULES.check(state, 1, bomb) is None


def test_g_r1_cards_must_be_held_with_their_copies() -> None:
    """G-R1: a play naming a second copy the seat does not hold is refused."""
    state = position(HANDS)
    assert rejected(state, 0, PlayCards.of(kinds("3C 3C"), Reading.parse("pair:3:2"))) == (
        "CARD_NOT_IN_HAND",
        "G-R1",
    )
