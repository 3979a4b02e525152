"""The dix, sequences and bella: K-R11 .. K-R15."""

from __future__ import annotations

import pytest
from klaberjass_positions import act, cards, mask, play, position

from engine_service.core.cards import Card, Suit, cards_in
from engine_service.games.klaberjass.actions import Dix, PlayCard, parse_action
from engine_service.games.klaberjass.config import KlaberjassConfig
from engine_service.games.klaberjass.rules import KlaberjassRules
from engine_service.games.klaberjass.scoring import deal_points
from engine_service.games.klaberjass.sequences import compare_sequences, runs_in
from engine_service.games.klaberjass.state import KlaberjassState, Phase, SequenceResult

RULES = KlaberjassRules()


def reason(
    rules: KlaberjassRules, state: KlaberjassState, seat: int, action: object
) -> tuple[str, str]:
    """The reason and rule ID of a refused action."""
    found = rules.check(state, seat, action)  # type: ignore[arg-type]
    assert found is not None
    return found.reason, found.rule_id


def trump_taken(rules: KlaberjassRules, seed: int) -> KlaberjassState:
    """Seed ``seed``'s first deal with the turned suit taken by the non-dealer."""
    state = rules.new_game(seed)
    return act(rules, state, f"trump {state.turn_up.suit.letter}")


def seven_holder(state: KlaberjassState) -> int | None:
    """The seat holding the trump 7, if any."""
    assert state.trump is not None
    seven = Card.of(7, state.trump)
    return next((s for s in (0, 1) if state.hands[s] >> seven & 1), None)


def find(holder: str) -> KlaberjassState:
    """The first seeded deal where the non-dealer ("elder") or dealer holds the trump 7."""
    for seed in range(200):
        state = trump_taken(RULES, seed)
        seat = seven_holder(state)
        if seat is not None and seat == (state.elder if holder == "elder" else state.dealer):
            return state
    raise AssertionError("no such seed")


@pytest.mark.parametrize("holder", ["elder", "dealer"])
def test_k_r11_the_trump_seven_holder_may_swap_it_for_the_turn_up(holder: str) -> None:
    state = find(holder)
    assert state.phase is Phase.DIX and state.turn == state.elder
    seat = seven_holder(state)
    assert seat is not None and state.trump is not None
    seven = Card.of(7, state.trump)
    if holder == "dealer":
        assert list(RULES.legal_actions(state, state.elder)) == [Dix(swap=False)]
        assert reason(RULES, state, state.elder, Dix(swap=True)) == ("NO_TRUMP_SEVEN", "K-R11")
        state = RULES.apply(state, state.elder, Dix(swap=False))
    assert reason(RULES, state, 1 - seat, Dix(swap=False)) == ("NOT_YOUR_TURN", "K-R11")
    assert list(RULES.legal_actions(state, seat)) == [Dix(swap=True), Dix(swap=False)]
    swapped = RULES.apply(state, seat, Dix(swap=True))
    assert swapped.hands[seat] == state.hands[seat] & ~seven.bit | state.turn_up.bit
    assert swapped.turn_up == seven and swapped.dix_by == seat
    assert swapped.phase is Phase.PLAYING and swapped.turn == state.elder
    assert swapped.meld_hands == swapped.hands
    assert reason(RULES, swapped, swapped.turn, Dix(swap=True)) == ("NOT_DIX_NOW", "K-R11")


def test_k_r11_both_may_keep_and_nothing_changes() -> None:
    state = find("dealer")
    kept = act(RULES, state, "dix keep", "dix keep")
    assert kept.phase is Phase.PLAYING and kept.hands == state.hands and kept.dix_by is None
    assert kept.turn == state.elder


def test_k_r11_no_card_before_the_dix_decisions() -> None:
    state = find("elder")
    card = next(cards_in(state.hands[state.elder]))
    assert reason(RULES, state, state.elder, PlayCard(card)) == ("NOT_PLAYING_NOW", "K-R16")


@pytest.mark.parametrize("only_turned", [True, False])
def test_k_r11_option_dix_only_if_turnup_trump(only_turned: bool) -> None:
    rules = KlaberjassRules(KlaberjassConfig(dix_only_if_turnup_trump=only_turned))
    state = rules.new_game(5)
    other = next(s for s in Suit if s is not state.turn_up.suit)
    named = act(rules, state, "pass", "pass", f"trump {other.letter}")
    assert named.phase is (Phase.PLAYING if only_turned else Phase.DIX)


def test_k_r11_no_dix_when_the_turn_up_is_the_trump_seven() -> None:
    for seed in range(500):
        state = RULES.new_game(seed)
        if state.turn_up.rank == 7:
            assert trump_taken(RULES, seed).phase is Phase.PLAYING
            return
    raise AssertionError("no seed turns up a seven")


@pytest.mark.parametrize(
    ("first", "second", "trump", "winner", "points"),
    [
        ("7S 8S 9S TS", "QH KH AH", "C", 0, 50),  # K-R13: longer wins
        ("7S 8S 9S TS JS", "9H TH JH QH", "C", 0, 50),  # five beats four, both 50
        ("7S 8S 9S", "8H 9H TH", "C", 1, 20),  # higher top card
        ("8S 9S TS", "8H 9H TH", "H", 1, 20),  # equal: the trump sequence
        ("8S 9S TS", "8H 9H TH", "C", None, 0),  # equal, neither trump: nobody
        ("8S 9S TS", "AH KS", "C", 0, 20),  # only one has a sequence
        ("7S 8S", "AH KS", "C", None, 0),  # two cards are no sequence
    ],
)
def test_k_r12_k_r13_the_best_sequence_scores(
    first: str, second: str, trump: str, winner: int | None, points: int
) -> None:
    result = compare_sequences(
        (mask(first), mask(second)), (True, True), Suit("CDSH".index(trump)), score_all=False
    )
    assert (result.winner, result.points) == (winner, points)


