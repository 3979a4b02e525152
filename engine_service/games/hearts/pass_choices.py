"""Every pass a hand can make, as a lazy sequence (H-R2).

Kept apart from :mod:`engine_service.games.hearts.actions` because it cannot be compiled: as a
compiled class, ``PassChoices`` (a ``Sequence``) would share ``Sequence``'s ABC registry, so
``isinstance((), PassChoices)`` would hold, and as a non-native one it meets a metaclass
conflict. The actions module, whose ``plays_of`` lists every legal play, is compiled.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import combinations
from typing import overload

from engine_service.core.cards import bits_in
from engine_service.games.hearts.actions import PassCards


class PassChoices(Sequence[PassCards]):
    """Every pass of ``PASS_SIZE`` cards from a hand, built only when asked for.

    A hand of 13 has 286 possible passes; a bot picking one by index should not pay for
    building the other 285, so items are made on demand from a shared table of index triples.

    ``hand`` and ``size`` describe the whole family at once, which is how a view lists it
    (any ``size`` cards of ``hand``) instead of item by item.

    >>> from engine_service.core.cards import Card, mask_of
    >>> choices = PassChoices(mask_of(Card.parse(c) for c in "2C 3C 4C 5C".split()), 3)
    >>> len(choices), str(choices[0]), str(choices[-1]), choices.size
    (4, 'pass 2C 3C 4C', 'pass 3C 4C 5C', 3)
    """

    __slots__ = ("_bits", "_combos", "hand", "size")

    def __init__(self, hand: int, size: int) -> None:
        self.hand = hand
        self.size = size
        self._bits = bits_in(hand)
        self._combos = _combinations(len(self._bits), size)

    def __len__(self) -> int:
        return len(self._combos)

    @overload
    def __getitem__(self, index: int) -> PassCards: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[PassCards]: ...
    def __getitem__(self, index: int | slice) -> PassCards | Sequence[PassCards]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        mask = 0
        for position in self._combos[index]:
            mask |= self._bits[position]
        return PassCards(mask)


@cache
def _combinations(count: int, size: int) -> tuple[tuple[int, ...], ...]:
    return tuple(combinations(range(count), size))
