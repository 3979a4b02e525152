"""The Guandan adapter of the search bot: the three hidden hands, from one seat's view.

A Guandan view shows the seat's own hand, every card each seat has played this deal (G-R17a)
and the deal's tribute facts, so the cards not seen (108 less the own hand and the plays) are
exactly the other three hands. What every sampled world respects:

- two copies of each card: own hand, the plays and the hidden hands add up to the deck;
- the hand sizes: 27 less what the seat played once the returns are in (a count hidden by
  G-R23 ``ten_or_fewer`` is known that way too), the tribute moves while returns are chosen;
- tribute (G-R31 .. G-R34): a payer's tribute was its strongest card, so its hand holds no
  non-wild card stronger, no equal card that the copy rule would have given instead, and no
  red joker after paying one (both red jokers would have cancelled tribute, G-R33); a
  receiver holds the tribute card, and a payer the card returned to it (G-R37), unless it
  has played a card of that kind;
- anti-tribute with the holders announced: each holds its red joker, likewise;
- while returns are chosen: a receiver that has chosen returns a card drawn from its
  sampled hand (its choice is hidden until all are in, G-R37).

Passes are no hard fact in Guandan (one may pass holding a winning play), nor are plays.

The cards are dealt most constrained first, each to a hand that may take it with chance
proportional to the room left, checking Hall's condition over the classes of constrained
cards still to deal, so drawing never fails and needs no retries.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import chain, combinations
from typing import Final

from engine_service.bots.guandan_eval import HEURISTIC, heuristic_action, position_value
from engine_service.bots.guandan_plan import hand_cost, holding_of, without
from engine_service.bots.search import ValueKind, playout_value, weighted_choice
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
from engine_service.games.guandan.view import HIDDEN_COUNT, GuandanView

SEARCH_BUDGET: Final = 80
"""Playouts per Guandan decision, spread over the candidates.

More full-length playouts win more deals (24, 40, 64 and 80 playouts: 58.2, 60.2, 64.5 and
66.0 % of 400 tournament deals against two heuristics); the bound is the CPU of the first
decisions of a deal, while hands are large. Once the states, views, plays and the
planner's values were built by compiled constructors (a third less CPU per decision, the
same decisions), 80 playouts kept a search seat's decision CPU p99 at 127 ms in those 400
deals, under the 150 ms the tournament's goal allows (docs/bots.md). Half of a seat's moves
need no search (one legal move, or the partner on top).

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


@dataclass(frozen=True, slots=True)
class Knowledge:
    """The public facts about the hidden hands of one seat's view (module docstring).

    Attributes:
        seat: the viewer; its room is 0, its cards are known.
        room: how many cards each seat's hidden hand takes.
        pool: the cards not seen, as 54 counts.
        barred: per seat, the kinds its hand may not hold.
        owed: (seat, kind) for each card certainly in the seat's hand.
    """

    seat: int
    room: tuple[int, ...]
    pool: Hand
    barred: tuple[frozenset[int], ...]
    owed: tuple[tuple[int, int], ...]


def _sizes(view: GuandanView) -> list[int]:
    """Each seat's hand size: 27 less its plays, with the tribute moves while returning."""
    if view.phase is Phase.RETURNING:
        sizes = [HAND_SIZE] * SEATS
        for tribute in view.tributes:
            sizes[tribute.payer] -= 1
            sizes[tribute.receiver] += 1
        return sizes
    return [HAND_SIZE - len(kinds) for kinds in view.played]


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
    """(seat, kind) for each card a seat took in at the deal's start and has not played."""
    owed = [(holder, RED_JOKER) for holder in view.red_joker_holders]
    for tribute in view.tributes:
        if tribute.returned != tribute.card:
            owed.append((tribute.receiver, tribute.card))
        if view.phase is Phase.PLAYING and tribute.returned is not None:
            owed.append((tribute.payer, tribute.returned))
    return [(s, kind) for s, kind in owed if s != view.seat and kind not in view.played[s]]


