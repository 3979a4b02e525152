"""The rules of play: H-R3 .. H-R9, each rejection checked for its reason and rule ID."""

from __future__ import annotations

import pytest
from hearts_positions import cards, mask, play, position

from engine_service.core.cards import Card, cards_in
from engine_service.games.hearts.actions import PassCards, PlayCard
from engine_service.games.hearts.config import AllHeartsLead, FirstTrickBan, HeartsConfig
from engine_service.games.hearts.rules import TWO_OF_CLUBS, HeartsRules
from engine_service.games.hearts.scoring import trick_points
from engine_service.games.hearts.state import HeartsState

RULES = HeartsRules()
HEARTS_BANNED = HeartsRules(HeartsConfig(first_trick_ban=FirstTrickBan.QUEEN_OF_SPADES_AND_HEARTS))
QUEEN_BREAKS = HeartsRules(HeartsConfig(queen_breaks_hearts=True))
PASS_LEAD = HeartsRules(HeartsConfig(all_hearts_lead=AllHeartsLead.PASS_LEAD))


def rejected(rules: HeartsRules, state: HeartsState, seat: int, code: str) -> tuple[str, str]:
    violation = rules.check(state, seat, PlayCard(Card.parse(code)))
    assert violation is not None, f"{code} by seat {seat} was accepted"
    return violation.reason, violation.rule_id


def legal(rules: HeartsRules, state: HeartsState, seat: int) -> str:
    return " ".join(str(action) for action in rules.legal_actions(state, seat))


def plays(codes: str) -> str:
    return " ".join(f"play {code}" for code in codes.split())


# A first trick: seat 0 holds 2C; seat 1 holds clubs; seat 2 is void in clubs; seat 3 holds
# nothing but spades and hearts, QS included.
FIRST = position(
    ["2C 9C AD", "5C KC 2S", "3D QD 4H", "QS 3S 7H"],
    tricks_played=0,
)


# -- H-R3 -------------------------------------------------------------------------------------


def holder_of_two_of_clubs(state: HeartsState) -> int:
    return next(s for s in range(4) if state.hands[s] >> TWO_OF_CLUBS & 1)


def test_h_r3_holder_of_two_of_clubs_leads_it_after_the_pass() -> None:
    state = RULES.new_game(9)
    dealt_to = holder_of_two_of_clubs(state)
    for seat in range(4):  # everyone passes their three lowest cards, 2C included, to the left
        state = RULES.apply(state, seat, PassCards.of(*list(cards_in(state.hands[seat]))[:3]))
    holder = holder_of_two_of_clubs(state)
    assert holder == (dealt_to + 1) % 4
    assert state.opener == holder
    assert RULES.current_seats(state) == (holder,)
    assert RULES.legal_actions(state, holder) == (PlayCard(TWO_OF_CLUBS),)
    other = next(c for c in cards_in(state.hands[holder]) if c != TWO_OF_CLUBS)
    violation = RULES.check(state, holder, PlayCard(other))
    assert violation is not None
    assert (violation.reason, violation.rule_id) == ("MUST_LEAD_TWO_OF_CLUBS", "H-R3")


@pytest.mark.parametrize("code", ["9C", "AD"])
def test_h_r3_first_lead_other_than_two_of_clubs_rejected(code: str) -> None:
    assert rejected(RULES, FIRST, 0, code) == ("MUST_LEAD_TWO_OF_CLUBS", "H-R3")
    assert legal(RULES, FIRST, 0) == "play 2C"


# -- H-R4 -------------------------------------------------------------------------------------


def test_h_r4_must_follow_suit() -> None:
    state = play(RULES, FIRST, "2C")
    violation = RULES.check(state, 1, PlayCard(Card.parse("2S")))
    assert violation is not None
    assert (violation.reason, violation.rule_id) == ("MUST_FOLLOW_SUIT", "H-R4")
    assert violation.metadata == {"card": "2S", "led_suit": "C"}
    assert legal(RULES, state, 1) == plays("5C KC")


def test_h_r4_void_player_may_play_any_card() -> None:
    state = play(RULES, FIRST, "2C 5C")
    assert legal(RULES, state, 2) == plays("3D QD 4H")


def test_h_r4_follow_suit_later_in_the_hand() -> None:
    state = position(["AD 2S", "4D 4H", "5S 6S", "7H 8H"], trick="3D", leader=3, tricks_played=4)
    assert state.turn == 0
    assert rejected(RULES, state, 0, "2S") == ("MUST_FOLLOW_SUIT", "H-R4")
    assert legal(RULES, state, 0) == "play AD"


