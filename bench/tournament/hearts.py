"""Duplicate Hearts: each deal played four times, the hero's seat rotating through all four.

Both engines play every hand in lockstep: ours (:data:`~.spiel.COMMON_CONFIG`) decides the
score and gives our bots their views; OpenSpiel's shadows it card by card for the ISMCTS
seats. At every step both must list the same legal cards, and at the end take the same
points, or the hand fails with an ``AssertionError``: the mapping is checked on every move of
every hand, not only in the tests.

A deal fixes the cards by seat and the pass direction (deal ``i`` passes as hand ``i`` of a
game: left, right, across, keep). A lineup names the hero's kind and the other three's;
rotation ``r`` puts the hero in seat ``r``.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field, replace
from typing import Any

from bench.tournament.seats import bot_of, decide
from bench.tournament.spiel import (
    COMMON_CONFIG,
    IsmctsSeat,
    dealt_state,
    legal_cards,
    to_ours,
    to_spiel,
)
from engine_service.core.cards import DECK_SIZE, mask_of
from engine_service.games.hearts.actions import PLAYS, PassCards, PlayCard
from engine_service.games.hearts.rules import TWO_OF_CLUBS, HeartsRules
from engine_service.games.hearts.scoring import moon_shooter
from engine_service.games.hearts.state import HeartsState, PassDirection, Phase, Trick
from engine_service.registry import REGISTRY

ISMCTS = "ismcts"
SEATS = 4


@dataclass(frozen=True)
class Deal:
    """The cards of each seat (bitmasks) and the hand number that fixes the pass direction."""

    index: int
    hands: tuple[int, ...]
    hand_number: int


def deal_of(index: int) -> Deal:
    """Deal ``index`` of every Hearts tournament: a seeded shuffle, passing as hand ``index``."""
    deck = list(range(DECK_SIZE))
    random.Random(f"tournament:hearts:{index}").shuffle(deck)
    hands = tuple(mask_of(deck[13 * seat : 13 * seat + 13]) for seat in range(SEATS))
    return Deal(index, hands, index % 4)


def start_state(rules: HeartsRules, deal: Deal) -> HeartsState:
    """Our state at the start of ``deal``: its cards and direction, no points yet."""
    direction = PassDirection.for_hand(deal.hand_number)
    opener = next(s for s in range(SEATS) if deal.hands[s] >> TWO_OF_CLUBS & 1)
    return replace(
        rules.new_game(deal.index),
        phase=Phase.PLAYING if direction is PassDirection.NONE else Phase.PASSING,
        hand_number=deal.hand_number,
        hands=deal.hands,
        trick=Trick(opener),
        opener=opener,
    )


@dataclass(frozen=True)
class Settings:
    """Budgets: ISMCTS simulations and UCT constant, our search bot's playouts (None: its own)."""

    simulations: int
    uct_c: float
    search_budget: int | None


@dataclass
class Block:
    """One deal under one lineup, all four rotations: the hero's and the others' points."""

    deal: int
    lineup: tuple[str, str]
    hero: list[int] = field(default_factory=list)
    others: list[float] = field(default_factory=list)
    moons: int = 0
    times_ms: dict[str, list[float]] = field(default_factory=dict)

    @property
    def hero_minus_others(self) -> float:
        """The hero's points per hand minus the others' average, over the rotations."""
        return sum(h - o for h, o in zip(self.hero, self.others, strict=True)) / len(self.hero)


def play_block(index: int, lineup: tuple[str, str], settings: Settings) -> Block:
    """Deal ``index`` played four times by ``lineup`` (hero kind, others' kind)."""
    deal = deal_of(index)
    block = Block(index, lineup)
    for rotation in range(SEATS):
        kinds = [lineup[0] if seat == rotation else lineup[1] for seat in range(SEATS)]
        scores, moon = play_hand(deal, kinds, settings, rotation, block.times_ms)
        block.hero.append(scores[rotation])
        block.others.append(sum(scores[s] for s in range(SEATS) if s != rotation) / 3)
        block.moons += moon
    return block


