"""The Hearts adapter of the search bot: full deals consistent with one seat's view.

What a seat knows about the hidden cards, and so what every sampled world respects:

- its own hand, and that every card played this hand (completed tricks and the current one)
  is in no hand;
- shown voids: a seat that did not follow the suit led holds none of that suit for the rest
  of the hand (cards only leave hands once play starts);
- its own pass: the cards it passed are in the receiver's hand unless the receiver has
  played them; the cards it received are its own (in hand or played by it);
- card counts: each seat holds 13 minus the cards it has played this hand.

While passing, every other seat holds 13 unknown cards; a seat that has already chosen its
pass gets one drawn from its sampled hand. The deal is drawn card by card, most constrained
first, each card to a seat that may hold it with chance proportional to the room left, and a
card goes to a seat only if the cards still to place can then be placed (Hall's condition
over the three other seats), so drawing never fails and needs no retries.

The value of a finished hand is its score as the rules count it (the moon and the Special
end rules of ``seeds/hearts.md`` included): the others' mean minus the seat's own, plus a
bonus for winning (or a malus for losing) when the hand ended the game.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations
from typing import Final

from engine_service.bots.hearts_heuristic import HeartsHeuristicBot, danger, heuristic_play
from engine_service.bots.search import ValueKind, seat_bot_action, weighted_choice
from engine_service.core.cards import (
    DECK_SIZE,
    FULL_DECK_MASK,
    SUIT_MASKS,
    SUIT_SIZE,
    Card,
    cards_in,
    mask_of,
)
from engine_service.games.hearts.actions import HeartsAction, PassCards, PlayCard
from engine_service.games.hearts.config import HeartsConfig
from engine_service.games.hearts.rules import TWO_OF_CLUBS, HeartsRules
from engine_service.games.hearts.scoring import (
    QUEEN_OF_SPADES,
    game_winners,
    score_hand,
    trick_points,
)
from engine_service.games.hearts.state import (
    HAND_SIZE,
    PASS_SIZE,
    SEATS,
    HeartsState,
    Phase,
    Trick,
    winning_index,
)
from engine_service.games.hearts.view import HeartsView

SEARCH_BUDGET: Final = 768
"""Playouts per Hearts decision: about 50 ms of CPU per move compiled (docs/bots.md figures).

It was 64 while every playout move went through views and the rules' ``apply``; the integer
playout (:func:`play_to_end`) and the precomputed Hall groups made a playout about a tenth as
costly, so twelve times the playouts fit the same CPU.
"""
PLAYOUT_BOT: Final = HeartsHeuristicBot()
"""Every seat's policy in a playout (:meth:`HeartsWorlds.playout_action`)."""
PASS_POOL: Final = 6
"""Passes searched: every 3 of the seat's 6 most dangerous cards (20 of the 286)."""
GAME_BONUS: Final = 26.0
"""Value of winning the game with a hand, against losing it: one hand's worth of points."""


class Knowledge:
    """The public facts about the hidden cards, gathered from one seat's view.

    Attributes:
        seat: the viewer.
        hands: the cards known to be in each seat's hand (the viewer's whole hand; its
            passed cards, not yet played, in the receiver's).
        allowed: for each seat, the cards it may hold (all of them for the viewer's own).
        counts: how many cards each seat holds.
        unknown: the cards whose holder is not known.
    """

    __slots__ = ("allowed", "counts", "hands", "seat", "unknown")

    def __init__(self, view: HeartsView) -> None:
        seat = view.seat
        if seat is None:
            raise ValueError("a spectator's view has no hand to search from")
        self.seat: int = seat
        tricks = tricks_of(view)
        played = 0
        played_by = [0] * SEATS
        allowed = [FULL_DECK_MASK] * SEATS
        for trick in tricks:
            led = trick.cards[0] // SUIT_SIZE if trick.cards else 0
            for index, card in enumerate(trick.cards):
                player = trick.seat_of(index)
                played |= card.bit
                played_by[player] += 1
                if card // SUIT_SIZE != led:
                    allowed[player] &= ~SUIT_MASKS[led]  # a shown void
        own = 0
        for card in view.hand:
            own |= card.bit
        hands = [0] * SEATS
        hands[seat] = own
        if view.phase is Phase.PLAYING and view.pass_direction.step:
            receiver = (seat + view.pass_direction.step) % SEATS
            for card in view.passed:
                if not played >> card & 1:
                    hands[receiver] |= card.bit
        self.hands: list[int] = hands
        self.allowed: list[int] = [mask & ~played for mask in allowed]
        self.counts: list[int] = [HAND_SIZE - n for n in played_by]
        self.counts[seat] = len(view.hand)
        taken = 0
        for mask in hands:
            taken |= mask
        self.unknown: int = FULL_DECK_MASK & ~played & ~taken


