"""The shuffle of a deal, shared by every game: the same order for the same seed, forever.

Every game deals with ``shuffled(cards, seed, deal_number)``. The order is exactly the one
``random.Random(f"{seed}:{deal_number}").shuffle`` gives (CPython's Fisher-Yates over
``getrandbits``), so games stored before this module existed replay as they were dealt; a test
holds the two equal. It is written out because compiled, it is about three times faster than
the standard library's shuffle, which runs as interpreted code, and a deal is part of every
new game and of every hand's last card.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import TypeVar

T = TypeVar("T")


def shuffled(items: Iterable[T], seed: int, deal_number: int) -> list[T]:
    """``items`` in the order of deal ``deal_number`` of the game seeded ``seed``."""
    order = list(items)
    getrandbits = random.Random(f"{seed}:{deal_number}").getrandbits
    for i in range(len(order) - 1, 0, -1):
        bound = i + 1
        width = bound.bit_length()
        j = getrandbits(width)
        while j >= bound:
            j = getrandbits(width)
        order[i], order[j] = order[j], order[i]
    return order
