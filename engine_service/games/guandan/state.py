"""The position of a Guandan match: an immutable value rebuilt by every action.

Seats 0..3 are numbered in turn order, which is counter-clockwise at a real table (G-R2): the
next seat after ``s`` is ``s + 1`` (mod 4). Seats ``s`` and ``s + 2`` are partners; team 0 is
seats 0 and 2, team 1 is seats 1 and 3.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Final

from engine_service.games.guandan.cards import EMPTY_HAND, Hand
from engine_service.games.guandan.reading import Reading

SEATS: Final = 4
TEAMS: Final = 2
HAND_SIZE: Final = 27  # G-R1
START_LEVEL: Final = 2  # G-R4
TOP_LEVEL: Final = 14  # G-R25: the ace
NO_PLAYS: Final[tuple[Hand, ...]] = (EMPTY_HAND,) * SEATS
"""``GuandanState.played`` before a deal's first play."""


def team_of(seat: int) -> int:
    """The team of a seat: 0 for seats 0 and 2, 1 for seats 1 and 3."""
    return seat % TEAMS


def partner_of(seat: int) -> int:
    """The partner sitting opposite (G-R1)."""
    return (seat + 2) % SEATS


class Phase(IntEnum):
    """Where the match stands. Tribute itself is automatic and has no phase (G-R34)."""

    RETURNING = 1
    PLAYING = 2
    GAME_OVER = 3


@dataclass(frozen=True, slots=True)
class TopPlay:
    """The play to beat in the current trick and the seat that made it."""

    seat: int
    cards: tuple[int, ...]
    reading: Reading


@dataclass(frozen=True, slots=True)
class RoundEntry:
    """One move of the current round: a play (``reading`` set) or a pass (G-R17).

    Attributes:
        seat: the seat that moved.
        cards: the cards played, kinds ascending; empty for a pass.
        reading: what the cards were declared as (G-R13); ``None`` for a pass.
    """

    seat: int
    cards: tuple[int, ...] = ()
    reading: Reading | None = None

    @property
    def is_pass(self) -> bool:
        """Whether the seat passed."""
        return self.reading is None


@dataclass(frozen=True, slots=True)
class DealResult:
    """How a deal ended, kept public until the next deal's first play (G-R21 .. G-R27).

    Attributes:
        deal_number: the deal that ended.
        level: the level it was played at.
        order: its finishing order (only the two winners after a double win, G-R21).
        team: the winning team, the first finisher's (G-R24).
        steps: levels the winners went up (G-R24, stopped at A by G-R25).
        levels_before: both levels before the deal's result.
        levels: both levels after it, a G-R27 demotion included.
        last_plays: the plays and passes of its last round, ending with the play that ended
            the deal.
    """

    deal_number: int
    level: int
    order: tuple[int, ...]
    team: int
    steps: int
    levels_before: tuple[int, int]
    levels: tuple[int, int]
    last_plays: tuple[RoundEntry, ...]


@dataclass(frozen=True, slots=True)
class Tribute:
    """One tribute payment of this deal (G-R31, G-R32) and the card given back for it (G-R35).

    Attributes:
        payer: the seat that paid.
        receiver: the seat that received ``card`` and owes a return to ``payer``.
        card: the tribute card's kind; it is public (G-R37).
        returned: the kind chosen for the return, ``None`` while the receiver has not chosen.
    """

    payer: int
    receiver: int
    card: int
    returned: int | None = None


