"""Deal scoring and the end-of-game check (K-R15, K-R20, K-R21).

>>> deal_scores((90, 72), maker=0)  # the maker has more: both score their own
(90, 72)
>>> deal_scores((81, 81), maker=0)  # a tie: the maker scores nothing
(0, 81)
>>> deal_scores((60, 102), maker=0)  # "bate": the opponent takes both totals
(0, 162)
"""

from __future__ import annotations

from typing import Final

from engine_service.games.klaberjass.config import EqualTotals, KlaberjassConfig
from engine_service.games.klaberjass.state import SequenceResult

BELLA_POINTS: Final = 20  # K-R15
LAST_TRICK_POINTS: Final = 10  # K-R19


def deal_points(
    card_points: tuple[int, int],
    tricks_won: tuple[int, int],
    sequences: SequenceResult | None,
    bella_by: int | None,
    config: KlaberjassConfig,
) -> tuple[int, int]:
    """Each seat's deal total: cards and last trick, the winning sequence, bella (K-R20).

    With ``melds_need_a_trick`` a sequence winner who took no trick scores no sequence (K-R14).
    """
    totals = list(card_points)
    if sequences is not None and sequences.winner is not None:
        winner = sequences.winner
        if tricks_won[winner] or not config.melds_need_a_trick:
            totals[winner] += sequences.points
    if bella_by is not None:
        totals[bella_by] += BELLA_POINTS
    return totals[0], totals[1]


def deal_scores(points: tuple[int, int], maker: int) -> tuple[int, int]:
    """What each seat adds to its running total under the maker rule (K-R9, K-R20)."""
    other = 1 - maker
    scores = [0, 0]
    if points[maker] > points[other]:
        scores = list(points)
    elif points[maker] == points[other]:
        scores[other] = points[other]
    else:
        scores[other] = points[0] + points[1]
    return scores[0], scores[1]


def game_winners(totals: tuple[int, int], maker: int, config: KlaberjassConfig) -> tuple[int, ...]:
    """The winner if the game ends after this deal, else ``()`` (K-R21).

    Reaching the target ends the game; the higher total wins, and equal totals play another
    deal unless ``equal_totals`` gives the win to the last deal's maker.
    """
    if max(totals) < config.target:
        return ()
    if totals[0] != totals[1]:
        return (0 if totals[0] > totals[1] else 1,)
    if config.equal_totals is EqualTotals.MAKER_WINS:
        return (maker,)
    return ()
