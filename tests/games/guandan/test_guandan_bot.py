"""The Guandan heuristic bot: always legal, lets its partner's play stand, goes out, uses bombs.

Positions come from seeded random matches (``random_walk``) and from hands written as text
(``position``); the bot is called exactly as the service calls it, with the seat's view and
its legal actions.
"""

from __future__ import annotations

import random
from itertools import islice

import pytest
from guandan_match_positions import position, returning, top

from bench.rules import play_out
from engine_service.bots.guandan_heuristic import GuandanHeuristicBot
from engine_service.bots.guandan_plan import hand_cost, holding_of
from engine_service.games.guandan.actions import (
    GuandanAction,
    PassTurn,
    PlayCards,
    ReturnCard,
    parse_action,
)
from engine_service.games.guandan.cards import parse_kind
from engine_service.games.guandan.config import CardCountVisibility, GuandanConfig
from engine_service.games.guandan.rules import GuandanRules
from engine_service.games.guandan.state import GuandanState, Phase, TopPlay, Tribute, partner_of
from tests.games.positions import random_walk

RULES = GuandanRules()
VARIANT = GuandanRules(
    GuandanConfig(
        end_deal_on_double_win=False, card_count_visibility=CardCountVisibility.TEN_OR_FEWER
    )
)
BOT = GuandanHeuristicBot()


def choose(rules: GuandanRules, state: GuandanState, seat: int) -> GuandanAction:
    """The bot's action for ``seat``, asked as the service asks it."""
    legal = rules.legal_actions(state, seat)
    return BOT.choose(rules.view(state, seat), legal, random.Random(0))


def play(text: str) -> PlayCards:
    """A play in text form."""
    return PlayCards.parse(text)


@pytest.mark.parametrize(("rules", "seed"), [(RULES, 11), (RULES, 12), (VARIANT, 13)])
def test_bot_only_returns_legal_actions(rules: GuandanRules, seed: int) -> None:
    """Across a random match (returns, leads, follows, late deals) every choice is listed."""
    checked = 0
    for state, _, _ in islice(random_walk(rules, seed), 0, None, 7):
        for seat in rules.current_seats(state):
            legal = rules.legal_actions(state, seat)
            action = BOT.choose(rules.view(state, seat), legal, random.Random(seed))
            assert action in legal, (str(action), seat)
            checked += 1
    assert checked > 100


def test_bot_never_overtakes_partner_with_an_ordinary_play_in_random_positions() -> None:
    """With the partner on top, the bot passes or plays out its hand (G-R17: beating is legal)."""
    seen = 0
    for seed in range(21, 25):
        for state, seat, _ in random_walk(RULES, seed):
            if seat is None or state.phase is not Phase.PLAYING or state.top is None:
                continue
            if state.top.seat != partner_of(seat):
                continue
            action = choose(RULES, state, seat)
            seen += 1
            if isinstance(action, PlayCards):
                assert len(action.cards) == state.card_count(seat), str(action)
    assert seen > 50


@pytest.mark.parametrize(
    ("mine", "partner_play", "expected"),
    [
        ("9C KD AS 4C 4D", top(2, "single:5:1", "5S"), "pass"),
        ("9C 9D", top(2, "pair:5:2", "5S 5D"), "play pair:9:2 9C 9D"),
    ],
)
def test_bot_lets_partner_win_unless_it_goes_out(
    mine: str, partner_play: TopPlay, expected: str
) -> None:
    """The partner (seat 2) on top: the bot passes though it could beat, unless it goes out."""
    state = position([mine, "3C 3D 4S", "5S 6S 8D", "7C 8C"], turn=0, top_play=partner_play)
    assert choose(RULES, state, 0) == parse_action(expected)


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        ("9C 9D 9S 4C 4D", "play full_house:9:5 4C 4D 9C 9D 9S"),
        ("3C 4D 5S 6C 7C", "play straight:7:5 3C 4D 5S 6C 7C"),
        ("QC QD QS QH", "play bomb:12:4 QC QD QS QH"),
    ],
)
def test_bot_leads_its_last_cards_when_they_are_one_play(hand: str, expected: str) -> None:
    """G-R20: when the whole hand is one legal play, the bot plays it and goes out."""
    state = position([hand, "3C 3D", "5S 6S", "7C 8C"], turn=0)
    assert choose(RULES, state, 0) == play(expected)


def test_bot_follows_with_its_last_cards() -> None:
    """Following an opponent's pair with its only two cards, a higher pair, the bot goes out."""
    state = position(
        ["KC KD", "5S 5D 8C", "5C 6S 8D", "7C 8H"], turn=0, top_play=top(3, "pair:5:2", "5H 5H")
    )
    assert choose(RULES, state, 0) == play("play pair:13:2 KC KD")


