"""The Guandan adapter of the search bot: the three hidden hands, from one seat's view.

A Guandan view shows the seat's own hand, the card counts, the plays of the current round
only, and the deal's tribute facts; the cards played in earlier rounds are in no view, by
anyone, the seat itself included. So the cards not seen (108 less the own hand and the
round's plays) are split between the other hands and, per seat, the cards it has played out
of sight: ``27 - count - plays seen`` of them. What every sampled world respects:

- two copies of each card: own hand, the round's plays and the hidden hands add up to the deck;
- the card counts (a count hidden by G-R23 ``ten_or_fewer`` is guessed from the seat's own
  pace, kept above ten);
- tribute (G-R31 .. G-R34): a payer's tribute was its strongest card, so its hand (and
  what it played) holds no non-wild card stronger, no equal card that the copy rule would
  have given instead, and no red joker after paying one (both red jokers would have
  cancelled tribute, G-R33); a receiver holds the tribute card, and a payer the card
  returned to it (G-R37), unless the seat may have played it out of sight;
- anti-tribute with the holders announced: each holds its red joker, likewise;
- while returns are chosen: a receiver that has chosen returns a card drawn from its
  sampled hand (its choice is hidden until all are in, G-R37).

Passes are no hard fact in Guandan (one may pass holding a winning play), nor are plays.

The cards are placed most constrained first, each to a place that may take it with chance
proportional to the room left, checking Hall's condition over the classes of constrained
cards still to place, so drawing never fails and needs no retries.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from typing import Final

from engine_service.bots.guandan_eval import HEURISTIC, heuristic_action, position_value
from engine_service.bots.guandan_plan import hand_cost, holding_of, without
from engine_service.bots.search import weighted_choice
from engine_service.games.guandan.actions import GuandanAction, PassTurn, PlayCards, ReturnCard
from engine_service.games.guandan.cards import (
    COPIES,
    KIND_COUNT,
    RED_JOKER,
    Hand,
    hand_of,
    is_wild,
    rank_of,
    strength,
)
from engine_service.games.guandan.config import CardCountVisibility, GuandanConfig, TributeCopy
from engine_service.games.guandan.levels import partner_place, promotion_steps
from engine_service.games.guandan.rules import GuandanRules
from engine_service.games.guandan.state import (
    HAND_SIZE,
    SEATS,
    GuandanState,
    Phase,
    Tribute,
    partner_of,
    team_of,
)
from engine_service.games.guandan.tribute import returnable
from engine_service.games.guandan.view import COUNT_SHOWN_AT, HIDDEN_COUNT, GuandanView

SEARCH_BUDGET: Final = 24
"""Playouts per Guandan decision, spread over the candidates: about 50 ms of CPU compiled.

A playout is at most :data:`MAX_PLAYOUT_MOVES` moves of the heuristic bot, some 0.2 ms each
compiled (listing the plays and pricing them with the planner is nearly all of it)."""
MAX_CANDIDATES: Final = 2
"""Actions searched per decision besides the pass: the heuristic bot's and the other play
leaving the cheapest hand. Measured (duplicate first deals against heuristics): two gave
more wins than three or one, since fewer candidates meet more worlds each."""
SWITCH_MARGIN: Final = 0.1
"""Levels per world by which another candidate must beat the heuristic's move (measured: a
few more wins than none; a quarter level kept too many poor heuristic moves)."""
MATCH_BONUS: Final = 4.0
"""Value of winning the match with a deal, against losing it: above any deal's steps."""
MAX_PLAYOUT_MOVES: Final = 20
"""Heuristic moves a playout makes before the position is judged (:mod:`guandan_eval`): some
four tricks; it stops sooner when a seat goes out (measured: 10 won fewer deals, and 100
afforded too few worlds)."""
ALL: Final = -1
"""An eligibility mask that every place passes."""


@dataclass(frozen=True, slots=True)
class Knowledge:
    """The public facts about the hidden cards of one seat's view (module docstring).

    Places are numbered ``2 * seat`` (the seat's hand) and ``2 * seat + 1`` (what it played
    out of sight); the viewer's hand is no place, its cards are known.

    Attributes:
        seat: the viewer.
        room: how many cards each place takes.
        pool: the cards not seen, as 54 counts.
        barred: per seat, the kinds neither its hand nor its unseen plays may hold.
        owed: (seat, kind) for each card certainly in the seat's hand or unseen plays.
    """

    seat: int
    room: tuple[int, ...]
    pool: Hand
    barred: tuple[frozenset[int], ...]
    owed: tuple[tuple[int, int], ...]


