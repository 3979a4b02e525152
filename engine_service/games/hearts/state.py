"""The position of a Hearts game: an immutable value rebuilt by every action."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Final

from engine_service.core.cards import SUIT_SIZE
from engine_service.core.tricks import SeatedTrick

SEATS = 4
HAND_SIZE = 13
PASS_SIZE = 3  # H-R2


class Phase(IntEnum):
    """Where the game stands."""

    PASSING = 1
    PLAYING = 2
    GAME_OVER = 3


class PassDirection(IntEnum):
    """Where this hand's passed cards go (H-R2): the cycle repeats for the whole game."""

    LEFT = 1
    RIGHT = 2
    ACROSS = 3
    NONE = 4

    @staticmethod
    def for_hand(hand_number: int) -> PassDirection:
        """Hand 0 passes left, 1 right, 2 across, 3 keeps; then again."""
        return _DIRECTIONS[hand_number % 4]

    @property
    def step(self) -> int:
        """How many seats clockwise the cards travel."""
        return (1, 3, 2, 0)[self - 1]


_DIRECTIONS: tuple[PassDirection, ...] = tuple(PassDirection)


@dataclass(slots=True, init=False, unsafe_hash=True)
class Trick(SeatedTrick):
    """A Hearts trick, among four seats."""

    @property
    def seats(self) -> int:
        """Four seats."""
        return SEATS

    @property
    def winner(self) -> int | None:
        """The seat taking a complete trick: highest card of the suit led (H-R6, no trumps)."""
        if not self.complete:
            return None
        return self.seat_of(winning_index(self.cards))


def winning_index(cards: Sequence[int]) -> int:
    """Which of a complete trick's cards takes it: the highest of the suit led (H-R6)."""
    led = cards[0] // SUIT_SIZE
    best = 0
    for index in range(1, SEATS):
        card = cards[index]
        if card // SUIT_SIZE == led and card > cards[best]:
            best = index
    return best


@dataclass(frozen=True, slots=True)
class FinishedHand:
    """A hand just played out, kept public until the next hand's first card (H-R10, H-R11).

    The 52nd card both ends a hand and deals the next one, so without this record nobody
    could see the final trick or how the hand scored once the new cards are out.

    Attributes:
        hand_number: the hand's 0-based number; its cards are of that deal, not the current.
        tricks: its completed tricks in play order, each with its leader and cards.
        points_taken: penalty points each seat took, before the moon rule (H-R10).
        scores: what the hand added to the totals, after the moon rule (H-R11).
    """

    hand_number: int
    tricks: tuple[Trick, ...]
    points_taken: tuple[int, ...]
    scores: tuple[int, ...]


@dataclass(slots=True, init=False, unsafe_hash=True)
class HeartsState:
    """Everything about a Hearts game, hidden parts included; views copy from it.

    Immutable: every field is ``Final`` (mypy refuses an assignment, and compiled, the
    attributes are read-only). The constructor is written out rather than generated because
    mypyc compiles a written ``__init__``; a frozen dataclass's generated one sets each field
    through ``object.__setattr__`` in interpreted code, which cost 3 of the 4.4 µs of a
    compiled play (see "What the speed work bought" in docs/benchmarks.md).

    Attributes:
        seed: the shuffle seed; secret, it would reveal every hand.
        phase: passing, playing or over.
        hand_number: 0-based count of hands dealt; fixes the pass direction.
        hands: each seat's cards as a bitmask.
        passed: each seat's chosen pass (0 while undecided); kept after the exchange so
            that the passer and the receiver can still see those cards.
        trick: the trick being played.
        tricks_played: completed tricks in this hand.
        hearts_broken: whether a heart (or QS, by option) has been played this hand (H-R7).
        points: penalty points taken by each seat in this hand (H-R10).
        tricks_won: tricks taken by each seat in this hand.
        opener: the seat that led the first trick of this hand (H-R15 option).
        totals: running totals (H-R10, H-R12).
        hand_scores: each completed hand's scores, oldest first.
        winners: the winning seats once the game is over.
        completed: this hand's completed tricks, oldest first, public; the last one is
            :attr:`last_trick`.
        previous_hand: the hand that ended last, from its 52nd card until the first card of
            the next hand (and for good once the game is over); public.
    """

    seed: Final[int]
    phase: Final[Phase]
    hand_number: Final[int]
    hands: Final[tuple[int, ...]]
    passed: Final[tuple[int, ...]]
    trick: Final[Trick]
    tricks_played: Final[int]
    hearts_broken: Final[bool]
    points: Final[tuple[int, ...]]
    tricks_won: Final[tuple[int, ...]]
    opener: Final[int]
    totals: Final[tuple[int, ...]]
    hand_scores: Final[tuple[tuple[int, ...], ...]]
    winners: Final[tuple[int, ...]]
    completed: Final[tuple[Trick, ...]]
    previous_hand: Final[FinishedHand | None]

    def __init__(
        self,
        seed: int,
        phase: Phase,
        hand_number: int,
        hands: tuple[int, ...],
        passed: tuple[int, ...],
        trick: Trick,
        tricks_played: int,
        hearts_broken: bool,
        points: tuple[int, ...],
        tricks_won: tuple[int, ...],
        opener: int,
        totals: tuple[int, ...],
        hand_scores: tuple[tuple[int, ...], ...],
        winners: tuple[int, ...] = (),
        completed: tuple[Trick, ...] = (),
        previous_hand: FinishedHand | None = None,
    ) -> None:
        self.seed = seed
        self.phase = phase
        self.hand_number = hand_number
        self.hands = hands
        self.passed = passed
        self.trick = trick
        self.tricks_played = tricks_played
        self.hearts_broken = hearts_broken
        self.points = points
        self.tricks_won = tricks_won
        self.opener = opener
        self.totals = totals
        self.hand_scores = hand_scores
        self.winners = winners
        self.completed = completed
        self.previous_hand = previous_hand

    @property
    def pass_direction(self) -> PassDirection:
        """This hand's pass direction."""
        return PassDirection.for_hand(self.hand_number)

    @property
    def last_trick(self) -> Trick | None:
        """The previous completed trick of this hand, public; ``None`` before the first.

        Derived rather than stored: every play builds a new state, and a field costs each one.
        """
        return self.completed[-1] if self.completed else None

    @property
    def turn(self) -> int:
        """The seat to play next while playing."""
        trick = self.trick
        return (trick.leader + len(trick.cards)) % SEATS
