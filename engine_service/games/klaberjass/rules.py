"""The Klaberjass rules object: deal, bidding, dix, play and scoring (``seeds/klaberjass.md``).

:meth:`KlaberjassRules.check` is the only place a rule is tested; ``legal_actions`` lists the
candidate actions of the phase that ``check`` accepts, and ``apply`` refuses what it refuses.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Final, TypeVar

from engine_service.core.cards import KING, QUEEN, Card, Suit, cards_in, mask_of
from engine_service.core.errors import RuleViolation, refuse, violation
from engine_service.core.events import Event
from engine_service.core.protocol import Outcome
from engine_service.core.shuffle import shuffled
from engine_service.games.klaberjass.actions import (
    Dix,
    KlaberjassAction,
    PassBid,
    PlayCard,
    TakeTrump,
)
from engine_service.games.klaberjass.cards import (
    PACK,
    TRUMPS_ABOVE,
    card_points,
    suit_mask,
    trump_card,
)
from engine_service.games.klaberjass.config import KlaberjassConfig, SecondDealOrder
from engine_service.games.klaberjass.events import action_events
from engine_service.games.klaberjass.scoring import (
    LAST_TRICK_POINTS,
    deal_points,
    deal_scores,
    game_winners,
)
from engine_service.games.klaberjass.sequences import compare_sequences
from engine_service.games.klaberjass.state import (
    FIRST_PACKET,
    SEATS,
    TRICKS,
    Bid,
    DealResult,
    FinishedDeal,
    KlaberjassState,
    Phase,
    SequenceResult,
    TakenTrick,
    Trick,
)
from engine_service.games.klaberjass.view import KlaberjassView, build_view

PACKET: Final = 3  # K-R4, K-R10
SEVEN: Final = 7
NO_POINTS: Final = (0, 0)
BIDDING: Final = (Phase.BIDDING_TURNED_SUIT, Phase.BIDDING_OTHER_SUIT)
T = TypeVar("T")
BELLA_PARTNER: Final[Mapping[tuple[Card, Suit | None], int]] = {
    (Card.of(rank, trump), trump): Card.of(KING + QUEEN - rank, trump).bit
    for trump in Suit
    for rank in (KING, QUEEN)
}
"""For trump K and Q: the bit of the other card of bella (K-R15)."""


TURN_UP: Final = FIRST_PACKET * SEATS
"""The turn-up's place in a deal's order: after the first six cards each (K-R4)."""


def deal_order(seed: int, deal_number: int) -> list[Card]:
    """The pack in this deal's order; the same every time it is asked for (K-R4, K-R10)."""
    return shuffled(PACK, seed, deal_number)


def original_turn_up(seed: int, deal_number: int) -> Card:
    """The card turned up at a deal (K-R4), whatever a dix swap put in its place (K-R11)."""
    return deal_order(seed, deal_number)[TURN_UP]


