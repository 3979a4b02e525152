"""The Hearts rules object: deal, legality, moves and scoring hooks (``seeds/hearts.md``).

One function, :meth:`HeartsRules.playable`, says which cards a seat may play; the listing of
legal moves and the check of a submitted move both use it, so they cannot disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Final

from engine_service.core.cards import (
    DECK_SIZE,
    SUIT_MASKS,
    SUIT_SIZE,
    Card,
    Suit,
    cards_in,
    mask_of,
)
from engine_service.core.errors import RuleViolation, refuse, violation
from engine_service.core.events import Event, public
from engine_service.core.protocol import Outcome
from engine_service.core.shuffle import shuffled
from engine_service.games.hearts.actions import HeartsAction, PassCards, plays_of
from engine_service.games.hearts.config import AllHeartsLead, FirstTrickBan, HeartsConfig
from engine_service.games.hearts.events import (
    CardPlayed,
    CardsDealt,
    CardsPassed,
    CardsReceived,
    GameOver,
    HandDealt,
    HandScored,
    HeartsBroken,
    LeadPassed,
    PassMade,
    TrickTaken,
)
from engine_service.games.hearts.pass_choices import PassChoices
from engine_service.games.hearts.scoring import (
    HEARTS_MASK,
    QUEEN_OF_SPADES,
    game_winners,
    moon_shooter,
    score_hand,
    trick_points,
)
from engine_service.games.hearts.state import (
    HAND_SIZE,
    PASS_SIZE,
    SEATS,
    FinishedHand,
    HeartsState,
    PassDirection,
    Phase,
    Trick,
)
from engine_service.games.hearts.view import HeartsView, build_view

TWO_OF_CLUBS: Final = Card.parse("2C")
_ALONE: Final = tuple((seat,) for seat in range(SEATS))
NO_SCORES: Final = (0, 0, 0, 0)


class HeartsRules:
    """Hearts under one :class:`HeartsConfig`. Stateless; every method is a pure function."""

    seats: Final = SEATS

    def __init__(self, config: HeartsConfig | None = None) -> None:
        self.config = config or HeartsConfig()

    # -- setup ---------------------------------------------------------------------------

    def new_game(self, seed: int) -> HeartsState:
        """Deal the first hand (H-R1, H-R2)."""
        return self._deal(seed, 0, NO_SCORES, ())

    def _deal(
        self,
        seed: int,
        hand_number: int,
        totals: tuple[int, ...],
        hand_scores: tuple[tuple[int, ...], ...],
        previous_hand: FinishedHand | None = None,
    ) -> HeartsState:
        """A fresh hand; of the previous deal only the scores and ``previous_hand`` are kept.

        The old last trick and completed tricks are dropped: they are the current hand's
        fields, and a card of an earlier hand now sits in someone's new hand. The hand that
        just ended stays public as ``previous_hand``, a record that names its own hand number,
        until the new hand's first card (:func:`_after_card` drops it).
        """
        deck = shuffled(range(DECK_SIZE), seed, hand_number)
        hands = tuple(mask_of(deck[s * HAND_SIZE : (s + 1) * HAND_SIZE]) for s in range(SEATS))
        passing = PassDirection.for_hand(hand_number) is not PassDirection.NONE
        opener = _holder(hands, TWO_OF_CLUBS)
        return HeartsState(
            seed=seed,
            phase=Phase.PASSING if passing else Phase.PLAYING,
            hand_number=hand_number,
            hands=hands,
            passed=NO_SCORES,
            trick=Trick(opener),
            tricks_played=0,
            hearts_broken=False,
            points=NO_SCORES,
            tricks_won=NO_SCORES,
            opener=opener,
            totals=totals,
            hand_scores=hand_scores,
            previous_hand=previous_hand,
        )

    # -- questions -------------------------------------------------------------------------

    def current_seats(self, state: HeartsState) -> tuple[int, ...]:
        """Seats still choosing their pass, or the seat to play; none once over."""
        if state.phase is Phase.PASSING:
            return tuple(s for s in range(SEATS) if not state.passed[s])
        if state.phase is Phase.PLAYING:
            return _ALONE[state.turn]
        return ()

    def playable(self, state: HeartsState, seat: int) -> int:
        """The mask of cards ``seat`` may play now, assuming it is its turn (H-R3 .. H-R9)."""
        return self.playable_cards(
            state.hands[seat], state.trick.cards, state.tricks_played == 0, state.hearts_broken
        )

    def playable_cards(
        self, hand: int, cards: Sequence[int], first_trick: bool, hearts_broken: bool
    ) -> int:
        """The mask of ``hand``'s cards playable into a trick holding ``cards`` (H-R3 .. H-R9).

        The position is given in parts, not as a state, so that the search bot's playouts,
        which keep a hand's play in plain integers, ask the same rule the game does.
        """
        if not cards:
            if first_trick:
                return TWO_OF_CLUBS.bit  # H-R3
            if not hearts_broken and hand & ~HEARTS_MASK:
                return hand & ~HEARTS_MASK  # H-R7; H-R8 otherwise
            return hand
        follow = hand & SUIT_MASKS[cards[0] // SUIT_SIZE]
        if follow:
            return follow  # H-R4
        if first_trick:
            allowed = hand & ~self._first_trick_banned()
            if allowed:
                return allowed  # H-R5, lifted when nothing else is left
        return hand

    def _first_trick_banned(self) -> int:
        if self.config.first_trick_ban is FirstTrickBan.QUEEN_OF_SPADES_AND_HEARTS:
            return QUEEN_OF_SPADES.bit | HEARTS_MASK
        return QUEEN_OF_SPADES.bit

    def legal_actions(self, state: HeartsState, seat: int) -> Sequence[HeartsAction]:
        """Every pass of 3 cards while passing, or every playable card on ``seat``'s turn."""
        if state.phase is Phase.PLAYING:
            return plays_of(self.playable(state, seat)) if seat == state.turn else ()
        if state.phase is Phase.PASSING and not state.passed[seat]:
            return PassChoices(state.hands[seat], PASS_SIZE)
        return ()

    def check(self, state: HeartsState, seat: int, action: HeartsAction) -> RuleViolation | None:
        """Why ``action`` is illegal for ``seat`` now, or ``None``.

        Reasons: GAME_OVER (H-R17); NOT_PASSING_NOW, ALREADY_PASSED, WRONG_PASS_SIZE,
        PASSING_NOT_FINISHED (H-R2); CARD_NOT_IN_HAND (H-R1); NOT_YOUR_TURN (H-R4); and, for a
        card outside :meth:`playable`, the rule that excludes it (see :meth:`_explain`).
        """
        if state.phase is Phase.GAME_OVER:
            return violation("GAME_OVER", "H-R17", "The game is over.")
        hand = state.hands[seat]
        if isinstance(action, PassCards):
            if state.phase is not Phase.PASSING:
                return violation("NOT_PASSING_NOW", "H-R2", "Cards are passed only before play.")
            if state.passed[seat]:
                return violation("ALREADY_PASSED", "H-R2", "This seat has already passed.")
            if action.mask.bit_count() != PASS_SIZE:
                return violation(
                    "WRONG_PASS_SIZE", "H-R2", f"Pass exactly {PASS_SIZE} different cards."
                )
            if action.mask & ~hand:
                missing = next(cards_in(action.mask & ~hand))
                return violation(
                    "CARD_NOT_IN_HAND", "H-R1", f"{missing} is not in this hand.", card=str(missing)
                )
            return None
        if state.phase is Phase.PASSING:
            return violation(
                "PASSING_NOT_FINISHED", "H-R2", "Play starts once all four seats have passed."
            )
        if seat != state.turn:
            return violation(
                "NOT_YOUR_TURN", "H-R4", f"It is seat {state.turn}'s turn.", turn=str(state.turn)
            )
        if not hand >> action.card & 1:
            return violation(
                "CARD_NOT_IN_HAND",
                "H-R1",
                f"{action.card} is not in this hand.",
                card=str(action.card),
            )
        if not self.playable(state, seat) >> action.card & 1:
            return self._explain(state, seat, action.card)
        return None

    def _explain(self, state: HeartsState, seat: int, card: Card) -> RuleViolation:
        """Name the rule that keeps ``card`` (in hand, on turn) out of :meth:`playable`."""
        cards = state.trick.cards
        if not cards:
            if state.tricks_played == 0:
                return violation(
                    "MUST_LEAD_TWO_OF_CLUBS", "H-R3", "The first trick is led with 2C."
                )
            return violation(
                "HEARTS_NOT_BROKEN",
                "H-R7",
                "Hearts may not be led until a heart has been played.",
                card=str(card),
            )
        led = Suit(cards[0] // SUIT_SIZE)
        if state.hands[seat] & SUIT_MASKS[led]:
            return violation(
                "MUST_FOLLOW_SUIT",
                "H-R4",
                f"Follow the suit led ({led.name.lower()}).",
                card=str(card),
                led_suit=led.letter,
            )
        if card == QUEEN_OF_SPADES:
            return violation(
                "QUEEN_OF_SPADES_ON_FIRST_TRICK", "H-R5", "QS may not be played to the first trick."
            )
        return violation(
            "HEARTS_ON_FIRST_TRICK",
            "H-R5",
            "Hearts may not be played to the first trick.",
            card=str(card),
        )

    # -- moves -----------------------------------------------------------------------------

    def apply(self, state: HeartsState, seat: int, action: HeartsAction) -> HeartsState:
        """The state after ``action``.

        Raises:
            IllegalAction: :meth:`check` found a violation; nothing changes.
        """
        refuse(self.check(state, seat, action))
        if isinstance(action, PassCards):
            return self._choose_pass(state, seat, action.mask)
        return self._play(state, seat, action.card)

    def _choose_pass(self, state: HeartsState, seat: int, mask: int) -> HeartsState:
        passed = _with(state.passed, seat, mask)
        if not all(passed):
            return replace(state, passed=passed)
        step = state.pass_direction.step  # H-R2: all choose, then all cards move at once
        hands = tuple(
            state.hands[s] & ~passed[s] | passed[(s - step) % SEATS] for s in range(SEATS)
        )
        opener = _holder(hands, TWO_OF_CLUBS)
        return replace(
            state,
            phase=Phase.PLAYING,
            hands=hands,
            passed=passed,
            trick=Trick(opener),
            opener=opener,
        )

    def _play(self, state: HeartsState, seat: int, card: Card) -> HeartsState:
        hands = _with(state.hands, seat, state.hands[seat] & ~card.bit)
        cards = (*state.trick.cards, card)
        broken = self.breaks_hearts(state.hearts_broken, card)
        if len(cards) < SEATS:
            trick = Trick(state.trick.leader, cards)
            return _after_card(state, hands, trick, broken, state.points, state.tricks_won)
        done = Trick(state.trick.leader, cards)
        winner = done.winner
        assert winner is not None  # the trick has four cards
        points = _with(state.points, winner, state.points[winner] + trick_points(mask_of(cards)))
        tricks_won = _with(state.tricks_won, winner, state.tricks_won[winner] + 1)
        if state.tricks_played + 1 == HAND_SIZE:
            return self._end_hand(state, points, tricks_won, done)
        trick = Trick(self.leader_after(hands, winner, broken))
        return _after_card(state, hands, trick, broken, points, tricks_won, done)

    def breaks_hearts(self, broken: bool, card: int) -> bool:
        """Whether hearts are broken once ``card`` is played (H-R7; QS too, by option)."""
        return (
            broken
            or card // SUIT_SIZE == Suit.HEARTS
            or (self.config.queen_breaks_hearts and card == QUEEN_OF_SPADES)
        )

    def leader_after(self, hands: Sequence[int], winner: int, broken: bool) -> int:
        """H-R6: the winner leads; H-R8 ``pass_lead``: an all-hearts hand passes the lead left."""
        if broken or self.config.all_hearts_lead is AllHeartsLead.ALLOW:
            return winner
        for step in range(SEATS):
            seat = (winner + step) % SEATS
            if hands[seat] & ~HEARTS_MASK:
                return seat
        return winner

    def _end_hand(
        self,
        state: HeartsState,
        points: tuple[int, ...],
        tricks_won: tuple[int, ...],
        last: Trick,
    ) -> HeartsState:
        """Score the hand, then end the game or deal the next hand (H-R17)."""
        scores = score_hand(points, self.config)
        totals = tuple(a + b for a, b in zip(state.totals, scores, strict=True))
        history = (*state.hand_scores, scores)
        completed = (*state.completed, last)
        finished = FinishedHand(state.hand_number, completed, points, scores)
        winners = game_winners(state.totals, points, state.opener, self.config)
        if not winners:
            return self._deal(state.seed, state.hand_number + 1, totals, history, finished)
        return replace(
            state,
            phase=Phase.GAME_OVER,
            hands=NO_SCORES,
            trick=Trick(state.trick.leader),
            tricks_played=HAND_SIZE,
            points=points,
            tricks_won=tricks_won,
            totals=totals,
            hand_scores=history,
            winners=winners,
            completed=completed,
            previous_hand=finished,
        )

    # -- results -----------------------------------------------------------------------------

    def events(
        self, before: HeartsState, seat: int, action: HeartsAction, after: HeartsState
    ) -> tuple[Event, ...]:
        """What ``seat``'s legal ``action`` made happen between ``before`` and ``after``.

        Derived from the two states rather than recorded by :meth:`apply`, so that playing
        (bots, replays, the conformance suite) pays nothing for them. Passed, received and
        dealt cards are private to their seat; the rest is public (see
        :mod:`engine_service.games.hearts.events`).
        """
        if isinstance(action, PassCards):
            return _pass_events(before, seat, action, after)
        return self._play_events(before, seat, action.card, after)

    def _play_events(
        self, before: HeartsState, seat: int, card: Card, after: HeartsState
    ) -> tuple[Event, ...]:
        facts: list[object] = [CardPlayed(seat, card)]
        if not before.hearts_broken and (
            card // SUIT_SIZE == Suit.HEARTS
            or (self.config.queen_breaks_hearts and card == QUEEN_OF_SPADES)
        ):
            facts.append(HeartsBroken(seat, card))  # H-R7
        if len(before.trick.cards) < SEATS - 1:
            return public(*facts)
        done = Trick(before.trick.leader, (*before.trick.cards, card))
        winner = done.winner
        assert winner is not None  # four cards
        number = before.tricks_played + 1
        points = trick_points(mask_of(done.cards))
        facts.append(TrickTaken(number, done.leader, done.cards, winner, points))
        if number < HAND_SIZE:
            if after.trick.leader != winner:
                facts.append(LeadPassed(winner, after.trick.leader))  # H-R8 pass_lead
            return public(*facts)
        finished = after.previous_hand
        assert finished is not None  # set by _end_hand
        shooter = moon_shooter(finished.points_taken)
        facts.append(
            HandScored(
                finished.hand_number, finished.points_taken, finished.scores, shooter, after.totals
            )
        )
        if after.phase is Phase.GAME_OVER:
            return public(*facts, GameOver(after.winners, after.totals))
        facts.append(HandDealt(after.hand_number, after.pass_direction))
        dealt = tuple(
            Event(CardsDealt(s, after.hand_number, tuple(cards_in(after.hands[s]))), audience=s)
            for s in range(SEATS)
        )
        return public(*facts) + dealt

    def view(self, state: HeartsState, seat: int | None) -> HeartsView:
        """What ``seat`` may see; ``None`` is a spectator."""
        return build_view(state, seat, self.config, self.current_seats(state))

    def is_secret(self, action: HeartsAction) -> bool:
        """A pass stays hidden from the other seats until the game is over (H-R2)."""
        return isinstance(action, PassCards)

    def outcome(self, state: HeartsState) -> Outcome | None:
        """Winners and final totals once the game is over (H-R12, H-R13, H-R16)."""
        if state.phase is not Phase.GAME_OVER:
            return None
        names = ", ".join(f"seat {s}" for s in state.winners)
        verb = "wins" if len(state.winners) == 1 else "share the win"
        return Outcome(
            winners=state.winners,
            scores=state.totals,
            summary=f"{names} {verb} with {min(state.totals)} points.",
        )


def _after_card(
    state: HeartsState,
    hands: tuple[int, ...],
    trick: Trick,
    broken: bool,
    points: tuple[int, ...],
    tricks_won: tuple[int, ...],
    done: Trick | None = None,
) -> HeartsState:
    """The state after a card within a hand; ``done`` is the trick it completed, if any.

    Every play takes this path, so it builds the state directly: ``replace()`` cost about a
    third of a random game's time. A card played means the new hand has begun, so the
    previous hand's record goes.
    """
    return HeartsState(
        seed=state.seed,
        phase=state.phase,
        hand_number=state.hand_number,
        hands=hands,
        passed=state.passed,
        trick=trick,
        tricks_played=state.tricks_played if done is None else state.tricks_played + 1,
        hearts_broken=broken,
        points=points,
        tricks_won=tricks_won,
        opener=state.opener,
        totals=state.totals,
        hand_scores=state.hand_scores,
        winners=state.winners,
        completed=state.completed if done is None else (*state.completed, done),
    )


def _pass_events(
    before: HeartsState, seat: int, action: PassCards, after: HeartsState
) -> tuple[Event, ...]:
    """H-R2: the choice is public, its cards the passer's; received cards once all four chose."""
    step = before.pass_direction.step
    events = (
        Event(PassMade(seat)),
        Event(CardsPassed(seat, action.cards, (seat + step) % SEATS), audience=seat),
    )
    if after.phase is Phase.PASSING:
        return events
    return events + tuple(
        Event(
            CardsReceived(s, tuple(cards_in(after.passed[(s - step) % SEATS])), (s - step) % SEATS),
            audience=s,
        )
        for s in range(SEATS)
    )


def _holder(hands: tuple[int, ...], card: Card) -> int:
    return next(seat for seat, hand in enumerate(hands) if hand >> card & 1)


def _with(values: tuple[int, ...], index: int, value: int) -> tuple[int, ...]:
    return (*values[:index], value, *values[index + 1 :])