def _plays_seen(view: GuandanView) -> tuple[list[int], list[int]]:
    """The round's plays as 54 counts, and how many cards each seat played in it."""
    counts = [0] * KIND_COUNT
    by_seat = [0] * SEATS
    for entry in view.round_history:
        by_seat[entry.seat] += len(entry.cards)
        for kind in entry.cards:
            counts[kind] += 1
    return counts, by_seat


def _sizes(view: GuandanView, seat: int, seen_by: list[int]) -> list[int]:
    """Each seat's card count; a hidden one guessed from the viewer's own pace."""
    if view.phase is Phase.RETURNING:
        sizes = [HAND_SIZE] * SEATS
        for tribute in view.tributes:
            sizes[tribute.payer] -= 1
            sizes[tribute.receiver] += 1
        return sizes
    own_unseen = HAND_SIZE - len(view.hand) - seen_by[seat]
    sizes = []
    for other, count in enumerate(view.card_counts):
        if count == HIDDEN_COUNT:
            guess = HAND_SIZE - seen_by[other] - own_unseen
            sizes.append(max(COUNT_SHOWN_AT + 1, min(guess, HAND_SIZE - seen_by[other])))
        else:
            sizes.append(count)
    return sizes


def _barred_for_payer(tribute: Tribute, level: int, copy: TributeCopy) -> set[int]:
    """The kinds a payer cannot hold after paying ``tribute`` (G-R31, G-R33, G-R34)."""
    paid = strength(rank_of(tribute.card), level)
    barred = set()
    for kind in range(KIND_COUNT):
        if is_wild(kind, level):
            continue
        value = strength(rank_of(kind), level)
        lower_copy = kind < tribute.card if copy is TributeCopy.LOWEST_SUIT else kind > tribute.card
        if value > paid or (value == paid and lower_copy):
            barred.add(kind)
    if tribute.card == RED_JOKER:
        barred.add(RED_JOKER)
    if tribute.returned is not None:
        barred.discard(tribute.returned)
    return barred


def _owed(view: GuandanView) -> list[tuple[int, int]]:
    """(seat, kind) for each card a seat took in at the deal's start and so still has."""
    owed = [(holder, RED_JOKER) for holder in view.red_joker_holders]
    for tribute in view.tributes:
        if tribute.returned != tribute.card:
            owed.append((tribute.receiver, tribute.card))
        if view.phase is Phase.PLAYING and tribute.returned is not None:
            owed.append((tribute.payer, tribute.returned))
    return [(s, kind) for s, kind in owed if s != view.seat]


def gather(view: GuandanView, config: GuandanConfig) -> Knowledge:
    """Read the public facts about the hidden cards from ``view``."""
    seat = view.seat
    if seat is None:
        raise ValueError("a spectator's view has no hand to search from")
    seen, seen_by = _plays_seen(view)
    own = hand_of(view.hand)
    pool = tuple(COPIES - own[k] - seen[k] for k in range(KIND_COUNT))
    sizes = _sizes(view, seat, seen_by)
    room = [0] * (2 * SEATS)
    for other in range(SEATS):
        unseen = 0 if view.phase is Phase.RETURNING else HAND_SIZE - sizes[other] - seen_by[other]
        room[2 * other + 1] = unseen
        if other != seat:
            room[2 * other] = sizes[other]
    excess = sum(room) - sum(pool)
    for other in range(SEATS):  # a guessed count may leave too little: shrink the guesses
        if excess > 0 and other != seat and view.card_counts[other] == HIDDEN_COUNT:
            cut = min(excess, room[2 * other] - COUNT_SHOWN_AT - 1)
            room[2 * other] -= cut
            room[2 * other + 1] += cut
    room[2 * seat + 1] += sum(pool) - sum(room)
    barred: list[set[int]] = [set() for _ in range(SEATS)]
    for tribute in view.tributes:
        if tribute.payer != seat:
            barred[tribute.payer] |= _barred_for_payer(tribute, view.level, config.tribute_copy)
    owed = []
    for holder, kind in _owed(view):
        if seen[kind] and any(kind in e.cards for e in view.round_history if e.seat == holder):
            continue  # it may be the copy the holder just played
        owed.append((holder, kind))
    return Knowledge(
        seat=seat,
        room=tuple(room),
        pool=pool,
        barred=tuple(frozenset(b) for b in barred),
        owed=tuple(owed),
    )


