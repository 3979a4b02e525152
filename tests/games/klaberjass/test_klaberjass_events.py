"""Klaberjass events (``KlaberjassRules.events``): what each action tells, and to whom.

Scenario tests name the rule each event reports; the property test at the end folds every
viewer's events from the start of many random games and finds the same public facts as that
viewer's views at every step, so the events alone are enough to follow a game.
"""

from __future__ import annotations

import ast
import dataclasses
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from cardengine.v1 import game_pb2
from cardengine_client.text import render_view
from klaberjass_positions import position

from engine_service.codec.klaberjass import KlaberjassCodec
from engine_service.core.cards import Card, Suit
from engine_service.core.events import Event, visible
from engine_service.games.klaberjass.actions import Dix, PassBid, PlayCard, TakeTrump
from engine_service.games.klaberjass.config import EqualTotals, KlaberjassConfig, SecondDealOrder
from engine_service.games.klaberjass.events import (
    BellaScored,
    BidMade,
    BottomShown,
    CardPlayed,
    CardsDealt,
    DealScored,
    DealStarted,
    DealThrownIn,
    DixKept,
    DixSwapped,
    GameOver,
    SequencesCompared,
    TrickTaken,
    TrumpFixed,
)
from engine_service.games.klaberjass.rules import KlaberjassRules
from engine_service.games.klaberjass.state import (
    Bid,
    DealResult,
    FinishedDeal,
    KlaberjassState,
    Phase,
    SequenceResult,
    TakenTrick,
    Trick,
)
from engine_service.games.klaberjass.view import KlaberjassView
from tests.games.positions import cards, random_walk

RULES = KlaberjassRules()
HUMAN = game_pb2.PLAYER_TYPE_HUMAN
CODEC = KlaberjassCodec()
VIEWERS = (0, 1, None)
CONFIGS = [
    KlaberjassConfig(),
    KlaberjassConfig(
        target=300,
        equal_totals=EqualTotals.MAKER_WINS,
        second_deal_order=SecondDealOrder.PACKETS,
        dix_only_if_turnup_trump=False,
        score_all_winner_sequences=True,
        auto_declare_sequences=False,
        melds_need_a_trick=True,
    ),
]
IDS = ["default", "all_other"]
GAMES_PER_CONFIG = 60


def step(
    rules: KlaberjassRules, state: KlaberjassState, action: object
) -> tuple[KlaberjassState, tuple[Event, ...]]:
    """Apply ``action`` by the seat to act; return the new state and the action's events."""
    seat = state.turn
    assert isinstance(action, TakeTrump | PassBid | Dix | PlayCard)
    after = rules.apply(state, seat, action)
    return after, rules.events(state, seat, action, after)


def facts(events: tuple[Event, ...]) -> list[object]:
    return [event.fact for event in events]


def first_state(
    predicate: Callable[[KlaberjassState], object], seeds: range = range(500)
) -> KlaberjassState:
    """The first state of a random game (over ``seeds``) for which ``predicate`` holds."""
    for seed in seeds:
        for state, seat, _ in random_walk(RULES, seed):
            if seat is not None and predicate(state):
                found: KlaberjassState = state
                return found
    raise AssertionError("no such state found")


# -- bidding and the deal -------------------------------------------------------------------


def test_k_r5_a_pass_in_round_one_is_a_public_bid() -> None:
    state = RULES.new_game(3)
    after, events = step(RULES, state, PassBid())
    assert events == (Event(BidMade(state.elder, 1, None)),)
    assert after.to_move == state.dealer


def test_k_r6_a_pass_in_round_two_names_round_two() -> None:
    state = RULES.new_game(3)
    for _ in range(2):
        state, _ = step(RULES, state, PassBid())
    _, events = step(RULES, state, PassBid())
    assert events == (Event(BidMade(state.elder, 2, None)),)


def test_k_r9_k_r10_taking_trump_fixes_it_and_deals_three_private_cards_each() -> None:
    state = RULES.new_game(3)
    turned = state.turn_up.suit
    after, events = step(RULES, state, TakeTrump(turned))
    maker = state.elder
    assert events[:2] == (Event(BidMade(maker, 1, turned)), Event(TrumpFixed(turned, maker)))
    dealt = events[2:4]
    assert [event.audience for event in dealt] == [state.elder, state.dealer]  # K-R10 order
    for event in dealt:
        fact = event.fact
        assert isinstance(fact, CardsDealt) and fact.seat == event.audience
        assert len(fact.cards) == 3 and fact.deal_number == 0
        new = after.hands[fact.seat] & ~state.hands[fact.seat]
        assert {card.bit for card in fact.cards} == {bit for bit in _bits(new)}
    assert after.bottom is not None and events[4:] == (Event(BottomShown(after.bottom)),)


