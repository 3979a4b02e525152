"""Which play beats which: comparison keys (G-R12), bomb order (G-R15) and shape rules (G-R16).

>>> from engine_service.games.guandan.reading import Reading, Shape
>>> beats(Reading(Shape.PAIR, 5, 2), Reading(Shape.PAIR, 14, 2), level=5)
True
>>> beats(Reading(Shape.STRAIGHT_FLUSH, 9, 5), Reading(Shape.BOMB, 2, 6), level=2)
False
"""

from __future__ import annotations

from typing import Final

from engine_service.games.guandan.cards import strength
from engine_service.games.guandan.reading import Reading, Shape

_STRAIGHT_FLUSH_TIER: Final = 11
"""G-R15: between the 5-bomb (tier 10) and the 6-bomb (tier 12)."""
_JOKER_BOMB_TIER: Final = 100


def key(reading: Reading, level: int) -> int:
    """G-R12: the value compared between two plays of one shape and size.

    Sequences compare their natural top card (G-R7); every other shape compares its rank in
    the G-R3 order, where the level rank is lifted above the ace.
    """
    if reading.shape.is_sequence:
        return reading.rank
    return strength(reading.rank, level)


def bomb_tier(reading: Reading) -> int:
    """G-R15: bombs first compare this tier (size, with the straight flush between 5 and 6)."""
    if reading.shape is Shape.JOKER_BOMB:
        return _JOKER_BOMB_TIER
    if reading.shape is Shape.STRAIGHT_FLUSH:
        return _STRAIGHT_FLUSH_TIER
    return 2 * reading.size


def beats(new: Reading, top: Reading, level: int) -> bool:
    """Whether ``new`` may be played on ``top`` at ``level`` (G-R12, G-R15, G-R16).

    Any bomb beats any non-bomb; a bomb beats a bomb of a higher tier, or of the same tier
    with a strictly higher key; a non-bomb beats only the same shape and size with a
    strictly higher key. An equal play never beats.
    """
    if new.shape.is_bomb:
        if not top.shape.is_bomb:
            return True
        return (bomb_tier(new), key(new, level)) > (bomb_tier(top), key(top, level))
    return new.shape is top.shape and new.size == top.size and key(new, level) > key(top, level)
