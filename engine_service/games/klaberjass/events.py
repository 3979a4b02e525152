"""What happens in a Klaberjass game, told as small frozen events (``Rules.events``).

Implementation notes: the events of an action are worked out afterwards from the states
before and after it, so ``apply`` does no extra work for them. Every event is public except
:class:`CardsDealt`, which only the seat receiving the cards is told; the stock, the other hand
and the seed never enter an event. The events of one action come in the order things happened
at the table: the card, bella, the trick, the sequences (after the first trick), the deal's
score, then the end of the game or the next deal with its cards.

>>> str(CardPlayed(0, Card.parse("JH")))
'seat 0 plays JH'
"""

from __future__ import annotations

from dataclasses import dataclass

from engine_service.core.cards import Card, Suit, cards_in
from engine_service.core.events import Event
from engine_service.games.klaberjass.actions import (
    Dix,
    KlaberjassAction,
    PassBid,
    PlayCard,
    TakeTrump,
)
from engine_service.games.klaberjass.scoring import BELLA_POINTS
from engine_service.games.klaberjass.state import (
    KlaberjassState,
    Phase,
    SequenceResult,
    TakenTrick,
)


@dataclass(frozen=True, slots=True)
class BidMade:
    """K-R5, K-R6: ``seat`` took ``suit`` as trump in bidding ``round`` (1 or 2), or passed.

    Attributes:
        seat: the bidder.
        round: 1 for the turned suit (K-R5), 2 for another suit (K-R6).
        suit: the suit taken, ``None`` for a pass.
    """

    seat: int
    round: int
    suit: Suit | None

    def __str__(self) -> str:
        choice = "passes" if self.suit is None else f"takes {self.suit.letter}"
        return f"seat {self.seat} {choice} (round {self.round})"


@dataclass(frozen=True, slots=True)
class TrumpFixed:
    """K-R9: trump is ``suit`` and ``maker`` undertakes to outscore the opponent (K-R20)."""

    suit: Suit
    maker: int

    def __str__(self) -> str:
        return f"trump {self.suit.letter}, maker seat {self.maker}"


@dataclass(frozen=True, slots=True)
class DealThrownIn:
    """K-R7: both passed twice; deal ``deal_number`` scores nothing and the other seat deals."""

    deal_number: int
    dealer: int

    def __str__(self) -> str:
        return f"deal {self.deal_number} thrown in"


@dataclass(frozen=True, slots=True)
class DealStarted:
    """K-R4: a new deal by ``dealer`` with ``turn_up`` face up (its suit proposed as trump).

    The first deal of a game has no such event: it is in the game's first view.
    """

    deal_number: int
    dealer: int
    turn_up: Card

    def __str__(self) -> str:
        return f"deal {self.deal_number} by seat {self.dealer}, turn-up {self.turn_up}"


@dataclass(frozen=True, slots=True)
class CardsDealt:
    """K-R4, K-R10: the cards ``seat`` receives (six at a new deal, three after bidding).

    Private: only ``seat`` is told (the event's audience).
    """

    seat: int
    deal_number: int
    cards: tuple[Card, ...]

    def __str__(self) -> str:
        return f"seat {self.seat} receives {' '.join(map(str, self.cards))}"


@dataclass(frozen=True, slots=True)
class BottomShown:
    """K-R10: the bottom card of the stock, shown to both once the deal is complete."""

    card: Card

    def __str__(self) -> str:
        return f"bottom card {self.card}"


@dataclass(frozen=True, slots=True)
class DixSwapped:
    """K-R11: ``seat`` swapped the trump seven, now face up, for the turn-up card.

    Both cards are public: the turn-up was face up before it went to the hand.

    Attributes:
        seat: the swapper.
        taken: the former turn-up card, now in ``seat``'s hand.
        seven: the trump seven, now lying in its place.
    """

    seat: int
    taken: Card
    seven: Card

    def __str__(self) -> str:
        return f"seat {self.seat} swaps {self.seven} for {self.taken}"


@dataclass(frozen=True, slots=True)
class DixKept:
    """K-R11: ``seat`` kept its hand at the dix decision (holding the seven or not)."""

    seat: int

    def __str__(self) -> str:
        return f"seat {self.seat} keeps"


@dataclass(frozen=True, slots=True)
class CardPlayed:
    """K-R16: ``seat`` played ``card`` to the current trick."""

    seat: int
    card: Card

    def __str__(self) -> str:
        return f"seat {self.seat} plays {self.card}"


@dataclass(frozen=True, slots=True)
class BellaScored:
    """K-R15: ``seat`` completed trump king and queen and announced bella, for ``points``."""

    seat: int
    suit: Suit
    points: int = BELLA_POINTS

    def __str__(self) -> str:
        return f"bella for seat {self.seat}"


@dataclass(frozen=True, slots=True)
class TrickTaken:
    """K-R19: trick ``number`` (1 to 9) of the deal is complete and taken.

    Attributes:
        number: the trick's number in its deal, from 1.
        leader: the seat that led it.
        cards: its two cards, the leader's first.
        winner: the seat taking it.
        points: its card points (K-R3), with the last-trick bonus (K-R19).
    """

    number: int
    leader: int
    cards: tuple[Card, ...]
    winner: int
    points: int

    def __str__(self) -> str:
        cards = " ".join(map(str, self.cards))
        return f"trick {self.number} ({cards}) to seat {self.winner} for {self.points}"


