"""The trick of the trick-taking games: who led it and the cards played so far.

Hearts and Klaberjass keep the same trick; each subclasses it with its table size and its own
rule for who takes it (suit led only, or trumps too).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine_service.core.cards import Card


@dataclass(frozen=True, slots=True)
class SeatedTrick:
    """A trick: who led it and the cards played so far, in play order.

    Attributes:
        seats: how many seats the game has (a class constant of each game's trick).
        leader: the seat that led.
        cards: the cards played so far, the leader's first.
    """

    seats: ClassVar[int]
    leader: int
    cards: tuple[Card, ...] = ()

    def seat_of(self, index: int) -> int:
        """The seat that played the ``index``-th card: seats follow the leader in turn."""
        return (self.leader + index) % self.seats

    @property
    def complete(self) -> bool:
        """Whether every seat has played to this trick."""
        return len(self.cards) >= self.seats
