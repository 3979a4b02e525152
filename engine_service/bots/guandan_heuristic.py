"""A Guandan bot that plays like a sensible person: plan the way out, keep bombs, trust the partner.

Every play is judged by how it changes the hand's cost to go out
(:func:`~engine_service.bots.guandan_plan.hand_cost`); a play that leaves the rest of the
hand in fewer plays is better. On top of that:

- Leading: shed the play that lowers the cost most, longer shapes and lower ranks first; lead
  a low single or pair when the partner is about to go out; near the end lead the play
  hardest to beat first; avoid shapes an opponent about to go out could answer.
- Following an opponent: beat with the cheapest play that lowers the cost; spend control
  cards (jokers, level cards, broken groups) or a bomb only when the opponent on top is close
  to going out or when it brings this hand close to going out.
- The partner on top: pass, unless a play goes out.
- Returning tribute: the allowed card that hurts the hand least, lowest first.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from engine_service.bots.guandan_plan import FULL, Holding, hand_cost, holding_of, without
from engine_service.games.guandan.actions import GuandanAction, PassTurn, PlayCards, ReturnCard
from engine_service.games.guandan.cards import rank_of, strength
from engine_service.games.guandan.ordering import bomb_tier, key
from engine_service.games.guandan.state import SEATS, partner_of
from engine_service.games.guandan.view import HIDDEN_COUNT, GuandanView

UNKNOWN_COUNT: Final = 27
"""What a hidden card count (G-R23) is taken for: safely many."""


@dataclass(slots=True, init=False, unsafe_hash=True)
class _Option:
    """A legal play with what it does to the hand.

    Immutable (``Final`` fields), with a written constructor that mypyc compiles (as
    :class:`~engine_service.bots.guandan_plan.Holding`): one is built for every play priced.

    Attributes:
        play: the play.
        gain: how much the hand's cost drops, in half plays, less the wilds spent.
        rest: the hand's cost after the play.
        out: whether the play empties the hand.
        key: the play's comparison key (G-R12), higher is harder to beat.
    """

    play: Final[PlayCards]
    gain: Final[int]
    rest: Final[int]
    out: Final[bool]
    key: Final[int]

    def __init__(self, play: PlayCards, gain: int, rest: int, out: bool, key: int) -> None:
        self.play = play
        self.gain = gain
        self.rest = rest
        self.out = out
        self.key = key

    @property
    def bomb(self) -> bool:
        """Whether the play is a bomb."""
        return self.play.reading.shape.is_bomb

    @property
    def size(self) -> int:
        """How many cards the play sheds."""
        return len(self.play.cards)


@dataclass(frozen=True, slots=True)
class GuandanHeuristicBot:
    """A rule-of-thumb Guandan player; stateless, so one instance serves every seat.

    The fields tune its style; the defaults are the measured best (``bench.guandan_bots``).

    Attributes:
        danger: an opponent with this many cards or fewer may go out soon: stop it.
        partner_close: a partner with this many cards or fewer is fed low singles and pairs.
        endgame: a hand this close to going out (in half plays) fights for the lead.
        wild_cost: what spending a wild costs, in half plays: it could complete something later.
    """

    danger: int = 6
    partner_close: int = 2
    endgame: int = 2 * FULL
    wild_cost: int = 2

    def choose(
        self, view: GuandanView, legal: Sequence[GuandanAction], rng: random.Random
    ) -> GuandanAction:
        """Pick a return, a play or a pass by the rules of thumb in the module docstring."""
        returns = [a for a in legal if isinstance(a, ReturnCard)]
        if returns:
            return _choose_return(view, returns)
        hand = holding_of(view.hand, view.level)
        cost = hand_cost(hand)
        options = [self._option(p, hand, cost) for p in legal if isinstance(p, PlayCards)]
        out = [o for o in options if o.out]
        if out:
            return min(out, key=lambda o: (o.bomb, o.key)).play
        table = _Table.of(view)
        if view.top is None:
            return self._lead(options, cost, table)
        if view.top.seat == partner_of(table.seat):
            return PassTurn()
        return self._follow(options, cost, table.threat(view.top.seat))

    def _option(self, play: PlayCards, hand: Holding, cost: int) -> _Option:
        rest = without(hand, play.cards)
        rest_cost = hand_cost(rest)
        return _Option(
            play=play,
            gain=cost - rest_cost - self.wild_cost * (hand.wilds - rest.wilds),
            rest=rest_cost,
            out=rest.size == 0,
            key=key(play.reading, hand.level),
        )

    def _lead(self, options: list[_Option], cost: int, table: _Table) -> PlayCards:
        """Lead: shed the most cost; feed a partner about to go out; close out strongly."""
        ordinary = [o for o in options if not o.bomb] or options
        if 0 < table.partner <= self.partner_close and table.danger > self.danger:
            small = [o for o in ordinary if o.size <= table.partner]
            if small:
                return min(small, key=lambda o: (o.key, -o.gain)).play
        if table.danger <= self.danger:
            safe = [o for o in ordinary if o.size > table.danger]
            if not safe:
                return max(ordinary, key=lambda o: (o.gain, o.key)).play
            ordinary = safe
        best = max(o.gain for o in ordinary)
        shedding = [o for o in ordinary if o.gain == best]
        if cost <= self.endgame:
            return max(shedding, key=lambda o: (o.key, o.size)).play
        return min(shedding, key=lambda o: (-o.size, o.key)).play

    def _follow(self, options: list[_Option], cost: int, threat: int) -> GuandanAction:
        """Beat an opponent cheaply, or at any price when it or this hand is close to out.

        Args:
            options: the plays that beat the top play.
            cost: this hand's cost to go out.
            threat: the cards held by whoever leads next if the top play wins.
        """
        urgent = threat <= self.danger or cost <= self.endgame
        ordinary = [o for o in options if not o.bomb]
        wanted = [o for o in ordinary if o.gain > 0 or (urgent and o.gain >= -FULL)]
        if wanted:
            return min(wanted, key=lambda o: (-o.gain, o.key)).play
        bombs = [o for o in options if o.bomb]
        if bombs and (urgent or any(o.rest <= FULL for o in bombs)):
            return min(bombs, key=lambda o: (bomb_tier(o.play.reading), o.key, -o.gain)).play
        if urgent and ordinary:
            return min(ordinary, key=lambda o: (-o.gain, o.key)).play
        return PassTurn()


@dataclass(frozen=True, slots=True)
class _Table:
    """What the bot reads from the other seats' card counts.

    Attributes:
        partner: the partner's card count (0 once out).
        danger: the fewest cards an opponent still in the deal holds.
        counts: every seat's card count, hidden ones taken as many.
        seat: the bot's own seat.
    """

    partner: int
    danger: int
    counts: tuple[int, ...]
    seat: int

    @staticmethod
    def of(view: GuandanView) -> _Table:
        """Read the table from ``view``."""
        assert view.seat is not None
        counts = tuple(UNKNOWN_COUNT if n == HIDDEN_COUNT else n for n in view.card_counts)
        seat = view.seat
        opponents = [counts[s] for s in ((seat + 1) % SEATS, (seat + 3) % SEATS) if counts[s]]
        return _Table(counts[partner_of(seat)], min(opponents, default=UNKNOWN_COUNT), counts, seat)

    def threat(self, owner: int) -> int:
        """Cards held by whoever leads if ``owner``'s play wins (G-R19: the partner if out)."""
        return self.counts[owner] or self.counts[partner_of(owner)] or UNKNOWN_COUNT


def _choose_return(view: GuandanView, returns: list[ReturnCard]) -> ReturnCard:
    """G-R35: give back the allowed card whose loss hurts the hand least, lowest first."""
    hand = holding_of(view.hand, view.level)

    def hurt(action: ReturnCard) -> tuple[int, int, int]:
        rest = hand_cost(without(hand, (action.card,)))
        return rest, strength(rank_of(action.card), view.level), action.card

    return min(returns, key=hurt)
