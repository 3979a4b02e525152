"""What happens in a Guandan match, told as small frozen values (``Rules.events``).

Implementation notes: the events are worked out after the fact from the positions before
and after an action, never inside :meth:`GuandanRules.apply`, which stays exactly as fast as
without them (listing and applying plays is the hot path of bots and random matches). Every
event is public except a seat's dealt cards (:class:`CardsDealt`) and a return chosen while
another return is still outstanding (:class:`ReturnChosen`); the view's whitelist
(:mod:`engine_service.games.guandan.view`) draws the same lines, so folding the events a
viewer may see rebuilds the public part of its view. The seed and the other hands never
appear in a public event.

A deal-ending play tells, in order: the play, the finisher, the deal's end, the level
changes, then either the match's end or the next deal (its start, each seat's cards
privately, then tribute or anti-tribute).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine_service.core.events import Event
from engine_service.games.guandan.actions import PassTurn, PlayCards, ReturnCard
from engine_service.games.guandan.cards import Hand, kinds_in
from engine_service.games.guandan.config import GuandanConfig
from engine_service.games.guandan.reading import Reading
from engine_service.games.guandan.state import SEATS, GuandanState, Phase, team_of
from engine_service.games.guandan.tribute import plan_tribute


@dataclass(frozen=True, slots=True)
class CardsPlayed:
    """A seat played cards declared as ``reading`` (G-R8 .. G-R16); public.

    ``cards`` are kinds, ascending, copies repeated.
    """

    seat: int
    cards: tuple[int, ...]
    reading: Reading


@dataclass(frozen=True, slots=True)
class TurnPassed:
    """A seat passed instead of beating the top play (G-R17); public."""

    seat: int


@dataclass(frozen=True, slots=True)
class TrickWon:
    """Everyone else passed: ``winner``'s play won the trick and ``leader`` leads next.

    G-R18; ``leader`` is the winner's partner when the winner has finished (G-R19, jiefeng).
    Public. The round stays in view until ``leader`` plays.
    """

    winner: int
    leader: int


@dataclass(frozen=True, slots=True)
class PlayerFinished:
    """A seat played its last card (G-R20) and took ``place`` (1-based, G-R22); public."""

    seat: int
    place: int


@dataclass(frozen=True, slots=True)
class DealEnded:
    """A deal is over (G-R21, G-R22) and its winners go up (G-R24, G-R25); public.

    Attributes:
        deal_number: the deal that ended (0-based).
        order: the finishing order (only the two winners after a double win, G-R21).
        team: the winning team, the first finisher's (G-R24).
        steps: levels the winners went up: 3, 2 or 1 (G-R24), stopped at A (G-R25); 0 when
            the deal won the match (G-R26).
        levels: both teams' levels afterwards, a G-R27 demotion included.
    """

    deal_number: int
    order: tuple[int, ...]
    team: int
    steps: int
    levels: tuple[int, int]


@dataclass(frozen=True, slots=True)
class LevelChanged:
    """A team's level moved from ``before`` to ``after`` (G-R24, G-R25; G-R27 demotion); public."""

    team: int
    before: int
    after: int


@dataclass(frozen=True, slots=True)
class DealStarted:
    """A new deal is dealt at the declarer's level (G-R4, G-R30); public.

    ``leader`` leads its first trick once any returns are in (G-R36).
    """

    deal_number: int
    level: int
    declarer: int
    leader: int


@dataclass(frozen=True, slots=True)
class CardsDealt:
    """The 27 cards dealt to ``seat`` (G-R1), before any tribute moves; private to ``seat``."""

    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TributePaid:
    """``payer`` gave ``card`` to ``receiver`` (G-R31, G-R32, G-R34); public (G-R37)."""

    payer: int
    receiver: int
    card: int


@dataclass(frozen=True, slots=True)
class AntiTribute:
    """The payers held both red jokers, so there is no tribute (G-R33); public.

    Attributes:
        payers: the seats that would have paid.
        red_joker_holders: the payer holding each red joker (two entries) when the option
            ``announce_anti_tribute`` is on; empty otherwise, as in the view.
    """

    payers: tuple[int, ...]
    red_joker_holders: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ReturnChosen:
    """``returner`` chose ``card`` to give back to ``payer`` (G-R35).

    Told only to ``returner`` while another return is outstanding: in a double tribute
    neither receiver sees the other's choice (G-R37), and the payer learns it with all the
    others (:class:`CardReturned`).
    """

    returner: int
    payer: int
    card: int