def tricks_of(view: HeartsView) -> list[Trick]:
    """The hand's tricks so far as ``view`` shows them: the completed ones and the current."""
    tricks = list(view.completed_tricks)
    if view.phase is Phase.PLAYING and view.trick is not None:
        tricks.append(view.trick)
    return tricks


def sample_hands(knowledge: Knowledge, rng: random.Random) -> tuple[int, ...]:
    """Each seat's hand in one world consistent with ``knowledge`` (module docstring)."""
    others = [s for s in range(SEATS) if s != knowledge.seat]
    groups = HALL_GROUPS[knowledge.seat]
    hands = list(knowledge.hands)
    room = [knowledge.counts[s] - hands[s].bit_count() for s in range(SEATS)]
    cards = list(cards_in(knowledge.unknown))
    kinds = [sum(1 << s for s in others if knowledge.allowed[s] >> card & 1) for card in cards]
    left = [0] * (1 << SEATS)  # cards still to place, by the set of seats that may take them
    for kind in kinds:
        left[kind] += 1
    order = sorted(range(len(cards)), key=lambda i: kinds[i].bit_count())
    for index in order:
        kind = kinds[index]
        left[kind] -= 1
        choices = [s for s in others if kind >> s & 1 and room[s] > 0]
        weights = []
        for s in choices:
            room[s] -= 1
            weights.append(room[s] + 1 if _placeable(left, room, groups) else 0)
            room[s] += 1
        if not any(weights):
            raise ValueError("the view's public facts admit no deal")
        holder = weighted_choice(choices, weights, rng)
        hands[holder] |= cards[index].bit
        room[holder] -= 1
    return tuple(hands)


Group = tuple[tuple[int, ...], tuple[int, ...]]
"""A set of seats for Hall's condition: the kinds (bitmasks of seats) within it, its seats."""


def _hall_groups(seat: int) -> tuple[Group, ...]:
    """Every non-empty set of the seats other than ``seat``, with the kinds it contains."""
    others = [s for s in range(SEATS) if s != seat]
    groups: list[Group] = []
    for size in range(1, len(others) + 1):
        for members in combinations(others, size):
            mask = sum(1 << s for s in members)
            kinds = tuple(kind for kind in range(1, 1 << SEATS) if not kind & ~mask)
            groups.append((kinds, members))
    return tuple(groups)


HALL_GROUPS: Final = tuple(_hall_groups(seat) for seat in range(SEATS))
"""The groups :func:`_placeable` checks, for each viewer: worked out once, not per card."""


def _placeable(left: list[int], room: list[int], groups: tuple[Group, ...]) -> bool:
    """Hall's condition: every group of seats has room for the cards only it may take.

    ``left[kind]`` counts the cards still to place that exactly the seats of bitmask ``kind``
    may take; ``groups`` are every non-empty set of the other seats (:data:`HALL_GROUPS`).
    """
    for kinds, members in groups:
        only = 0
        for kind in kinds:
            only += left[kind]
        space = 0
        for s in members:
            space += room[s]
        if only > space:
            return False
    return True


def _sampled_pass(hand: int, rng: random.Random) -> int:
    """Some 3 cards of ``hand``: a pass already chosen by a seat whose cards are unknown."""
    mask = 0
    for card in rng.sample(list(cards_in(hand)), PASS_SIZE):
        mask |= card.bit
    return mask


