"""How the Guandan search plays its playouts and judges the position where it stops them.

Why: random playouts of a Guandan deal (some 85 random moves) said almost nothing about a
move's worth, and full playouts by the heuristic bot cost some 40 ms each compiled, far past
a decision's budget. So a playout here is a few moves of the heuristic bot (every seat on its
own view of the sampled world, choosing among :func:`playout_options`), stopped when a seat
goes out or after the adapter's move bound, and the position reached is judged statically:

- Every seat still in has a cost to go out (:func:`~engine_service.bots.guandan_plan.hand_cost`,
  in half plays); the seat holding the lead (on top of the trick, or leading) is one play
  closer.
- Nobody out yet: the deal goes to the team of the first finisher (G-R24), so it is a race
  between each team's fastest seat; :func:`race_share` turns the gap into a share of a win.
- Somebody out: the winning team is known; what is left open is where the winner's partner
  finishes (G-R24: 2nd three levels, 3rd two, last one), judged by the same race between the
  partner and the fastest opponent.

The value is in levels won (positive) or conceded (negative) by the seat's team, the scale of
:meth:`~engine_service.bots.guandan_worlds.GuandanWorlds.value` on a finished deal, so cut and
finished playouts average together.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from engine_service.bots.guandan_heuristic import GuandanHeuristicBot
from engine_service.bots.guandan_plan import FULL, hand_cost, holding_of
from engine_service.core.cards import Suit
from engine_service.games.guandan.actions import GuandanAction, PassTurn
from engine_service.games.guandan.cards import kind_of, kinds_in
from engine_service.games.guandan.play_listing import plays
from engine_service.games.guandan.rules import GuandanRules
from engine_service.games.guandan.state import SEATS, GuandanState, Phase, partner_of, team_of

HEURISTIC: Final = GuandanHeuristicBot()
"""The playout policy, and the source of the first candidate (it never draws from its rng)."""
RACE_SCALE: Final = 4
"""Half plays: a race led by this many is counted as three quarters won (:func:`race_share`)."""
LEAD_BONUS: Final = FULL
"""The seat holding the lead is about one play closer to going out."""
WIN_STEPS: Final = 2.0
"""Levels a deal is worth before anyone is out: the middle of G-R24's 1 to 3."""


def race_share(ahead: int) -> float:
    """A share in (-1, 1) of a race led by ``ahead`` half plays (negative: behind), 0 when even.

    Smooth rather than a sign: a cut playout only roughly tells who is ahead, and a lead of
    one half play is far from a won deal.
    """
    return ahead / (abs(ahead) + RACE_SCALE)


def estimate(costs: Sequence[int | None], finished: Sequence[int], seat: int) -> float:
    """The levels ``seat``'s team may expect from a deal (negative: the opponents').

    Args:
        costs: per seat, its cost to go out in half plays, lead counted; ``None`` once out.
        finished: the seats out so far, in order.
        seat: whose value it is.
    """
    if not finished:
        own = _fastest(costs, team_of(seat))
        other = _fastest(costs, 1 - team_of(seat))
        return WIN_STEPS * race_share(other - own)
    first = finished[0]
    partner = partner_of(first)
    if partner in finished:
        steps = 3.0 if finished.index(partner) == 1 else 2.0
    else:
        partner_cost = costs[partner]
        assert partner_cost is not None
        beaten = len(finished) - 1  # opponents already out: the partner finishes behind them
        best, worst = 3.0 - beaten, 1.0  # G-R24: 2nd three levels, 3rd two, last one
        ahead = _fastest(costs, 1 - team_of(first)) - partner_cost
        steps = (best + worst) / 2 + (best - worst) / 2 * race_share(ahead)
    return steps if team_of(first) == team_of(seat) else -steps


def _fastest(costs: Sequence[int | None], team: int) -> int:
    """The lowest cost among ``team``'s seats still in (a team all out cannot be behind)."""
    left = [c for s, c in enumerate(costs) if c is not None and team_of(s) == team]
    return min(left, default=0)


def costs_of(state: GuandanState) -> list[int | None]:
    """Every seat's cost to go out in ``state`` (``None`` once out), the lead counted."""
    holder = state.top.seat if state.top is not None else state.turn
    costs: list[int | None] = []
    for seat in range(SEATS):
        hand = state.hands[seat]
        if not any(hand):
            costs.append(None)
            continue
        cost = hand_cost(holding_of(kinds_in(hand), state.level))
        costs.append(max(0, cost - LEAD_BONUS) if seat == holder else cost)
    return costs


def position_value(state: GuandanState, seat: int) -> float:
    """:func:`estimate` of a deal still being played, for ``seat``."""
    return estimate(costs_of(state), state.finished, seat)


def playout_options(rules: GuandanRules, state: GuandanState, seat: int) -> list[GuandanAction]:
    """The legal moves a playout's heuristic bot chooses from: most of them, for less work.

    Straight flushes are left out, and a lead uses no wild card unless only wilds are left.
    Listing and pricing the plays is nearly all of a playout's cost, and these are most of
    both (wilds make some 60 % of a hand's plays, flushes half the listing's work) while the
    heuristic seldom picks them: it charges for spending a wild, and keeps bombs.
    """
    if state.phase is not Phase.PLAYING:
        return list(rules.legal_actions(state, seat))
    hand = state.hands[seat]
    if state.top is None:
        wild = kind_of(state.level, Suit.HEARTS)
        natural = (*hand[:wild], 0, *hand[wild + 1 :])
        listed: list[GuandanAction] = list(
            plays(
                natural if any(natural) else hand,
                state.level,
                None,
                rules.config,
                straight_flushes=False,
            )
        )
        return listed
    following: list[GuandanAction] = list(
        plays(hand, state.level, state.top.reading, rules.config, straight_flushes=False)
    )
    following.append(PassTurn())
    return following


def heuristic_action(
    rules: GuandanRules, state: GuandanState, seat: int, rng: random.Random
) -> GuandanAction:
    """The playout policy: the heuristic bot on ``seat``'s view, among :func:`playout_options`."""
    return HEURISTIC.choose(rules.view(state, seat), playout_options(rules, state, seat), rng)