class _Table:
    """Both engines at one hand, with each seat's player; every move goes through here."""

    def __init__(self, deal: Deal, kinds: list[str], settings: Settings, rotation: int) -> None:
        spec = REGISTRY["hearts"]
        self.rules = HeartsRules(COMMON_CONFIG)
        self.state = start_state(self.rules, deal)
        self.step = self.state.pass_direction.step
        self.shadow: Any = dealt_state(deal.hands, self.step)
        self.kinds = kinds
        self.rng = random.Random(f"tournament:hearts:{deal.index}:{rotation}")
        self.players: dict[int, Any] = {}
        for seat, kind in enumerate(kinds):
            if kind == ISMCTS:
                seed = (deal.index * SEATS + rotation) * SEATS + seat + 1
                self.players[seat] = IsmctsSeat(seed, settings.simulations, settings.uct_c)
            else:
                self.players[seat] = bot_of(spec, kind, settings.search_budget)

    def pass_cards(self, seat: int, times: list[float]) -> None:
        """``seat``'s pass, chosen by its player and applied to both engines."""
        hand = self.state.hands[seat]
        assert self.shadow.current_player() == seat
        assert legal_cards(self.shadow) == {c for c in range(52) if hand >> c & 1}
        player = self.players[seat]
        if isinstance(player, IsmctsSeat):
            cards = player.choose_pass(hand, self.step, times)
            action = PassCards(mask_of(cards))
        else:
            action = decide(player, self.rules, self.state, seat, self.rng, times)
            assert isinstance(action, PassCards)
            cards = list(action.cards)
        assert self.rules.check(self.state, seat, action) is None, "pass refused by our rules"
        self.state = self.rules.apply(self.state, seat, action)
        for card in cards:
            assert to_spiel(card) in self.shadow.legal_actions(), "pass refused by OpenSpiel"
            self.shadow.apply_action(to_spiel(card))

    def play_card(self, times: list[float]) -> None:
        """The card of the seat to play, after checking both engines list the same cards."""
        seat = self.state.turn
        assert self.shadow.current_player() == seat, "engines disagree on the turn"
        ours = {
            play.card
            for play in self.rules.legal_actions(self.state, seat)
            if isinstance(play, PlayCard)
        }
        assert ours == legal_cards(self.shadow), f"legal cards differ: {sorted(ours)}"
        player = self.players[seat]
        if isinstance(player, IsmctsSeat):
            started = time.process_time()
            card = to_ours(player.play(self.shadow, seat))
            times.append((time.process_time() - started) * 1000)
            action: PlayCard = PLAYS[card]
        else:
            action = decide(player, self.rules, self.state, seat, self.rng, times)
            card = action.card
        self.state = self.rules.apply(self.state, seat, action)
        self.shadow.apply_action(to_spiel(card))


def play_hand(
    deal: Deal,
    kinds: list[str],
    settings: Settings,
    rotation: int,
    times_ms: dict[str, list[float]],
) -> tuple[tuple[int, ...], bool]:
    """Play ``deal`` with ``kinds`` by seat; our scores for the hand and whether a moon fell."""
    table = _Table(deal, kinds, settings, rotation)
    while table.state.phase is Phase.PASSING:
        seat = table.shadow.current_player()
        table.pass_cards(seat, times_ms.setdefault(kinds[seat], []))
    for _ in range(52):
        table.play_card(times_ms.setdefault(kinds[table.state.turn], []))
    finished = table.state.previous_hand
    assert finished is not None and finished.hand_number == deal.hand_number
    assert table.shadow.is_terminal(), "OpenSpiel's hand is not over"
    moon = moon_shooter(finished.points_taken) is not None
    if not moon:
        spiel_points = tuple(26 - int(r) for r in table.shadow.returns())
        assert spiel_points == finished.points_taken, "engines disagree on the points"
    return finished.scores, moon