def test_bot_beats_an_opponent_with_the_cheapest_single() -> None:
    """An opponent's single is beaten by the lowest loose single, not a card out of a pair."""
    state = position(
        ["4C 9C 9D KS AS", "3C 3D 6C 7D", "5S 6S 8D 9H", "7C 8H JD QD"],
        turn=0,
        top_play=top(3, "single:7:1", "7H"),
    )
    assert choose(RULES, state, 0) == play("play single:13:1 KS")


def test_bot_feeds_a_partner_about_to_go_out() -> None:
    """Leading while the partner holds two cards, the bot leads its lowest single for it."""
    mine, partner = "3C 4D 5S 6C 7C 9D JC KD KS", "5S 6S"
    state = position([mine, "AC AD 2S 3S 9C 8C 8D", partner, "7C 8C 9H TD JD QD KD"], turn=0)
    assert choose(RULES, state, 0) == play("play single:3:1 3C")


def test_bot_leads_no_single_to_an_opponent_holding_one_card() -> None:
    """An opponent with one card left could beat a single; the bot leads its pair instead."""
    state = position(["3C 9D 9S KC", "AC", "5S 6S 8D 9S TS", "7C 8C 9H TD JD QD KD"], turn=0)
    assert choose(RULES, state, 0) == play("play pair:9:2 9D 9S")


def test_bot_keeps_its_bomb_early_and_bombs_an_opponent_about_to_go_out() -> None:
    """A bomb is spent on an opponent with two cards left, not on one with many."""
    hands = ["4C 4D 4S 4H 6C 9D JS", "AC AD", "5S 6S 8D 9S TC JC QC KC", "7C 8C 9H TD JD QD KD"]
    early = position(hands, turn=0, top_play=top(3, "single:14:1", "AH"))
    assert choose(RULES, early, 0) == PassTurn()
    late = position(hands, turn=0, top_play=top(1, "single:14:1", "AH"))
    assert choose(RULES, late, 0) == play("play bomb:4:4 4C 4D 4H 4S")


def test_bot_leads_a_straight_to_shed_many_cards() -> None:
    """Leading with several plays of equal worth, the bot sheds the most cards: the straight."""
    mine, partner = "3C 4D 5S 6C 7C 9D JC KD KS", "5S 6S 8D 9S TS"
    state = position([mine, "AC AD 2S 3S 9C 8C 8D", partner, "7C 8C 9H TD JD QD KD"], turn=0)
    action = choose(RULES, state, 0)
    assert action == play("play straight:7:5 3C 4D 5S 6C 7C")


def test_bot_returns_the_card_that_hurts_least() -> None:
    """G-R35: the bot returns an allowed card that leaves its hand cheapest, not just the lowest.

    Returning 3C would split the pair of threes; 5S is a loose card.
    """
    tribute = Tribute(payer=1, receiver=0, card=parse_kind("AD"))
    hands = ["3C 3D 5S 9C TD AD", "4C 4D", "6S 7S", "7C 8C"]
    state = returning(hands, [tribute], turn=1)
    assert choose(RULES, state, 0) == ReturnCard(parse_kind("5S"))


@pytest.mark.parametrize(
    ("cards", "cost"),
    [
        ("4C 4D 4S 4H", 0),  # a bomb wins the lead back by itself
        ("RJ", 0),
        ("BJ", 1),
        ("3C 4D 5S 6C 7C", 2),  # one straight
        ("3C 4D 5S 5D 6C 7C", 4),  # a straight and the five left over
        ("3C 4D 5S 5D 5C 5H 6C 7C", 8),  # the bomb of fives is kept, not split for a straight
        ("3C 3D 4S 4C 5C 5D", 2),  # one tube
        ("8C 8D 8S 9C 9D", 2),  # a full house
        ("3C 7D", 4),
        ("2C 2D", 1),  # the level pair (level 2)
        ("AS", 1),  # an ace wins most tricks too
    ],
)
def test_hand_cost_counts_plays_to_go_out(cards: str, cost: int) -> None:
    """The planner's cost, in half plays, of a few small hands at level 2."""
    assert hand_cost(holding_of([parse_kind(c) for c in cards.split()], level=2)) == cost


@pytest.mark.parametrize("seed", [31, 32])
def test_matches_of_heuristic_bots_end(seed: int) -> None:
    """Smoke: whole seeded matches end, four heuristic bots or heuristic against random."""
    for players in (["heuristic"] * 4, ["heuristic", "random", "heuristic", "random"]):
        outcome = play_out("guandan", seed, players)
        assert len(outcome.winners) == 2
