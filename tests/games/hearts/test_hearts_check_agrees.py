"""One legality check used three ways: listing, checking and applying agree (H-R1 .. H-R9).

``legal_actions`` lists exactly the cards ``check`` accepts, and ``apply`` refuses the rest with
the same violation while leaving its input untouched.
"""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from hearts_positions import play, position

from engine_service.core.cards import CARDS, cards_in
from engine_service.core.errors import IllegalAction
from engine_service.games.hearts.actions import PassCards, PlayCard
from engine_service.games.hearts.config import AllHeartsLead, FirstTrickBan, HeartsConfig
from engine_service.games.hearts.rules import HeartsRules
from engine_service.games.hearts.state import HeartsState, Phase
from tests.games.positions import random_walk

CONFIGS = [
    HeartsConfig(),
    HeartsConfig(first_trick_ban=FirstTrickBan.QUEEN_OF_SPADES_AND_HEARTS),
    HeartsConfig(queen_breaks_hearts=True, all_hearts_lead=AllHeartsLead.PASS_LEAD),
]

POSITIONS = {
    "first lead (H-R3)": position(
        ["2C 9C AD", "5C KC 2S", "3D QD 4H", "QS 3S 7H"], tricks_played=0
    ),
    "first trick, void (H-R5)": position(
        ["9C AD", "KC 2S", "3D QD 4H", "QS 3S 7H"], trick="2C 5C", tricks_played=0
    ),
    "only QS and hearts (H-R5b)": position(
        ["3C", "QS 2H 3H 4H", "", ""], trick="2C", tricks_played=0
    ),
    "follow (H-R4)": position(
        ["AD 2S 4H", "5D", "6D", "7D"], trick="3D", leader=3, tricks_played=4
    ),
    "unbroken lead (H-R7)": position(["3C 5H 9H QS", "4C", "6C", "7C"], tricks_played=3),
    "hearts only lead (H-R8)": position(["5H 9H", "4C", "6C", "7C"], tricks_played=3),
    "broken lead (H-R7)": position(
        ["3C 5H", "4C", "6C", "7C"], tricks_played=3, hearts_broken=True
    ),
}


def assert_agree(rules: HeartsRules, state: HeartsState, seat: int) -> None:
    """For every card: listed as legal exactly when ``check`` accepts it."""
    listed = {a.card for a in rules.legal_actions(state, seat) if isinstance(a, PlayCard)}
    accepted = {card for card in CARDS if rules.check(state, seat, PlayCard(card)) is None}
    assert listed == accepted
    assert listed <= set(cards_in(state.hands[seat]))
    if state.phase is Phase.PLAYING and seat == state.turn and state.hands[seat]:
        assert listed, "the seat to play always has a legal card"


@pytest.mark.parametrize("config", CONFIGS, ids=["default", "hearts_ban", "queen+pass_lead"])
@pytest.mark.parametrize("name", list(POSITIONS))
def test_h_r4_legal_actions_and_check_agree_in_positions(config: HeartsConfig, name: str) -> None:
    rules = HeartsRules(config)
    state = POSITIONS[name]
    for seat in range(4):
        assert_agree(rules, state, seat)


@pytest.mark.parametrize(("config", "seed"), list(itertools.product(CONFIGS, [5, 6])))
def test_h_r4_legal_actions_and_check_agree_in_random_games(
    config: HeartsConfig, seed: int
) -> None:
    rules = HeartsRules(config)
    for state, seat, _ in random_walk(rules, seed):
        if seat is not None and state.phase is Phase.PLAYING:
            assert_agree(rules, state, seat)


@pytest.mark.parametrize(
    ("state", "seat", "action", "reason", "rule_id"),
    [
        (POSITIONS["first lead (H-R3)"], 0, "play 9C", "MUST_LEAD_TWO_OF_CLUBS", "H-R3"),
        (POSITIONS["first lead (H-R3)"], 1, "play 5C", "NOT_YOUR_TURN", "H-R4"),
        (POSITIONS["first lead (H-R3)"], 0, "play 5C", "CARD_NOT_IN_HAND", "H-R1"),
        (POSITIONS["first trick, void (H-R5)"], 2, "play QS", "CARD_NOT_IN_HAND", "H-R1"),
        (POSITIONS["follow (H-R4)"], 0, "play 2S", "MUST_FOLLOW_SUIT", "H-R4"),
        (POSITIONS["unbroken lead (H-R7)"], 0, "play 9H", "HEARTS_NOT_BROKEN", "H-R7"),
        (POSITIONS["unbroken lead (H-R7)"], 0, "pass 3C 5H 9H", "NOT_PASSING_NOW", "H-R2"),
    ],
)
def test_h_r1_to_h_r7_apply_raises_and_leaves_the_state_equal(
    state: HeartsState, seat: int, action: str, reason: str, rule_id: str
) -> None:
    rules = HeartsRules()
    parsed = PassCards.parse(action) if action.startswith("pass") else PlayCard.parse(action)
    # The same values in a new state: every field is immutable, and copy.deepcopy cannot
    # copy a mypyc-compiled frozen dataclass (it sets fields through the frozen __setattr__).
    before = dataclasses.replace(state)
    with pytest.raises(IllegalAction) as raised:
        rules.apply(state, seat, parsed)
    assert raised.value.violation == rules.check(state, seat, parsed)
    assert (raised.value.violation.reason, raised.value.violation.rule_id) == (reason, rule_id)
    assert raised.value.reason == reason
    assert state == before


def test_h_r5_apply_of_banned_queen_raises_and_leaves_the_state_equal() -> None:
    rules = HeartsRules()
    state = play(rules, POSITIONS["first trick, void (H-R5)"], "3D")
    before = dataclasses.replace(state)
    with pytest.raises(IllegalAction) as raised:
        rules.apply(state, 3, PlayCard.parse("play QS"))
    violation = raised.value.violation
    assert (violation.reason, violation.rule_id) == ("QUEEN_OF_SPADES_ON_FIRST_TRICK", "H-R5")
    assert state == before
    assert rules.apply(state, 3, PlayCard.parse("play 3S")) != before


def test_h_r2_rejected_pass_leaves_the_state_equal() -> None:
    rules = HeartsRules()
    state = rules.new_game(8)
    chosen = PassCards.of(*list(cards_in(state.hands[0]))[:3])
    state = rules.apply(state, 0, chosen)
    before = dataclasses.replace(state)
    with pytest.raises(IllegalAction) as raised:
        rules.apply(state, 0, chosen)
    assert (raised.value.violation.reason, raised.value.violation.rule_id) == (
        "ALREADY_PASSED",
        "H-R2",
    )
    assert state == before