def test_h_r4_play_goes_clockwise_and_out_of_turn_is_rejected() -> None:
    state = position(["2D 7C", "3D 8C", "4D 9C", "5D TC"], leader=2, tricks_played=3)
    order = []
    for code in ("4D", "5D", "2D", "3D"):
        order.append(state.turn)
        for seat in set(range(4)) - {state.turn}:
            card = next(cards_in(state.hands[seat]))
            violation = RULES.check(state, seat, PlayCard(card))
            assert violation is not None
            assert (violation.reason, violation.rule_id) == ("NOT_YOUR_TURN", "H-R4")
            assert violation.metadata == {"turn": str(state.turn)}
            assert RULES.legal_actions(state, seat) == ()
        state = play(RULES, state, code)
    assert order == [2, 3, 0, 1]


# -- H-R5 -------------------------------------------------------------------------------------


def test_h_r5_queen_of_spades_banned_from_first_trick() -> None:
    state = play(RULES, FIRST, "2C 5C 3D")
    assert rejected(RULES, state, 3, "QS") == ("QUEEN_OF_SPADES_ON_FIRST_TRICK", "H-R5")
    assert legal(RULES, state, 3) == plays("3S 7H")  # H-R5a: hearts allowed by default


def test_h_r5_queen_of_spades_allowed_after_the_first_trick() -> None:
    state = position(["2D", "3D", "4D", "QS 7H"], trick="9C KC QD", tricks_played=1)
    assert legal(RULES, state, 3) == plays("QS 7H")


def test_h_r5a_hearts_option_bans_hearts_on_first_trick() -> None:
    state = play(HEARTS_BANNED, FIRST, "2C 5C")
    assert rejected(HEARTS_BANNED, state, 2, "4H") == ("HEARTS_ON_FIRST_TRICK", "H-R5")
    assert legal(HEARTS_BANNED, state, 2) == plays("3D QD")
    state = play(HEARTS_BANNED, state, "QD")
    assert rejected(HEARTS_BANNED, state, 3, "QS") == ("QUEEN_OF_SPADES_ON_FIRST_TRICK", "H-R5")
    assert rejected(HEARTS_BANNED, state, 3, "7H") == ("HEARTS_ON_FIRST_TRICK", "H-R5")
    assert legal(HEARTS_BANNED, state, 3) == "play 3S"


ALL_HEARTS_AND_QUEEN = "QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"


def test_h_r5b_ban_lifted_when_only_forbidden_cards_are_held() -> None:
    state = position(
        ["2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC", ALL_HEARTS_AND_QUEEN, "", ""],
        tricks_played=0,
    )
    state = play(HEARTS_BANNED, state, "2C")
    assert legal(HEARTS_BANNED, state, 1) == plays(ALL_HEARTS_AND_QUEEN)
    assert HEARTS_BANNED.check(state, 1, PlayCard(Card.parse("QS"))) is None
    # With only the queen banned, the same hand must discard a heart.
    assert rejected(RULES, state, 1, "QS") == ("QUEEN_OF_SPADES_ON_FIRST_TRICK", "H-R5")


# -- H-R6 -------------------------------------------------------------------------------------


def test_h_r6_highest_of_suit_led_wins_and_leads_next() -> None:
    state = position(
        ["5D 2C", "AH 3C", "KD 4C", "2D 5C"], leader=0, tricks_played=2, points=(0, 0, 1, 0)
    )
    state = play(RULES, state, "5D AH KD 2D")
    assert state.trick.leader == 2
    assert state.trick.cards == ()
    assert state.turn == 2
    assert state.tricks_played == 3
    assert state.last_trick is not None and state.last_trick.cards == cards("5D AH KD 2D")
    assert state.points == (0, 0, 2, 0)  # the off-suit ace of hearts goes to the winner
    assert state.tricks_won == (0, 0, 1, 0)


@pytest.mark.parametrize(
    ("trick", "winner"),
    [("2S AS KS QS", 1), ("KC 2C AH AC", 3), ("TD JD 9D 2D", 1), ("2H 3C 4D 5S", 0)],
)
def test_h_r6_ace_high_and_no_trumps(trick: str, winner: int) -> None:
    state = position(trick.split(), tricks_played=5, hearts_broken=True)
    after = play(RULES, state, trick)
    assert after.trick.leader == winner
    assert after.points[winner] == trick_points(mask(trick))


# -- H-R7 -------------------------------------------------------------------------------------

UNBROKEN = position(["3C 5H 9H", "4C 2D", "6C 3D", "7C 4D"], tricks_played=3)


def test_h_r7_hearts_not_broken_rejected() -> None:
    violation = RULES.check(UNBROKEN, 0, PlayCard(Card.parse("5H")))
    assert violation is not None
    assert (violation.reason, violation.rule_id) == ("HEARTS_NOT_BROKEN", "H-R7")
    assert violation.metadata == {"card": "5H"}
    assert legal(RULES, UNBROKEN, 0) == "play 3C"


def test_h_r7_a_discarded_heart_breaks_hearts() -> None:
    state = position(["AC 5H 9H 8D", "2H 2D 3S", "6C 3D 4S", "7C 4D 5S"], tricks_played=3)
    state = play(RULES, state, "AC 2H")
    assert state.hearts_broken
    state = play(RULES, state, "6C 7C")
    assert state.trick.leader == 0
    assert legal(RULES, state, 0) == plays("8D 5H 9H")


