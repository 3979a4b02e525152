"""Every Guandan variant choice, each naming the rule it configures (``seeds/guandan.md``).

The defaults are the seed's rules; each [open] point of the rules is one option here.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine_service.core.protocol import option


class CardCountVisibility(StrEnum):
    """When other seats' card counts are shown (G-R23)."""

    ALWAYS = "always"
    TEN_OR_FEWER = "ten_or_fewer"


class FailAtAce(StrEnum):
    """What happens to a team that uses up its attempts at A (G-R27)."""

    NONE = "none"
    DEMOTE_TO_TWO = "demote_to_two"


class TributeCopy(StrEnum):
    """Which suit is given when the forced tribute rank is held in several suits (G-R34)."""

    LOWEST_SUIT = "lowest_suit"
    HIGHEST_SUIT = "highest_suit"


@dataclass(frozen=True, slots=True)
class GuandanConfig:
    """A Guandan rule set; the defaults follow the seed and the rules digest's defaults."""

    allow_underdeclare_straight_flush: bool = option(
        False, "G-R13", "Whether a natural one-suit five-card run may be declared a straight."
    )
    end_deal_on_double_win: bool = option(
        True, "G-R21", "End the deal as soon as partners finish first and second."
    )
    card_count_visibility: CardCountVisibility = option(
        CardCountVisibility.ALWAYS, "G-R23", "When other seats' card counts are shown."
    )
    ace_attempts: int = option(
        0, "G-R27", "Deals a team may declare at A without winning the match; 0 is unlimited."
    )
    fail_at_ace: FailAtAce = option(
        FailAtAce.NONE, "G-R27", "What happens once a team has used its attempts at A."
    )
    tribute_copy: TributeCopy = option(
        TributeCopy.LOWEST_SUIT, "G-R34", "Which suit is given among tribute cards of one rank."
    )
    return_excludes_level_rank: bool = option(
        False, "G-R35a", "Whether level-rank cards of rank 10 or lower may not be returned."
    )
    return_may_be_tribute_card: bool = option(
        False, "G-R35b", "Whether the card just received as tribute may be returned."
    )
    announce_anti_tribute: bool = option(
        True, "G-R33", "Whether the holders of the red jokers are shown on anti-tribute."
    )

    def __post_init__(self) -> None:
        if not 0 <= self.ace_attempts <= 100:
            raise ValueError("ace_attempts must be between 0 and 100")