class KlaberjassRules:
    """Two-player Klaberjass under one :class:`KlaberjassConfig`. Stateless and pure."""

    seats: Final = SEATS

    def __init__(self, config: KlaberjassConfig | None = None) -> None:
        self.config = config or KlaberjassConfig()

    # -- setup ---------------------------------------------------------------------------

    def new_game(self, seed: int) -> KlaberjassState:
        """Draw the first dealer from the seed and deal (K-R4)."""
        dealer = random.Random(f"{seed}:dealer").randrange(SEATS)
        return self._deal(seed, 0, dealer, NO_POINTS, ())

    def _deal(
        self,
        seed: int,
        deal_number: int,
        dealer: int,
        totals: tuple[int, int],
        deals: tuple[DealResult, ...],
        previous: FinishedDeal | None = None,
    ) -> KlaberjassState:
        """Six cards each in two packets of three, non-dealer first, then the turn-up (K-R4).

        ``previous`` is the deal that just ended, shown until this deal's first card.
        """
        deck = deal_order(seed, deal_number)
        elder = 1 - dealer
        hands = [0, 0]
        for packet in range(FIRST_PACKET * SEATS // PACKET):
            seat = elder if packet % 2 == 0 else dealer
            hands[seat] |= mask_of(deck[packet * PACKET : (packet + 1) * PACKET])
        return KlaberjassState(
            seed=seed,
            phase=Phase.BIDDING_TURNED_SUIT,
            deal_number=deal_number,
            dealer=dealer,
            to_move=elder,
            hands=(hands[0], hands[1]),
            stock=mask_of(deck[TURN_UP + 1 :]),
            turn_up=deck[TURN_UP],
            bottom=None,
            bids=(),
            trump=None,
            maker=None,
            dix_by=None,
            dix_taken=None,
            meld_hands=NO_POINTS,
            declared=(True, True),
            sequences=None,
            trick=Trick(elder),
            last_trick=None,
            tricks_played=0,
            tricks_won=NO_POINTS,
            card_points=NO_POINTS,
            played=NO_POINTS,
            bella_by=None,
            totals=totals,
            deals=deals,
            previous_deal=previous,
        )

    # -- questions -------------------------------------------------------------------------

    def current_seats(self, state: KlaberjassState) -> tuple[int, ...]:
        """The one seat to bid, decide the dix or play; none once the game is over."""
        return () if state.phase is Phase.GAME_OVER else (state.turn,)

    def playable(self, state: KlaberjassState, seat: int) -> int:
        """The mask of cards ``seat`` may play on its turn (K-R17, K-R18)."""
        hand = state.hands[seat]
        if not state.trick.cards:
            return hand
        led = state.trick.cards[0]
        trump = state.trump
        assert trump is not None  # play starts only once trump is fixed
        follow = hand & suit_mask(led.suit)
        if led.suit is trump:
            return hand & TRUMPS_ABOVE[led] or follow or hand  # K-R18
        return follow or hand & suit_mask(trump) or hand  # K-R17

    def _bella_completed(self, state: KlaberjassState, seat: int, card: Card) -> bool:
        """Whether ``card`` is the second of trump K and Q that ``seat`` plays (K-R15)."""
        partner = BELLA_PARTNER.get((card, state.trump))
        return partner is not None and bool(state.played[seat] & partner)

    def _sequence_choice(self, state: KlaberjassState, seat: int) -> bool:
        """Whether ``seat`` may conceal its sequences with this card (K-R14, manual option).

        Every seat may choose on its first card, holding a sequence or not, so that
        concealing reveals nothing.
        """
        return not self.config.auto_declare_sequences and not state.played[seat]

    def _dix_possible(self, state: KlaberjassState) -> bool:
        """Whether a trump 7 may still be swapped for the turn-up card (K-R11)."""
        trump = state.trump
        assert trump is not None
        if state.turn_up == trump_card(SEVEN, trump):
            return False
        return trump is state.turn_up.suit or not self.config.dix_only_if_turnup_trump

    def legal_actions(self, state: KlaberjassState, seat: int) -> Sequence[KlaberjassAction]:
        """Every action ``seat`` may take now, in a fixed order."""
        if seat not in self.current_seats(state):
            return ()
        candidates: list[KlaberjassAction]
        if state.phase in BIDDING:
            candidates = [*(TakeTrump(suit) for suit in Suit), PassBid()]
        elif state.phase is Phase.DIX:
            candidates = [Dix(swap=True), Dix(swap=False)]
        else:
            candidates = []
            for card in cards_in(self.playable(state, seat)):
                candidates.append(PlayCard(card))
                if self._bella_completed(state, seat, card):
                    candidates.append(PlayCard(card, announce_bella=False))
                if self._sequence_choice(state, seat):
                    candidates.append(PlayCard(card, declare_sequences=False))
        return tuple(a for a in candidates if self.check(state, seat, a) is None)

    def check(
        self, state: KlaberjassState, seat: int, action: KlaberjassAction
    ) -> RuleViolation | None:
        """Why ``action`` is illegal for ``seat`` now, or ``None``.

        Reasons: GAME_OVER (K-R21); NOT_BIDDING_NOW, MUST_TAKE_TURNED_SUIT (K-R5),
        TURNED_SUIT_REFUSED (K-R6); NOT_DIX_NOW, NO_TRUMP_SEVEN (K-R11); NOT_PLAYING_NOW,
        NOT_YOUR_TURN (K-R16); CARD_NOT_IN_HAND (K-R1); MUST_FOLLOW_SUIT, MUST_TRUMP (K-R17);
        MUST_OVERTRUMP (K-R18); NO_BELLA_TO_DECLINE (K-R15); NO_SEQUENCE_CHOICE_NOW (K-R14).
        """
        if state.phase is Phase.GAME_OVER:
            return violation("GAME_OVER", "K-R21", "The game is over.")
        if isinstance(action, TakeTrump | PassBid):
            return self._check_bid(state, seat, action)
        if isinstance(action, Dix):
            return self._check_dix(state, seat, action)
        return self._check_play(state, seat, action)

    def _check_turn(self, state: KlaberjassState, seat: int, rule_id: str) -> RuleViolation | None:
        if seat != state.turn:
            return violation(
                "NOT_YOUR_TURN", rule_id, f"It is seat {state.turn}'s turn.", turn=str(state.turn)
            )
        return None

    def _check_bid(
        self, state: KlaberjassState, seat: int, action: TakeTrump | PassBid
    ) -> RuleViolation | None:
        if state.phase not in BIDDING:
            return violation("NOT_BIDDING_NOW", "K-R5", "Trump is chosen only while bidding.")
        first_round = state.phase is Phase.BIDDING_TURNED_SUIT
        wrong_turn = self._check_turn(state, seat, "K-R5" if first_round else "K-R6")
        if wrong_turn is not None or isinstance(action, PassBid):
            return wrong_turn
        turned = state.turn_up.suit
        if first_round and action.suit is not turned:
            return violation(
                "MUST_TAKE_TURNED_SUIT",
                "K-R5",
                f"In the first round only the turned suit ({turned.name.lower()}) may be taken.",
                turned_suit=turned.letter,
            )
        if not first_round and action.suit is turned:
            return violation(
                "TURNED_SUIT_REFUSED",
                "K-R6",
                "In the second round the turned suit may not be named.",
                turned_suit=turned.letter,
            )
        return None

    def _check_dix(self, state: KlaberjassState, seat: int, action: Dix) -> RuleViolation | None:
        if state.phase is not Phase.DIX:
            return violation(
                "NOT_DIX_NOW", "K-R11", "The dix is decided after the deal, before the first card."
            )
        wrong_turn = self._check_turn(state, seat, "K-R11")
        if wrong_turn is not None or not action.swap:
            return wrong_turn
        assert state.trump is not None
        seven = trump_card(SEVEN, state.trump)
        if not state.hands[seat] & seven.bit:
            return violation(
                "NO_TRUMP_SEVEN",
                "K-R11",
                f"Only the holder of {seven} may swap it.",
                card=str(seven),
            )
        return None

    def _check_play(
        self, state: KlaberjassState, seat: int, action: PlayCard
    ) -> RuleViolation | None:
        if state.phase is not Phase.PLAYING:
            return violation(
                "NOT_PLAYING_NOW", "K-R16", "Cards are played once bidding and the dix are over."
            )
        wrong_turn = self._check_turn(state, seat, "K-R16")
        if wrong_turn is not None:
            return wrong_turn
        card = action.card
        if not state.hands[seat] >> card & 1:
            return violation(
                "CARD_NOT_IN_HAND", "K-R1", f"{card} is not in this hand.", card=str(card)
            )
        if not self.playable(state, seat) >> card & 1:
            return self._explain(state, seat, card)
        if not action.announce_bella and not self._bella_completed(state, seat, card):
            return violation(
                "NO_BELLA_TO_DECLINE",
                "K-R15",
                "Bella can be left unannounced only on the second of trump K and Q.",
                card=str(card),
            )
        if not action.declare_sequences and not self._sequence_choice(state, seat):
            return violation(
                "NO_SEQUENCE_CHOICE_NOW",
                "K-R14",
                "Sequences may be concealed only with one's first card, when they are not "
                "declared automatically.",
            )
        return None

    def _explain(self, state: KlaberjassState, seat: int, card: Card) -> RuleViolation:
        """Name the rule that keeps ``card`` (in hand, on turn) out of :meth:`playable`."""
        led = state.trick.cards[0]
        trump = state.trump
        assert trump is not None
        hand = state.hands[seat]
        if led.suit is trump and card.suit is trump:
            return violation(
                "MUST_OVERTRUMP",
                "K-R18",
                f"Beat the trump led ({led}) when able.",
                card=str(card),
                led_card=str(led),
            )
        if hand & suit_mask(led.suit):
            return violation(
                "MUST_FOLLOW_SUIT",
                "K-R17",
                f"Follow the suit led ({led.suit.name.lower()}).",
                card=str(card),
                led_suit=led.suit.letter,
            )
        return violation(
            "MUST_TRUMP",
            "K-R17",
            f"Without the suit led, play a trump ({trump.name.lower()}).",
            card=str(card),
            trump=trump.letter,
        )

    # -- moves -----------------------------------------------------------------------------

    def apply(self, state: KlaberjassState, seat: int, action: KlaberjassAction) -> KlaberjassState:
        """The state after ``action``.

        Raises:
            IllegalAction: :meth:`check` found a violation; nothing changes.
        """
        refuse(self.check(state, seat, action))
        if isinstance(action, TakeTrump | PassBid):
            return self._bid(state, seat, action)
        if isinstance(action, Dix):
            return self._dix(state, seat, action.swap)
        return self._play(state, seat, action)

    def _bid(
        self, state: KlaberjassState, seat: int, action: TakeTrump | PassBid
    ) -> KlaberjassState:
        first_round = state.phase is Phase.BIDDING_TURNED_SUIT
        suit = action.suit if isinstance(action, TakeTrump) else None
        bids = (*state.bids, Bid(seat, 1 if first_round else 2, suit))
        if suit is not None:
            return self._second_deal(replace(state, bids=bids, trump=suit, maker=seat))
        if seat == state.elder:
            return replace(state, bids=bids, to_move=state.dealer)
        if first_round:
            return replace(state, phase=Phase.BIDDING_OTHER_SUIT, bids=bids, to_move=state.elder)
        thrown = DealResult(state.dealer, None, None, NO_POINTS, NO_POINTS)  # K-R7
        return self._deal(
            state.seed,
            state.deal_number + 1,
            state.elder,
            state.totals,
            (*state.deals, thrown),
            FinishedDeal(state.deal_number, thrown),
        )

    def _second_deal(self, state: KlaberjassState) -> KlaberjassState:
        """Three more cards each, non-dealer first, and the bottom card shown (K-R10)."""
        deck = deal_order(state.seed, state.deal_number)
        start = TURN_UP + 1
        extra = deck[start : start + PACKET * SEATS]
        if self.config.second_deal_order is SecondDealOrder.ALTERNATE:
            to_elder, to_dealer = extra[0::2], extra[1::2]
        else:
            to_elder, to_dealer = extra[:PACKET], extra[PACKET:]
        hands = [0, 0]
        hands[state.elder] = state.hands[state.elder] | mask_of(to_elder)
        hands[state.dealer] = state.hands[state.dealer] | mask_of(to_dealer)
        dealt = replace(
            state,
            hands=(hands[0], hands[1]),
            stock=state.stock & ~mask_of(extra),
            bottom=deck[-1],
        )
        if self._dix_possible(dealt):
            return replace(dealt, phase=Phase.DIX, to_move=state.elder)
        return self._start_play(dealt)

    def _dix(self, state: KlaberjassState, seat: int, swap: bool) -> KlaberjassState:
        """K-R11: the non-dealer decides first; a swap ends the question.

        The turn-up a swap takes stays known as ``dix_taken``: every seat saw it face up.
        """
        if swap:
            assert state.trump is not None
            seven = trump_card(SEVEN, state.trump)
            hand = state.hands[seat] & ~seven.bit | state.turn_up.bit
            hands = (hand, state.hands[1]) if seat == 0 else (state.hands[0], hand)
            swapped = replace(
                state, hands=hands, turn_up=seven, dix_by=seat, dix_taken=state.turn_up
            )
            return self._start_play(swapped)
        if seat == state.elder:
            return replace(state, to_move=state.dealer)
        return self._start_play(state)

    def _start_play(self, state: KlaberjassState) -> KlaberjassState:
        """The non-dealer leads the first trick (K-R16); the hands are kept for sequences."""
        return replace(
            state,
            phase=Phase.PLAYING,
            meld_hands=state.hands,
            trick=Trick(state.elder),
        )

    def _play(self, state: KlaberjassState, seat: int, action: PlayCard) -> KlaberjassState:
        card = action.card
        trump = state.trump
        assert trump is not None and state.maker is not None
        hands = _with(state.hands, seat, state.hands[seat] & ~card.bit)
        played = _with(state.played, seat, state.played[seat] | card.bit)
        bella_by = state.bella_by
        if action.announce_bella and self._bella_completed(state, seat, card):
            bella_by = seat
        declared = state.declared
        if self._sequence_choice(state, seat):
            declared = _with(declared, seat, action.declare_sequences)
        cards = (*state.trick.cards, card)
        trick = Trick(state.trick.leader, cards)
        winner = trick.winner(trump)
        if winner is None:
            return _after_card(
                state,
                hands=hands,
                played=played,
                bella_by=bella_by,
                declared=declared,
                trick=trick,
                last_trick=state.last_trick,
                tricks_played=state.tricks_played,
                tricks_won=state.tricks_won,
                card_points=state.card_points,
                sequences=state.sequences,
                completed_tricks=state.completed_tricks,
            )
        last = state.tricks_played + 1 == TRICKS
        points = card_points(cards[0], trump) + card_points(cards[1], trump)
        points += LAST_TRICK_POINTS if last else 0  # K-R19
        taken = TakenTrick(trick.leader, cards, winner, points)
        card_pts = _with(state.card_points, winner, state.card_points[winner] + points)
        tricks_won = _with(state.tricks_won, winner, state.tricks_won[winner] + 1)
        sequences = state.sequences
        if state.tricks_played == 0:  # K-R14: compared and shown once the first trick ends
            sequences = compare_sequences(
                state.meld_hands, declared, trump, self.config.score_all_winner_sequences
            )
        done = _after_card(
            state,
            hands=hands,
            played=played,
            bella_by=bella_by,
            declared=declared,
            trick=Trick(winner),
            last_trick=trick,
            tricks_played=state.tricks_played + 1,
            tricks_won=tricks_won,
            card_points=card_pts,
            sequences=sequences,
            completed_tricks=(*state.completed_tricks, taken),
        )
        return self._end_deal(done) if last else done

    def _end_deal(self, state: KlaberjassState) -> KlaberjassState:
        """Score the deal, then end the game or deal again with the other dealer (K-R20, K-R21)."""
        maker = state.maker
        assert maker is not None
        points = deal_points(
            state.card_points, state.tricks_won, state.sequences, state.bella_by, self.config
        )
        scores = deal_scores(points, maker)
        totals = (state.totals[0] + scores[0], state.totals[1] + scores[1])
        result = DealResult(state.dealer, maker, state.trump, points, scores)
        deals = (*state.deals, result)
        winners = game_winners(totals, maker, self.config)
        finished = FinishedDeal(
            state.deal_number, result, state.completed_tricks, state.sequences, state.bella_by
        )
        if not winners:
            return self._deal(
                state.seed, state.deal_number + 1, state.elder, totals, deals, finished
            )
        # The last deal stays on view at game over, as every other deal does until the next.
        return replace(
            state,
            phase=Phase.GAME_OVER,
            totals=totals,
            deals=deals,
            winners=winners,
            previous_deal=finished,
        )

    # -- results -----------------------------------------------------------------------------

    def events(
        self, before: KlaberjassState, seat: int, action: KlaberjassAction, after: KlaberjassState
    ) -> tuple[Event, ...]:
        """What the action made happen, in order; only the cards dealt are private.

        Worked out from the two states (:func:`action_events`), so ``apply`` stays as fast.
        """
        return action_events(before, seat, action, after)

    def view(self, state: KlaberjassState, seat: int | None) -> KlaberjassView:
        """What ``seat`` may see; ``None`` is a spectator."""
        return build_view(state, seat, self.config, self.current_seats(state))

    def is_secret(self, action: KlaberjassAction) -> bool:
        """No Klaberjass action is secret: bids, the dix and cards are made in the open.

        Concealing sequences (``no-sequences``) is open too: every seat may choose it on its
        first card, holding a sequence or not, so it tells the opponent nothing.
        """
        return False

    def outcome(self, state: KlaberjassState) -> Outcome | None:
        """The winner and final totals once the game is over (K-R21)."""
        if state.phase is not Phase.GAME_OVER:
            return None
        winner = state.winners[0]
        return Outcome(
            winners=state.winners,
            scores=state.totals,
            summary=f"seat {winner} wins with {state.totals[winner]} points.",
        )


def _with(values: tuple[T, T], index: int, value: T) -> tuple[T, T]:
    return (value, values[1]) if index == 0 else (values[0], value)


def _after_card(
    state: KlaberjassState,
    *,
    hands: tuple[int, int],
    played: tuple[int, int],
    bella_by: int | None,
    declared: tuple[bool, bool],
    trick: Trick,
    last_trick: Trick | None,
    tricks_played: int,
    tricks_won: tuple[int, int],
    card_points: tuple[int, int],
    sequences: SequenceResult | None,
    completed_tricks: tuple[TakenTrick, ...],
) -> KlaberjassState:
    """The state after a card within a deal, given every field a card can change.

    Every play takes this path, so it builds the state directly: ``replace()`` of this
    29-field state cost more than the rest of a compiled play. A card played means the deal
    has begun, so the previous deal's record goes.
    """
    return KlaberjassState(
        seed=state.seed,
        phase=state.phase,
        deal_number=state.deal_number,
        dealer=state.dealer,
        to_move=state.to_move,
        hands=hands,
        stock=state.stock,
        turn_up=state.turn_up,
        bottom=state.bottom,
        bids=state.bids,
        trump=state.trump,
        maker=state.maker,
        dix_by=state.dix_by,
        dix_taken=state.dix_taken,
        meld_hands=state.meld_hands,
        declared=declared,
        sequences=sequences,
        trick=trick,
        last_trick=last_trick,
        tricks_played=tricks_played,
        tricks_won=tricks_won,
        card_points=card_points,
        played=played,
        bella_by=bella_by,
        totals=state.totals,
        deals=state.deals,
        winners=state.winners,
        completed_tricks=completed_tricks,
        previous_deal=None,
    )