# Seat 1 is void in clubs and throws QS on seat 0's ace; seat 0 then leads again.
QUEEN_DISCARD = position(["AC 5H 8D", "QS 4S 2D", "6C 3D 4D", "7C 5D 6D"], tricks_played=3)


def test_h_r7_queen_of_spades_does_not_break_hearts_by_default() -> None:
    state = play(RULES, QUEEN_DISCARD, "AC QS 6C 7C")
    assert not state.hearts_broken
    assert state.points == (13, 0, 0, 0)
    assert rejected(RULES, state, 0, "5H") == ("HEARTS_NOT_BROKEN", "H-R7")
    assert legal(RULES, state, 0) == "play 8D"


def test_h_r7_queen_breaks_hearts_option() -> None:
    state = play(QUEEN_BREAKS, QUEEN_DISCARD, "AC QS")
    assert state.hearts_broken
    state = play(QUEEN_BREAKS, state, "6C 7C")
    assert legal(QUEEN_BREAKS, state, 0) == plays("8D 5H")


# -- H-R8 -------------------------------------------------------------------------------------

# Seat 3 wins this trick with AD and is left with nothing but hearts, hearts unbroken.
HEARTS_ONLY_WINNER = position(
    ["5C 6C", "7C 8C", "9C TC", "AD 2H 3H"], trick="2D 3D 4D", leader=0, tricks_played=5
)


def test_h_r8_leader_with_only_hearts_may_lead_one_by_default() -> None:
    state = play(RULES, HEARTS_ONLY_WINNER, "AD")
    assert not state.hearts_broken
    assert RULES.current_seats(state) == (3,)
    assert legal(RULES, state, 3) == plays("2H 3H")
    assert RULES.check(state, 3, PlayCard(Card.parse("2H"))) is None
    assert play(RULES, state, "2H").hearts_broken


def test_h_r8_pass_lead_option_gives_the_lead_to_the_left() -> None:
    state = play(PASS_LEAD, HEARTS_ONLY_WINNER, "AD")
    assert state.last_trick is not None and state.last_trick.leader == 0
    assert PASS_LEAD.current_seats(state) == (0,)
    assert legal(PASS_LEAD, state, 0) == plays("5C 6C")
    assert PASS_LEAD.legal_actions(state, 3) == ()
    assert state.tricks_won == (0, 0, 0, 1)


def test_h_r8_pass_lead_skips_every_seat_holding_only_hearts() -> None:
    start = position(
        ["4H 5H", "6H 7H", "9C TC", "AD 2H 3H"], trick="2D 3D 4D", leader=0, tricks_played=5
    )
    state = play(PASS_LEAD, start, "AD")
    assert PASS_LEAD.current_seats(state) == (2,)


def test_h_r8_pass_lead_keeps_the_winner_when_nobody_can_lead_otherwise() -> None:
    start = position(
        ["4H 5H", "6H 7H", "8H 9H", "AD 2H 3H"], trick="2D 3D 4D", leader=0, tricks_played=5
    )
    state = play(PASS_LEAD, start, "AD")
    assert PASS_LEAD.current_seats(state) == (3,)
    assert legal(PASS_LEAD, state, 3) == plays("2H 3H")


def test_h_r8_pass_lead_does_not_apply_once_hearts_are_broken() -> None:
    start = position(
        ["5C 6C", "7C 8C", "9C TC", "AD 2H 3H"],
        trick="2D 3D 4D",
        leader=0,
        tricks_played=5,
        hearts_broken=True,
    )
    assert PASS_LEAD.current_seats(play(PASS_LEAD, start, "AD")) == (3,)


# -- H-R9 -------------------------------------------------------------------------------------


def test_h_r9_queen_of_spades_may_be_led_before_hearts_are_broken() -> None:
    state = position(["QS 4C 5H", "KS 6C", "2S 7C", "3D 8C"], tricks_played=2)
    assert legal(RULES, state, 0) == plays("4C QS")
    state = play(RULES, state, "QS")
    assert rejected(RULES, state, 1, "6C") == ("MUST_FOLLOW_SUIT", "H-R4")  # QS is a spade
    state = play(RULES, state, "KS 2S 3D")
    assert state.points == (0, 13, 0, 0)
    assert not state.hearts_broken  # QS is not a heart


def test_h_r9_leader_with_only_queen_and_hearts_must_lead_the_queen() -> None:
    for rules in (RULES, PASS_LEAD):
        state = position(["QS 5H 9H", "2C 6C", "3C 7C", "4C 8C"], tricks_played=4)
        assert legal(rules, state, 0) == "play QS"
        assert rejected(rules, state, 0, "5H") == ("HEARTS_NOT_BROKEN", "H-R7")