def test_k_r10_dealt_cards_reach_only_their_seat() -> None:
    state = RULES.new_game(3)
    _, events = step(RULES, state, TakeTrump(state.turn_up.suit))
    for viewer in VIEWERS:
        told = [e.fact for e in visible(events, viewer) if isinstance(e.fact, CardsDealt)]
        assert [fact.seat for fact in told] == ([] if viewer is None else [viewer])


def test_k_r7_a_thrown_in_hand_starts_a_new_deal_with_private_hands() -> None:
    state = RULES.new_game(3)
    for _ in range(3):
        state, _ = step(RULES, state, PassBid())
    after, events = step(RULES, state, PassBid())
    assert facts(events)[:3] == [
        BidMade(state.dealer, 2, None),
        DealThrownIn(0, state.dealer),
        DealStarted(1, state.elder, after.turn_up),
    ]
    for event in events[3:]:
        fact = event.fact
        assert isinstance(fact, CardsDealt) and event.audience == fact.seat
        assert fact.deal_number == 1 and len(fact.cards) == 6
        assert sum(card.bit for card in fact.cards) == after.hands[fact.seat]
    assert after.previous_deal == FinishedDeal(
        0, DealResult(state.dealer, None, None, (0, 0), (0, 0))
    )
    view = RULES.view(after, None)
    assert view.previous_deal is not None and view.previous_deal.tricks == ()


# -- dix --------------------------------------------------------------------------------


def test_k_r11_a_dix_swap_shows_both_cards() -> None:
    state = first_state(
        lambda s: s.phase is Phase.DIX and s.hands[s.turn] & Card.of(7, s.trump).bit
    )
    seat = state.turn
    after, events = step(RULES, state, Dix(swap=True))
    assert state.trump is not None
    seven = Card.of(7, state.trump)
    assert events == (Event(DixSwapped(seat, state.turn_up, seven)),)
    assert after.turn_up == seven and after.hands[seat] & state.turn_up.bit


def test_k_r11_keeping_is_public_and_names_no_card() -> None:
    state = first_state(lambda s: s.phase is Phase.DIX)
    _, events = step(RULES, state, Dix(swap=False))
    assert events == (Event(DixKept(state.turn)),)


# -- play -------------------------------------------------------------------------------


def test_k_r16_a_lead_is_one_public_card() -> None:
    state = position(["AC 9S", "7C 8D"], leader=0, tricks_played=3)
    _, events = step(RULES, state, PlayCard(Card.parse("AC")))
    assert events == (Event(CardPlayed(0, Card.parse("AC"))),)


def test_k_r19_a_complete_trick_is_taken_with_its_points() -> None:
    state = position(["AC 9S", "TC 8D"], trump="H", leader=0, tricks_played=3)
    after, events = step(RULES, state, PlayCard(Card.parse("AC")))
    after, events = step(RULES, after, PlayCard(Card.parse("TC")))
    taken = TrickTaken(4, 0, tuple(cards("AC TC")), 0, 21)
    assert facts(events) == [CardPlayed(1, Card.parse("TC")), taken]
    assert after.completed_tricks == (TakenTrick(0, tuple(cards("AC TC")), 0, 21),)


def test_k_r15_bella_is_told_after_the_card_that_completes_it() -> None:
    state = position(["KH 9S", "7C 8D"], trump="H", leader=0, played=("QH", ""))
    _, events = step(RULES, state, PlayCard(Card.parse("KH")))
    assert facts(events) == [CardPlayed(0, Card.parse("KH")), BellaScored(0, Suit.HEARTS, 20)]


def test_k_r15_declined_bella_tells_nothing() -> None:
    state = position(["KH 9S", "7C 8D"], trump="H", leader=0, played=("QH", ""))
    _, events = step(RULES, state, PlayCard(Card.parse("KH"), announce_bella=False))
    assert facts(events) == [CardPlayed(0, Card.parse("KH"))]


