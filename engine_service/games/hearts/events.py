"""What a Hearts move made happen, as small frozen values (``seeds/hearts.md``).

:meth:`HeartsRules.events <engine_service.games.hearts.rules.HeartsRules.events>` derives them
from the states before and after a move and marks each public or private to one seat: the
cards a seat passes, receives or is dealt are its own; everything else is told to everyone.
A viewer that folds the events it may see from the start of a game learns exactly the public
facts of its views (the tricks, the scores), plus its own cards.

>>> str(TrickTaken(1, 0, tuple(map(Card.parse, "2C JC TC KC".split())), 3, 0))
'trick 1 led by seat 0: 2C JC TC KC, seat 3 takes 0 points'
"""

from __future__ import annotations

from dataclasses import dataclass

from engine_service.core.cards import Card, format_cards
from engine_service.games.hearts.state import PassDirection


@dataclass(frozen=True, slots=True)
class PassMade:
    """H-R2: ``seat`` has chosen its pass; public, the cards are not named."""

    seat: int

    def __str__(self) -> str:
        return f"seat {self.seat} passes"


@dataclass(frozen=True, slots=True)
class CardsPassed:
    """H-R2: the three cards ``seat`` chose to give ``to_seat``; private to ``seat``."""

    seat: int
    cards: tuple[Card, ...]
    to_seat: int

    def __str__(self) -> str:
        return f"seat {self.seat} passes {format_cards(self.cards)} to seat {self.to_seat}"


@dataclass(frozen=True, slots=True)
class CardsReceived:
    """H-R2: the cards ``seat`` got from ``from_seat`` once all four passed; private to ``seat``."""

    seat: int
    cards: tuple[Card, ...]
    from_seat: int

    def __str__(self) -> str:
        return f"seat {self.seat} receives {format_cards(self.cards)} from seat {self.from_seat}"


@dataclass(frozen=True, slots=True)
class CardPlayed:
    """H-R3, H-R4: ``seat`` played ``card`` to the current trick; public."""

    seat: int
    card: Card

    def __str__(self) -> str:
        return f"seat {self.seat} plays {self.card}"


@dataclass(frozen=True, slots=True)
class HeartsBroken:
    """H-R7: ``card``, played by ``seat``, broke hearts (hearts may now be led); public."""

    seat: int
    card: Card

    def __str__(self) -> str:
        return f"hearts broken by seat {self.seat}'s {self.card}"


@dataclass(frozen=True, slots=True)
class TrickTaken:
    """H-R6, H-R10: a complete trick and the seat taking it with its penalty points; public.

    Attributes:
        number: the trick's number in its hand, from 1 to 13.
        leader: the seat that led it.
        cards: its four cards in play order, the leader's first.
        winner: the seat playing the highest card of the suit led (H-R6).
        points: the penalty points in it (H-R10).
    """

    number: int
    leader: int
    cards: tuple[Card, ...]
    winner: int
    points: int

    def __str__(self) -> str:
        return (
            f"trick {self.number} led by seat {self.leader}: {format_cards(self.cards)},"
            f" seat {self.winner} takes {self.points} points"
        )


@dataclass(frozen=True, slots=True)
class LeadPassed:
    """H-R8 ``pass_lead``: the trick's winner holds only hearts, so ``to_seat`` leads; public."""

    seat: int
    to_seat: int

    def __str__(self) -> str:
        return f"seat {self.seat} holds only hearts; seat {self.to_seat} leads"


@dataclass(frozen=True, slots=True)
class HandScored:
    """H-R10, H-R11: a hand's 13 tricks are played and its scores are added; public.

    Attributes:
        hand_number: the hand's 0-based number.
        points_taken: penalty points each seat took, before the moon rule.
        scores: what the hand adds to each total.
        moon_shooter: the seat that took all 26 points (H-R11), or ``None``.
        totals: the running totals after the hand.
    """

    hand_number: int
    points_taken: tuple[int, ...]
    scores: tuple[int, ...]
    moon_shooter: int | None
    totals: tuple[int, ...]

    def __str__(self) -> str:
        moon = "" if self.moon_shooter is None else f", seat {self.moon_shooter} shot the moon"
        return f"hand {self.hand_number} scores {self.scores}{moon}; totals {self.totals}"


@dataclass(frozen=True, slots=True)
class HandDealt:
    """H-R1, H-R2, H-R17: a new hand is dealt after the last was scored; public."""

    hand_number: int
    pass_direction: PassDirection

    def __str__(self) -> str:
        return f"hand {self.hand_number} dealt, passing {self.pass_direction.name.lower()}"


@dataclass(frozen=True, slots=True)
class CardsDealt:
    """H-R1: the 13 cards ``seat`` is dealt for hand ``hand_number``; private to ``seat``."""

    seat: int
    hand_number: int
    cards: tuple[Card, ...]

    def __str__(self) -> str:
        return f"seat {self.seat} is dealt {format_cards(self.cards)}"


@dataclass(frozen=True, slots=True)
class GameOver:
    """H-R12, H-R13, H-R16, H-R17: the game is over; the lowest total wins; public."""

    winners: tuple[int, ...]
    totals: tuple[int, ...]

    def __str__(self) -> str:
        return f"game over: seats {self.winners} win; totals {self.totals}"


HeartsEvent = (
    PassMade
    | CardsPassed
    | CardsReceived
    | CardPlayed
    | HeartsBroken
    | TrickTaken
    | LeadPassed
    | HandScored
    | HandDealt
    | CardsDealt
    | GameOver
)
"""Every Hearts event value."""
