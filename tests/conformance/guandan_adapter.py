"""Conformance knowledge for Guandan (``seeds/guandan.md``, rules G-R1 .. G-R37).

Besides the bookkeeping the suite needs, the adapter re-reads on its own what each applied
action must have done: a play follows G-R16 against the top play and leaves the hand; a
trick ends only when every other active seat passed (G-R18); a new deal promotes the winners
(G-R24, G-R25), plays at their level and takes the strongest card as tribute (G-R31, G-R32);
a return is a low card (G-R35). So random matches also catch an error that the rules'
listing and check share.

Two decks: a kind appears twice, and copies are interchangeable, so the state cannot say
which copy is where. A seat's leak check therefore compares counts: copy numbers 0, 1, ...
name the copies a view shows, and the copies hidden from the viewer are numbered from the top
(1, then 0). The two sets meet exactly when the view shows more copies of a kind than the
cards hidden from it leave over.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from itertools import chain
from typing import Final

from engine_service.core.cards import Suit
from engine_service.core.protocol import Outcome
from engine_service.games.guandan.actions import GuandanAction, PassTurn, PlayCards, ReturnCard
from engine_service.games.guandan.cards import (
    BLACK_JOKER,
    COPIES,
    KIND_COUNT,
    RED_JOKER,
    Hand,
    deck,
    hand_of,
    is_wild,
    kind_of,
    kinds_in,
    rank_of,
    strength,
)
from engine_service.games.guandan.config import GuandanConfig
from engine_service.games.guandan.dealing import plays_since_dealt
from engine_service.games.guandan.events import (
    CardReturned,
    CardsDealt,
    CardsPlayed,
    ReturnChosen,
    TributePaid,
)
from engine_service.games.guandan.reading import Reading, Shape
from engine_service.games.guandan.rules import GuandanRules
from engine_service.games.guandan.state import (
    SEATS,
    TOP_LEVEL,
    GuandanState,
    Phase,
    partner_of,
    team_of,
)
from engine_service.games.guandan.view import GuandanView
from tests.conformance.adapter import CardId, Log
from tests.volume import volume

FULL_DECK: Final[Counter[Hashable]] = Counter(deck())
START_LEVEL: Final = 2
STEPS_BY_PARTNER_PLACE: Final = {2: 3, 3: 2, 4: 1}  # G-R24
RETURN_MAX_RANK: Final = 10  # G-R35
BOMB_ORDER: Final = {Shape.BOMB: 0, Shape.STRAIGHT_FLUSH: 1, Shape.JOKER_BOMB: 2}

IllegalMaker = Callable[
    [GuandanRules, GuandanState, random.Random], tuple[int, GuandanAction] | None
]
"""Builds one kind of illegal ``(seat, action)``, or ``None`` where that kind does not exist."""


def bomb_power(reading: Reading) -> tuple[int, int]:
    """G-R15: 4- and 5-bombs < straight flush < 6..10-bombs < the four jokers (size, tier)."""
    if reading.shape is Shape.JOKER_BOMB:
        return (99, 0)
    if reading.shape is Shape.STRAIGHT_FLUSH:
        return (5, 1)
    return (reading.size, 0)


def group_key(reading: Reading, level: int) -> int:
    """G-R12: sequences compare natural tops; other shapes the G-R3 strength of their rank."""
    return reading.rank if reading.shape.is_sequence else strength(reading.rank, level)


def beats_independently(new: Reading, top: Reading, level: int) -> bool:
    """G-R14 .. G-R16 read afresh: same shape and size, strictly higher; bombs by power."""
    if new.shape.is_bomb != top.shape.is_bomb:
        return new.shape.is_bomb
    if new.shape.is_bomb:
        new_power, top_power = bomb_power(new), bomb_power(top)
        if new_power != top_power:
            return new_power > top_power
    elif (new.shape, new.size) != (top.shape, top.size):
        return False
    return group_key(new, level) > group_key(top, level)


def check_play_fits_reading(play: PlayCards, level: int) -> None:
    """A few facts every reading implies about its cards, independent of the combination code."""
    reading = play.reading
    assert len(play.cards) == reading.size, f"{play}: size differs from the card count (G-R8)"
    naturals = [k for k in play.cards if not is_wild(k, level)]
    if reading.shape in (Shape.SINGLE, Shape.PAIR, Shape.TRIPLE, Shape.BOMB):
        assert all(rank_of(k) == reading.rank for k in naturals), f"{play}: mixed ranks (G-R8)"
    if reading.shape is Shape.JOKER_BOMB:
        assert sorted(play.cards) == [BLACK_JOKER] * 2 + [RED_JOKER] * 2, f"{play} (G-R15)"
    elif reading.shape.is_sequence or reading.shape is Shape.BOMB:
        assert all(k < BLACK_JOKER for k in play.cards), f"{play}: joker (G-R10)"
    elif reading.shape is Shape.FULL_HOUSE:
        jokers = [k for k in play.cards if k >= BLACK_JOKER]
        assert not jokers or jokers == [jokers[0]] * 2, f"{play}: jokers only as a pair (G-R10)"
    if reading.shape is Shape.STRAIGHT_FLUSH:
        suits = {k // 13 for k in naturals}
        assert len(suits) <= 1, f"{play}: a straight flush of several suits (G-R15)"


def check_return_is_low(config: GuandanConfig, before: GuandanState, seat: int, card: int) -> None:
    """G-R35: a returned card is a non-joker, non-wild 2..10 when the receiver holds one."""
    level = before.level

    def usual(kind: int) -> bool:
        excluded = config.return_excludes_level_rank and rank_of(kind) == level
        return (
            kind < BLACK_JOKER
            and not is_wild(kind, level)
            and rank_of(kind) <= RETURN_MAX_RANK
            and not excluded
        )

    if usual(card):
        return
    tribute = next(t for t in before.tributes if t.receiver == seat)
    hand = before.hands[seat]
    keeps_tribute = not config.return_may_be_tribute_card and hand[tribute.card] == 1
    held = [k for k in kinds_in(hand) if not (keeps_tribute and k == tribute.card)]
    assert not any(usual(k) for k in held), f"seat {seat} returned {card} holding a low card"
    lowest = min(strength(rank_of(k), level) for k in held)
    assert strength(rank_of(card), level) == lowest, f"return {card} is not the lowest (G-R35)"


def check_new_deal(config: GuandanConfig, before: GuandanState, after: GuandanState) -> None:
    """G-R4, G-R24, G-R25, G-R31 .. G-R33 on the first state of a new deal."""
    order = after.previous_order
    winners = team_of(order[0])
    assert partner_of(order[0]) in order, f"order {order} misses the winner's partner"
    steps = STEPS_BY_PARTNER_PLACE[order.index(partner_of(order[0])) + 1]
    expected = min(before.levels[winners] + steps, TOP_LEVEL)
    demoted = after.levels[winners] == START_LEVEL and before.level == TOP_LEVEL
    assert after.levels[winners] == expected or demoted, (
        f"team {winners} went from {before.levels[winners]} to {after.levels[winners]}, "
        f"expected {expected} (G-R24, G-R25)"
    )
    losers = 1 - winners
    assert after.levels[losers] in (before.levels[losers], START_LEVEL), "losers promoted"
    assert after.declarer == winners and after.level == after.levels[winners], "G-R4 level"
    for tribute in after.tributes:
        paid = strength(rank_of(tribute.card), after.level)
        kept = [
            strength(rank_of(k), after.level)
            for k in kinds_in(after.hands[tribute.payer])
            if not is_wild(k, after.level)
        ]
        assert not is_wild(tribute.card, after.level), "a wild paid as tribute (G-R31)"
        assert all(paid >= value for value in kept), f"tribute {tribute} is not the strongest"
    if len(after.tributes) == 2:
        first, second = after.tributes
        assert first.receiver == order[0], "the higher tribute goes to 1st place (G-R32)"
        assert strength(rank_of(first.card), after.level) >= strength(
            rank_of(second.card), after.level
        ), "the higher tribute goes to 1st place (G-R32)"
    if after.red_joker_holders:
        assert not after.tributes, "anti-tribute cancels tribute (G-R33)"
        assert all(after.hands[s][RED_JOKER] for s in after.red_joker_holders), "G-R33"


def check_trick_flow(before: GuandanState, seat: int, after: GuandanState) -> None:
    """G-R18: a pass ends the trick exactly when every other active seat has passed."""
    assert before.top is not None, "a pass with nothing to beat (G-R17)"
    active = {s for s in range(SEATS) if s not in before.finished}
    passers = {*before.passed, seat}
    if after.top is None:
        assert active - {before.top.seat} <= passers, "the trick ended before all passed"
    else:
        assert after.top == before.top and after.passed == (*before.passed, seat)


class GuandanAdapter:
    """The Guandan answers to :class:`tests.conformance.adapter.GameAdapter`."""

    # ace_attempts 0..3 with either consequence covers G-R27 without endless matches at A.
    int_ranges: Mapping[str, tuple[int, int]] = {"ace_attempts": (0, 3)}
    # A random match lasts about nine deals of ~130 actions (~0.13 s of checks per deal on one
    # core), and no option shortens it, so there are few "full-length" games (the defaults)
    # besides the random rule sets: 24 matches are about 220 deals and 29,000 checked actions,
    # ~30 s of CPU (make test plays 4 and 1). CONFORMANCE_GAMES plays more for a longer run.
    random_games = volume(4, 24)
    full_length_games = volume(1, 4)

    def deck(self) -> Counter[Hashable]:
        return FULL_DECK

    def all_cards(self, state: GuandanState, log: Log) -> Counter[Hashable]:
        """The hands plus every seat's plays of this deal (G-R17a)."""
        counts = [sum(column) for column in zip(*state.hands, *state.played, strict=True)]
        return Counter({kind: n for kind, n in enumerate(counts) if n})

    def hidden_cards(self, state: GuandanState, seat: int | None) -> frozenset[CardId]:
        """Copies in other hands, less those made public by tribute (G-R37), numbered downward."""
        hidden = [sum(column) for column in zip(*_other_hands(state, seat), strict=True)]
        for tribute in state.tributes:
            hidden[tribute.card] -= 1
            shown = state.phase is not Phase.RETURNING or tribute.receiver == seat
            if tribute.returned is not None and shown:
                hidden[tribute.returned] -= 1
        return _numbered(state.deal_number, tuple(hidden), downward=True)

    def visible_cards(self, view: GuandanView) -> frozenset[CardId]:
        """Every card a view shows, copies numbered upward.

        This deal's: hand, every seat's plays (G-R17a: out of every hand, so they add to the
        hand's copies; the round's plays and the top play are among them), tribute and
        returns. The previous deal's last round is labeled with the previous deal.
        """
        shown = list(hand_of(chain(view.hand, *view.played)))
        round_plays = Counter(chain.from_iterable(entry.cards for entry in view.round_history))
        top = Counter(view.top.cards if view.top is not None else ())
        assert not (round_plays | top) - Counter(chain(*view.played)), "a play not kept"
        for kind in chain.from_iterable((t.card, t.returned) for t in view.tributes):
            if kind is not None:
                shown[kind] += 1
        cards = _numbered(view.deal_number, tuple(shown), downward=False)
        if view.previous_deal is None:
            return cards
        last = Counter(chain.from_iterable(e.cards for e in view.previous_deal.last_plays))
        return cards | numbered_copies(view.previous_deal.deal_number, last)

    def event_cards(
        self, fact: object, before: GuandanState, after: GuandanState
    ) -> frozenset[CardId]:
        """The cards an event names, of the deal they belong to, copies numbered upward.

        A play belongs to the deal it was made in (``before``'s, even when it ended that deal);
        dealt, tribute and returned cards to ``after``'s. An anti-tribute names seats, not
        cards, as the view does (G-R33).
        """
        match fact:
            case CardsPlayed(cards=cards):
                return numbered_copies(before.deal_number, Counter(cards))
            case CardsDealt(cards=cards):
                return numbered_copies(after.deal_number, Counter(cards))
            case TributePaid(card=card) | ReturnChosen(card=card) | CardReturned(card=card):
                return numbered_copies(after.deal_number, Counter((card,)))
        return frozenset()

    def sample_illegal(
        self, rules: GuandanRules, state: GuandanState, rng: random.Random
    ) -> tuple[int, GuandanAction]:
        if state.phase is Phase.RETURNING:
            makers = RETURNING_MAKERS
        elif state.phase is Phase.PLAYING:
            makers = PLAYING_MAKERS
        else:
            makers = (_anything_after_game_over,)
        candidates = [made for maker in makers if (made := maker(rules, state, rng)) is not None]
        return rng.choice(candidates)

    def check_transition(
        self,
        config: GuandanConfig,
        before: GuandanState,
        action: GuandanAction,
        after: GuandanState,
    ) -> None:
        """The play, pass or return followed the rules read afresh; a new deal is set up right."""
        new_deal = after.deal_number == before.deal_number + 1
        if new_deal:
            check_new_deal(config, before, after)
        assert new_deal or after.deal_number == before.deal_number, "deals skipped"
        if isinstance(action, ReturnCard):
            (seat,) = {t.receiver for t in after.tributes if t.returned is not None} - {
                t.receiver for t in before.tributes if t.returned is not None
            }
            check_return_is_low(config, before, seat, action.card)
        elif isinstance(action, PassTurn):
            check_trick_flow(before, before.turn, after)
        else:
            check_play_fits_reading(action, before.level)
            if before.top is not None:
                assert beats_independently(action.reading, before.top.reading, before.level), (
                    f"{action.reading} does not beat {before.top.reading} (G-R16)"
                )
            if not new_deal:
                assert after.played == plays_since_dealt(after), "plays not kept (G-R17a)"
            if not new_deal and after.phase is Phase.PLAYING:
                assert after.top is not None and after.top.cards == action.cards
                hand = list(before.hands[before.turn])
                for kind in action.cards:
                    hand[kind] -= 1
                assert tuple(hand) == after.hands[before.turn], "the hand did not lose the play"

    def check_scores(self, config: GuandanConfig, state: GuandanState) -> None:
        """Levels stay in 2..A, the deal is played at the declarer's level, hands are sound."""
        assert all(START_LEVEL <= level <= TOP_LEVEL for level in state.levels), state.levels
        if state.declarer is None:
            assert state.deal_number == 0 and state.level == START_LEVEL, "G-R4 first deal"
        else:
            assert state.level == state.levels[state.declarer] or state.phase is Phase.GAME_OVER
        assert all(len(hand) == KIND_COUNT for hand in state.hands)
        assert all(0 <= n <= COPIES for hand in state.hands for n in hand), "three copies"
        if state.phase is not Phase.GAME_OVER:
            for seat in state.finished:
                assert not any(state.hands[seat]), f"seat {seat} finished holding cards"
            assert state.phase is Phase.RETURNING or state.turn not in state.finished

    def check_outcome(self, config: GuandanConfig, state: GuandanState, outcome: Outcome) -> None:
        """G-R26: the winners are partners at A who won a deal at A with a 1-2 or 1-3 finish."""
        first = state.finished[0]
        assert outcome.winners == tuple(sorted((first, partner_of(first)))), outcome.winners
        assert state.level == TOP_LEVEL and state.levels[team_of(first)] == TOP_LEVEL, "G-R26"
        order = state.finished
        assert partner_of(first) in order[:3], f"partner last in {order} (G-R26)"
        assert outcome.scores == tuple(state.levels[team_of(s)] for s in range(SEATS))