def test_k_r12_k_r14_sequences_are_told_when_the_first_trick_ends() -> None:
    hands = ("7H 8H 9H AC", "7C 8D")
    state = position(hands, trump="S", leader=0, tricks_played=0, meld_hands=hands)
    after, events = step(RULES, state, PlayCard(Card.parse("AC")))
    assert not any(isinstance(fact, SequencesCompared) for fact in facts(events))
    after, events = step(RULES, after, PlayCard(Card.parse("7C")))
    compared = SequencesCompared(0, tuple(cards("7H 8H 9H")), 20)
    assert facts(events)[1:] == [TrickTaken(1, 0, tuple(cards("AC 7C")), 0, 11), compared]
    assert after.sequences == SequenceResult(0, compared.cards, 20)


# -- the end of a deal and of the game --------------------------------------------------------


def last_trick(totals: tuple[int, int], maker: int = 0) -> KlaberjassState:
    """The ninth trick, led by seat 0, which seat 0 takes for 11 + 10 points."""
    return position(
        ["AC", "7C"],
        leader=0,
        maker=maker,
        tricks_played=8,
        totals=totals,
        card_points=(60, 50),
        tricks_won=(4, 4),
    )


def test_k_r20_the_last_card_scores_the_deal_and_deals_again() -> None:
    state = step(RULES, last_trick((100, 40)), PlayCard(Card.parse("AC")))[0]
    after, events = step(RULES, state, PlayCard(Card.parse("7C")))
    told = facts(events)
    assert told[:4] == [
        CardPlayed(1, Card.parse("7C")),
        TrickTaken(9, 0, tuple(cards("AC 7C")), 0, 21),
        DealScored(0, 0, (81, 50), (81, 50), False, (181, 90)),
        DealStarted(1, 1, after.turn_up),
    ]
    assert [event.audience for event in events[4:]] == [0, 1]  # the new hands, privately


def test_k_r20_a_maker_who_goes_down_is_told_so() -> None:
    state = step(RULES, last_trick((0, 0), maker=1), PlayCard(Card.parse("AC")))[0]
    _, events = step(RULES, state, PlayCard(Card.parse("7C")))
    (scored,) = [fact for fact in facts(events) if isinstance(fact, DealScored)]
    assert scored.maker_down and scored.scores == (131, 0)


def test_k_r21_the_game_over_event_follows_the_last_deal() -> None:
    state = step(RULES, last_trick((420, 300)), PlayCard(Card.parse("AC")))[0]
    after, events = step(RULES, state, PlayCard(Card.parse("7C")))
    assert facts(events)[2:] == [
        DealScored(0, 0, (81, 50), (81, 50), False, (501, 350)),
        GameOver((0,), (501, 350)),
    ]
    assert after.phase is Phase.GAME_OVER
    # The last deal stays in view for good, as every deal does until the next one.
    final = TakenTrick(0, tuple(cards("AC 7C")), 0, 21)
    for viewer in VIEWERS:
        previous = RULES.view(after, viewer).previous_deal
        assert previous is not None and previous.tricks[-1] == final
        assert previous.result == after.deals[-1] and previous.deal_number == 0


def test_k_r20_the_finished_deal_stays_in_view_until_the_next_first_card() -> None:
    state = step(RULES, last_trick((100, 40)), PlayCard(Card.parse("AC")))[0]
    after = step(RULES, state, PlayCard(Card.parse("7C")))[0]
    final = TakenTrick(0, tuple(cards("AC 7C")), 0, 21)
    for viewer in VIEWERS:
        previous = RULES.view(after, viewer).previous_deal
        assert previous is not None and previous.tricks == (final,)
        assert previous.result == after.deals[-1] and previous.deal_number == 0
    after = step(RULES, after, TakeTrump(after.turn_up.suit))[0]
    while after.phase is Phase.DIX:
        after = step(RULES, after, Dix(swap=False))[0]
    assert RULES.view(after, None).previous_deal is not None
    after = step(RULES, after, RULES.legal_actions(after, after.turn)[0])[0]
    assert RULES.view(after, None).previous_deal is None


