"""How far a Guandan hand is from going out: the planning half of the heuristic bot.

A hand goes out in a number of plays. Plays that win the lead back by themselves (bombs, a
red joker, two red jokers) cost nothing: after one of them the hand leads again. A black
joker and the single or pair of aces or of the level rank are nearly as good and cost half a
play (counting aces so measured best against the bot without them). Every other play costs
one. :func:`hand_cost` is the cheapest way to split a hand into plays under
that measure, in half plays; the bot prefers moves that lower it.

The split works on natural rank counts. Sequences (straights, tubes, plates, G-R8) are
searched exhaustively with memoisation; what is left forms singles, pairs, triples and
bombs, with each triple taking a pair along as a full house (G-R11). Wild cards (G-R5) cost
nothing: one always fits some play of the split. Suits are ignored, so straight flushes are
not planned; the bot still sees them among its legal plays.

>>> from engine_service.games.guandan.cards import parse_kind
>>> hand = holding_of([parse_kind(c) for c in "3C 4D 5S 6C 7C 9D 9S".split()], level=2)
>>> hand_cost(hand)  # the straight 3-7 and the pair of nines
4
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from engine_service.core.cards import ACE, Suit
from engine_service.games.guandan.cards import BLACK_JOKER, RED_JOKER, kind_of
from engine_service.games.guandan.sequences import SEQUENCES

RANKS: Final = 13
"""Natural ranks 2..A, stored at index ``rank - 2``."""
FULL: Final = 2
"""One play, in half plays."""
HALF: Final = 1
_BOMB: Final = 4
_ACE: Final = ACE - 2

_WINDOWS: Final = tuple(
    (tuple(rank - 2 for rank in ranks), kind.copies)
    for kind in SEQUENCES.values()
    for _, ranks in kind.windows
)
"""Every sequence as (rank indexes, cards per rank)."""
_USED_UP: Final = {1: 2, 2: 2, 3: 1}
"""Per cards per rank (straight, tube, plate): the ranks a sequence must use up."""


@dataclass(slots=True, init=False, unsafe_hash=True)
class Holding:
    """A hand as the planner sees it.

    Immutable (``Final`` fields), with a written constructor that mypyc compiles: a frozen
    dataclass's generated one runs interpreted, and a Guandan playout builds a holding for
    every play it prices (docs/bots.md).

    Attributes:
        naturals: per natural rank (index ``rank - 2``) the cards held, wilds left out.
        black: black jokers held.
        red: red jokers held.
        wilds: heart level cards held (G-R5).
        level: the level rank (2..14).
        wild: the kind of the wild card.
    """

    naturals: Final[tuple[int, ...]]
    black: Final[int]
    red: Final[int]
    wilds: Final[int]
    level: Final[int]
    wild: Final[int]

    def __init__(
        self, naturals: tuple[int, ...], black: int, red: int, wilds: int, level: int, wild: int
    ) -> None:
        self.naturals = naturals
        self.black = black
        self.red = red
        self.wilds = wilds
        self.level = level
        self.wild = wild

    @property
    def size(self) -> int:
        """How many cards the hand holds."""
        return sum(self.naturals) + self.black + self.red + self.wilds


def holding_of(kinds: Iterable[int], level: int) -> Holding:
    """The planner's form of the cards ``kinds`` at ``level``."""
    empty = Holding((0,) * RANKS, 0, 0, 0, level, kind_of(level, Suit.HEARTS))
    return _moved(empty, kinds, 1)


def without(hand: Holding, kinds: Iterable[int]) -> Holding:
    """The holding left after playing ``kinds`` from ``hand``."""
    return _moved(hand, kinds, -1)


def _moved(hand: Holding, kinds: Iterable[int], step: int) -> Holding:
    """``hand`` with each of ``kinds`` added (``step`` 1) or taken away (``step`` -1)."""
    naturals = list(hand.naturals)
    black, red, wilds = hand.black, hand.red, hand.wilds
    for kind in kinds:
        if kind == hand.wild:
            wilds += step
        elif kind == BLACK_JOKER:
            black += step
        elif kind == RED_JOKER:
            red += step
        else:
            naturals[kind % RANKS] += step
    return Holding(tuple(naturals), black, red, wilds, hand.level, hand.wild)


def hand_cost(hand: Holding) -> int:
    """The cheapest split of ``hand`` into plays, in half plays (see the module docstring)."""
    return _naturals_cost(hand.naturals, hand.level - 2, 0) + _joker_cost(hand.black, hand.red)


def _joker_cost(black: int, red: int) -> int:
    """Jokers: the four together are a bomb; a red joker wins alone; a black one nearly."""
    if black == red == 2:
        return 0
    return HALF if black else 0


@lru_cache(maxsize=1 << 15)
def _naturals_cost(counts: tuple[int, ...], level_index: int, first: int) -> int:
    """The cheapest split of natural cards: sequences taken out, then groups.

    Sequences are taken out in the order of ``_WINDOWS`` (from index ``first`` on), so each
    set of sequences is tried once. A sequence is tried only if it uses up at least two of
    its ranks (one for a plate) and breaks no bomb: otherwise it saves nothing worth a bomb.
    """
    best = _groups_cost(counts, level_index)
    for w in range(first, len(_WINDOWS)):
        ranks, copies = _WINDOWS[w]
        used_up = 0
        for i in ranks:
            n = counts[i]
            if n < copies or copies + _BOMB > n >= _BOMB:
                break
            used_up += n == copies
        else:
            if used_up >= _USED_UP[copies]:
                rest = list(counts)
                for i in ranks:
                    rest[i] -= copies
                best = min(best, FULL + _naturals_cost(tuple(rest), level_index, w))
    return best


def _groups_cost(counts: tuple[int, ...], level_index: int) -> int:
    """Singles, pairs, triples and bombs of what is left; a triple carries a pair along.

    Singles and pairs of aces or of the level rank cost half a play (they win most tricks).
    """
    cost = pairs = triples = 0
    for i, n in enumerate(counts):
        if n >= _BOMB or not n:
            continue
        if n < 3 and i in (level_index, _ACE):
            cost += HALF
        elif n == 1:
            cost += FULL
        elif n == 2:
            pairs += 1
        else:
            triples += 1
    return cost + FULL * (pairs + triples - min(pairs, triples))
