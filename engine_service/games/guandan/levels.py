"""Deal results, promotion and the match win (G-R24 .. G-R27).

>>> promote(13, 3), promotion_steps(2), promotion_steps(4)
(14, 3, 1)
>>> wins_match(level_before=14, deal_level=14, partner_place=3)
True
"""

from __future__ import annotations

from typing import Final

from engine_service.games.guandan.state import TOP_LEVEL, partner_of

_STEPS: Final = {2: 3, 3: 2, 4: 1}
"""G-R24: levels gained by the winners, by the place of the first finisher's partner."""


def partner_place(order: tuple[int, ...]) -> int:
    """The 1-based place of the first finisher's partner (``order`` always names the partner)."""
    return order.index(partner_of(order[0])) + 1


def promotion_steps(place: int) -> int:
    """G-R24: +3 when the partner finished 2nd, +2 when 3rd, +1 when 4th."""
    return _STEPS[place]


def promote(level: int, steps: int) -> int:
    """G-R25: promotion stops at A and never passes it."""
    return min(level + steps, TOP_LEVEL)


def wins_match(level_before: int, deal_level: int, partner_place: int) -> bool:
    """G-R26: already at A, the deal played at A, and a 1-2 or 1-3 finish."""
    return level_before == TOP_LEVEL and deal_level == TOP_LEVEL and partner_place < 4