def numbered_copies(deal: int, shown: Counter[int]) -> frozenset[CardId]:
    """The ids :meth:`GuandanAdapter.visible_cards` gives the cards ``shown`` (kind counts)."""
    return _numbered(deal, tuple(shown[kind] for kind in range(KIND_COUNT)), downward=False)


def _other_hands(state: GuandanState, seat: int | None) -> list[Hand]:
    return [hand for other, hand in enumerate(state.hands) if other != seat]


@functools.lru_cache(maxsize=1 << 12)
def _numbered(deal: int, counts: tuple[int, ...], *, downward: bool) -> frozenset[CardId]:
    """Card ids for ``counts[kind]`` copies of each kind, numbered from 0 or from the top."""
    ids = _deal_ids(deal)
    return frozenset(
        ids[kind][COPIES - 1 - copy if downward else copy]
        for kind, count in enumerate(counts)
        for copy in range(min(count, COPIES))
    )


@functools.lru_cache(maxsize=64)
def _deal_ids(deal: int) -> tuple[tuple[CardId, ...], ...]:
    """Every card id of a deal, by kind and copy; made once, as ids are compared often."""
    return tuple(
        tuple(CardId(deal, kind, copy) for copy in range(COPIES)) for kind in range(KIND_COUNT)
    )