def world_of(view: HeartsView, hands: tuple[int, ...], rng: random.Random) -> HeartsState:
    """The full state of ``view`` with ``hands`` as the deal; passes drawn where unknown."""
    seat = view.seat
    assert seat is not None  # Knowledge refused a spectator
    passed = [0] * SEATS
    if view.phase is Phase.PASSING:
        for other in range(SEATS):
            if view.pass_submitted[other]:
                passed[other] = _sampled_pass(hands[other], rng)
        holder = next(s for s in range(SEATS) if hands[s] >> TWO_OF_CLUBS & 1)
        trick = Trick(holder)
        opener = holder
    else:
        passed[seat] = sum(card.bit for card in view.passed)
        if view.pass_direction.step:
            giver = (seat - view.pass_direction.step) % SEATS
            passed[giver] = sum(card.bit for card in view.received)
        assert view.trick is not None  # a playing view shows the trick
        trick = view.trick
        first = view.completed_tricks[0] if view.completed_tricks else trick
        opener = first.leader
    return HeartsState(
        seed=0,  # the real seed is secret; a playout stops before the next deal
        phase=view.phase,
        hand_number=view.hand_number,
        hands=hands,
        passed=tuple(passed),
        trick=trick,
        tricks_played=view.tricks_played,
        hearts_broken=view.hearts_broken,
        points=view.points_taken,
        tricks_won=view.tricks_won,
        opener=opener,
        totals=view.totals,
        hand_scores=view.hand_scores,
        winners=view.winners,
        completed=view.completed_tricks,
    )


def pass_candidates(view: HeartsView) -> tuple[PassCards, ...]:
    """Every pass of 3 of the hand's :data:`PASS_POOL` most dangerous cards."""
    pool = sorted(view.hand, key=danger, reverse=True)[:PASS_POOL]
    return tuple(PassCards.of(*three) for three in combinations(pool, PASS_SIZE))


def distinct_plays(view: HeartsView, legal: Sequence[HeartsAction]) -> list[HeartsAction]:
    """The legal plays less those equivalent to a lower one: the lowest card of each run.

    Two cards of one suit are equivalent when every card of the suit ranked between them is
    in a completed trick of this hand or in the seat's own hand: whoever holds the others,
    either card wins or loses exactly the same tricks, now and later. (A card in the current
    trick still competes: a 7 and a 9 around a played 8 differ.) Points do not tell them apart
    either (every heart is one point), except the queen of spades (13, H-R10), which is
    never merged with a neighbour. Searching one card of each run leaves the budget's
    playouts to the choices that differ.
    """
    gone = 0
    for trick in view.completed_tricks:
        for card in trick.cards:
            gone |= card.bit
    for card in view.hand:
        gone |= card.bit
    plays = sorted(legal, key=lambda action: action.card if isinstance(action, PlayCard) else -1)
    kept: list[HeartsAction] = []
    last: Card | None = None
    for action in plays:
        if isinstance(action, PlayCard) and last is not None:
            card = action.card
            between = ((1 << card) - 1) & ~((2 << last) - 1)
            same_suit = card // SUIT_SIZE == last // SUIT_SIZE
            queen = QUEEN_OF_SPADES in (card, last)
            if same_suit and not queen and between & ~gone == 0:
                continue
        kept.append(action)
        last = action.card if isinstance(action, PlayCard) else None
    return kept


