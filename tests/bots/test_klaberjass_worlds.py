"""Every world the Klaberjass adapter samples agrees with every public fact of the view.

Positions come from seeded random games played through the rules; at each decision the
worlds drawn for the seat to act are checked against the true state: the seat's view of the
world is its real view (own hand, counts, table, bottom card, history), the seat's legal
actions are the same, no played card is held, and the deal's public history is a legal one in
the world (every card played was playable from the world's hands: shown voids and forced
plays respected), with the sequences compared as shown and the card a dix took (K-R11) in the
swapper's hand. A hand-written position checks that last fact without playing any rule.
"""

from __future__ import annotations

import random
from dataclasses import replace
from itertools import pairwise

import pytest

from engine_service.bots.klaberjass_worlds import KlaberjassWorlds, sample_world
from engine_service.core.cards import Card
from engine_service.games.klaberjass.cards import PACK_MASK
from engine_service.games.klaberjass.config import KlaberjassConfig, SecondDealOrder
from engine_service.games.klaberjass.rules import KlaberjassRules
from engine_service.games.klaberjass.sequences import compare_sequences
from engine_service.games.klaberjass.state import KlaberjassState, Phase, Trick
from tests.bots.worlds_checks import check_sampling_depends_only_on_the_view
from tests.games.klaberjass.klaberjass_positions import position

WORLDS_PER_DECISION = 3
MOVES_PER_GAME = 60
CONFIGS = (
    KlaberjassConfig(),
    KlaberjassConfig(
        second_deal_order=SecondDealOrder.PACKETS,
        dix_only_if_turnup_trump=False,
        score_all_winner_sequences=True,
    ),
    KlaberjassConfig(auto_declare_sequences=False, melds_need_a_trick=True),
)


def _mask(cards: tuple[Card, ...]) -> int:
    mask = 0
    for card in cards:
        mask |= card.bit
    return mask


def _history_is_legal(rules: KlaberjassRules, world: KlaberjassState) -> bool:
    """Replay this deal's tricks from the world's hands at play start: all plays legal."""
    hands = list(world.meld_hands)
    tricks = [(t.leader, t.cards) for t in world.completed_tricks]
    tricks.append((world.trick.leader, world.trick.cards))
    for leader, cards in tricks:
        for index, card in enumerate(cards):
            player = (leader + index) % 2
            probe = replace(world, hands=(hands[0], hands[1]), trick=Trick(leader, cards[:index]))
            if not rules.playable(probe, player) >> card & 1:
                return False
            hands[player] &= ~card.bit
    return (hands[0], hands[1]) == world.hands


def _check_world(
    rules: KlaberjassRules, true: KlaberjassState, seat: int, world: KlaberjassState
) -> None:
    view = rules.view(true, seat)
    assert rules.view(world, seat) == view
    assert world.hands[seat] == true.hands[seat]
    assert rules.legal_actions(world, seat) == rules.legal_actions(true, seat)
    other = 1 - seat
    played = world.played[0] | world.played[1]
    assert world.hands[0] & world.hands[1] == 0
    assert (world.hands[0] | world.hands[1]) & (played | world.turn_up.bit | world.stock) == 0
    assert world.stock & (played | world.turn_up.bit) == 0
    everything = world.hands[0] | world.hands[1] | played | world.turn_up.bit | world.stock
    assert everything == PACK_MASK
    assert world.stock.bit_count() == true.stock.bit_count()
    if world.bottom is not None:
        assert world.stock >> world.bottom & 1
    if world.phase is Phase.PLAYING:
        assert _history_is_legal(rules, world)
        if world.sequences is not None and rules.config.auto_declare_sequences:
            assert world.trump is not None
            again = compare_sequences(
                world.meld_hands, (True, True), world.trump, rules.config.score_all_winner_sequences
            )
            assert again == true.sequences
        if world.dix_by == other:
            assert true.dix_taken is not None
            assert world.meld_hands[other] >> true.dix_taken & 1


def _positions(config: KlaberjassConfig, seed: int) -> list[KlaberjassState]:
    rules = KlaberjassRules(config)
    rng = random.Random(seed)
    state = rules.new_game(seed)
    states = []
    for _ in range(MOVES_PER_GAME):
        seats = rules.current_seats(state)
        if not seats:
            break
        states.append(state)
        legal = rules.legal_actions(state, seats[0])
        state = rules.apply(state, seats[0], legal[rng.randrange(len(legal))])
    return states


@pytest.mark.parametrize("config", CONFIGS, ids=("default", "variants", "manual"))
def test_every_sampled_world_fits_the_view(config: KlaberjassConfig) -> None:
    rules = KlaberjassRules(config)
    for seed in range(4):
        for index, true in enumerate(_positions(config, seed)):
            for seat in (0, 1):
                view = rules.view(true, seat)
                rng = random.Random(f"{seed}:{index}:{seat}")
                for _ in range(WORLDS_PER_DECISION):
                    _check_world(rules, true, seat, sample_world(rules, view, rng))


def test_sampling_depends_only_on_the_view() -> None:
    rules = KlaberjassRules()
    for seed in range(4):
        positions = _positions(KlaberjassConfig(), seed)[::5]
        check_sampling_depends_only_on_the_view(rules, positions, sample_world, str(seed))


@pytest.mark.parametrize("played", [False, True], ids=("held", "played"))
def test_k_r11_worlds_give_the_swapper_the_turn_up_it_took(played: bool) -> None:
    """Seat 1 swapped the 7 of hearts for the ace (face up before): every world seat 0
    samples gives the ace to seat 1 while unplayed, and once led it is in no hidden place."""
    rules = KlaberjassRules()
    hands = ("JH 9C TC KC 8D 9D QS KS AS", "9H TH KH 7C 8C JC 7D 8S")
    true = replace(
        position(
            (hands[0], hands[1] if played else f"{hands[1]} AH"),
            trump="H",
            turn_up="7H",
            trick="AH" if played else "",
            tricks_played=0,
        ),
        dix_by=1,
        dix_taken=Card.parse("AH"),
    )
    ace = Card.parse("AH").bit
    view = rules.view(true, 0)
    rng = random.Random(11)
    for _ in range(50):
        world = sample_world(rules, view, rng)
        assert rules.view(world, 0) == view
        assert world.hands[1] & ace == (0 if played else ace)
        assert not (world.hands[0] | world.stock) & ace


def test_hand_value_and_end() -> None:
    rules = KlaberjassRules()
    worlds = KlaberjassWorlds()
    states = _positions(KlaberjassConfig(), 11)
    ended = [
        (before, after) for before, after in pairwise(states) if worlds.hand_over(before, after)
    ]
    assert ended
    for _, after in ended:
        scores = after.deals[-1].scores
        assert worlds.value(rules, after, 0) == scores[0] - scores[1]
        assert worlds.value(rules, after, 1) == -worlds.value(rules, after, 0)
