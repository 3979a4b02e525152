"""A seat's view of a Hearts game, built by copying in only what that seat may know."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from engine_service.core.cards import Card, cards_in
from engine_service.games.hearts.config import HeartsConfig
from engine_service.games.hearts.state import (
    FinishedHand,
    HeartsState,
    PassDirection,
    Phase,
    Trick,
)


@dataclass(slots=True, init=False, unsafe_hash=True)
class HeartsView:
    """One seat's knowledge of the game (``seat is None``: a spectator's).

    Immutable, with a written constructor that mypyc compiles, as :class:`HeartsState`: a
    view is built for every seat that is told of every move, and a frozen dataclass's
    generated constructor (``object.__setattr__`` per field, interpreted) was the largest
    part of building one.

    ``hand``, ``passed`` and ``received`` are the viewer's own; everything else is public.
    ``passed`` may name cards now in another hand: the viewer put them there itself.
    ``completed_tricks`` is the whole public history of the current hand, oldest first (its
    last is ``last_trick``). ``previous_hand`` is the hand that ended last, shown from its
    final card until the next hand's first card, so that the last trick and the hand's score
    can still be seen once the new cards are dealt; its cards are of that earlier deal.
    """

    seat: Final[int | None]
    phase: Final[Phase]
    to_act: Final[tuple[int, ...]]
    hand_number: Final[int]
    pass_direction: Final[PassDirection]
    hand: Final[tuple[Card, ...]]
    passed: Final[tuple[Card, ...]]
    received: Final[tuple[Card, ...]]
    pass_submitted: Final[tuple[bool, ...]]
    trick: Final[Trick | None]
    last_trick: Final[Trick | None]
    completed_tricks: Final[tuple[Trick, ...]]
    previous_hand: Final[FinishedHand | None]
    tricks_played: Final[int]
    hearts_broken: Final[bool]
    tricks_won: Final[tuple[int, ...]]
    points_taken: Final[tuple[int, ...]]
    hand_scores: Final[tuple[tuple[int, ...], ...]]
    totals: Final[tuple[int, ...]]
    target: Final[int]
    winners: Final[tuple[int, ...]]

    def __init__(
        self,
        seat: int | None,
        phase: Phase,
        to_act: tuple[int, ...],
        hand_number: int,
        pass_direction: PassDirection,
        hand: tuple[Card, ...],
        passed: tuple[Card, ...],
        received: tuple[Card, ...],
        pass_submitted: tuple[bool, ...],
        trick: Trick | None,
        last_trick: Trick | None,
        completed_tricks: tuple[Trick, ...],
        previous_hand: FinishedHand | None,
        tricks_played: int,
        hearts_broken: bool,
        tricks_won: tuple[int, ...],
        points_taken: tuple[int, ...],
        hand_scores: tuple[tuple[int, ...], ...],
        totals: tuple[int, ...],
        target: int,
        winners: tuple[int, ...],
    ) -> None:
        self.seat = seat
        self.phase = phase
        self.to_act = to_act
        self.hand_number = hand_number
        self.pass_direction = pass_direction
        self.hand = hand
        self.passed = passed
        self.received = received
        self.pass_submitted = pass_submitted
        self.trick = trick
        self.last_trick = last_trick
        self.completed_tricks = completed_tricks
        self.previous_hand = previous_hand
        self.tricks_played = tricks_played
        self.hearts_broken = hearts_broken
        self.tricks_won = tricks_won
        self.points_taken = points_taken
        self.hand_scores = hand_scores
        self.totals = totals
        self.target = target
        self.winners = winners


def build_view(
    state: HeartsState, seat: int | None, config: HeartsConfig, to_act: tuple[int, ...]
) -> HeartsView:
    """Whitelist the facts ``seat`` may see; the seed and other hands never enter."""
    own_hand: tuple[Card, ...] = ()
    passed: tuple[Card, ...] = ()
    received: tuple[Card, ...] = ()
    # H-R3: the first leader is whoever holds 2C after the pass; naming the dealt holder while
    # passing would reveal a card of another hand, so there is no trick until play starts.
    trick = None if state.phase is Phase.PASSING else state.trick
    if seat is not None:
        own_hand = tuple(cards_in(state.hands[seat]))
        passed = tuple(cards_in(state.passed[seat]))
        if state.phase is Phase.PLAYING and state.pass_direction.step:
            received = tuple(cards_in(state.passed[(seat - state.pass_direction.step) % 4]))
    return HeartsView(
        seat=seat,
        phase=state.phase,
        to_act=to_act,
        hand_number=state.hand_number,
        pass_direction=state.pass_direction,
        hand=own_hand,
        passed=passed,
        received=received,
        pass_submitted=tuple(bool(p) for p in state.passed),
        trick=trick,
        last_trick=state.last_trick,
        completed_tricks=state.completed,
        previous_hand=state.previous_hand,
        tricks_played=state.tricks_played,
        hearts_broken=state.hearts_broken,
        tricks_won=state.tricks_won,
        points_taken=state.points,
        hand_scores=state.hand_scores,
        totals=state.totals,
        target=config.target,
        winners=state.winners,
    )