@dataclass(slots=True, init=False, unsafe_hash=True)
class GuandanState:
    """Everything about a Guandan match, hidden parts included; views copy from it.

    Attributes:
        seed: the shuffle seed; secret, it would reveal every hand.
        phase: returning tribute cards, playing, or over.
        deal_number: 0-based count of deals dealt; deal 0 has no tribute (G-R29).
        levels: each team's level, 2..14 (G-R4, G-R24, G-R25).
        level: the level this deal is played at (G-R4); its rank is lifted (G-R3) and its two
            hearts are wild (G-R5).
        declarer: the team whose level is in play, ``None`` in the first deal (both at 2).
        ace_failures: per team, deals declared at A without winning the match (G-R27).
        hands: each seat's cards as 54 counts; tribute and completed returns already moved.
        turn: the seat to act while playing.
        top: the play to beat, ``None`` when the seat on turn leads.
        passed: seats that passed since ``top`` was played, in order (G-R17).
        finished: seats that have played out this deal, in finishing order.
        tributes: this deal's tribute payments, the one to 1st place first (G-R31, G-R32).
        red_joker_holders: on anti-tribute, the paying seat of each red joker (two entries,
            equal when one seat holds both); empty otherwise (G-R33).
        previous_order: the previous deal's finishing order; after a deal ended on a double
            win (G-R21) it names only the two winners.
        winners: the two seats of the winning team once the match is over (G-R26).
        round_history: the plays and passes of the current round: since the current trick
            was led, or, once a trick is won, of that trick until the next lead (G-R17,
            G-R18). Empty at the start of a deal; at the end of the match, the last round.
        previous_deal: the result of the deal just ended, from its end until the first play
            of the next deal (tribute and returns come in between); ``None`` otherwise.
        played: per seat, the cards it has played this deal, as 54 counts (G-R17a); at the
            end of the match, those of the last deal.

    Immutable (``Final`` fields), with a written constructor that mypyc compiles, as
    HeartsState's: a frozen dataclass's generated one runs interpreted, and every move and
    every simulated move of the search bot builds a state.
    """

    seed: Final[int]
    phase: Final[Phase]
    deal_number: Final[int]
    levels: Final[tuple[int, int]]
    level: Final[int]
    declarer: Final[int | None]
    ace_failures: Final[tuple[int, int]]
    hands: Final[tuple[Hand, ...]]
    turn: Final[int]
    top: Final[TopPlay | None]
    passed: Final[tuple[int, ...]]
    finished: Final[tuple[int, ...]]
    tributes: Final[tuple[Tribute, ...]]
    red_joker_holders: Final[tuple[int, ...]]
    previous_order: Final[tuple[int, ...]]
    winners: Final[tuple[int, ...]]
    round_history: Final[tuple[RoundEntry, ...]]
    previous_deal: Final[DealResult | None]
    played: Final[tuple[Hand, ...]]

    def __init__(
        self,
        seed: int,
        phase: Phase,
        deal_number: int,
        levels: tuple[int, int],
        level: int,
        declarer: int | None,
        ace_failures: tuple[int, int],
        hands: tuple[Hand, ...],
        turn: int,
        top: TopPlay | None,
        passed: tuple[int, ...],
        finished: tuple[int, ...],
        tributes: tuple[Tribute, ...],
        red_joker_holders: tuple[int, ...],
        previous_order: tuple[int, ...],
        winners: tuple[int, ...] = (),
        round_history: tuple[RoundEntry, ...] = (),
        previous_deal: DealResult | None = None,
        played: tuple[Hand, ...] = NO_PLAYS,
    ) -> None:
        self.seed = seed
        self.phase = phase
        self.deal_number = deal_number
        self.levels = levels
        self.level = level
        self.declarer = declarer
        self.ace_failures = ace_failures
        self.hands = hands
        self.turn = turn
        self.top = top
        self.passed = passed
        self.finished = finished
        self.tributes = tributes
        self.red_joker_holders = red_joker_holders
        self.previous_order = previous_order
        self.winners = winners
        self.round_history = round_history
        self.previous_deal = previous_deal
        self.played = played

    @property
    def anti_tribute(self) -> bool:
        """Whether tribute was cancelled this deal because the payers held both red jokers."""
        return bool(self.red_joker_holders)

    def card_count(self, seat: int) -> int:
        """How many cards ``seat`` holds."""
        return sum(self.hands[seat])
