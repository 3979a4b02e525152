"""Hand scoring and the end-of-game check (H-R10 .. H-R17).

>>> score_hand((26, 0, 0, 0), HeartsConfig())  # H-R11: shooting the moon
(0, 13, 13, 13)
>>> score_hand((13, 5, 8, 0), HeartsConfig())
(13, 5, 8, 0)
"""

from __future__ import annotations

from typing import Final

from engine_service.core.cards import SUIT_MASKS, Card, Suit
from engine_service.games.hearts.config import (
    ClassicTie,
    HeartsConfig,
    LeaderEvaluated,
    PerfectHandExempt,
    Variant,
)

QUEEN_OF_SPADES: Final = Card.parse("QS")
HEARTS_MASK: Final = SUIT_MASKS[Suit.HEARTS]
QUEEN_POINTS: Final = 13  # H-R10
HAND_POINTS: Final = 26  # H-R10: 13 hearts + QS


def trick_points(trick_mask: int) -> int:
    """Penalty points in a set of cards: 1 per heart, 13 for QS (H-R10)."""
    hearts = (trick_mask & HEARTS_MASK).bit_count()
    return hearts + (QUEEN_POINTS if trick_mask >> QUEEN_OF_SPADES & 1 else 0)


def moon_shooter(points: tuple[int, ...]) -> int | None:
    """The seat that took every penalty card this hand, if any (H-R11)."""
    for seat, taken in enumerate(points):
        if taken == HAND_POINTS:
            return seat
    return None


def score_hand(points: tuple[int, ...], config: HeartsConfig) -> tuple[int, ...]:
    """The scores a hand adds to the totals: raw points, or the moon rule (H-R10, H-R11)."""
    shooter = moon_shooter(points)
    if shooter is None:
        return points
    return tuple(0 if seat == shooter else config.moon_opponent_penalty for seat in range(4))


def lowest(totals: tuple[int, ...]) -> tuple[int, ...]:
    """The seats sharing the lowest total."""
    best = min(totals)
    return tuple(seat for seat, total in enumerate(totals) if total == best)


def game_winners(
    totals_before: tuple[int, ...],
    points: tuple[int, ...],
    opener: int,
    config: HeartsConfig,
) -> tuple[int, ...]:
    """The winners if this hand ends the game, else ``()``: the H-R17 procedure.

    Args:
        totals_before: running totals before this hand.
        points: penalty points each seat took this hand, before the moon rule.
        opener: the seat that led the hand's first trick (H-R15 ``hand_opener`` option).
        config: the rule set.
    """
    scores = score_hand(points, config)
    totals = tuple(a + b for a, b in zip(totals_before, scores, strict=True))
    if max(totals) < config.target:  # H-R12
        return ()
    leaders = lowest(totals)
    if config.variant is Variant.CLASSIC:
        tied = len(leaders) > 1
        return () if tied and config.classic_tie is ClassicTie.PLAY_ON else leaders  # H-R13
    if len(leaders) > 1:  # H-R16
        return ()
    if _perfect_hand_extends(totals_before, totals, points, scores, opener, config):  # H-R15
        return ()
    return leaders


def _perfect_hand_extends(
    totals_before: tuple[int, ...],
    totals: tuple[int, ...],
    points: tuple[int, ...],
    scores: tuple[int, ...],
    opener: int,
    config: HeartsConfig,
) -> bool:
    """H-R15: a non-leader's perfect hand keeps the game going unless a leader had one too."""
    shooter = moon_shooter(points)
    perfect = {
        seat
        for seat, score in enumerate(scores)
        if score == 0 and (config.moon_counts_as_perfect or seat != shooter)
    }
    if config.perfect_hand_exempt is PerfectHandExempt.HAND_OPENER:
        exempt = {opener}
    elif config.leader_evaluated is LeaderEvaluated.BEFORE_SCORING:
        exempt = set(lowest(totals_before))
    else:
        exempt = set(lowest(totals))
    return bool(perfect - exempt) and not perfect & exempt