class HeartsWorlds:
    """The :class:`~engine_service.bots.search.Worlds` adapter of Hearts."""

    @property
    def max_playout_moves(self) -> int:
        """A hand is at most 4 passes and 52 cards."""
        return 4 + DECK_SIZE

    @property
    def switch_margin(self) -> float:
        """No margin: the best mean wins, as it always did."""
        return 0.0

    @property
    def value_kind(self) -> ValueKind:
        """The others' mean hand score minus the seat's own (:func:`hand_value`)."""
        return ValueKind.HAND_POINTS_MARGIN

    def seat(self, view: HeartsView) -> int:
        """The viewer; a spectator cannot be searched for."""
        if view.seat is None:
            raise ValueError("a spectator's view has no seat")
        return view.seat

    def default_rules(self, view: HeartsView) -> HeartsRules:
        """The default (Special) rules to the view's target."""
        return HeartsRules(HeartsConfig(target=view.target))

    def candidates(self, view: HeartsView, legal: Sequence[HeartsAction]) -> Sequence[HeartsAction]:
        """The passes of :func:`pass_candidates`, or the plays of :func:`distinct_plays`."""
        if view.phase is Phase.PASSING and len(legal) > 1:
            return pass_candidates(view)
        return distinct_plays(view, legal)

    def sample_world(self, rules: HeartsRules, view: HeartsView, rng: random.Random) -> HeartsState:
        """A deal consistent with the view (module docstring), in a state ``rules`` plays on."""
        return world_of(view, sample_hands(Knowledge(view), rng), rng)

    def playout_action(
        self, rules: HeartsRules, state: HeartsState, seat: int, rng: random.Random
    ) -> HeartsAction:
        """The heuristic bot's move on the seat's own view of the world.

        Random playouts hand points around as no player would, so they misjudge most moves:
        alone among three heuristics on the tournament's 100 deals, the search bot took
        1.44 ± 0.79 points per hand fewer than they did with random playouts and 3.73 ± 0.65
        with these (80 playouts from the sources; a heuristic playout costs about twice a
        random one).
        """
        action: HeartsAction = seat_bot_action(PLAYOUT_BOT, rules, state, seat, rng)
        return action

    def play_out(
        self, rules: HeartsRules, state: HeartsState, seat: int, rng: random.Random
    ) -> float:
        """The value of the hand played out by the heuristic from ``state``.

        The passes still to choose go through the rules; the cards are then played by
        :func:`play_to_end`, which keeps the hand in plain integers. The result is the one
        the generic playout (:func:`~engine_service.bots.search.playout_value`) reaches,
        card for card, at about an eighth of the CPU compiled (docs/bots.md figures).
        """
        for _ in range(SEATS):
            if state.phase is not Phase.PASSING:
                break
            mover = rules.current_seats(state)[0]
            state = rules.apply(state, mover, self.playout_action(rules, state, mover, rng))
        points = play_to_end(rules, state)
        winners = game_winners(state.totals, points, state.opener, rules.config)
        return hand_value(score_hand(points, rules.config), winners, seat)

    def hand_over(self, before: HeartsState, after: HeartsState) -> bool:
        """The 52nd card deals the next hand or ends the game."""
        return after.hand_number != before.hand_number or after.phase is Phase.GAME_OVER

    def value(self, rules: HeartsRules, state: HeartsState, seat: int) -> float:
        """The value of the hand that just ended (:func:`hand_value`); 0 before any did."""
        finished = state.previous_hand
        if finished is None:
            return 0.0
        winners = state.winners if state.phase is Phase.GAME_OVER else ()
        return hand_value(finished.scores, winners, seat)


def hand_value(scores: tuple[int, ...], winners: tuple[int, ...], seat: int) -> float:
    """The others' mean hand score minus the seat's, with the game result if it ended.

    ``winners`` is empty unless the hand ended the game.
    """
    own = scores[seat]
    value = (sum(scores) - own) / (SEATS - 1) - own
    if winners:
        value += GAME_BONUS if seat in winners else -GAME_BONUS
    return value


def play_to_end(rules: HeartsRules, state: HeartsState) -> tuple[int, ...]:
    """Each seat's points once the heuristic has played out the hand of ``state`` (playing).

    Every card is the heuristic's (:func:`heuristic_play`) among the cards the rules allow
    (:meth:`HeartsRules.playable_cards`); tricks go by the rules' own winner, hearts-broken
    and next-leader rules. No state, view or action object is built on the way.
    """
    hands = list(state.hands)
    points = list(state.points)
    leader = state.trick.leader
    trick = list(state.trick.cards)
    broken = state.hearts_broken
    for tricks in range(state.tricks_played, HAND_SIZE):
        for _ in range(len(trick), SEATS):
            mover = (leader + len(trick)) % SEATS
            allowed = rules.playable_cards(hands[mover], trick, tricks == 0, broken)
            card = heuristic_play(allowed, trick)
            hands[mover] &= ~card.bit
            trick.append(card)
            broken = rules.breaks_hearts(broken, card)
        winner = (leader + winning_index(trick)) % SEATS
        points[winner] += trick_points(mask_of(trick))
        leader = rules.leader_after(hands, winner, broken)
        trick = []
    return tuple(points)
