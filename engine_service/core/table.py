"""The table around any game: who plays each seat, turn clocks, and games that end early.

A game's rules know nothing of people leaving, tokens or clocks; these are the same for every
game and are kept here, as pure functions over a :class:`GameRecord` (no clock is read: every
function is handed the time of the log entry it applies). Table changes are logged and told
like moves (one log entry and one event each), so replaying a game's log rebuilds the record
exactly, seats and clocks included. The rule IDs (``T-R1`` ...) are those of
``seeds/table.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from engine_service.core.errors import refuse, violation
from engine_service.core.events import Event
from engine_service.core.protocol import Outcome, Rules
from engine_service.core.record import (
    ClockPolicy,
    Ending,
    ExpiryAction,
    GameRecord,
    PlayerKind,
    SeatClock,
)

WHOLE_GAME: Final = -1
"""The seat of a log entry or event about the whole game (an admin's EndGame)."""


# -- table changes: logged like actions, told as events ------------------------------------


@dataclass(frozen=True, slots=True)
class SeatLeft:
    """The seat's player left; ``bot`` plays the seat from now on (T-R2)."""

    bot: PlayerKind


@dataclass(frozen=True, slots=True)
class SeatResigned:
    """The seat's player resigned: a forfeit, or (no forfeit in the game) leaving (T-R3)."""

    forfeit: bool
    bot: PlayerKind | None


@dataclass(frozen=True, slots=True)
class SeatHandedOver:
    """The admin gave the seat to another kind of player (T-R6)."""

    kind: PlayerKind


@dataclass(frozen=True, slots=True)
class SeatTokenReissued:
    """The admin issued the seat a new token (T-R7); only its hash is kept, never shown."""

    token_sha256: bytes


@dataclass(frozen=True, slots=True)
class GameEndedEarly:
    """The admin ended the game (T-R8)."""

    reason: str


@dataclass(frozen=True, slots=True)
class ClockExpired:
    """The seat's time ran out (T-R5); a bot's move for it follows unless it forfeits."""

    on_expiry: ExpiryAction


TableChange = (
    SeatLeft | SeatResigned | SeatHandedOver | SeatTokenReissued | GameEndedEarly | ClockExpired
)
TABLE_CHANGES: Final = (
    SeatLeft,
    SeatResigned,
    SeatHandedOver,
    SeatTokenReissued,
    GameEndedEarly,
    ClockExpired,
)


@dataclass(frozen=True, slots=True)
class TableEvent:
    """The event of a table change: the seat concerned (:data:`WHOLE_GAME`) and the change."""

    seat: int
    change: TableChange


def is_table_change(action: Any) -> bool:
    """Whether a logged action is a table change rather than a move of the game."""
    return isinstance(action, TABLE_CHANGES)


def is_secret(rules: Rules[Any, Any, Any], action: Any) -> bool:
    """Whether a logged action is another seat's secret: a move the rules keep hidden.

    Table changes are public; only the game's own moves go to its rules, whose ``is_secret``
    takes the game's actions alone.
    """
    return not is_table_change(action) and rules.is_secret(action)


# -- where a game stands -----------------------------------------------------------------


def seats_to_act(rules: Rules[Any, Any, Any], record: GameRecord) -> tuple[int, ...]:
    """The seats that must act now; none once the game ended, early or by its rules."""
    if record.ending is not None:
        return ()
    return rules.current_seats(record.state)


def outcome_of(rules: Rules[Any, Any, Any], record: GameRecord) -> Outcome | None:
    """The game's result: the early ending's, else the rules' (``None`` while it runs)."""
    if record.ending is None:
        return rules.outcome(record.state)
    ending = record.ending
    return Outcome(ending.winners, (), ending_summary(ending), ended_early=ending.reason)


def ending_summary(ending: Ending) -> str:
    """One English sentence for an early ending.

    >>> ending_summary(Ending("seat 1 resigned", (0, 2)))
    'The game ended early (seat 1 resigned); seats 0 and 2 win.'
    >>> ending_summary(Ending("closed by the tournament"))
    'The game ended early (closed by the tournament); nobody wins.'
    """
    if not ending.winners:
        return f"The game ended early ({ending.reason}); nobody wins."
    names = [str(seat) for seat in ending.winners]
    seats = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    noun = "seat" if len(names) == 1 else "seats"
    verb = "wins" if len(names) == 1 else "win"
    return f"The game ended early ({ending.reason}); {noun} {seats} {verb}."


def forfeit_winners(sides: Sequence[Sequence[int]], seat: int) -> tuple[int, ...]:
    """Every seat not on ``seat``'s side, which wins when that side forfeits.

    >>> forfeit_winners(((0, 2), (1, 3)), 3)
    (0, 2)
    """
    return tuple(sorted(s for side in sides if seat not in side for s in side))


# -- applying table changes and ticking the clocks -----------------------------------------


def check_can_act(record: GameRecord, seat: int) -> None:
    """Refuse a move by a seat's token holder when the game ended early or a bot plays it.

    Raises:
        IllegalAction: GAME_OVER (T-R1) or SEAT_PLAYED_BY_BOT (T-R2).
    """
    if record.ending is not None:
        refuse(violation("GAME_OVER", "T-R1", "the game is over"))
    if record.seats[seat].kind.is_bot:
        refuse(violation("SEAT_PLAYED_BY_BOT", "T-R2", f"a bot plays seat {seat} now"))


def moves_of(rules: Rules[Any, Any, Any], record: GameRecord, seat: int) -> Sequence[Any]:
    """The moves the token holder of ``seat`` may make now, refused as a move would be if none.

    Why: a read that only makes sense on the seat's turn (SuggestAction) gives the refusal the
    seat would get for a move, with the game's own reason and rule ID, without a move to judge.
    A seat with nothing to do is refused as if it sent a move a seat to act may make: the
    rules' ``check`` of that move for ``seat`` (NOT_YOUR_TURN H-R4, G-R2, K-R16; ALREADY_PASSED
    H-R2 while others still pass; ...).

    Raises:
        IllegalAction: GAME_OVER (T-R1) once the game ended, early or by its rules;
            SEAT_PLAYED_BY_BOT (T-R2); the game's refusal of a move out of turn.
    """
    check_can_act(record, seat)
    if outcome_of(rules, record) is not None:
        refuse(violation("GAME_OVER", "T-R1", "the game is over"))
    legal = rules.legal_actions(record.state, seat)
    if legal:
        return legal
    for other in seats_to_act(rules, record):
        for action in rules.legal_actions(record.state, other):
            refuse(rules.check(record.state, seat, action))
            break
    raise AssertionError(f"the rules let seat {seat} move out of turn but list no move of it")


def check_change(
    rules: Rules[Any, Any, Any], record: GameRecord, seat: int, change: TableChange
) -> None:
    """Refuse a change the table rules do not allow now.

    A game its rules ended is as over as one ended early: a late EndGame must not replace
    its result, nor a late leave add entries to a finished log.

    Raises:
        IllegalAction: the game is over, by its rules or early (GAME_OVER, T-R1), or
            nothing would change (NOTHING_TO_CHANGE, T-R6), or the seat is a bot's already
            (SEAT_PLAYED_BY_BOT).
    """
    if outcome_of(rules, record) is not None:
        refuse(violation("GAME_OVER", "T-R1", "the game is over"))
    if isinstance(change, SeatHandedOver) and record.seats[seat].kind is change.kind:
        refuse(violation("NOTHING_TO_CHANGE", "T-R6", f"seat {seat} is already played that way"))
    if isinstance(change, (SeatLeft, SeatResigned)) and record.seats[seat].kind.is_bot:
        refuse(violation("SEAT_PLAYED_BY_BOT", "T-R2", f"a bot plays seat {seat} already"))


def apply_change(
    record: GameRecord, seat: int, change: TableChange, sides: Sequence[Sequence[int]] | None
) -> GameRecord:
    """The record after a table change (its clocks are ticked by :func:`tick_clocks`)."""
    if isinstance(change, (SeatLeft, SeatHandedOver)):
        kind = change.bot if isinstance(change, SeatLeft) else change.kind
        return _with_seat_kind(record, seat, kind)
    if isinstance(change, SeatResigned):
        if change.forfeit and sides is not None:
            ending = Ending(f"seat {seat} resigned", forfeit_winners(sides, seat))
            return replace(record, ending=ending)
        return _with_seat_kind(record, seat, change.bot or PlayerKind.HEURISTIC_BOT)
    if isinstance(change, SeatTokenReissued):
        seats = list(record.seats)
        seats[seat] = replace(seats[seat], token_sha256=change.token_sha256)
        return replace(record, seats=tuple(seats))
    if isinstance(change, GameEndedEarly):
        return replace(record, ending=Ending(change.reason))
    if change.on_expiry is ExpiryAction.FORFEIT and sides is not None:
        ending = Ending(f"seat {seat} ran out of time", forfeit_winners(sides, seat))
        return replace(record, ending=ending)
    return record


def _with_seat_kind(record: GameRecord, seat: int, kind: PlayerKind) -> GameRecord:
    seats = list(record.seats)
    seats[seat] = replace(seats[seat], kind=kind)
    return replace(record, seats=tuple(seats))


def table_event(seat: int, change: TableChange) -> tuple[Event, ...]:
    """The one public event of a table change."""
    return (Event(TableEvent(seat, change)),)


def tick_clocks(
    rules: Rules[Any, Any, Any], record: GameRecord, actor: int | None, now_ms: int
) -> GameRecord:
    """The record with its clocks brought up to an entry applied at ``now_ms`` (T-R4).

    The seat that acted (``actor``) is charged for its decision: whatever went beyond the time
    per decision comes off its bank. Every human seat that must act now has a running
    decision: one that was running for another seat keeps its start (simultaneous passes),
    the others start now. ``actor`` is ``None`` when the game is created.
    """
    policy = record.clock
    if policy is None:
        return record
    to_act = set(seats_to_act(rules, record))
    clocks = []
    for seat, (clock, seat_record) in enumerate(zip(record.clocks, record.seats, strict=True)):
        bank = clock.bank_ms
        running = clock.turn_started_ms is not None
        if running and seat == actor:
            overrun = now_ms - (clock.turn_started_ms or 0) - policy.per_decision_ms
            bank = max(0, bank - max(0, overrun))
        started: int | None = None
        if seat in to_act and seat_record.kind is PlayerKind.HUMAN:
            started = clock.turn_started_ms if running and seat != actor else now_ms
        clocks.append(SeatClock(started, bank))
    return replace(record, clocks=tuple(clocks))


def first_deadline(record: GameRecord) -> tuple[int, int] | None:
    """The earliest running deadline and its seat; ``None`` when no human clock runs."""
    policy = record.clock
    if policy is None:
        return None
    due = [
        (deadline, seat)
        for seat, clock in enumerate(record.clocks)
        if (deadline := clock.deadline_ms(policy)) is not None
    ]
    return min(due) if due else None


def initial_clocks(policy: ClockPolicy | None, seats: int) -> tuple[SeatClock, ...]:
    """Every seat's clock before the first decision: full bank, not running."""
    if policy is None:
        return ()
    return tuple(SeatClock(None, policy.bank_ms) for _ in range(seats))
