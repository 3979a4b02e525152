"""The trick of the trick-taking games: who led it and the cards played so far.

Hearts and Klaberjass keep the same trick; each subclasses it with its table size and its own
rule for who takes it (suit led only, or trumps too).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from engine_service.core.cards import Card


@dataclass(slots=True, init=False, unsafe_hash=True)
class SeatedTrick:
    """A trick: who led it and the cards played so far, in play order.

    Each game's trick says how many seats it has (:attr:`seats`, a property rather than a
    ``ClassVar``: mypyc's compiled dataclasses take a class variable given a value in a
    subclass for a field with a default, which breaks the field order).

    Attributes:
        leader: the seat that led.
        cards: the cards played so far, the leader's first.
    """

    leader: Final[int]
    cards: Final[tuple[Card, ...]]

    def __init__(self, leader: int, cards: tuple[Card, ...] = ()) -> None:
        self.leader = leader
        self.cards = cards

    @property
    def seats(self) -> int:
        """How many seats the game has; each game's trick overrides this."""
        raise NotImplementedError

    def seat_of(self, index: int) -> int:
        """The seat that played the ``index``-th card: seats follow the leader in turn."""
        return (self.leader + index) % self.seats

    @property
    def complete(self) -> bool:
        """Whether every seat has played to this trick."""
        return len(self.cards) >= self.seats
