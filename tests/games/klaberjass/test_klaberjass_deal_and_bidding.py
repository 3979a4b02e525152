"""The pack, the deal and the bidding: K-R1 .. K-R10."""

from __future__ import annotations

import dataclasses

import pytest
from klaberjass_positions import act, cards, position, suit

from engine_service.core.cards import Card, Suit, cards_in
from engine_service.games.klaberjass.actions import Dix, PassBid, PlayCard, TakeTrump
from engine_service.games.klaberjass.cards import PACK, PACK_MASK, beats, card_points
from engine_service.games.klaberjass.config import KlaberjassConfig, SecondDealOrder
from engine_service.games.klaberjass.rules import KlaberjassRules, deal_order
from engine_service.games.klaberjass.state import KlaberjassState, Phase

RULES = KlaberjassRules()


def violation(state: KlaberjassState, seat: int, action: object) -> tuple[str, str]:
    """The reason and rule ID of a refused action."""
    found = RULES.check(state, seat, action)  # type: ignore[arg-type]
    assert found is not None
    return found.reason, found.rule_id


def test_k_r1_the_pack_has_32_cards_from_seven_to_ace() -> None:
    assert len(PACK) == 32 and PACK_MASK.bit_count() == 32
    assert {card.rank for card in PACK} == set(range(7, 15))
    assert {card.suit for card in PACK} == set(Suit)


def test_k_r1_a_card_not_held_is_refused() -> None:
    state = position(["AS", "7S 8S"], leader=0)
    assert violation(state, 0, PlayCard(Card.parse("KS"))) == ("CARD_NOT_IN_HAND", "K-R1")


@pytest.mark.parametrize(
    ("higher", "lower", "trump"),
    [
        ("JH", "9H", "H"),
        ("9H", "AH", "H"),
        ("AH", "TH", "H"),
        ("TH", "KH", "H"),
        ("QH", "8H", "H"),
        ("AS", "TS", "H"),
        ("TS", "KS", "H"),
        ("JS", "9S", "H"),
        ("7H", "AS", "H"),
    ],
)
def test_k_r2_trick_order_of_trumps_and_plain_suits(higher: str, lower: str, trump: str) -> None:
    assert beats(Card.parse(higher), Card.parse(lower), suit(trump))
    assert not beats(Card.parse(lower), Card.parse(higher), suit(trump))


def test_k_r3_card_points_of_the_pack() -> None:
    for trump in Suit:
        assert sum(card_points(card, trump) for card in PACK) == 152
    hearts = Suit.HEARTS
    trumps = [card_points(card, hearts) for card in cards("JH 9H AH TH KH QH 8H 7H")]
    plain = [card_points(card, hearts) for card in cards("JS 9S AS TS KS QS 8S 7S")]
    assert trumps == [20, 14, 11, 10, 4, 3, 0, 0]
    assert plain == [2, 0, 11, 10, 4, 3, 0, 0]


def test_k_r4_six_cards_each_in_packets_of_three_then_the_turn_up() -> None:
    for seed in range(20):
        state = RULES.new_game(seed)
        deck = deal_order(seed, 0)
        elder, dealer = state.elder, state.dealer
        assert set(cards_in(state.hands[elder])) == {*deck[0:3], *deck[6:9]}
        assert set(cards_in(state.hands[dealer])) == {*deck[3:6], *deck[9:12]}
        assert state.turn_up == deck[12]
        assert state.stock == PACK_MASK & ~state.hands[0] & ~state.hands[1] & ~state.turn_up.bit
        assert state.phase is Phase.BIDDING_TURNED_SUIT and state.turn == elder
        assert state.bottom is None


def test_k_r4_the_first_dealer_comes_from_the_seed_and_then_alternates() -> None:
    dealers = {RULES.new_game(seed).dealer for seed in range(20)}
    assert dealers == {0, 1}
    assert RULES.new_game(7) == RULES.new_game(7)
    state = RULES.new_game(3)
    first = state.dealer
    state = act(RULES, state, "pass", "pass", "pass", "pass")
    assert state.dealer == 1 - first and state.deal_number == 1