@dataclass(frozen=True, slots=True)
class SequencesCompared:
    """K-R12 .. K-R14: the sequence comparison, made public once the first trick ends.

    Only the winner's scoring cards are shown; a losing or concealed sequence stays unknown.

    Attributes:
        winner: the seat scoring sequences, ``None`` when nobody does.
        cards: the scoring sequences' cards.
        points: what they are worth.
    """

    winner: int | None
    cards: tuple[Card, ...]
    points: int

    def __str__(self) -> str:
        if self.winner is None:
            return "no sequence scores"
        return f"sequences: seat {self.winner} scores {self.points}"


@dataclass(frozen=True, slots=True)
class DealScored:
    """K-R20: deal ``deal_number`` is over and scored by the maker rule.

    Attributes:
        deal_number: the deal's 0-based number.
        maker: the seat that chose trump.
        points: each seat's deal total before the maker rule.
        scores: what each seat adds to its running total.
        maker_down: whether the maker failed to score more and so scores nothing.
        totals: the running totals afterwards.
    """

    deal_number: int
    maker: int
    points: tuple[int, int]
    scores: tuple[int, int]
    maker_down: bool
    totals: tuple[int, int]

    def __str__(self) -> str:
        return f"deal {self.deal_number} scores {self.scores}, totals {self.totals}"


@dataclass(frozen=True, slots=True)
class GameOver:
    """K-R21: a total reached the target at the end of a deal and the game is decided."""

    winners: tuple[int, ...]
    totals: tuple[int, int]

    def __str__(self) -> str:
        return f"game over: seat {self.winners[0]} wins, totals {self.totals}"


KlaberjassEvent = (
    BidMade
    | TrumpFixed
    | DealThrownIn
    | DealStarted
    | CardsDealt
    | BottomShown
    | DixSwapped
    | DixKept
    | CardPlayed
    | BellaScored
    | TrickTaken
    | SequencesCompared
    | DealScored
    | GameOver
)
"""Every Klaberjass event value."""


def action_events(
    before: KlaberjassState, seat: int, action: KlaberjassAction, after: KlaberjassState
) -> tuple[Event, ...]:
    """The events of ``seat``'s ``action``, which led from ``before`` to ``after``.

    Everything is read from the two states (and the deal ``after`` may have ended, kept in
    ``after.previous_deal``), never from the seed, so nothing hidden can slip in.
    """
    if isinstance(action, TakeTrump | PassBid):
        return _bid_events(before, seat, action, after)
    if isinstance(action, Dix):
        if action.swap:
            return (Event(DixSwapped(seat, before.turn_up, after.turn_up)),)
        return (Event(DixKept(seat)),)
    return _play_events(before, seat, action, after)


def _bid_events(
    before: KlaberjassState, seat: int, action: TakeTrump | PassBid, after: KlaberjassState
) -> tuple[Event, ...]:
    first_round = before.phase is Phase.BIDDING_TURNED_SUIT
    suit = action.suit if isinstance(action, TakeTrump) else None
    events = [Event(BidMade(seat, 1 if first_round else 2, suit))]
    if suit is not None:
        events.append(Event(TrumpFixed(suit, seat)))
        for receiver in (before.elder, before.dealer):  # K-R10: non-dealer first
            new = after.hands[receiver] & ~before.hands[receiver]
            events.append(_dealt(receiver, after.deal_number, new))
        assert after.bottom is not None
        events.append(Event(BottomShown(after.bottom)))
    elif after.deal_number != before.deal_number:
        events.append(Event(DealThrownIn(before.deal_number, before.dealer)))
        events += _new_deal(after)
    return tuple(events)


def _play_events(
    before: KlaberjassState, seat: int, action: PlayCard, after: KlaberjassState
) -> tuple[Event, ...]:
    events = [Event(CardPlayed(seat, action.card))]
    same_deal = after.deal_number == before.deal_number
    finished = after.previous_deal
    if same_deal:
        tricks, sequences, bella_by = after.completed_tricks, after.sequences, after.bella_by
    else:
        assert finished is not None
        tricks, sequences, bella_by = finished.tricks, finished.sequences, finished.bella_by
    trump = before.trump
    assert trump is not None
    if before.bella_by is None and bella_by is not None:
        events.append(Event(BellaScored(bella_by, trump)))
    if not before.trick.cards:
        return tuple(events)
    events.append(Event(_trick_taken(before.tricks_played + 1, tricks[-1])))
    if before.tricks_played == 0:
        events.append(Event(_compared(sequences)))
    if same_deal and after.phase is not Phase.GAME_OVER:
        return tuple(events)
    result = after.deals[-1]
    maker = result.maker
    assert maker is not None
    down = result.scores[maker] == 0
    scored = DealScored(before.deal_number, maker, result.points, result.scores, down, after.totals)
    events.append(Event(scored))
    if after.phase is Phase.GAME_OVER:
        events.append(Event(GameOver(after.winners, after.totals)))
    else:
        events += _new_deal(after)
    return tuple(events)


def _trick_taken(number: int, trick: TakenTrick) -> TrickTaken:
    return TrickTaken(number, trick.leader, trick.cards, trick.winner, trick.points)


def _compared(sequences: SequenceResult | None) -> SequencesCompared:
    assert sequences is not None  # compared when the first trick ends (K-R14)
    return SequencesCompared(sequences.winner, sequences.cards, sequences.points)


def _dealt(seat: int, deal_number: int, cards: int) -> Event:
    """The private event of the cards ``seat`` receives (a bitmask), told to it alone."""
    return Event(CardsDealt(seat, deal_number, tuple(cards_in(cards))), audience=seat)


def _new_deal(state: KlaberjassState) -> list[Event]:
    """K-R4: the new deal, its turn-up, and each hand's six cards to its holder alone."""
    events = [Event(DealStarted(state.deal_number, state.dealer, state.turn_up))]
    for receiver in (state.elder, state.dealer):
        events.append(_dealt(receiver, state.deal_number, state.hands[receiver]))
    return events