def test_k_r12_only_one_sequence_unless_the_option_says_all() -> None:
    hands = (mask("7S 8S 9S TS QH KH AH"), mask("7C 8C 9C"))
    one = compare_sequences(hands, (True, True), Suit.CLUBS, score_all=False)
    assert (one.winner, one.points, one.cards) == (0, 50, cards("7S 8S 9S TS"))
    every = compare_sequences(hands, (True, True), Suit.CLUBS, score_all=True)
    assert (every.winner, every.points) == (0, 70)
    assert set(every.cards) == set(cards("7S 8S 9S TS QH KH AH"))
    assert [run.length for run in runs_in(mask("7S 8S 9S TS JS QS KS AS"))] == [8]


def opening(meld: tuple[str, str]) -> KlaberjassState:
    """The first trick about to start: seat 1 leads, hands hold the given cards."""
    return position(list(meld), trick="", leader=1, tricks_played=0, meld_hands=meld, trump="C")


def test_k_r14_sequences_are_compared_automatically_and_shown_after_the_first_trick() -> None:
    state = opening(("7S 8S 9S AD", "8H 9H TH JH KD"))
    assert RULES.view(state, 0).sequences is None
    led = play(RULES, state, "KD")
    assert led.sequences is None and RULES.view(led, 0).sequences is None
    done = play(RULES, led, "AD")
    expected = SequenceResult(1, cards("8H 9H TH JH"), 50)
    assert done.sequences == expected
    assert (
        RULES.view(done, 0).sequences == expected and RULES.view(done, None).sequences == expected
    )


def test_k_r14_manual_declaration_lets_a_player_conceal_with_the_first_card() -> None:
    rules = KlaberjassRules(KlaberjassConfig(auto_declare_sequences=False))
    state = opening(("7S 8S 9S AD", "8H 9H TH JH KD"))
    legal = {str(a) for a in rules.legal_actions(state, 1)}
    assert "play KD no-sequences" in legal and "play KD" in legal
    led = rules.apply(state, 1, parse_action("play KD no-sequences"))
    assert {str(a) for a in rules.legal_actions(led, 0)} == {"play AD", "play AD no-sequences"}
    done = rules.apply(led, 0, parse_action("play AD"))
    assert done.sequences == SequenceResult(0, cards("7S 8S 9S"), 20)
    assert reason(rules, done, 0, parse_action("play 7S no-sequences")) == (
        "NO_SEQUENCE_CHOICE_NOW",
        "K-R14",
    )


def test_k_r14_automatic_declaration_allows_no_concealing() -> None:
    state = opening(("7S 8S 9S AD", "8H 9H TH JH KD"))
    assert reason(RULES, state, 1, parse_action("play KD no-sequences")) == (
        "NO_SEQUENCE_CHOICE_NOW",
        "K-R14",
    )


@pytest.mark.parametrize("need_trick", [False, True])
def test_k_r14_option_melds_need_a_trick(need_trick: bool) -> None:
    config = KlaberjassConfig(melds_need_a_trick=need_trick)
    won = SequenceResult(0, cards("7S 8S 9S"), 20)
    points = deal_points((0, 162), (0, 9), won, None, config)
    assert points == ((0, 162) if need_trick else (20, 162))
    assert deal_points((0, 162), (0, 9), SequenceResult(0), 0, config) == (20, 162)


def bella_position() -> KlaberjassState:
    """Seat 0 played KH (trump) earlier and now leads, holding QH and 8S."""
    return position(["QH 8S", "7S 9D"], trump="H", leader=0, played=("KH", "AH"), tricks_played=4)


def test_k_r15_bella_scores_20_when_the_second_of_trump_k_and_q_is_played() -> None:
    state = bella_position()
    legal = [str(a) for a in RULES.legal_actions(state, 0)]
    assert legal == ["play 8S", "play QH", "play QH no-bella"]
    assert play(RULES, state, "QH").bella_by == 0
    assert RULES.apply(state, 0, parse_action("play QH no-bella")).bella_by is None
    assert RULES.view(play(RULES, state, "QH"), 1).bella_by == 0


def test_k_r15_no_bella_is_refused_on_any_other_card() -> None:
    state = bella_position()
    assert reason(RULES, state, 0, parse_action("play 8S no-bella")) == (
        "NO_BELLA_TO_DECLINE",
        "K-R15",
    )
    first_of_two = position(["KH QH 8S", "7S"], trump="H", leader=0)
    assert reason(RULES, first_of_two, 0, parse_action("play KH no-bella")) == (
        "NO_BELLA_TO_DECLINE",
        "K-R15",
    )


def test_k_r15_bella_counts_also_inside_a_sequence() -> None:
    config = KlaberjassConfig()
    run = SequenceResult(0, cards("JH QH KH"), 20)
    assert deal_points((50, 50), (4, 5), run, 0, config) == (90, 50)
