"""Every Hearts variant choice, each naming the rule it configures (``seeds/hearts.md``)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine_service.core.protocol import option


class Variant(StrEnum):
    """Which end-of-game check applies (H-R14 .. H-R17)."""

    CLASSIC = "classic"
    SPECIAL = "special"


class FirstTrickBan(StrEnum):
    """Cards that may not be played to the first trick (H-R5)."""

    QUEEN_OF_SPADES = "queen_of_spades"
    QUEEN_OF_SPADES_AND_HEARTS = "queen_of_spades_and_hearts"


class AllHeartsLead(StrEnum):
    """What a leader holding only hearts does before hearts are broken (H-R8)."""

    ALLOW = "allow"
    PASS_LEAD = "pass_lead"


class ClassicTie(StrEnum):
    """What a tie for the lowest total does in the classic variant (H-R13)."""

    SHARED = "shared"
    PLAY_ON = "play_on"


class PerfectHandExempt(StrEnum):
    """Whose perfect hand cannot keep the game going in the Special variant (H-R15)."""

    SCORE_LEADER = "score_leader"
    HAND_OPENER = "hand_opener"


class LeaderEvaluated(StrEnum):
    """Whether the score leader of H-R15 is found before or after adding the hand."""

    AFTER_SCORING = "after_scoring"
    BEFORE_SCORING = "before_scoring"


@dataclass(frozen=True, slots=True)
class HeartsConfig:
    """A Hearts rule set; the defaults are GameTwist's "Special" game to 100."""

    target: int = option(100, "H-R12", "The game ends once a running total reaches this.")
    variant: Variant = option(Variant.SPECIAL, "H-R14", "Classic or Special end-of-game rules.")
    first_trick_ban: FirstTrickBan = option(
        FirstTrickBan.QUEEN_OF_SPADES, "H-R5", "Cards banned from the first trick."
    )
    queen_breaks_hearts: bool = option(False, "H-R7", "Whether playing QS breaks hearts.")
    all_hearts_lead: AllHeartsLead = option(
        AllHeartsLead.ALLOW, "H-R8", "A leader with only hearts, hearts unbroken: lead or pass."
    )
    moon_opponent_penalty: int = option(
        13, "H-R11", "Points each opponent takes when a player shoots the moon."
    )
    classic_tie: ClassicTie = option(
        ClassicTie.SHARED, "H-R13", "Classic variant: a tie for lowest is shared or played on."
    )
    perfect_hand_exempt: PerfectHandExempt = option(
        PerfectHandExempt.SCORE_LEADER, "H-R15", "Whose perfect hand does not extend the game."
    )
    leader_evaluated: LeaderEvaluated = option(
        LeaderEvaluated.AFTER_SCORING, "H-R15", "Find the score leader after or before the hand."
    )
    moon_counts_as_perfect: bool = option(
        True, "H-R15", "Whether shooting the moon counts as a perfect hand."
    )

    def __post_init__(self) -> None:
        if not 1 <= self.target <= 10_000:
            raise ValueError("target must be between 1 and 10000")
        if not 0 <= self.moon_opponent_penalty <= 26:
            raise ValueError("moon_opponent_penalty must be between 0 and 26")