@pytest.mark.parametrize("seed", range(12))
def test_k_r19_the_final_trick_of_every_deal_is_shown_by_view_and_events(seed: int) -> None:
    """Right after each deal's last card, its final trick can be rendered from the view (also
    through the text client) and from that action's events alone."""
    deals_ended = 0
    for state, seat, action in random_walk(RULES, seed):
        if seat is None or not isinstance(action, PlayCard) or state.tricks_played != 8:
            continue
        if len(state.trick.cards) != 1:
            continue
        after = RULES.apply(state, seat, action)
        events = RULES.events(state, seat, action, after)
        (told,) = [fact for fact in facts(events) if isinstance(fact, TrickTaken)]
        assert told.number == 9
        for viewer in VIEWERS:
            view = RULES.view(after, viewer)
            shown = (
                view.completed_tricks if view.previous_deal is None else view.previous_deal.tricks
            )
            assert shown[-1] == TakenTrick(told.leader, told.cards, told.winner, told.points)
            text = render_view(_game_view(view))
            line = "Final trick: " if view.previous_deal is not None else "  9. "
            (shown_line,) = [
                row for row in text.splitlines() if row.lstrip().startswith(line.strip())
            ]
            assert all(str(card) in shown_line for card in told.cards), text
            assert shown_line.endswith(f"(+{told.points})"), shown_line
        deals_ended += 1
    assert deals_ended


EVENT_TYPES = (
    BidMade,
    TrumpFixed,
    DealThrownIn,
    DealStarted,
    CardsDealt,
    BottomShown,
    DixSwapped,
    DixKept,
    CardPlayed,
    BellaScored,
    TrickTaken,
    SequencesCompared,
    DealScored,
    GameOver,
)


EVENTS_SOURCE = Path(__file__).resolve().parents[3] / "engine_service/games/klaberjass/events.py"


def source_docstrings() -> dict[str, str]:
    """Class docstrings read from the module's source: a mypyc-compiled class has no __doc__."""
    tree = ast.parse(EVENTS_SOURCE.read_text())
    return {
        node.name: ast.get_docstring(node) or ""
        for node in tree.body
        if isinstance(node, ast.ClassDef)
    }


def test_every_event_names_its_rule() -> None:
    docstrings = source_docstrings()
    for event_type in EVENT_TYPES:
        assert "K-R" in docstrings[event_type.__name__], event_type


# -- the property: every viewer can follow the game from its events -----------------------------


