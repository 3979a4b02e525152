"""A seat's view of a Guandan match, built by copying in only what that seat may know."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final

from engine_service.games.guandan.cards import kinds_in
from engine_service.games.guandan.config import CardCountVisibility, GuandanConfig
from engine_service.games.guandan.state import (
    DealResult,
    GuandanState,
    Phase,
    RoundEntry,
    TopPlay,
    Tribute,
)

HIDDEN_COUNT: Final = -1
"""A card count the viewer may not see (G-R23 ``ten_or_fewer``)."""
COUNT_SHOWN_AT: Final = 10


@dataclass(slots=True, init=False, unsafe_hash=True)
class GuandanView:
    """One seat's knowledge of the match (``seat is None``: a spectator's).

    ``hand`` is the viewer's own; everything else is public. Cards are kinds (plain ints, see
    :mod:`engine_service.games.guandan.cards`), copies repeated.

    Attributes:
        seat: the viewer, ``None`` for a spectator.
        phase: returning, playing or over.
        to_act: the seats that must act now.
        deal_number: 0-based deal count.
        levels: each team's level (team 0 = seats 0 and 2).
        level: the level of this deal.
        declarer: the team whose level is in play, ``None`` in the first deal.
        hand: the viewer's cards, lowest kind first.
        card_counts: each seat's card count; ``HIDDEN_COUNT`` (-1) where G-R23 hides it. The
            viewer's own count is always shown.
        top: the play to beat with its seat and reading; ``None`` when the seat on turn leads.
        passed: seats that passed since ``top`` was played.
        finished: this deal's finishing order so far.
        tributes: this deal's tribute payments (G-R37). A return is shown once every return
            is in (G-R37); before that ``returned`` is ``None``, except in the receiver's own
            view, which shows its own choice.
        anti_tribute: whether tribute was cancelled this deal (G-R33).
        red_joker_holders: the payers' red jokers, one seat per joker, when the option
            ``announce_anti_tribute`` is on; empty otherwise.
        previous_order: the previous deal's finishing order (only the two winners after a
            double win that ended the deal, G-R21).
        winners: the winning team's seats once the match is over.
        round_history: the plays and passes of the current round, oldest first: since the
            current trick was led, or, after a trick was won, that whole trick until the next
            lead (G-R17, G-R18). Empty until a new deal's first play; at the end of the match
            the last round.
        previous_deal: how the deal just ended went (finishing order, its last round, the
            winners' promotion and both levels), shown from its end until the next deal's
            first play, so that tribute and returns are seen beside it; ``None`` otherwise.
        played: per seat, every card it has played this deal, lowest kind first (G-R17a).

    Immutable (``Final`` fields), with a written constructor that mypyc compiles: a frozen
    dataclass's generated one runs interpreted, and the search bot's playouts build a view
    for every simulated move (docs/bots.md).
    """

    seat: Final[int | None]
    phase: Final[Phase]
    to_act: Final[tuple[int, ...]]
    deal_number: Final[int]
    levels: Final[tuple[int, int]]
    level: Final[int]
    declarer: Final[int | None]
    hand: Final[tuple[int, ...]]
    card_counts: Final[tuple[int, ...]]
    top: Final[TopPlay | None]
    passed: Final[tuple[int, ...]]
    finished: Final[tuple[int, ...]]
    tributes: Final[tuple[Tribute, ...]]
    anti_tribute: Final[bool]
    red_joker_holders: Final[tuple[int, ...]]
    previous_order: Final[tuple[int, ...]]
    winners: Final[tuple[int, ...]]
    round_history: Final[tuple[RoundEntry, ...]]
    previous_deal: Final[DealResult | None]
    played: Final[tuple[tuple[int, ...], ...]]

    def __init__(
        self,
        seat: int | None,
        phase: Phase,
        to_act: tuple[int, ...],
        deal_number: int,
        levels: tuple[int, int],
        level: int,
        declarer: int | None,
        hand: tuple[int, ...],
        card_counts: tuple[int, ...],
        top: TopPlay | None,
        passed: tuple[int, ...],
        finished: tuple[int, ...],
        tributes: tuple[Tribute, ...],
        anti_tribute: bool,
        red_joker_holders: tuple[int, ...],
        previous_order: tuple[int, ...],
        winners: tuple[int, ...],
        round_history: tuple[RoundEntry, ...],
        previous_deal: DealResult | None,
        played: tuple[tuple[int, ...], ...],
    ) -> None:
        self.seat = seat
        self.phase = phase
        self.to_act = to_act
        self.deal_number = deal_number
        self.levels = levels
        self.level = level
        self.declarer = declarer
        self.hand = hand
        self.card_counts = card_counts
        self.top = top
        self.passed = passed
        self.finished = finished
        self.tributes = tributes
        self.anti_tribute = anti_tribute
        self.red_joker_holders = red_joker_holders
        self.previous_order = previous_order
        self.winners = winners
        self.round_history = round_history
        self.previous_deal = previous_deal
        self.played = played


def build_view(
    state: GuandanState, seat: int | None, config: GuandanConfig, to_act: tuple[int, ...]
) -> GuandanView:
    """Whitelist the facts ``seat`` may see; the seed and other hands never enter."""
    own_hand = kinds_in(state.hands[seat]) if seat is not None else ()
    return GuandanView(
        seat=seat,
        phase=state.phase,
        to_act=to_act,
        deal_number=state.deal_number,
        levels=state.levels,
        level=state.level,
        declarer=state.declarer,
        hand=own_hand,
        card_counts=tuple(_count(state, s, seat, config) for s in range(len(state.hands))),
        top=state.top,
        passed=state.passed,
        finished=state.finished,
        tributes=tuple(_tribute(state, t, seat) for t in state.tributes),
        anti_tribute=state.anti_tribute,
        red_joker_holders=state.red_joker_holders if config.announce_anti_tribute else (),
        previous_order=state.previous_order,
        winners=state.winners,
        round_history=state.round_history,
        previous_deal=state.previous_deal,
        played=tuple(kinds_in(hand) for hand in state.played),
    )


def _count(state: GuandanState, seat: int, viewer: int | None, config: GuandanConfig) -> int:
    """G-R23: counts are public, or only at ten or fewer cards (the owner always knows)."""
    count = state.card_count(seat)
    if (
        config.card_count_visibility is CardCountVisibility.ALWAYS
        or seat == viewer
        or count <= COUNT_SHOWN_AT
    ):
        return count
    return HIDDEN_COUNT


def _tribute(state: GuandanState, tribute: Tribute, viewer: int | None) -> Tribute:
    """G-R37: returns are revealed together; until then only the receiver sees its own."""
    if state.phase is Phase.RETURNING and tribute.receiver != viewer:
        return replace(tribute, returned=None)
    return tribute
