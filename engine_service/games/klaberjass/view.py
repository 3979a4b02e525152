"""A seat's view of a Klaberjass game, built by copying in only what that seat may know."""

from __future__ import annotations

from dataclasses import dataclass

from engine_service.core.cards import Card, Suit, cards_in
from engine_service.games.klaberjass.config import KlaberjassConfig
from engine_service.games.klaberjass.state import (
    Bid,
    DealResult,
    FinishedDeal,
    KlaberjassState,
    Phase,
    SequenceResult,
    TakenTrick,
    Trick,
)


@dataclass(frozen=True, slots=True)
class KlaberjassView:
    """One seat's knowledge of the game (``seat is None``: a spectator's).

    ``hand`` is the viewer's own; everything else is public. The other hand and the stock
    (apart from the turn-up, the card a dix took from the table and, once shown, the bottom
    card) never enter.

    Attributes:
        seat: the viewer, ``None`` for a spectator.
        phase: where the game stands.
        to_act: the seats that must act now.
        deal_number: 0-based count of deals, thrown-in ones included.
        dealer: this deal's dealer.
        hand: the viewer's cards, lowest first.
        hand_sizes: how many cards each seat holds.
        turn_up: the turned-up card (after a dix swap, the trump 7 that replaced it).
        bottom: the stock's bottom card once shown (K-R10).
        bids: this deal's bidding, oldest first.
        trump: the trump suit once chosen.
        maker: the seat that chose it.
        dix_by: the seat that swapped the dix, if any.
        dix_taken: the original turn-up that the swap put in ``dix_by``'s hand (K-R11), public
            since every seat saw it face up; ``None`` without a swap.
        sequences: the sequence comparison, once the first trick is over (K-R14).
        trick: the trick being played (empty outside play).
        last_trick: the previous complete trick of this deal.
        tricks_played: complete tricks in this deal.
        tricks_won: tricks taken by each seat in this deal.
        card_points: card points taken by each seat so far, last-trick bonus included.
        played: the cards each seat has played in this deal.
        bella_by: the seat that scored bella this deal.
        totals: running totals.
        deals: the history of finished deals.
        target: the score that ends the game.
        winners: the winner once the game is over.
        completed_tricks: every complete trick of this deal, oldest first (leader, cards,
            winner, points): the deal's whole public history of play.
        previous_deal: the deal that just ended (its tricks, sequences, bella and scores),
            until the first card of this deal is played, so its final trick can be shown.
    """

    seat: int | None
    phase: Phase
    to_act: tuple[int, ...]
    deal_number: int
    dealer: int
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, int]
    turn_up: Card
    bottom: Card | None
    bids: tuple[Bid, ...]
    trump: Suit | None
    maker: int | None
    dix_by: int | None
    dix_taken: Card | None
    sequences: SequenceResult | None
    trick: Trick
    last_trick: Trick | None
    tricks_played: int
    tricks_won: tuple[int, int]
    card_points: tuple[int, int]
    played: tuple[tuple[Card, ...], tuple[Card, ...]]
    bella_by: int | None
    totals: tuple[int, int]
    deals: tuple[DealResult, ...]
    target: int
    winners: tuple[int, ...]
    completed_tricks: tuple[TakenTrick, ...] = ()
    previous_deal: FinishedDeal | None = None


def build_view(
    state: KlaberjassState,
    seat: int | None,
    config: KlaberjassConfig,
    to_act: tuple[int, ...],
) -> KlaberjassView:
    """Whitelist the facts ``seat`` may see; the seed, the other hand and the stock never enter."""
    hand = () if seat is None else tuple(cards_in(state.hands[seat]))
    first, second = state.played
    return KlaberjassView(
        seat=seat,
        phase=state.phase,
        to_act=to_act,
        deal_number=state.deal_number,
        dealer=state.dealer,
        hand=hand,
        hand_sizes=(state.hands[0].bit_count(), state.hands[1].bit_count()),
        turn_up=state.turn_up,
        bottom=state.bottom,
        bids=state.bids,
        trump=state.trump,
        maker=state.maker,
        dix_by=state.dix_by,
        dix_taken=state.dix_taken,
        sequences=state.sequences,
        trick=state.trick,
        last_trick=state.last_trick,
        tricks_played=state.tricks_played,
        tricks_won=state.tricks_won,
        card_points=state.card_points,
        played=(tuple(cards_in(first)), tuple(cards_in(second))),
        bella_by=state.bella_by,
        totals=state.totals,
        deals=state.deals,
        target=config.target,
        winners=state.winners,
        completed_tricks=state.completed_tricks,
        previous_deal=state.previous_deal,
    )
