"""Conformance knowledge for Hearts (``seeds/hearts.md``, rules H-R1 .. H-R17).

Besides the bookkeeping the suite needs (cards, secrets, scores), the adapter re-reads the
play rules (H-R3 .. H-R7) and trick scoring (H-R6, H-R10, H-R11) on its own, so that random
games also catch a legality or scoring error that the rules' listing and check share.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from itertools import chain
from typing import Final

from engine_service.core.cards import CARDS, SUIT_MASKS, SUIT_SIZE, Card, Suit, cards_in, mask_of
from engine_service.core.protocol import Outcome
from engine_service.games.hearts.actions import HeartsAction, PassCards, PlayCard
from engine_service.games.hearts.config import ClassicTie, FirstTrickBan, HeartsConfig, Variant
from engine_service.games.hearts.events import (
    CardPlayed,
    CardsDealt,
    CardsPassed,
    CardsReceived,
    HeartsBroken,
    TrickTaken,
)
from engine_service.games.hearts.rules import HeartsRules
from engine_service.games.hearts.scoring import HEARTS_MASK, QUEEN_OF_SPADES, trick_points
from engine_service.games.hearts.state import HAND_SIZE, PASS_SIZE, SEATS, HeartsState, Phase, Trick
from engine_service.games.hearts.view import HeartsView
from tests.conformance.adapter import CardId, Log
from tests.volume import volume

HEARTS_POINTS: Final = 26  # H-R10: 13 hearts + QS
FULL_DECK: Final[Counter[Hashable]] = Counter(CARDS)
TWO_OF_CLUBS: Final = Card.parse("2C")

IllegalMaker = Callable[[HeartsRules, HeartsState, random.Random], tuple[int, HeartsAction]]
"""Builds one kind of illegal ``(seat, action)`` for a state where that kind exists."""


def trick_winner(trick: Trick) -> int:
    """The seat that played the highest card of the suit led (H-R6), computed independently."""
    led = trick.cards[0] // SUIT_SIZE
    best = max((c for c in trick.cards if c // SUIT_SIZE == led), key=int)
    return trick.seat_of(trick.cards.index(best))


def expected_hand_score(raw: Sequence[int], config: HeartsConfig) -> tuple[int, ...]:
    """H-R10/H-R11: the raw points, or 0 for the moon shooter and the penalty for the rest."""
    if HEARTS_POINTS not in raw:
        return tuple(raw)
    return tuple(0 if p == HEARTS_POINTS else config.moon_opponent_penalty for p in raw)


def check_play_follows_rules(config: HeartsConfig, before: HeartsState, card: Card) -> None:
    """H-R3/H-R4/H-R5/H-R7 read afresh, so that a wrong legality mask cannot pass unseen."""
    hand, trick = before.hands[before.turn], before.trick.cards
    first_trick = before.tricks_played == 0
    if not trick:
        assert not first_trick or card == TWO_OF_CLUBS, f"first lead {card} (H-R3)"
        if card.suit is Suit.HEARTS and not before.hearts_broken:
            assert not hand & ~HEARTS_MASK, f"led {card} unbroken, holding others (H-R7)"
        return
    led = trick[0].suit
    if hand & SUIT_MASKS[led]:
        assert card.suit is led, f"{card} on a {led.name.lower()} lead (H-R4)"
    elif first_trick:
        banned = QUEEN_OF_SPADES.bit
        if config.first_trick_ban is FirstTrickBan.QUEEN_OF_SPADES_AND_HEARTS:
            banned |= HEARTS_MASK
        assert not card.bit & banned or not hand & ~banned, f"{card} on the first trick (H-R5)"


class HeartsAdapter:
    """The Hearts answers to :class:`tests.conformance.adapter.GameAdapter`."""

    # Targets up to 20 end most games within 1-3 hands, so 2000 games fit the time budget and
    # nearly every hand runs the end-of-game check (H-R12 .. H-R17); full-length games to the
    # default target of 100 are played separately, and fewer.
    int_ranges: Mapping[str, tuple[int, int]] = {
        "target": (1, 20),
        "moon_opponent_penalty": (0, 26),
    }
    random_games = volume(200, 2000)

    def deck(self) -> Counter[Hashable]:
        return FULL_DECK

    def all_cards(self, state: HeartsState, log: Log) -> Counter[Hashable]:
        """Hands, the current trick, and the tricks completed this hand (from the log).

        The state keeps no taken cards, so they come from the log: the plays before the
        current trick's, ``4 * tricks_played`` of them. Any error in the hands, the trick or
        the trick count then shows up as a missing or duplicated card.
        """
        taken = _recent_plays(log, skip=len(state.trick.cards), take=4 * state.tricks_played)
        return Counter(chain(*map(cards_in, state.hands), state.trick.cards, taken))

    def hidden_cards(self, state: HeartsState, seat: int | None) -> frozenset[CardId]:
        """Other seats' hands and pending passes, minus the cards ``seat`` itself passed them."""
        deal = state.hand_number
        hidden: frozenset[CardId] = frozenset()
        for other in range(SEATS):
            if other != seat:
                hidden |= _dealt_mask(deal, state.hands[other])
                if state.phase is Phase.PASSING:
                    hidden |= _dealt_mask(deal, state.passed[other])
        if seat is not None and state.phase is not Phase.PASSING:
            hidden -= _dealt_mask(deal, state.passed[seat])
        return hidden

    def visible_cards(self, view: HeartsView) -> frozenset[CardId]:
        """Every card a view shows, each of its own deal.

        All belong to the current deal (a new deal clears the current hand's fields) except
        ``previous_hand``'s tricks, which are of the deal that hand was played with: the same
        faces may sit in new hands, which is no leak.
        """
        deal = view.hand_number
        visible = _dealt(deal, view.hand) | _dealt(deal, view.passed) | _dealt(deal, view.received)
        for trick in (view.trick, view.last_trick, *view.completed_tricks):
            if trick is not None:
                visible |= _dealt(deal, trick.cards)
        if view.previous_hand is not None:
            for trick in view.previous_hand.tricks:
                visible |= _dealt(view.previous_hand.hand_number, trick.cards)
        return visible

    def event_cards(
        self, fact: object, before: HeartsState, after: HeartsState
    ) -> frozenset[CardId]:
        """The cards an event names, as cards of the deal they belong to.

        Passes, plays and tricks happen in ``before``'s deal (the 52nd card's trick too,
        though ``after`` is already the next deal); dealt cards are of ``after``'s.
        """
        deal = before.hand_number
        match fact:
            case CardsPassed(cards=cards) | CardsReceived(cards=cards) | TrickTaken(cards=cards):
                return _dealt(deal, cards)
            case CardPlayed(card=card) | HeartsBroken(card=card):
                return _dealt(deal, (card,))
            case CardsDealt(hand_number=number, cards=cards):
                assert number == after.hand_number, f"{fact} in deal {after.hand_number}"
                return _dealt(number, cards)
        return frozenset()

    def sample_illegal(
        self,
        rules: HeartsRules,
        state: HeartsState,
        rng: random.Random,
    ) -> tuple[int, HeartsAction]:
        makers: list[IllegalMaker]
        if state.phase is Phase.PASSING:
            makers = [_short_pass, _long_pass, _pass_of_foreign_card, _play_while_passing]
            if any(state.passed):
                makers.append(_second_pass)
        elif state.phase is Phase.PLAYING:
            makers = [_card_not_in_hand, _play_out_of_turn, _pass_while_playing]
            if state.hands[state.turn] & ~rules.playable(state, state.turn):
                makers.append(_unplayable_card)
        else:
            makers = [_play_after_game_over]
        return rng.choice(makers)(rules, state, rng)

    def check_transition(
        self, config: HeartsConfig, before: HeartsState, action: HeartsAction, after: HeartsState
    ) -> None:
        """The play was legal; a finished trick's points go to its winner; hands score right."""
        if not isinstance(action, PlayCard):
            return
        check_play_follows_rules(config, before, action.card)
        if len(before.trick.cards) != SEATS - 1:
            return
        done = Trick(before.trick.leader, (*before.trick.cards, action.card))
        winner = trick_winner(done)
        points = trick_points(mask_of(done.cards))
        if before.tricks_played + 1 < HAND_SIZE:
            assert after.last_trick == done, f"last trick {after.last_trick}, played {done}"
            assert after.completed == (*before.completed, done), "trick history"
            assert after.tricks_won[winner] == before.tricks_won[winner] + 1, "H-R6 winner"
            assert after.points[winner] == before.points[winner] + points, "H-R10 trick points"
            assert sum(after.points) == sum(before.points) + points, "points went elsewhere"
            return
        raw = list(before.points)
        raw[winner] += points
        assert sum(raw) == HEARTS_POINTS, f"hand points {raw} do not total 26 (H-R10)"
        assert after.hand_scores == (*before.hand_scores, expected_hand_score(raw, config)), (
            f"hand scored {after.hand_scores[-1]} from raw points {raw} (H-R11)"
        )
        finished = after.previous_hand
        assert finished is not None, "the finished hand is not kept"
        assert finished.tricks == (*before.completed, done), "finished hand's tricks"
        assert finished.hand_number == before.hand_number
        assert finished.points_taken == tuple(raw)
        assert finished.scores == after.hand_scores[-1]

    def check_scores(self, config: HeartsConfig, state: HeartsState) -> None:
        moon = sorted((0, *[config.moon_opponent_penalty] * 3))
        for scores in state.hand_scores:
            raw_ok = sum(scores) == HEARTS_POINTS and max(scores) < HEARTS_POINTS
            assert raw_ok or sorted(scores) == moon, f"malformed hand score {scores}"
        sums = tuple(sum(column) for column in zip(*state.hand_scores, strict=True))
        assert state.totals == (sums or (0,) * SEATS), f"totals {state.totals} != {sums}"
        assert sum(state.points) <= HEARTS_POINTS

    def check_outcome(self, config: HeartsConfig, state: HeartsState, outcome: Outcome) -> None:
        """H-R12/H-R13/H-R16: the game ends at the target, lowest total(s) win."""
        assert outcome.scores == state.totals
        assert max(outcome.scores) >= config.target, "ended below the target (H-R12)"
        lowest = min(outcome.scores)
        assert outcome.winners == tuple(s for s in range(SEATS) if outcome.scores[s] == lowest)
        shared_allowed = (
            config.variant is Variant.CLASSIC and config.classic_tie is ClassicTie.SHARED
        )
        assert len(outcome.winners) == 1 or shared_allowed, "tied win (H-R13, H-R16)"