def gather(view: GuandanView, config: GuandanConfig) -> Knowledge:
    """Read the public facts about the hidden hands from ``view``."""
    seat = view.seat
    if seat is None:
        raise ValueError("a spectator's view has no hand to search from")
    seen = hand_of(chain(view.hand, *view.played))
    room = _sizes(view)
    room[seat] = 0
    barred: list[set[int]] = [set() for _ in range(SEATS)]
    for tribute in view.tributes:
        if tribute.payer != seat:
            barred[tribute.payer] |= _barred_for_payer(tribute, view.level, config.tribute_copy)
    return Knowledge(
        seat=seat,
        room=tuple(room),
        pool=tuple(COPIES - n for n in seen),
        barred=tuple(frozenset(b) for b in barred),
        owed=tuple(_owed(view)),
    )


def _eligible(knowledge: Knowledge, kind: int) -> int:
    """The seats (a bitmask) whose hands may take a copy of ``kind``."""
    mask = 0
    for seat in range(SEATS):
        if kind not in knowledge.barred[seat]:
            mask |= 1 << seat
    return mask


def _hall(left: dict[int, int], room: list[int]) -> bool:
    """Hall's condition: every union of eligibility classes has room for its cards."""
    classes = [c for c, n in left.items() if n]
    for size in range(1, len(classes) + 1):
        for group in combinations(classes, size):
            seats = 0
            cards = 0
            for c in group:
                seats |= c
                cards += left[c]
            if cards > sum(room[s] for s in range(len(room)) if seats >> s & 1):
                return False
    return True


def sample_hands(knowledge: Knowledge, rng: random.Random) -> list[list[int]]:
    """The kinds in each hidden hand of one world (module docstring); the viewer's is empty."""
    room = list(knowledge.room)
    full = sum(1 << s for s in range(SEATS) if s != knowledge.seat)
    pool = list(knowledge.pool)
    cards: list[tuple[int, int]] = []  # (eligible seats, kind)
    for holder, kind in knowledge.owed:
        if pool[kind] > 0:
            pool[kind] -= 1
            cards.append((1 << holder, kind))
    for kind in range(KIND_COUNT):
        cards.extend((_eligible(knowledge, kind) & full, kind) for _ in range(pool[kind]))
    rng.shuffle(cards)
    cards.sort(key=lambda card: card[0].bit_count())
    left: dict[int, int] = {}
    for mask, _ in cards:
        if mask != full:
            left[mask] = left.get(mask, 0) + 1
    dealt: list[list[int]] = [[] for _ in range(SEATS)]
    for mask, kind in cards:
        choices = [s for s in range(SEATS) if mask >> s & 1 and room[s] > 0]
        weights = []
        constrained = mask != full
        if constrained:
            left[mask] -= 1
        for s in choices:
            room[s] -= 1
            weights.append(room[s] + 1 if not constrained or _hall(left, room) else 0)
            room[s] += 1
        if not any(weights):
            raise ValueError("the view's public facts admit no deal")
        seat = weighted_choice(choices, weights, rng)
        dealt[seat].append(kind)
        room[seat] -= 1
    return dealt


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
        played=tuple(hand_of(kinds) for kinds in view.played),
    )


def sample_world(rules: GuandanRules, view: GuandanView, rng: random.Random) -> GuandanState:
    """A full state consistent with every public fact of ``view`` (module docstring)."""
    knowledge = gather(view, rules.config)
    dealt = sample_hands(knowledge, rng)
    hands = tuple(
        hand_of(view.hand) if s == knowledge.seat else hand_of(dealt[s]) for s in range(SEATS)
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

    @property
    def value_kind(self) -> ValueKind:
        """Levels won or lost by the seat's team (:meth:`value`)."""
        return ValueKind.LEVELS

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

    def play_out(
        self, rules: GuandanRules, state: GuandanState, seat: int, rng: random.Random
    ) -> float:
        """The generic playout with :meth:`playout_action`, then :meth:`value`."""
        return playout_value(self, rules, state, seat, rng)

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