def test_k_r5_round_one_non_dealer_then_dealer_take_only_the_turned_suit() -> None:
    state = RULES.new_game(1)
    turned = state.turn_up.suit
    assert list(RULES.legal_actions(state, state.elder)) == [TakeTrump(turned), PassBid()]
    assert RULES.legal_actions(state, state.dealer) == ()
    assert violation(state, state.dealer, PassBid()) == ("NOT_YOUR_TURN", "K-R5")
    other = next(s for s in Suit if s is not turned)
    assert violation(state, state.elder, TakeTrump(other)) == ("MUST_TAKE_TURNED_SUIT", "K-R5")
    assert violation(state, state.elder, Dix(swap=False)) == ("NOT_DIX_NOW", "K-R11")
    passed = act(RULES, state, "pass")
    assert passed.turn == state.dealer and passed.phase is Phase.BIDDING_TURNED_SUIT
    taken = RULES.apply(passed, state.dealer, TakeTrump(turned))
    assert (taken.maker, taken.trump) == (state.dealer, turned)


def test_k_r5_no_bid_once_bidding_is_over() -> None:
    state = position(["AS", "7S"], leader=0)
    assert violation(state, 0, PassBid()) == ("NOT_BIDDING_NOW", "K-R5")


def test_k_r6_round_two_names_any_other_suit() -> None:
    state = act(RULES, RULES.new_game(1), "pass", "pass")
    turned = state.turn_up.suit
    assert state.phase is Phase.BIDDING_OTHER_SUIT and state.turn == state.elder
    others = [TakeTrump(s) for s in Suit if s is not turned]
    assert list(RULES.legal_actions(state, state.elder)) == [*others, PassBid()]
    assert violation(state, state.elder, TakeTrump(turned)) == ("TURNED_SUIT_REFUSED", "K-R6")
    assert violation(state, state.dealer, PassBid()) == ("NOT_YOUR_TURN", "K-R6")
    dealer_names = RULES.apply(act(RULES, state, "pass"), state.dealer, others[0])
    assert (dealer_names.maker, dealer_names.trump) == (state.dealer, others[0].suit)
    assert [b.round for b in dealer_names.bids] == [1, 1, 2, 2]


def test_k_r7_both_pass_twice_throws_the_hand_in_and_the_deal_passes() -> None:
    state = RULES.new_game(4)
    after = act(RULES, state, "pass", "pass", "pass", "pass")
    assert after.deal_number == 1 and after.dealer == state.elder
    assert after.phase is Phase.BIDDING_TURNED_SUIT and after.bids == ()
    (thrown,) = after.deals
    assert (thrown.dealer, thrown.maker, thrown.trump, thrown.scores) == (
        state.dealer, None, None, (0, 0),
    )  # fmt: skip
    assert after.totals == (0, 0)
    assert after.hands != state.hands


def test_k_r8_no_schmeiss_bidding_is_take_or_pass_only() -> None:
    """K-R8: no schmeiss option, and the only bids are taking trump and passing."""
    names = {field.name for field in dataclasses.fields(KlaberjassConfig)}
    assert "allow_schmeiss" not in names
    state = RULES.new_game(2)
    kinds = {type(a) for a in RULES.legal_actions(state, state.turn)}
    assert kinds == {TakeTrump, PassBid}


@pytest.mark.parametrize("order", list(SecondDealOrder))
def test_k_r10_three_more_cards_each_non_dealer_first_then_the_bottom_card(
    order: SecondDealOrder,
) -> None:
    rules = KlaberjassRules(KlaberjassConfig(second_deal_order=order))
    for seed in range(10):
        state = rules.new_game(seed)
        taken = act(rules, state, f"trump {state.turn_up.suit.letter}")
        deck = deal_order(seed, 0)
        extra = deck[13:19]
        if order is SecondDealOrder.ALTERNATE:
            to_elder, to_dealer = extra[0::2], extra[1::2]
        else:
            to_elder, to_dealer = extra[:3], extra[3:]
        assert set(cards_in(taken.hands[state.elder])) == {
            *cards_in(state.hands[state.elder]), *to_elder,
        }  # fmt: skip
        assert set(cards_in(taken.hands[state.dealer])) == {
            *cards_in(state.hands[state.dealer]), *to_dealer,
        }  # fmt: skip
        assert taken.bottom == deck[31]
        assert taken.stock.bit_count() == 13 and taken.stock >> deck[31] & 1
        assert rules.view(taken, 0).bottom == deck[31]
