"""The position of a Klaberjass game: an immutable value rebuilt by every action.

Seats are 0 and 1. Hands, the stock and the cards each seat has played are bitmasks of core
card numbers; the shuffled order of a deal is never stored, it is derived again from the seed
and the deal number when the second packet is dealt (K-R10).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Final

from engine_service.core.cards import Card, Suit
from engine_service.core.tricks import SeatedTrick
from engine_service.games.klaberjass.cards import beats

SEATS = 2
FIRST_PACKET = 6  # K-R4: 6 cards each, in two packets of 3
HAND_SIZE = 9  # K-R10
TRICKS = 9  # K-R16


class Phase(IntEnum):
    """Where the game stands."""

    BIDDING_TURNED_SUIT = 1  # K-R5
    BIDDING_OTHER_SUIT = 2  # K-R6
    DIX = 3  # K-R11
    PLAYING = 4  # K-R16 .. K-R19
    GAME_OVER = 5  # K-R21


@dataclass(frozen=True, slots=True)
class Bid:
    """One bidding decision: ``suit`` is the trump taken, ``None`` a pass (K-R5, K-R6)."""

    seat: int
    round: int
    suit: Suit | None


@dataclass(slots=True, init=False, unsafe_hash=True)
class Trick(SeatedTrick):
    """A Klaberjass trick, between the two seats."""

    @property
    def seats(self) -> int:
        """Two seats."""
        return SEATS

    def winner(self, trump: Suit) -> int | None:
        """The seat taking a complete trick, ``None`` before both have played (K-R19)."""
        if not self.complete:
            return None
        return self.seat_of(1 if beats(self.cards[1], self.cards[0], trump) else 0)


@dataclass(frozen=True, slots=True)
class SequenceResult:
    """The sequence comparison of a deal (K-R12, K-R13), public once the first trick ends.

    Attributes:
        winner: the seat whose sequence is best, ``None`` when no sequence scores.
        cards: the scoring sequences' cards, shown to both seats.
        points: what they are worth (20 or 50 each).
    """

    winner: int | None
    cards: tuple[Card, ...] = ()
    points: int = 0


@dataclass(frozen=True, slots=True)
class DealResult:
    """One finished deal, for the deal history.

    Attributes:
        dealer: who dealt.
        maker: who chose trump; ``None`` when both passed twice and the hand was thrown in.
        trump: the trump suit, ``None`` for a thrown-in hand.
        points: each seat's deal total before the maker rule (K-R20).
        scores: what each seat added to its running total.
    """

    dealer: int
    maker: int | None
    trump: Suit | None
    points: tuple[int, int]
    scores: tuple[int, int]


@dataclass(frozen=True, slots=True)
class TakenTrick:
    """A complete trick of a deal, as every seat saw it taken (K-R16, K-R19).

    Kept whole, so that the history of a deal can be shown and told without working out
    again who won and what it was worth.

    Attributes:
        leader: the seat that led.
        cards: the two cards, the leader's first.
        winner: the seat that took it (K-R19).
        points: the card points it gave the winner (K-R3), with the last-trick bonus (K-R19).
    """

    leader: int
    cards: tuple[Card, ...]
    winner: int
    points: int


@dataclass(frozen=True, slots=True)
class FinishedDeal:
    """The deal that just ended, kept in view until the next deal's first card is played.

    After the last card the state is already the next deal; without this record a player
    would never see the final trick, nor the sequences and bella that made the score. Only
    public facts are kept: every card in it was played or shown (K-R14).

    Attributes:
        deal_number: the 0-based number of that deal.
        result: its entry in the deal history (dealer, maker, trump, points, scores; K-R20).
        tricks: its complete tricks, oldest first (none for a thrown-in deal, K-R7).
        sequences: its sequence comparison (K-R12 .. K-R14), ``None`` if never made.
        bella_by: the seat that scored bella in it (K-R15).
    """

    deal_number: int
    result: DealResult
    tricks: tuple[TakenTrick, ...] = ()
    sequences: SequenceResult | None = None
    bella_by: int | None = None


@dataclass(slots=True, init=False, unsafe_hash=True)
class KlaberjassState:
    """Everything about a Klaberjass game, hidden parts included; views copy from it.

    Immutable, with a written constructor that mypyc compiles, for the reason given on
    :class:`~engine_service.games.hearts.state.HeartsState`.

    Attributes:
        seed: the shuffle seed; secret, it would reveal every hand.
        phase: bidding (two rounds), dix, playing or over.
        deal_number: 0-based count of deals, thrown-in ones included; with the seed it fixes
            the shuffle.
        dealer: this deal's dealer; the other seat is the non-dealer (elder).
        to_move: the seat to act while bidding or deciding the dix.
        hands: each seat's cards as a bitmask.
        stock: undealt cards as a bitmask (the turn-up card is not in it).
        turn_up: the turned-up card (K-R4); after a dix swap, the trump 7 that replaced it
            (the card it replaced is ``dix_taken``).
        bottom: the bottom card of the stock, shown once the deal is complete (K-R10).
        bids: this deal's bidding, oldest first.
        trump: the trump suit once chosen.
        maker: the seat that chose trump (K-R9).
        dix_by: the seat that swapped the trump 7 for the turn-up card, if any (K-R11).
        dix_taken: the card that swap took into ``dix_by``'s hand, the deal's original
            turn-up (K-R11): it lay face up, so it stays public once ``turn_up`` is the 7;
            ``None`` without a swap.
        meld_hands: each seat's nine cards when play began, for the sequences (K-R12).
        declared: whether each seat declared its sequences (K-R14; automatic by default).
        sequences: the sequence comparison, set when the first trick ends.
        trick: the trick being played.
        last_trick: the previous complete trick of this deal.
        tricks_played: complete tricks in this deal.
        tricks_won: tricks taken by each seat in this deal.
        card_points: card points taken by each seat, last-trick bonus included (K-R3, K-R19).
        played: each seat's cards already played in this deal.
        bella_by: the seat that scored bella this deal, if any (K-R15).
        totals: running totals (K-R20).
        deals: every finished or thrown-in deal, oldest first.
        winners: the winning seat once the game is over.
        completed_tricks: this deal's complete tricks, oldest first (the public history).
        previous_deal: the deal that ended last, until the first card of the next one.
    """

    seed: Final[int]
    phase: Final[Phase]
    deal_number: Final[int]
    dealer: Final[int]
    to_move: Final[int]
    hands: Final[tuple[int, int]]
    stock: Final[int]
    turn_up: Final[Card]
    bottom: Final[Card | None]
    bids: Final[tuple[Bid, ...]]
    trump: Final[Suit | None]
    maker: Final[int | None]
    dix_by: Final[int | None]
    dix_taken: Final[Card | None]
    meld_hands: Final[tuple[int, int]]
    declared: Final[tuple[bool, bool]]
    sequences: Final[SequenceResult | None]
    trick: Final[Trick]
    last_trick: Final[Trick | None]
    tricks_played: Final[int]
    tricks_won: Final[tuple[int, int]]
    card_points: Final[tuple[int, int]]
    played: Final[tuple[int, int]]
    bella_by: Final[int | None]
    totals: Final[tuple[int, int]]
    deals: Final[tuple[DealResult, ...]]
    winners: Final[tuple[int, ...]]
    completed_tricks: Final[tuple[TakenTrick, ...]]
    previous_deal: Final[FinishedDeal | None]

    def __init__(
        self,
        seed: int,
        phase: Phase,
        deal_number: int,
        dealer: int,
        to_move: int,
        hands: tuple[int, int],
        stock: int,
        turn_up: Card,
        bottom: Card | None,
        bids: tuple[Bid, ...],
        trump: Suit | None,
        maker: int | None,
        dix_by: int | None,
        dix_taken: Card | None,
        meld_hands: tuple[int, int],
        declared: tuple[bool, bool],
        sequences: SequenceResult | None,
        trick: Trick,
        last_trick: Trick | None,
        tricks_played: int,
        tricks_won: tuple[int, int],
        card_points: tuple[int, int],
        played: tuple[int, int],
        bella_by: int | None,
        totals: tuple[int, int],
        deals: tuple[DealResult, ...],
        winners: tuple[int, ...] = (),
        completed_tricks: tuple[TakenTrick, ...] = (),
        previous_deal: FinishedDeal | None = None,
    ) -> None:
        self.seed = seed
        self.phase = phase
        self.deal_number = deal_number
        self.dealer = dealer
        self.to_move = to_move
        self.hands = hands
        self.stock = stock
        self.turn_up = turn_up
        self.bottom = bottom
        self.bids = bids
        self.trump = trump
        self.maker = maker
        self.dix_by = dix_by
        self.dix_taken = dix_taken
        self.meld_hands = meld_hands
        self.declared = declared
        self.sequences = sequences
        self.trick = trick
        self.last_trick = last_trick
        self.tricks_played = tricks_played
        self.tricks_won = tricks_won
        self.card_points = card_points
        self.played = played
        self.bella_by = bella_by
        self.totals = totals
        self.deals = deals
        self.winners = winners
        self.completed_tricks = completed_tricks
        self.previous_deal = previous_deal

    @property
    def elder(self) -> int:
        """The non-dealer: first to bid, first to lead (K-R5, K-R16)."""
        return 1 - self.dealer

    @property
    def turn(self) -> int:
        """The seat to act now: the bidder or dix decider, else the next to play."""
        if self.phase is Phase.PLAYING:
            return self.trick.seat_of(len(self.trick.cards))
        return self.to_move