@functools.cache
def _hand_kinds(hand: Hand) -> tuple[int, ...]:
    return kinds_in(hand)


def _single(kind: int) -> PlayCards:
    return PlayCards.of((kind,), Reading(Shape.SINGLE, rank_of(kind), 1))


def _some_card(hand: Hand, rng: random.Random) -> int | None:
    kinds = _hand_kinds(hand)
    return rng.choice(kinds) if kinds else None


def _out_of_turn(
    _rules: GuandanRules, state: GuandanState, rng: random.Random
) -> tuple[int, GuandanAction]:
    seat = rng.choice([s for s in range(SEATS) if s != state.turn])
    kind = _some_card(state.hands[seat], rng)
    return seat, _single(kind if kind is not None else rng.randrange(KIND_COUNT))


def _leader_passes(
    _rules: GuandanRules, state: GuandanState, _rng: random.Random
) -> tuple[int, GuandanAction] | None:
    return (state.turn, PassTurn()) if state.top is None else None


def _card_not_in_hand(
    _rules: GuandanRules, state: GuandanState, rng: random.Random
) -> tuple[int, GuandanAction]:
    hand = state.hands[state.turn]
    kind = rng.choice([k for k in range(KIND_COUNT) if not hand[k]])
    return state.turn, _single(kind)


