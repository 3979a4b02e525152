"""Events: what each action made happen, who may learn it, and that they rebuild the views.

Plays, passes and tricks (G-R16 .. G-R19), finishing and the deal's end (G-R21, G-R22), levels
(G-R24 .. G-R27), the new deal dealt privately (G-R1, G-R30), tribute, anti-tribute and
returns (G-R31 .. G-R37) and the match's end (G-R26); then a property over random matches:
folding the events a viewer may see gives the same public facts as that viewer's views.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field, replace

import pytest
from guandan_match_positions import before_finish, position, returning, single, top

from engine_service.codec.guandan import GuandanCodec
from engine_service.core.events import Event, visible
from engine_service.games.guandan.actions import PassTurn, ReturnCard, parse_action
from engine_service.games.guandan.cards import hand_of, kinds_in, parse_kind
from engine_service.games.guandan.config import FailAtAce, GuandanConfig
from engine_service.games.guandan.events import (
    AntiTribute,
    CardReturned,
    CardsDealt,
    CardsPlayed,
    DealEnded,
    DealStarted,
    LevelChanged,
    MatchOver,
    PlayerFinished,
    ReturnChosen,
    TributePaid,
    TrickWon,
    TurnPassed,
)
from engine_service.games.guandan.reading import Reading
from engine_service.games.guandan.rules import GuandanRules
from engine_service.games.guandan.state import (
    DealResult,
    GuandanState,
    Phase,
    RoundEntry,
    Tribute,
)
from engine_service.games.guandan.view import GuandanView

RULES = GuandanRules()
VIEWERS = (0, 1, 2, 3, None)
ANTI_TRIBUTE_SEED = 8
"""After a 1-2 finish, this seed deals one red joker to each payer, seats 1 and 3 (G-R33)."""


def act(
    rules: GuandanRules, state: GuandanState, text: str
) -> tuple[GuandanState, tuple[Event, ...]]:
    """Apply a move of the seat on turn (text form); the state after and the events."""
    move = parse_action(text)
    after = rules.apply(state, state.turn, move)
    return after, rules.events(state, state.turn, move, after)


def facts(events: tuple[Event, ...], viewer: int | None = None) -> list[object]:
    """The facts ``viewer`` may see."""
    return [event.fact for event in visible(events, viewer)]


def entry(seat: int, reading: str, cards: str) -> RoundEntry:
    """A play of the round history, like :func:`top`."""
    played = top(seat, reading, cards)
    return RoundEntry(seat, played.cards, played.reading)


def test_g_r16_a_play_is_told_to_everyone_with_its_reading_and_opens_the_round() -> None:
    """G-R13, G-R16: the cards and the declared reading are public, and so is the round."""
    state = position(["3C 9C", "4D 5D", "6D 7D", "8D TD"], turn=0)
    after, events = act(RULES, state, "play single:3:1 3C")
    played = CardsPlayed(0, (parse_kind("3C"),), Reading.parse("single:3:1"))
    assert events == (Event(played),)
    for viewer in VIEWERS:
        assert RULES.view(after, viewer).round_history == (entry(0, "single:3:1", "3C"),)


def test_g_r17_a_pass_is_told_and_joins_the_round() -> None:
    state = position(["3C 9C", "4D 5D", "6D 7D", "8D TD"], turn=0)
    after, _ = act(RULES, state, "play single:3:1 3C")
    after, events = act(RULES, after, "pass")
    assert events == (Event(TurnPassed(1)),)
    assert RULES.view(after, None).round_history == (
        entry(0, "single:3:1", "3C"),
        RoundEntry(1),
    )


def test_g_r18_the_last_pass_wins_the_trick_and_the_round_stays_until_the_next_lead() -> None:
    state = position(["3C 9C", "4D 5D", "6D 7D", "8D TD"], turn=0)
    state, _ = act(RULES, state, "play single:3:1 3C")
    state, _ = act(RULES, state, "pass")
    state, _ = act(RULES, state, "pass")
    state, events = act(RULES, state, "pass")
    assert facts(events) == [TurnPassed(3), TrickWon(winner=0, leader=0)]
    view = RULES.view(state, 2)
    assert view.top is None
    assert [e.seat for e in view.round_history] == [0, 1, 2, 3]
    state, _ = act(RULES, state, "play single:9:1 9C")
    assert RULES.view(state, 2).round_history == (entry(0, "single:9:1", "9C"),)


def test_g_r19_g_r20_going_out_is_told_with_the_place_and_jiefeng_names_the_partner() -> None:
    state = position(["3C", "4D 5D", "6D 7D", "8D TD"], turn=0)
    state, events = act(RULES, state, "play single:3:1 3C")
    assert facts(events)[1:] == [PlayerFinished(0, 1)]
    for _ in range(3):
        state, events = act(RULES, state, "pass")
    assert facts(events) == [TurnPassed(3), TrickWon(winner=0, leader=2)]


def test_g_r22_g_r24_a_deal_end_tells_the_order_the_promotion_and_the_level_change() -> None:
    """A 1-3 finish: +2 for the winners (G-R24), the last seat completes the order (G-R22)."""
    state, seat, move = before_finish((1, 0, 3), levels=(2, 5), level=5, declarer=1)
    after = RULES.apply(state, seat, move)
    told = facts(RULES.events(state, seat, move, after))
    assert told[1:4] == [
        PlayerFinished(3, 3),
        DealEnded(deal_number=1, order=(1, 0, 3, 2), team=1, steps=2, levels=(2, 7)),
        LevelChanged(team=1, before=5, after=7),
    ]
    assert told[4] == DealStarted(deal_number=2, level=7, declarer=1, leader=2)  # G-R36


def test_g_r25_promotion_stops_at_a() -> None:
    state, seat, move = before_finish((0, 2), levels=(13, 2), level=13, declarer=0)
    after = RULES.apply(state, seat, move)
    ended = facts(RULES.events(state, seat, move, after))[2:4]
    assert ended == [DealEnded(1, (0, 2), 0, 1, (14, 2)), LevelChanged(0, 13, 14)]


def test_g_r27_a_demotion_to_two_is_a_level_change() -> None:
    """A 1-4 win at A on the last attempt keeps A, then drops back to 2 (G-R27 options)."""
    rules = GuandanRules(GuandanConfig(ace_attempts=1, fail_at_ace=FailAtAce.DEMOTE_TO_TWO))
    state, seat, move = before_finish((0, 1, 3), levels=(14, 9), level=14, declarer=0)
    after = rules.apply(state, seat, move)
    told = facts(rules.events(state, seat, move, after))
    assert DealEnded(1, (0, 1, 3, 2), 0, 0, (2, 9)) in told
    assert LevelChanged(0, 14, 2) in told


def test_g_r26_the_match_winning_play_tells_the_deal_end_and_the_winners() -> None:
    state, seat, move = before_finish((0, 2), levels=(14, 3), level=14, declarer=0)
    after = RULES.apply(state, seat, move)
    told = facts(RULES.events(state, seat, move, after))
    assert told[1:] == [
        PlayerFinished(2, 2),
        DealEnded(1, (0, 2), 0, 0, (14, 3)),
        MatchOver((0, 2)),
    ]
    assert after.phase is Phase.GAME_OVER
    assert RULES.view(after, None).round_history[-1] == RoundEntry(seat, move.cards, move.reading)
    # The last deal stays on view for good, as every deal does until the next one: no
    # promotion past A, the levels as they were, its last round ending with the winning play.
    last = RULES.view(after, 1).previous_deal
    assert last is not None
    assert (last.deal_number, last.order, last.team, last.steps) == (1, (0, 2), 0, 0)
    assert last.levels_before == last.levels == (14, 3)
    assert last.last_plays[-1] == RoundEntry(seat, move.cards, move.reading)


def test_g_r1_g_r30_a_new_deal_is_dealt_privately_and_only_tribute_cards_are_public() -> None:
    state, seat, move = before_finish((0, 2))
    after = RULES.apply(state, seat, move)
    events = RULES.events(state, seat, move, after)
    dealt = [e for e in events if isinstance(e.fact, CardsDealt)]
    assert [(e.audience, e.fact.seat) for e in dealt] == [(s, s) for s in range(4)]
    paid = {t.payer: t.card for t in after.tributes}
    got = {t.receiver: t.card for t in after.tributes}
    for event in dealt:
        fact = event.fact
        hand = Counter(kinds_in(after.hands[fact.seat]))
        if fact.seat in paid:
            hand[paid[fact.seat]] += 1
        if fact.seat in got:
            hand[got[fact.seat]] -= 1
        assert Counter(fact.cards) == +hand  # as dealt: before the tribute moved (G-R30)
        assert len(fact.cards) == 27
    public_cards = [f for f in facts(events) if isinstance(f, CardsDealt)]
    assert not public_cards
    assert facts(events)[-2:] == [TributePaid(t.payer, t.receiver, t.card) for t in after.tributes]


def test_g_r32_g_r37_double_tribute_is_public_and_previous_deal_stays_until_the_first_play() -> (
    None
):
    state, seat, move = before_finish((0, 2))
    after = RULES.apply(state, seat, move)
    assert after.phase is Phase.RETURNING and len(after.tributes) == 2
    result = RULES.view(after, 1).previous_deal
    assert result == DealResult(
        deal_number=1,
        level=2,
        order=(0, 2),
        team=0,
        steps=3,
        levels_before=(2, 2),
        levels=(5, 2),
        last_plays=(RoundEntry(seat, move.cards, move.reading),),
    )
    for tribute in after.tributes:
        card = RULES.legal_actions(after, tribute.receiver)[0]
        after = RULES.apply(after, tribute.receiver, card)
        assert RULES.view(after, None).previous_deal == result
    assert after.phase is Phase.PLAYING and RULES.view(after, 3).previous_deal == result
    opening = RULES.legal_actions(after, after.turn)[0]
    after = RULES.apply(after, after.turn, opening)
    assert RULES.view(after, 3).previous_deal is None


@pytest.mark.parametrize("announce", [True, False])
def test_g_r33_anti_tribute_tells_the_red_joker_holders_only_when_announced(
    announce: bool,
) -> None:
    rules = GuandanRules(GuandanConfig(announce_anti_tribute=announce))
    state, seat, move = before_finish((0, 2), seed=ANTI_TRIBUTE_SEED)
    after = rules.apply(state, seat, move)
    assert after.anti_tribute
    told = facts(rules.events(state, seat, move, after))
    holders = (1, 3) if announce else ()
    assert told[-1] == AntiTribute(payers=(1, 3), red_joker_holders=holders)
    assert not any(isinstance(f, TributePaid) for f in told)
    assert rules.view(after, 0).red_joker_holders == holders


def test_g_r35_g_r37_a_return_is_private_until_every_return_is_in() -> None:
    tributes = (Tribute(1, 0, parse_kind("AS")), Tribute(3, 2, parse_kind("KD")))
    state = returning(["AS 3C 4C", "5C 6C", "KD 7C 8C", "9C TC"], tributes)
    after = RULES.apply(state, 0, ReturnCard(parse_kind("3C")))
    events = RULES.events(state, 0, ReturnCard(parse_kind("3C")), after)
    chosen = ReturnChosen(returner=0, payer=1, card=parse_kind("3C"))
    assert events == (Event(chosen, audience=0),)
    assert [facts(events, viewer) for viewer in VIEWERS] == [[chosen], [], [], [], []]
    last = ReturnCard(parse_kind("7C"))
    done = RULES.apply(after, 2, last)
    assert facts(RULES.events(after, 2, last, done), None) == [
        CardReturned(0, 1, parse_kind("3C")),
        CardReturned(2, 3, parse_kind("7C")),
    ]


def test_g_r35_a_single_return_is_public_at_once() -> None:
    state = returning(["AS 3C", "5C 6C", "7C", "9C TC"], [Tribute(3, 0, parse_kind("AS"))])
    move = ReturnCard(parse_kind("3C"))
    after = RULES.apply(state, 0, move)
    assert RULES.events(state, 0, move, after) == (Event(CardReturned(0, 3, parse_kind("3C"))),)


def test_every_event_encodes_and_an_unknown_fact_is_refused() -> None:
    """The codec has a message for each event (the conformance suite encodes them all too)."""
    codec = GuandanCodec()
    message = codec.encode_event(TrickWon(1, 3))
    assert message.guandan.WhichOneof("event") == "trick_won"
    assert message.guandan.trick_won.leader == 3
    with pytest.raises(TypeError):
        codec.encode_event(object())


# -- folding events into views ------------------------------------------------------------


@dataclass
class Folded:
    """What one viewer knows from the first view and the events it was told since."""

    viewer: int | None
    deal_number: int
    levels: tuple[int, int]
    level: int
    declarer: int | None
    hand: Counter[int]
    round: list[RoundEntry] = field(default_factory=list)
    closed: bool = False
    finished: list[int] = field(default_factory=list)
    tributes: list[Tribute] = field(default_factory=list)
    anti_tribute: bool = False
    red_joker_holders: tuple[int, ...] = ()
    previous_order: tuple[int, ...] = ()
    previous_deal: DealResult | None = None
    winners: tuple[int, ...] = ()
    ended: tuple[DealEnded, tuple[int, int]] | None = None
    played: list[Counter[int]] = field(default_factory=lambda: [Counter() for _ in range(4)])

    @staticmethod
    def start(view: GuandanView) -> Folded:
        return Folded(
            view.seat, view.deal_number, view.levels, view.level, view.declarer, hand_of_view(view)
        )

    def fold(self, fact: object) -> None:
        """Learn one event: one case per event value."""
        match fact:
            case CardsPlayed(seat, cards, reading):
                if self.closed:
                    self.round, self.closed = [], False
                self.round.append(RoundEntry(seat, cards, reading))
                self.played[seat].update(cards)
                self.previous_deal = None
                if seat == self.viewer:
                    self.hand.subtract(cards)
            case TurnPassed(seat):
                self.round.append(RoundEntry(seat))
            case TrickWon():
                self.closed = True
            case PlayerFinished(seat, place):
                assert place == len(self.finished) + 1
                self.finished.append(seat)
            case DealEnded() as ended:
                self.ended = (ended, self.levels)
                self.levels = ended.levels
                self.finished = list(ended.order)
            case LevelChanged(team, before, after):
                assert self.ended is not None and self.ended[1][team] == before
                assert self.levels[team] == after
            case DealStarted(deal_number, level, declarer, _leader):
                self.previous_deal = self._ended_deal()
                self.previous_order = self.previous_deal.order
                self.deal_number, self.level, self.declarer = deal_number, level, declarer
                self.round, self.closed, self.finished, self.tributes = [], False, [], []
                self.anti_tribute, self.red_joker_holders = False, ()
                self.played = [Counter() for _ in range(4)]
            case CardsDealt(seat, cards):
                assert seat == self.viewer
                self.hand = Counter(cards)
            case TributePaid(payer, receiver, card):
                self.tributes.append(Tribute(payer, receiver, card))
                self._move(card, payer, receiver)
            case AntiTribute(_payers, holders):
                self.anti_tribute, self.red_joker_holders = True, holders
            case ReturnChosen(returner, _payer, card):
                self._returned(returner, card)
            case CardReturned(returner, payer, card):
                self._returned(returner, card)
                self._move(card, returner, payer)
            case MatchOver(winners):
                self.winners = winners
                self.previous_deal = self._ended_deal()  # the last deal stays in view

    def _ended_deal(self) -> DealResult:
        """The deal the last DealEnded told of, with the round that ended it."""
        assert self.ended is not None
        ended, before = self.ended
        return DealResult(
            ended.deal_number,
            self.level,
            ended.order,
            ended.team,
            ended.steps,
            before,
            ended.levels,
            tuple(self.round),
        )

    def _move(self, card: int, giver: int, taker: int) -> None:
        if self.viewer == giver:
            self.hand[card] -= 1
        if self.viewer == taker:
            self.hand[card] += 1

    def _returned(self, returner: int, card: int) -> None:
        self.tributes = [
            replace(t, returned=card) if t.receiver == returner else t for t in self.tributes
        ]

    def check(self, view: GuandanView, where: str) -> None:
        """The public facts (and the own hand) agree with ``view``."""
        assert view.round_history == tuple(self.round), where
        assert view.finished == tuple(self.finished), where
        assert (view.levels, view.level, view.declarer) == (
            self.levels,
            self.level,
            self.declarer,
        ), where
        assert view.deal_number == self.deal_number, where
        assert view.previous_deal == self.previous_deal, where
        assert view.previous_order == self.previous_order, where
        assert view.tributes == tuple(self.tributes), where
        assert (view.anti_tribute, view.red_joker_holders) == (
            self.anti_tribute,
            self.red_joker_holders,
        ), where
        assert view.winners == self.winners, where
        assert [Counter(kinds) for kinds in view.played] == self.played, where
        assert all(list(kinds) == sorted(kinds) for kinds in view.played), where
        assert hand_of_view(view) == +self.hand, where


def hand_of_view(view: GuandanView) -> Counter[int]:
    """The viewer's hand as kind counts (empty for a spectator)."""
    return Counter(view.hand)