def _eligible(knowledge: Knowledge, kind: int) -> int:
    """The places (a bitmask) that may take a copy of ``kind``."""
    mask = 0
    for seat in range(SEATS):
        if kind not in knowledge.barred[seat]:
            mask |= 0b11 << (2 * seat)
    return mask


def _hall(left: dict[int, int], room: list[int]) -> bool:
    """Hall's condition: every union of eligibility classes has room for its cards."""
    classes = [c for c, n in left.items() if n]
    for size in range(1, len(classes) + 1):
        for group in combinations(classes, size):
            places = 0
            cards = 0
            for c in group:
                places |= c
                cards += left[c]
            if cards > sum(room[p] for p in range(len(room)) if places >> p & 1):
                return False
    return True


def sample_places(knowledge: Knowledge, rng: random.Random) -> list[list[int]]:
    """The kinds in each place of one world (module docstring)."""
    places = len(knowledge.room)
    room = list(knowledge.room)
    room[2 * knowledge.seat] = 0
    full = sum(1 << p for p in range(places) if p != 2 * knowledge.seat)
    pool = list(knowledge.pool)
    cards: list[tuple[int, int]] = []  # (eligible places, kind)
    for holder, kind in knowledge.owed:
        if pool[kind] > 0:
            pool[kind] -= 1
            cards.append((0b11 << (2 * holder), kind))
    for kind in range(KIND_COUNT):
        cards.extend((_eligible(knowledge, kind) & full, kind) for _ in range(pool[kind]))
    rng.shuffle(cards)
    cards.sort(key=lambda card: (card[0] & full).bit_count())
    left: dict[int, int] = {}
    for mask, _ in cards:
        if mask != full:
            left[mask] = left.get(mask, 0) + 1
    placed: list[list[int]] = [[] for _ in range(places)]
    for mask, kind in cards:
        choices = [p for p in range(places) if mask >> p & 1 and room[p] > 0]
        weights = []
        constrained = mask != full
        if constrained:
            left[mask] -= 1
        for p in choices:
            room[p] -= 1
            weights.append(room[p] + 1 if not constrained or _hall(left, room) else 0)
            room[p] += 1
        if not any(weights):
            raise ValueError("the view's public facts admit no deal")
        place = weighted_choice(choices, weights, rng)
        placed[place].append(kind)
        room[place] -= 1
    return placed


def world_of(
    view: GuandanView, config: GuandanConfig, hands: tuple[Hand, ...], rng: random.Random
) -> GuandanState:
    """The full state of ``view`` with ``hands`` as the hidden hands."""
    tributes = view.tributes
    turn = view.to_act[0] if view.to_act else 0
    if view.phase is Phase.RETURNING:
        turn = tributes[0].payer  # G-R36: leads once the returns are in
        chosen = []
        for tribute in tributes:
            if tribute.returned is None and tribute.receiver not in view.to_act:
                kinds = returnable(hands[tribute.receiver], tribute, view.level, config)
                chosen.append(replace(tribute, returned=kinds[rng.randrange(len(kinds))]))
            else:
                chosen.append(tribute)
        tributes = tuple(chosen)
    return GuandanState(
        seed=rng.getrandbits(62),
        phase=view.phase,
        deal_number=view.deal_number,
        levels=view.levels,
        level=view.level,
        declarer=view.declarer,
        ace_failures=(0, 0),
        hands=hands,
        turn=turn,
        top=view.top,
        passed=view.passed,
        finished=view.finished,
        tributes=tributes,
        red_joker_holders=view.red_joker_holders,
        previous_order=view.previous_order,
        winners=view.winners,
        round_history=view.round_history,
        previous_deal=view.previous_deal,
    )


def sample_world(rules: GuandanRules, view: GuandanView, rng: random.Random) -> GuandanState:
    """A full state consistent with every public fact of ``view`` (module docstring)."""
    knowledge = gather(view, rules.config)
    placed = sample_places(knowledge, rng)
    hands = tuple(
        hand_of(view.hand) if s == knowledge.seat else hand_of(placed[2 * s]) for s in range(SEATS)
    )
    return world_of(view, rules.config, hands, rng)