@functools.lru_cache(maxsize=1 << 14)
def _dealt(deal: int, cards: tuple[Card, ...]) -> frozenset[CardId]:
    """``cards`` in deal ``deal``; cached, since a hand is looked at many times a step."""
    return frozenset(CardId(deal, card) for card in cards)


@functools.lru_cache(maxsize=1 << 14)
def _dealt_mask(deal: int, mask: int) -> frozenset[CardId]:
    return _dealt(deal, tuple(cards_in(mask)))


def _recent_plays(log: Log, skip: int, take: int) -> list[Card]:
    """The ``take`` cards played before the latest ``skip`` plays, newest first."""
    found: list[Card] = []
    for _, action in reversed(log):
        if len(found) == skip + take:
            break
        if isinstance(action, PlayCard):
            found.append(action.card)
    return found[skip:]


def _some_cards(mask: int, count: int, rng: random.Random) -> list[Card]:
    return rng.sample(list(cards_in(mask)), count)


def _outside(mask: int, rng: random.Random) -> Card:
    return rng.choice([c for c in CARDS if not mask >> c & 1])


def _pending_seat(state: HeartsState, rng: random.Random) -> int:
    return rng.choice([s for s in range(SEATS) if not state.passed[s]])


def _short_pass(
    _rules: HeartsRules, state: HeartsState, rng: random.Random
) -> tuple[int, HeartsAction]:
    seat = _pending_seat(state, rng)
    return seat, PassCards.of(*_some_cards(state.hands[seat], PASS_SIZE - 1, rng))


