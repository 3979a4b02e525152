"""Sequences (K-R12, K-R13): runs of three or more cards of one suit in natural order.

>>> from engine_service.core.cards import mask_of
>>> hand = mask_of(Card.parse(c) for c in "7H 8H 9H JS QS KS AS".split())
>>> [(str(r.top), r.length, r.points) for r in runs_in(hand)]
[('AS', 4, 50), ('9H', 3, 20)]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from engine_service.core.cards import SUIT_SIZE, Card, Suit, cards_in
from engine_service.games.klaberjass.cards import LOWEST_RANK
from engine_service.games.klaberjass.state import SequenceResult

SHORT_POINTS: Final = 20  # K-R12: three cards
LONG_POINTS: Final = 50  # K-R12: four or more
MIN_LENGTH: Final = 3
_OFFSET: Final = LOWEST_RANK - 2  # bit of the 7 within a suit


@dataclass(frozen=True, slots=True)
class Run:
    """One sequence in a hand: its cards as a bitmask, its top card and its length."""

    mask: int
    top: Card
    length: int

    @property
    def points(self) -> int:
        """20 for three cards, 50 for four or more (K-R12)."""
        return LONG_POINTS if self.length > MIN_LENGTH else SHORT_POINTS

    def key(self, trump: Suit) -> tuple[int, int, bool]:
        """Comparison key (K-R13): length, then top rank, then being trump."""
        return (self.length, self.top.rank, self.top.suit is trump)


def runs_in(hand: int) -> tuple[Run, ...]:
    """Every maximal sequence of ``hand``, best first (longest, then highest top, then suit)."""
    runs = []
    for suit in Suit:
        base = suit * SUIT_SIZE + _OFFSET
        bits = hand >> base & 0xFF
        position = 0
        while position < 8:
            if not bits >> position & 1:
                position += 1
                continue
            start = position
            while position < 8 and bits >> position & 1:
                position += 1
            length = position - start
            if length >= MIN_LENGTH:
                mask = ((1 << length) - 1) << (base + start)
                runs.append(Run(mask, Card(base + position - 1), length))
    return tuple(sorted(runs, key=lambda r: (r.length, r.top.rank, r.top.suit), reverse=True))


def compare_sequences(
    hands: tuple[int, int],
    declared: tuple[bool, bool],
    trump: Suit,
    score_all: bool,
) -> SequenceResult:
    """Who scores sequences this deal, with what (K-R12, K-R13).

    Only declared hands compete. The best sequence wins; at equal length and top card a trump
    sequence wins, and between two plain ones nobody scores. The winner scores its best
    sequence, or every sequence it holds with ``score_all``.
    """
    best: list[Run | None] = [None, None]
    for seat in (0, 1):
        runs = runs_in(hands[seat]) if declared[seat] else ()
        best[seat] = max(runs, key=lambda r: r.key(trump)) if runs else None
    first, second = best
    if first is None and second is None:
        return SequenceResult(None)
    if first is None or second is None:
        winner = 0 if second is None else 1
    else:
        a, b = first.key(trump), second.key(trump)
        if a == b:
            return SequenceResult(None)  # equal, neither trump
        winner = 0 if a > b else 1
    top = best[winner]
    assert top is not None
    scored = runs_in(hands[winner]) if score_all else (top,)
    mask = 0
    for run in scored:
        mask |= run.mask
    return SequenceResult(winner, tuple(cards_in(mask)), sum(r.points for r in scored))
