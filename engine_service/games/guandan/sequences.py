"""The rank windows of Guandan's sequences: straights, tubes, plates and straight flushes (G-R7).

Sequences use natural ranks, the ace low or high, and never wrap: a window is a run of
``length`` consecutive ranks named by its natural top card, where the ace-low window has the
ace at its bottom (A-2-3-4-5 is the straight with top 5, A-2-3 the tube with top 3 and A-2
the plate with top 2).

>>> window(5, 5), window(14, 3), window(2, 2)
((14, 2, 3, 4, 5), (12, 13, 14), (14, 2))
>>> SEQUENCES[Shape.TUBE].copies, len(SEQUENCES[Shape.STRAIGHT].windows)
(2, 10)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import product
from typing import Final

from engine_service.core.cards import ACE
from engine_service.games.guandan.reading import Shape


def window(top: int, length: int) -> tuple[int, ...]:
    """The natural ranks, lowest first, of the run of ``length`` ranks ending at ``top``."""
    return tuple(ACE if rank == 1 else rank for rank in range(top - length + 1, top + 1))


@dataclass(frozen=True, slots=True)
class SequenceKind:
    """One sequence shape: how many ranks it spans and how many cards of each rank.

    Attributes:
        shape: the shape (straight, tube or plate; a straight flush spans the straight's ranks).
        length: the number of consecutive ranks.
        copies: the number of cards of each rank.
        windows: every legal (top, ranks) pair, lowest top first (G-R7: no wrap).
    """

    shape: Shape
    length: int
    copies: int
    windows: tuple[tuple[int, tuple[int, ...]], ...]

    @property
    def size(self) -> int:
        """The number of cards in the sequence."""
        return self.length * self.copies


def _kind(shape: Shape, length: int, copies: int) -> SequenceKind:
    windows = tuple((top, window(top, length)) for top in range(length, ACE + 1))
    return SequenceKind(shape, length, copies, windows)


@cache
def fills(
    copies: int, held: tuple[int, ...], wilds: int
) -> tuple[tuple[tuple[int, ...], int], ...]:
    """Every way to fill a window with ``copies`` cards per rank from naturals and wilds.

    Args:
        copies: cards needed at each rank of the window.
        held: natural cards held at each rank of the window (counts above ``copies`` are
            the same as ``copies``).
        wilds: wild cards available.

    Returns:
        (natural cards taken at each rank, wilds taken) pairs, fewest wilds first.

    >>> fills(1, (1, 1, 0), 1)
    (((1, 1, 0), 1),)
    >>> fills(2, (2, 1), 2)
    (((2, 1), 1), ((2, 0), 2), ((1, 1), 2))
    """
    choices = (range(copies - min(n, copies), copies + 1) for n in held)
    found = []
    for gaps in product(*choices):
        if sum(gaps) <= wilds:
            found.append((tuple(copies - g for g in gaps), sum(gaps)))
    return tuple(sorted(found, key=lambda fill: fill[1]))


SEQUENCES: Final = {
    Shape.STRAIGHT: _kind(Shape.STRAIGHT, 5, 1),
    Shape.TUBE: _kind(Shape.TUBE, 3, 2),
    Shape.PLATE: _kind(Shape.PLATE, 2, 3),
}
"""G-R8: a straight is exactly 5 single cards, a tube 3 pairs, a plate 2 triples."""