def _one_card_as_pair(
    _rules: GuandanRules, state: GuandanState, rng: random.Random
) -> tuple[int, GuandanAction] | None:
    kind = _some_card(state.hands[state.turn], rng)
    if kind is None:
        return None
    return state.turn, PlayCards.of((kind,), Reading(Shape.PAIR, rank_of(kind), 2))


def _mixed_pair(
    _rules: GuandanRules, state: GuandanState, rng: random.Random
) -> tuple[int, GuandanAction] | None:
    naturals = [k for k in _hand_kinds(state.hands[state.turn]) if not is_wild(k, state.level)]
    by_rank = {rank_of(k): k for k in naturals}
    if len(by_rank) < 2:
        return None
    low, high = sorted(rng.sample(sorted(by_rank), 2))
    cards = (by_rank[low], by_rank[high])
    return state.turn, PlayCards.of(cards, Reading(Shape.PAIR, high, 2))


def _too_weak(
    _rules: GuandanRules, state: GuandanState, rng: random.Random
) -> tuple[int, GuandanAction] | None:
    """A single that cannot beat the top: a lower single, or any single against another shape."""
    if state.top is None:
        return None
    kinds = _hand_kinds(state.hands[state.turn])
    top = state.top.reading
    if top.shape is Shape.SINGLE:
        limit = strength(top.rank, state.level)
        kinds = tuple(k for k in kinds if strength(rank_of(k), state.level) <= limit)
    if not kinds:
        return None
    return state.turn, _single(rng.choice(kinds))