CONFIGS = (
    GuandanConfig(),
    GuandanConfig(announce_anti_tribute=False, end_deal_on_double_win=False),
    GuandanConfig(ace_attempts=1, fail_at_ace=FailAtAce.DEMOTE_TO_TWO),
)


@pytest.mark.parametrize("match", range(6))
def test_folding_visible_events_rebuilds_every_viewers_public_facts(match: int) -> None:
    """G-R17, G-R17a, G-R18, G-R22, G-R24, G-R33, G-R37: a random match, checked at every step.

    For each seat and the spectator, the first view plus the events it may see give the
    round history, every seat's plays this deal, finishing order, levels, tribute and
    returns as that viewer sees them, the previous deal's result while it is shown, and (for
    a seat) its own hand.
    """
    config = CONFIGS[match % len(CONFIGS)]
    rules = GuandanRules(config)
    rng = random.Random(match)
    state = rules.new_game(1000 + match)
    folds = {viewer: Folded.start(rules.view(state, viewer)) for viewer in VIEWERS}
    step = 0
    deals_with_tribute = 0
    while seats := rules.current_seats(state):
        seat = rng.choice(seats)
        legal = rules.legal_actions(state, seat)
        plays = [a for a in legal if not isinstance(a, PassTurn)]
        # Mostly play, so that the random matches end in reasonable time.
        action = rng.choice(plays) if plays and rng.random() < 0.7 else rng.choice(legal)
        after = rules.apply(state, seat, action)
        events = rules.events(state, seat, action, after)
        deals_with_tribute += any(isinstance(e.fact, TributePaid) for e in events)
        for viewer, folded in folds.items():
            for event in visible(events, viewer):
                folded.fold(event.fact)
            folded.check(rules.view(after, viewer), f"match {match} step {step} seat {viewer}")
        state, step = after, step + 1
    assert state.phase is Phase.GAME_OVER and deals_with_tribute


def test_a_play_in_hand_built_positions_has_no_history_before_it() -> None:
    """Positions built by tests start with an empty round; the first lead opens one."""
    state = position(["3C 9C", "4D", "6D", "8D"], turn=0)
    assert state.round_history == () and state.previous_deal is None
    after = RULES.apply(state, 0, single("9C"))
    assert after.round_history == (RoundEntry(0, (parse_kind("9C"),), Reading.parse("single:9:1")),)
    assert hand_of(kinds_in(after.hands[0])) == after.hands[0]