def _cards(action: GuandanAction) -> tuple[int, ...]:
    """The cards an action gives away (none for a pass)."""
    if isinstance(action, PlayCards):
        return action.cards
    if isinstance(action, ReturnCard):
        return (action.card,)
    return ()


def play_candidates(
    view: GuandanView, legal: Sequence[GuandanAction], limit: int = MAX_CANDIDATES
) -> list[GuandanAction]:
    """The heuristic bot's choice first, the cheapest other plays or returns, then the pass.

    At most ``limit`` besides the pass (benchmarks try others). The heuristic's choice comes
    first so that ties go to it: the search departs from the bot it plays out with only when
    the playouts say so. The others are those leaving the cheapest hand, longer plays first.
    With the partner on top the heuristic's move alone (it passes unless it can go out):
    searching there lost deals (measured), by overtaking the partner on noisy worlds.
    """
    first = HEURISTIC.choose(view, legal, random.Random(0))
    if view.top is not None and view.seat is not None and view.top.seat == partner_of(view.seat):
        return [first]
    hand = holding_of(view.hand, view.level)
    others = [a for a in legal if a != first and not isinstance(a, PassTurn)]
    others.sort(key=lambda a: (hand_cost(without(hand, _cards(a))), -len(_cards(a))))
    chosen = [first, *others[: limit - 1]]
    chosen.extend(a for a in legal if isinstance(a, PassTurn) and a != first)
    return chosen


class GuandanWorlds:
    """The :class:`~engine_service.bots.search.Worlds` adapter of Guandan."""

    @property
    def max_playout_moves(self) -> int:
        """Heuristic moves before the position is judged (:data:`MAX_PLAYOUT_MOVES`)."""
        return MAX_PLAYOUT_MOVES

    @property
    def switch_margin(self) -> float:
        """:data:`SWITCH_MARGIN`: the heuristic's move stands unless clearly beaten."""
        return SWITCH_MARGIN

    def seat(self, view: GuandanView) -> int:
        """The viewer; a spectator cannot be searched for."""
        if view.seat is None:
            raise ValueError("a spectator's view has no seat")
        return view.seat

    def default_rules(self, view: GuandanView) -> GuandanRules:
        """The default rules; hidden counts tell that G-R23's ``ten_or_fewer`` is on."""
        hidden = HIDDEN_COUNT in view.card_counts
        return GuandanRules(
            GuandanConfig(card_count_visibility=CardCountVisibility.TEN_OR_FEWER)
            if hidden
            else None
        )

    def candidates(
        self, view: GuandanView, legal: Sequence[GuandanAction]
    ) -> Sequence[GuandanAction]:
        """The actions of :func:`play_candidates`."""
        return play_candidates(view, legal)

    def sample_world(
        self, rules: GuandanRules, view: GuandanView, rng: random.Random
    ) -> GuandanState:
        """A deal consistent with the view, in a state ``rules`` plays on."""
        return sample_world(rules, view, rng)

    def playout_action(
        self, rules: GuandanRules, state: GuandanState, seat: int, rng: random.Random
    ) -> GuandanAction:
        """The heuristic bot on the seat's view, among most legal moves (``guandan_eval``)."""
        return heuristic_action(rules, state, seat, rng)

    def hand_over(self, before: GuandanState, after: GuandanState) -> bool:
        """A seat went out, the next deal was dealt, or the match is over.

        A playout stops at the first of these: the first seat out decides which team wins
        the deal (G-R24), and every later one is a step of where the partner finishes.
        """
        return (
            after.deal_number != before.deal_number
            or after.phase is Phase.GAME_OVER
            or len(after.finished) > len(before.finished)
        )

    def value(self, rules: GuandanRules, state: GuandanState, seat: int) -> float:
        """Levels won (G-R24) for the seat's team or against it: exact once the deal ended.

        A deal still being played (a playout stopped by :meth:`hand_over` or its move bound)
        is judged by :func:`~engine_service.bots.guandan_eval.position_value`.
        """
        if state.phase is Phase.GAME_OVER:
            order = state.finished
        elif state.previous_deal is not None and not state.finished:
            order = state.previous_deal.order
        else:
            return position_value(state, seat)
        steps = float(promotion_steps(partner_place(order)))
        if state.phase is Phase.GAME_OVER:
            steps += MATCH_BONUS
        return steps if team_of(order[0]) == team_of(seat) else -steps
