"""Every two-player Klaberjass variant choice, each naming its rule (``seeds/klaberjass.md``).

Schmeiss (K-R8, an offer to throw the hand in) is not implemented, so it has no option: the
engine always plays the seed's bidding, which is the digest's recommended ``allow_schmeiss =
False``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine_service.core.protocol import option


class SecondDealOrder(StrEnum):
    """How the three extra cards each are dealt once trump is fixed (K-R10)."""

    ALTERNATE = "alternate"
    PACKETS = "packets"


class EqualTotals(StrEnum):
    """What equal totals at or above the target do (K-R21)."""

    ANOTHER_DEAL = "another_deal"
    MAKER_WINS = "maker_wins"


@dataclass(frozen=True, slots=True)
class KlaberjassConfig:
    """A Klaberjass rule set; the defaults are the seed's game to 500 with the digest's picks."""

    target: int = option(500, "K-R21", "The game ends once a total reaches this (>=).")
    equal_totals: EqualTotals = option(
        EqualTotals.ANOTHER_DEAL, "K-R21", "Equal totals at the target: deal again or maker wins."
    )
    second_deal_order: SecondDealOrder = option(
        SecondDealOrder.ALTERNATE,
        "K-R10",
        "The 3+3 cards after bidding: one at a time alternating, or 3 then 3; non-dealer first.",
    )
    dix_only_if_turnup_trump: bool = option(
        True, "K-R11", "The trump 7 may be swapped only when trump is the turned-up suit."
    )
    score_all_winner_sequences: bool = option(
        False, "K-R12", "The best sequence's holder scores all their sequences, not only the best."
    )
    auto_declare_sequences: bool = option(
        True, "K-R14", "Sequences are compared automatically; otherwise each player may conceal."
    )
    melds_need_a_trick: bool = option(
        False, "K-R14", "A player who takes no trick loses the sequence points they won."
    )

    def __post_init__(self) -> None:
        if not 1 <= self.target <= 10_000:
            raise ValueError("target must be between 1 and 10000")