def _return_while_playing(
    _rules: GuandanRules, state: GuandanState, rng: random.Random
) -> tuple[int, GuandanAction] | None:
    kind = _some_card(state.hands[state.turn], rng)
    return None if kind is None else (state.turn, ReturnCard(kind))


def _play_while_returning(
    _rules: GuandanRules, state: GuandanState, rng: random.Random
) -> tuple[int, GuandanAction]:
    seat = rng.randrange(SEATS)
    kind = _some_card(state.hands[seat], rng)
    action: GuandanAction = PassTurn() if kind is None else _single(kind)
    return seat, action


def _return_by_non_receiver(
    _rules: GuandanRules, state: GuandanState, rng: random.Random
) -> tuple[int, GuandanAction] | None:
    receivers = {t.receiver for t in state.tributes}
    seat = rng.choice([s for s in range(SEATS) if s not in receivers])
    kind = _some_card(state.hands[seat], rng)
    return None if kind is None else (seat, ReturnCard(kind))


def _pending_receiver(state: GuandanState, rng: random.Random) -> int:
    return rng.choice([t.receiver for t in state.tributes if t.returned is None])


def _return_not_held(
    _rules: GuandanRules, state: GuandanState, rng: random.Random
) -> tuple[int, GuandanAction]:
    seat = _pending_receiver(state, rng)
    hand = state.hands[seat]
    return seat, ReturnCard(rng.choice([k for k in range(KIND_COUNT) if not hand[k]]))


def _return_joker(
    _rules: GuandanRules, state: GuandanState, rng: random.Random
) -> tuple[int, GuandanAction] | None:
    seat = _pending_receiver(state, rng)
    jokers = [k for k in (BLACK_JOKER, RED_JOKER) if state.hands[seat][k]]
    return (seat, ReturnCard(rng.choice(jokers))) if jokers else None


def _second_return(
    _rules: GuandanRules, state: GuandanState, rng: random.Random
) -> tuple[int, GuandanAction] | None:
    done = [t.receiver for t in state.tributes if t.returned is not None]
    if not done:
        return None
    seat = rng.choice(done)
    kind = _some_card(state.hands[seat], rng)
    return None if kind is None else (seat, ReturnCard(kind))


def _anything_after_game_over(
    _rules: GuandanRules, _state: GuandanState, rng: random.Random
) -> tuple[int, GuandanAction]:
    seat = rng.randrange(SEATS)
    return seat, rng.choice([PassTurn(), ReturnCard(kind_of(2, Suit.CLUBS))])


PLAYING_MAKERS: Final[Sequence[IllegalMaker]] = (
    _out_of_turn,
    _leader_passes,
    _card_not_in_hand,
    _one_card_as_pair,
    _mixed_pair,
    _too_weak,
    _return_while_playing,
)
RETURNING_MAKERS: Final[Sequence[IllegalMaker]] = (
    _play_while_returning,
    _return_by_non_receiver,
    _return_not_held,
    _return_joker,
    _second_return,
)