@dataclass
class Table:
    """What one viewer knows, folded from the game's first view and its events alone."""

    viewer: int | None
    deal_number: int
    dealer: int
    turn_up: Card
    hand: set[Card]
    bids: list[Bid] = field(default_factory=list)
    trump: Suit | None = None
    maker: int | None = None
    dix_by: int | None = None
    dix_taken: Card | None = None
    bottom: Card | None = None
    sequences: SequenceResult | None = None
    bella_by: int | None = None
    played: tuple[set[Card], set[Card]] = field(default_factory=lambda: (set(), set()))
    trick: list[Card] = field(default_factory=list)
    leader: int = 0
    completed: list[TakenTrick] = field(default_factory=list)
    totals: tuple[int, int] = (0, 0)
    deals: list[DealResult] = field(default_factory=list)
    previous: FinishedDeal | None = None
    winners: tuple[int, ...] = ()

    @classmethod
    def start(cls, view: KlaberjassView) -> Table:
        """The first deal as the game's first view shows it (no event tells of it)."""
        hand = set(view.hand)
        return cls(
            view.seat, view.deal_number, view.dealer, view.turn_up, hand, leader=view.trick.leader
        )

    def new_deal(self, fact: DealStarted) -> None:
        """K-R4: forget the deal's table, keep the game's history."""
        fresh = Table(self.viewer, fact.deal_number, fact.dealer, fact.turn_up, set())
        fresh.totals, fresh.deals, fresh.previous = self.totals, self.deals, self.previous
        fresh.leader = 1 - fact.dealer
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(fresh, name))

    def fold(self, fact: object) -> None:
        if isinstance(fact, BidMade):
            self.bids.append(Bid(fact.seat, fact.round, fact.suit))
        elif isinstance(fact, TrumpFixed):
            self.trump, self.maker = fact.suit, fact.maker
        elif isinstance(fact, CardsDealt):
            assert fact.seat == self.viewer and fact.deal_number == self.deal_number
            self.hand |= set(fact.cards)
        elif isinstance(fact, BottomShown):
            self.bottom = fact.card
        elif isinstance(fact, DixSwapped):
            self.turn_up, self.dix_by, self.dix_taken = fact.seven, fact.seat, fact.taken
            if fact.seat == self.viewer:
                self.hand = self.hand - {fact.seven} | {fact.taken}
        elif isinstance(fact, CardPlayed):
            self.previous = None
            self.played[fact.seat].add(fact.card)
            self.hand.discard(fact.card)
            self.trick.append(fact.card)
        elif isinstance(fact, BellaScored):
            self.bella_by = fact.seat
        elif isinstance(fact, TrickTaken):
            assert (fact.leader, fact.cards) == (self.leader, tuple(self.trick))
            self.completed.append(TakenTrick(fact.leader, fact.cards, fact.winner, fact.points))
            self.trick, self.leader = [], fact.winner
        elif isinstance(fact, SequencesCompared):
            self.sequences = SequenceResult(fact.winner, fact.cards, fact.points)
        elif isinstance(fact, DealScored):
            result = DealResult(self.dealer, fact.maker, self.trump, fact.points, fact.scores)
            assert fact.maker == self.maker and fact.deal_number == self.deal_number
            self.deals.append(result)
            self.totals = fact.totals
            self.previous = FinishedDeal(
                self.deal_number, result, tuple(self.completed), self.sequences, self.bella_by
            )
        elif isinstance(fact, DealThrownIn):
            result = DealResult(fact.dealer, None, None, (0, 0), (0, 0))
            self.deals.append(result)
            self.previous = FinishedDeal(fact.deal_number, result)
        elif isinstance(fact, DealStarted):
            self.new_deal(fact)
        elif isinstance(fact, GameOver):  # the last deal stays current, and in view as ended
            self.winners = fact.winners
        else:
            assert isinstance(fact, DixKept), fact

    def check(self, view: KlaberjassView) -> None:
        """The public facts (and the viewer's own hand) agree with ``view``."""
        tricks = tuple(self.completed)
        won = tuple(sum(t.winner == s for t in tricks) for s in (0, 1))
        points = tuple(sum(t.points for t in tricks if t.winner == s) for s in (0, 1))
        assert view.completed_tricks == tricks
        assert (view.tricks_won, view.card_points) == (won, points)
        assert view.last_trick == (Trick(tricks[-1].leader, tricks[-1].cards) if tricks else None)
        assert view.trick == Trick(self.leader, tuple(self.trick))
        assert view.played == tuple(tuple(sorted(cards)) for cards in self.played)
        assert set(view.hand) == self.hand
        assert (view.deal_number, view.dealer, view.turn_up) == (
            self.deal_number,
            self.dealer,
            self.turn_up,
        )
        assert view.bids == tuple(self.bids)
        assert (view.trump, view.maker) == (self.trump, self.maker)
        assert (view.dix_by, view.dix_taken) == (self.dix_by, self.dix_taken)
        assert (view.bottom, view.sequences, view.bella_by) == (
            self.bottom,
            self.sequences,
            self.bella_by,
        )
        assert view.totals == self.totals and view.deals == tuple(self.deals)
        assert view.previous_deal == self.previous
        assert view.winners == self.winners


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_folding_each_viewers_events_gives_its_views(config: KlaberjassConfig) -> None:
    """For each seat and a spectator, the events it may see, folded from the start, give the
    same public facts as its views at every step: the deal's tricks, cards played, trump and
    bidding, sequences and bella (K-R12 .. K-R15), totals and deal history (K-R20, K-R21)."""
    seen: set[type] = set()
    for seed in range(GAMES_PER_CONFIG):
        game_config = dataclasses.replace(config, target=random.Random(seed).randrange(100, 600))
        rules = KlaberjassRules(game_config)
        state = rules.new_game(seed)
        tables = {viewer: Table.start(rules.view(state, viewer)) for viewer in VIEWERS}
        for before, seat, action in random_walk(rules, seed):
            if seat is None or action is None:
                break
            after = rules.apply(before, seat, action)
            events = rules.events(before, seat, action, after)
            for event in events:
                seen.add(type(event.fact))
                message = CODEC.encode_event(event.fact)  # every event has its message
                assert message.klaberjass.WhichOneof("event"), event
            for viewer, table in tables.items():
                for event in visible(events, viewer):
                    table.fold(event.fact)
                table.check(rules.view(after, viewer))
        assert all(table.winners for table in tables.values())
    assert seen == set(EVENT_TYPES), f"never seen: {set(EVENT_TYPES) - seen}"


def _bits(mask: int) -> list[int]:
    return [1 << n for n in range(mask.bit_length()) if mask >> n & 1]


def _game_view(view: KlaberjassView) -> game_pb2.GameView:
    """A view as the service would send it, for the text client."""
    message = game_pb2.GameView(game_type="klaberjass", seats=[HUMAN, HUMAN])
    if view.seat is not None:
        message.viewer_seat = view.seat
    message.to_act.extend(view.to_act)
    CODEC.encode_view(view, RULES.config, message)
    return message
