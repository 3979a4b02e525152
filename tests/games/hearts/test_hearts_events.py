"""Hearts events (H-R1 .. H-R17): what each move tells whom, and that the events add up.

The scenario tests pin each event to the rule it stems from; the property test at the end
plays many seeded random games and checks, for every seat and the spectator, that folding the
events that viewer may see from the start gives the same public facts (and the same own
cards) as its views, at every step.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass, field

import pytest
from hearts_positions import last_trick, position

from engine_service.core.cards import Card, cards_in, mask_of
from engine_service.core.events import Event, visible
from engine_service.games.hearts.actions import HeartsAction, PassCards, PlayCard
from engine_service.games.hearts.config import AllHeartsLead, HeartsConfig
from engine_service.games.hearts.events import (
    CardPlayed,
    CardsDealt,
    CardsPassed,
    CardsReceived,
    GameOver,
    HandDealt,
    HandScored,
    HeartsBroken,
    LeadPassed,
    PassMade,
    TrickTaken,
)
from engine_service.games.hearts.rules import HeartsRules
from engine_service.games.hearts.scoring import trick_points
from engine_service.games.hearts.state import HeartsState, PassDirection, Phase
from engine_service.games.hearts.view import HeartsView
from tests.games.positions import cards

RULES = HeartsRules()
PRIVATE = (CardsPassed, CardsReceived, CardsDealt)


def step(
    rules: HeartsRules, state: HeartsState, seat: int, action: HeartsAction
) -> tuple[HeartsState, tuple[Event, ...]]:
    after = rules.apply(state, seat, action)
    return after, rules.events(state, seat, action, after)


def facts(events: tuple[Event, ...], viewer: int | None = None) -> list[object]:
    return [event.fact for event in visible(events, viewer)]


def lowest_three(hand: int) -> PassCards:
    return PassCards(mask_of(list(cards_in(hand))[:3]))


def play_events(
    rules: HeartsRules, state: HeartsState, text: str
) -> tuple[HeartsState, list[Event]]:
    """Play ``text`` card by card (each by the seat to play), collecting every event."""
    told: list[Event] = []
    for card in cards(text):
        state, events = step(rules, state, state.turn, PlayCard(card))
        told += events
    return state, told


# -- passing (H-R2) ---------------------------------------------------------------------------


def test_h_r2_a_pass_is_public_but_its_cards_only_the_passers() -> None:
    state = RULES.new_game(7)
    choice = lowest_three(state.hands[2])
    after, events = step(RULES, state, 2, choice)
    assert events == (
        Event(PassMade(2)),
        Event(CardsPassed(2, choice.cards, 3), audience=2),  # hand 0 passes left
    )
    for viewer in (None, 0, 1, 3):
        assert facts(events, viewer) == [PassMade(2)]
    assert after.phase is Phase.PASSING


def test_h_r2_the_exchange_tells_each_seat_only_what_it_received() -> None:
    state = RULES.new_game(7)
    chosen = {}
    events: tuple[Event, ...] = ()
    for seat in (3, 1, 0, 2):
        chosen[seat] = lowest_three(state.hands[seat])
        state, events = step(RULES, state, seat, chosen[seat])
    assert state.phase is Phase.PLAYING
    assert facts(events, None) == [PassMade(2)]
    for seat in range(4):
        giver = (seat - 1) % 4  # left: from the seat before
        assert facts(events, seat)[1:] == [
            *([CardsPassed(2, chosen[2].cards, 3)] if seat == 2 else []),
            CardsReceived(seat, chosen[giver].cards, giver),
        ]
        assert set(chosen[giver].cards) <= set(cards_in(state.hands[seat]))


# -- play (H-R4, H-R6, H-R7, H-R8, H-R10) -----------------------------------------------------


def test_h_r4_card_played_is_public() -> None:
    state = position(["2D 5C", "3D", "4D", "5D"], leader=0)
    _, events = step(RULES, state, 0, PlayCard(Card.parse("2D")))
    assert events == (Event(CardPlayed(0, Card.parse("2D"))),)


def test_h_r6_trick_taken_event_names_winner_and_h_r10_points() -> None:
    state = position(["2D 9C", "QS 8C", "AD 7C", "5H 6C"], leader=0, tricks_played=3)
    after, told = play_events(RULES, state, "2D QS AD 5H")
    trick = TrickTaken(4, 0, cards("2D QS AD 5H"), 2, 14)
    assert [e.fact for e in told] == [
        CardPlayed(0, Card.parse("2D")),
        CardPlayed(1, Card.parse("QS")),
        CardPlayed(2, Card.parse("AD")),
        CardPlayed(3, Card.parse("5H")),
        HeartsBroken(3, Card.parse("5H")),
        trick,
    ]
    assert all(e.audience is None for e in told)
    assert str(trick) == "trick 4 led by seat 0: 2D QS AD 5H, seat 2 takes 14 points"
    assert after.completed[-1].cards == trick.cards


def test_h_r7_hearts_broken_is_told_once_and_by_option_for_the_queen() -> None:
    state = position(["2D 9H", "3H 8H", "4D 7H", "5D 6H"], leader=0, hearts_broken=True)
    _, told = play_events(RULES, state, "2D 3H")
    assert not any(isinstance(e.fact, HeartsBroken) for e in told)  # already broken
    queen = HeartsRules(HeartsConfig(queen_breaks_hearts=True))
    state = position(["2D 9C", "QS 8C", "4D 7C", "5D 6C"], leader=0)
    _, told = play_events(queen, state, "2D QS")
    assert told[-1].fact == HeartsBroken(1, Card.parse("QS"))
    _, told = play_events(RULES, state, "2D QS")
    assert not any(isinstance(e.fact, HeartsBroken) for e in told)


def test_h_r8_lead_passed_when_the_winner_holds_only_hearts() -> None:
    rules = HeartsRules(HeartsConfig(all_hearts_lead=AllHeartsLead.PASS_LEAD))
    state = position(["2D 9H", "AD 8H", "4D 7C", "5D 6C"], leader=0)
    after, told = play_events(rules, state, "2D AD 4D 5D")
    assert told[-1].fact == LeadPassed(1, 2)
    assert after.trick.leader == 2
    _, told = play_events(RULES, state, "2D AD 4D 5D")  # allow: the winner leads
    assert isinstance(told[-1].fact, TrickTaken)


# -- the end of a hand (H-R10, H-R11, H-R17) --------------------------------------------------


def test_h_r10_hand_scored_then_h_r1_the_new_deal_each_seat_told_its_own_cards() -> None:
    before = last_trick((10, 20, 30, 40), (3, 5, 8, 10), hand_number=0)
    after, told = play_events(RULES, before, "2D 3D 4D 5D")
    public = [e.fact for e in told if e.audience is None]
    assert public[-3:] == [
        TrickTaken(13, 0, cards("2D 3D 4D 5D"), 3, 0),
        HandScored(0, (3, 5, 8, 10), (3, 5, 8, 10), None, (13, 25, 38, 50)),
        HandDealt(1, PassDirection.RIGHT),
    ]
    private = [e for e in told if e.audience is not None]
    assert [e.audience for e in private] == [0, 1, 2, 3]
    for event in private:
        assert event.fact == CardsDealt(
            event.audience, 1, tuple(cards_in(after.hands[event.audience]))
        )


def test_h_r11_hand_scored_names_the_moon_shooter() -> None:
    before = last_trick((0, 0, 0, 0), (0, 26, 0, 0))
    _, told = play_events(RULES, before, "2D 3D 4D 5D")
    scored = next(e.fact for e in told if isinstance(e.fact, HandScored))
    assert scored == HandScored(5, (0, 26, 0, 0), (13, 0, 13, 13), 1, (13, 0, 13, 13))


def test_h_r17_game_over_is_the_last_event_and_deals_nothing() -> None:
    before = last_trick((50, 70, 70, 95), (10, 6, 5, 5))
    after, told = play_events(RULES, before, "2D 3D 4D 5D")
    assert after.phase is Phase.GAME_OVER
    assert told[-1] == Event(GameOver((0,), (60, 76, 75, 100)))
    assert not any(isinstance(e.fact, CardsDealt | HandDealt) for e in told)


# -- the finished hand stays visible (H-R10) ---------------------------------------------------


def final_trick_from_view(view: HeartsView) -> tuple[int, tuple[Card, ...], int | None]:
    hand = view.previous_hand
    assert hand is not None
    last = hand.tricks[-1]
    return last.leader, last.cards, last.winner


def test_h_r10_the_final_trick_shows_in_views_until_the_next_first_card() -> None:
    before = last_trick((10, 20, 30, 40), (3, 5, 8, 10), hand_number=0)
    after, told = play_events(RULES, before, "2D 3D 4D 5D")
    assert after.phase is Phase.PASSING and after.hand_number == 1
    for viewer in (0, 1, 2, 3, None):
        view = RULES.view(after, viewer)
        assert final_trick_from_view(view) == (0, cards("2D 3D 4D 5D"), 3)
        assert view.previous_hand is not None
        assert view.previous_hand.scores == (3, 5, 8, 10)
        assert view.completed_tricks == () and view.last_trick is None
        # the same trick, from the events alone
        taken = [f for f in facts(tuple(told), viewer) if isinstance(f, TrickTaken)]
        assert (taken[-1].leader, taken[-1].cards, taken[-1].winner) == (0, cards("2D 3D 4D 5D"), 3)
    for seat in range(4):  # the pass keeps it; the first card drops it
        after = RULES.apply(after, seat, lowest_three(after.hands[seat]))
        assert after.previous_hand is not None
    after = RULES.apply(after, after.turn, PlayCard(Card.parse("2C")))
    assert RULES.view(after, None).previous_hand is None


def test_h_r10_every_hand_of_a_game_ends_with_a_visible_final_trick() -> None:
    rng = random.Random(3)
    state = RULES.new_game(3)
    ended = 0
    while RULES.current_seats(state):
        seat = rng.choice(RULES.current_seats(state))
        action = rng.choice(list(RULES.legal_actions(state, seat)))
        after = RULES.apply(state, seat, action)
        if after.hand_scores != state.hand_scores:
            ended += 1
            finished = RULES.view(after, None).previous_hand
            assert finished is not None and isinstance(action, PlayCard)
            assert len(finished.tricks) == 13 and finished.tricks[:-1] == state.completed
            assert finished.tricks[-1].cards == (*state.trick.cards, action.card)
        state = after
    assert ended == len(state.hand_scores) >= 2


# -- folding the events reproduces the views ---------------------------------------------------


@dataclass
class Told:
    """What one viewer knows from the events it was told (and the opening view)."""

    viewer: int | None
    hand_number: int
    hand: set[Card]
    totals: tuple[int, ...] = (0, 0, 0, 0)
    hand_scores: list[tuple[int, ...]] = field(default_factory=list)
    tricks: list[tuple[int, tuple[Card, ...], int, int]] = field(default_factory=list)
    trick: list[Card] = field(default_factory=list)
    broken: bool = False
    chosen: list[bool] = field(default_factory=lambda: [False] * 4)
    passed: tuple[Card, ...] = ()
    received: tuple[Card, ...] = ()
    tricks_won: list[int] = field(default_factory=lambda: [0] * 4)
    points: list[int] = field(default_factory=lambda: [0] * 4)
    previous: tuple[object, ...] | None = None
    winners: tuple[int, ...] = ()

    def fold(self, event: Event) -> None:
        fact = event.fact
        assert "seed" not in {f.name for f in dataclasses.fields(fact)}
        if isinstance(fact, PRIVATE):
            assert event.audience == fact.seat == self.viewer, f"{fact} told to {self.viewer}"
        else:
            assert event.audience is None, f"{fact} should be public"
        if isinstance(fact, PassMade):
            self.chosen[fact.seat] = True
        elif isinstance(fact, CardsPassed):
            self.passed = fact.cards
        elif isinstance(fact, CardsReceived):
            self.received = fact.cards
            self.hand = self.hand - set(self.passed) | set(fact.cards)
        elif isinstance(fact, CardPlayed):
            self.trick.append(fact.card)
            self.previous = None
            if fact.seat == self.viewer:
                self.hand.remove(fact.card)
        elif isinstance(fact, HeartsBroken):
            self.broken = True
        elif isinstance(fact, TrickTaken):
            assert fact.cards == tuple(self.trick)
            self.tricks.append((fact.leader, fact.cards, fact.winner, fact.points))
            self.trick = []
            self.tricks_won[fact.winner] += 1
            self.points[fact.winner] += fact.points
        elif isinstance(fact, HandScored):
            assert list(fact.points_taken) == self.points
            self.previous = (fact.hand_number, tuple(self.tricks), fact.points_taken, fact.scores)
            self.hand_scores.append(fact.scores)
            self.totals = fact.totals
        elif isinstance(fact, HandDealt):
            self.hand_number = fact.hand_number
            self.tricks, self.broken, self.chosen = [], False, [False] * 4
            self.passed = self.received = ()
            self.tricks_won, self.points = [0] * 4, [0] * 4
        elif isinstance(fact, CardsDealt):
            assert fact.hand_number == self.hand_number
            self.hand = set(fact.cards)
        elif isinstance(fact, GameOver):
            self.winners = fact.winners
            assert fact.totals == self.totals
        elif not isinstance(fact, LeadPassed):
            raise AssertionError(f"unknown event {fact}")

    def agrees_with(self, view: HeartsView) -> None:
        """The public facts (and the viewer's own cards) match the view."""
        shown = [
            (t.leader, t.cards, t.winner, trick_points(mask_of(t.cards)))
            for t in view.completed_tricks
        ]
        assert shown == self.tricks
        assert view.hand_number == self.hand_number
        assert view.totals == self.totals and list(view.hand_scores) == self.hand_scores
        assert view.hearts_broken == self.broken
        assert list(view.pass_submitted) == self.chosen
        assert list(view.tricks_won) == self.tricks_won and list(view.points_taken) == self.points
        assert view.winners == self.winners
        if view.trick is not None:
            assert list(view.trick.cards) == self.trick
        previous = view.previous_hand
        assert self.previous == (
            None
            if previous is None
            else (
                previous.hand_number,
                tuple(
                    (t.leader, t.cards, t.winner, trick_points(mask_of(t.cards)))
                    for t in previous.tricks
                ),
                previous.points_taken,
                previous.scores,
            )
        )
        assert set(view.hand) == self.hand
        if view.phase is not Phase.GAME_OVER:
            assert set(view.passed) == set(self.passed)
            assert set(view.received) == set(self.received)


CONFIGS = [
    HeartsConfig(target=40),
    HeartsConfig(target=30, all_hearts_lead=AllHeartsLead.PASS_LEAD, queen_breaks_hearts=True),
    HeartsConfig(target=60, moon_opponent_penalty=26),
]


@pytest.mark.parametrize("seed", range(24))
def test_h_r17_folding_each_viewers_events_gives_its_views(seed: int) -> None:
    """H-R2 .. H-R17 over whole random games: events and views tell the same story."""
    rules = HeartsRules(CONFIGS[seed % len(CONFIGS)])
    rng = random.Random(seed)
    state = rules.new_game(seed)
    viewers = (0, 1, 2, 3, None)
    told = {v: Told(v, 0, set(rules.view(state, v).hand)) for v in viewers}
    while seats := rules.current_seats(state):
        seat = rng.choice(seats)
        action = rng.choice(list(rules.legal_actions(state, seat)))
        after = rules.apply(state, seat, action)
        events = rules.events(state, seat, action, after)
        for viewer in viewers:
            for event in visible(events, viewer):
                told[viewer].fold(event)
            told[viewer].agrees_with(rules.view(after, viewer))
        state = after
    assert all(t.winners == state.winners for t in told.values())