@dataclass(frozen=True, slots=True)
class CardReturned:
    """``card`` went back from ``returner`` to ``payer``; public (G-R37).

    Told for every return of the deal at once, when the last one is in (G-R35c, G-R37).
    """

    returner: int
    payer: int
    card: int


@dataclass(frozen=True, slots=True)
class MatchOver:
    """The match is won (G-R26); ``winners`` are the two seats of the winning team; public."""

    winners: tuple[int, ...]


GuandanEvent = (
    CardsPlayed
    | TurnPassed
    | TrickWon
    | PlayerFinished
    | DealEnded
    | LevelChanged
    | DealStarted
    | CardsDealt
    | TributePaid
    | AntiTribute
    | ReturnChosen
    | CardReturned
    | MatchOver
)


def play_events(
    before: GuandanState, seat: int, action: PlayCards | PassTurn, after: GuandanState
) -> tuple[Event, ...]:
    """A pass or a play, and what it ended: the trick, a seat's deal, the deal, the match."""
    if isinstance(action, PassTurn):
        passed = Event(TurnPassed(seat))
        if after.top is not None:
            return (passed,)
        assert before.top is not None  # only a follower may pass
        return (passed, Event(TrickWon(before.top.seat, after.turn)))
    events = [Event(CardsPlayed(seat, action.cards, action.reading))]
    deal_over = after.deal_number != before.deal_number or after.phase is Phase.GAME_OVER
    if deal_over or (seat in after.finished and seat not in before.finished):
        events.append(Event(PlayerFinished(seat, len(before.finished) + 1)))
    if not deal_over:
        return tuple(events)
    result = after.previous_deal
    if after.phase is Phase.GAME_OVER or result is None:
        order = after.finished
        ended = DealEnded(after.deal_number, order, team_of(order[0]), 0, after.levels)
        return (*events, Event(ended), Event(MatchOver(after.winners)))
    events.append(
        Event(DealEnded(result.deal_number, result.order, result.team, result.steps, result.levels))
    )
    events.extend(
        Event(LevelChanged(team, was, now))
        for team, (was, now) in enumerate(zip(result.levels_before, result.levels, strict=True))
        if was != now
    )
    return tuple(events)


def deal_events(after: GuandanState, config: GuandanConfig) -> tuple[Event, ...]:
    """A new deal: its start, each seat's dealt cards privately, tribute or anti-tribute."""
    assert after.declarer is not None  # every deal after the first has one (G-R4)
    started = Event(DealStarted(after.deal_number, after.level, after.declarer, after.turn))
    dealt = tuple(
        Event(CardsDealt(seat, kinds_in(hand)), audience=seat)
        for seat, hand in enumerate(_as_dealt(after))
    )
    if after.anti_tribute:
        payers = plan_tribute(after.previous_order).payers
        holders = after.red_joker_holders if config.announce_anti_tribute else ()
        return (started, *dealt, Event(AntiTribute(payers, holders)))
    paid = tuple(Event(TributePaid(t.payer, t.receiver, t.card)) for t in after.tributes)
    return (started, *dealt, *paid)


def return_events(
    before: GuandanState, seat: int, action: ReturnCard, after: GuandanState
) -> tuple[Event, ...]:
    """A return: private to its chooser while others are outstanding, then all of them public."""
    if after.phase is Phase.RETURNING:
        payer = next(t.payer for t in before.tributes if t.receiver == seat)
        return (Event(ReturnChosen(seat, payer, action.card), audience=seat),)
    return tuple(
        Event(CardReturned(t.receiver, t.payer, t.returned))
        for t in after.tributes
        if t.returned is not None
    )


def _as_dealt(state: GuandanState) -> tuple[Hand, ...]:
    """The hands of a new deal before its tribute cards moved (G-R30)."""
    hands = [list(hand) for hand in state.hands]
    for tribute in state.tributes:
        hands[tribute.payer][tribute.card] += 1
        hands[tribute.receiver][tribute.card] -= 1
    assert len(hands) == SEATS
    return tuple(tuple(hand) for hand in hands)