def _long_pass(
    _rules: HeartsRules, state: HeartsState, rng: random.Random
) -> tuple[int, HeartsAction]:
    seat = _pending_seat(state, rng)
    return seat, PassCards.of(*_some_cards(state.hands[seat], PASS_SIZE + 1, rng))


def _pass_of_foreign_card(
    _rules: HeartsRules, state: HeartsState, rng: random.Random
) -> tuple[int, HeartsAction]:
    seat = _pending_seat(state, rng)
    hand = state.hands[seat]
    return seat, PassCards.of(*_some_cards(hand, PASS_SIZE - 1, rng), _outside(hand, rng))


def _second_pass(
    _rules: HeartsRules, state: HeartsState, rng: random.Random
) -> tuple[int, HeartsAction]:
    seat = rng.choice([s for s in range(SEATS) if state.passed[s]])
    return seat, PassCards.of(*_some_cards(state.hands[seat], PASS_SIZE, rng))


def _play_while_passing(
    _rules: HeartsRules, state: HeartsState, rng: random.Random
) -> tuple[int, HeartsAction]:
    seat = rng.randrange(SEATS)
    return seat, PlayCard(*_some_cards(state.hands[seat], 1, rng))


def _card_not_in_hand(
    _rules: HeartsRules, state: HeartsState, rng: random.Random
) -> tuple[int, HeartsAction]:
    return state.turn, PlayCard(_outside(state.hands[state.turn], rng))


def _unplayable_card(
    rules: HeartsRules, state: HeartsState, rng: random.Random
) -> tuple[int, HeartsAction]:
    mask = state.hands[state.turn] & ~rules.playable(state, state.turn)
    return state.turn, PlayCard(*_some_cards(mask, 1, rng))


def _play_out_of_turn(
    _rules: HeartsRules, state: HeartsState, rng: random.Random
) -> tuple[int, HeartsAction]:
    seat = rng.choice([s for s in range(SEATS) if s != state.turn])
    hand = state.hands[seat]
    return seat, PlayCard(_some_cards(hand, 1, rng)[0] if hand else rng.choice(CARDS))


def _pass_while_playing(
    _rules: HeartsRules, state: HeartsState, rng: random.Random
) -> tuple[int, HeartsAction]:
    hand = state.hands[state.turn]
    cards = _some_cards(hand, PASS_SIZE, rng) if hand.bit_count() >= PASS_SIZE else []
    return state.turn, PassCards.of(*cards)


def _play_after_game_over(
    _rules: HeartsRules, _state: HeartsState, rng: random.Random
) -> tuple[int, HeartsAction]:
    return rng.randrange(SEATS), PlayCard(rng.choice(CARDS))
