"""What a played set of cards counts as: its shape and the rank it is compared by (G-R8..G-R16).

The same cards can support several readings when wilds are involved (G-R13), so a play names
its reading explicitly and the rules check that the cards support it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Shape(StrEnum):
    """The legal shapes of G-R8, bombs (G-R14, G-R15) included."""

    SINGLE = "single"
    PAIR = "pair"
    TRIPLE = "triple"
    FULL_HOUSE = "full_house"
    STRAIGHT = "straight"
    TUBE = "tube"
    PLATE = "plate"
    BOMB = "bomb"
    STRAIGHT_FLUSH = "straight_flush"
    JOKER_BOMB = "joker_bomb"

    @property
    def is_bomb(self) -> bool:
        """G-R16: bombs beat every ordinary play."""
        return self in _BOMBS

    @property
    def is_sequence(self) -> bool:
        """G-R7: sequences use natural ranks, ace low or high."""
        return self in _SEQUENCES


_BOMBS = frozenset({Shape.BOMB, Shape.STRAIGHT_FLUSH, Shape.JOKER_BOMB})
_SEQUENCES = frozenset({Shape.STRAIGHT, Shape.TUBE, Shape.PLATE, Shape.STRAIGHT_FLUSH})


@dataclass(frozen=True, slots=True)
class Reading:
    """A shape with its comparison rank (G-R12).

    Attributes:
        shape: the shape the cards are declared as.
        rank: the natural rank compared (2..14; 15 black joker, 16 red joker): the group's
            rank for singles, pairs, triples and rank bombs; the triple's rank for a full
            house; the natural top card of a sequence (ace-low straight 5, A-2-3 tube 3,
            A-2 plate 2, 10-J-Q-K-A straight 14); 16 for the four-joker bomb.
        size: the number of cards (bombs 4..10; straights 5; tubes 6; plates 6).
    """

    shape: Shape
    rank: int
    size: int

    def __str__(self) -> str:
        return f"{self.shape}:{self.rank}:{self.size}"

    @staticmethod
    def parse(text: str) -> Reading:
        """Read ``"full_house:8:5"``."""
        shape, rank, size = text.split(":")
        return Reading(Shape(shape), int(rank), int(size))
