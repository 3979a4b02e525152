"""Moving a game on, as pure functions: one logged entry, the bots' bounded replies, views.

These are shared by every use case that writes (moves, table changes, the timer loop) and by
every reader that replays a log (watchers, ``Engine.state_at``), so a game is moved on in
exactly one way. No I/O and no clock: the time of each entry is handed in.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from engine_service.bots.search import bot_choice
from engine_service.core.errors import MalformedRequest
from engine_service.core.events import Event
from engine_service.core.protocol import GameSpec, Outcome, Rules
from engine_service.core.record import GameRecord, PlayerKind
from engine_service.core.table import (
    TableChange,
    apply_change,
    first_deadline,
    is_table_change,
    outcome_of,
    seats_to_act,
    table_event,
    tick_clocks,
)
from engine_service.store.protocol import Listing

WAITING: Final = "waiting"
RUNNING: Final = "running"
OVER: Final = "over"


@dataclass(frozen=True, slots=True)
class BotBudget:
    """The most bot work one call may do (T-R10): a number of moves and a time budget.

    Whatever is left over is played on in later slices by the timer loop. Where a game is cut
    changes nothing in its course, since every bot move draws from a generator seeded by the
    version it is made at.
    """

    moves: int
    seconds: float
    search: bool = True
    """Whether this call may make search bot moves. A request's budget says no: a search move
    costs tens of milliseconds of CPU, so the request replies and the timer loop's slices make
    those moves, which then arrive as events."""


SEARCH_MOVE_COST: Final = 16
"""How many moves of a budget one search bot move counts as: a slice makes one at most."""
REQUEST_BUDGET: Final = BotBudget(100, 0.02, search=False)
"""The bots' replies within one request: enough for every game's replies to a move."""
SLICE_BUDGET: Final = BotBudget(16, 0.005)
"""One slice of the timer loop: short, so a slice's write holds Redis only briefly."""


@dataclass(frozen=True, slots=True)
class Move:
    """One applied log entry (a move or a table change) with what it made happen."""

    seat: int
    action: Any
    events: tuple[Event, ...]


@dataclass(frozen=True, slots=True)
class SeatView:
    """What one seat (or a spectator, ``viewer is None``) sees, plus the game's envelope."""

    game_id: str
    game_type: str
    version: int
    viewer: int | None
    to_act: tuple[int, ...]
    legal: Sequence[Any]
    outcome: Outcome | None
    seats: tuple[PlayerKind, ...]
    config: Any
    view: Any
    record: GameRecord


def step(
    spec: GameSpec[Any, Any, Any, Any],
    rules: Rules[Any, Any, Any],
    record: GameRecord,
    seat: int,
    action: Any,
    at_ms: int,
) -> tuple[GameRecord, Move]:
    """Apply one log entry at ``at_ms``: a move through the rules, or a table change.

    The clocks are ticked after either, so replaying the log with its entries' times
    rebuilds them exactly.
    """
    if is_table_change(action):
        change: TableChange = action
        after = apply_change(record, seat, change, spec.sides)
        events = table_event(seat, change)
    else:
        state = rules.apply(record.state, seat, action)
        events = rules.events(record.state, seat, action, state)
        after = replace(record, state=state)
    return tick_clocks(rules, after, seat, at_ms), Move(seat, action, events)


def bot_seats(rules: Rules[Any, Any, Any], record: GameRecord) -> list[int]:
    """The seats that must act now and are played by bots."""
    return [s for s in seats_to_act(rules, record) if record.seats[s].kind.is_bot]


def check_offered(spec: GameSpec[Any, Any, Any, Any], kind: PlayerKind, field_path: str) -> None:
    """Refuse a bot the game does not offer, before anything is stored.

    Why here: :func:`bot_move` looks the bot up by name, so a seat given to a bot the game
    lacks would fail at its first move, inside the timer loop, long after the request.

    Raises:
        MalformedRequest: ``kind`` is a bot missing from ``spec.bots``.
    """
    if kind.is_bot and kind.value not in spec.bots:
        offered = ", ".join(sorted(spec.bots))
        raise MalformedRequest(
            field_path, f"{spec.name} offers no {kind.value} bot (offered: {offered})"
        )


def bot_rng(record: GameRecord, version: int) -> random.Random:
    """The generator of a decision made for the game at ``version``: ``{seed}:bot:{version}``.

    Every bot move draws from it, and so does SuggestAction's search, which then answers
    what the game's search bot would play in the seat on the same budget.
    """
    return random.Random(f"{record.seed}:bot:{version}")


def bot_move(
    spec: GameSpec[Any, Any, Any, Any],
    rules: Rules[Any, Any, Any],
    record: GameRecord,
    seat: int,
    kind: PlayerKind,
    version: int,
) -> Any:
    """The move bot ``kind`` makes for ``seat`` at ``version``.

    It draws from :func:`bot_rng`, so a seeded game with the same human moves plays out the
    same way every time, however its bot work was sliced.
    """
    rng = bot_rng(record, version)
    view = rules.view(record.state, seat)
    legal = rules.legal_actions(record.state, seat)
    return bot_choice(spec.bots[kind.value], rules, view, legal, rng)


def play_bots(
    spec: GameSpec[Any, Any, Any, Any],
    rules: Rules[Any, Any, Any],
    record: GameRecord,
    version: int,
    at_ms: int,
    budget: BotBudget,
    work_clock: Callable[[], float] = time.perf_counter,
) -> tuple[GameRecord, list[Move]]:
    """Let bots act from ``version`` on until a human must, the game ends or the budget does.

    At least one move is made when a bot is to act, so every call makes progress, except that
    a budget without ``search`` stops before a search bot's move (the timer loop, whose
    slices may search, makes it). A search move counts :data:`SEARCH_MOVE_COST` moves.
    """
    moves: list[Move] = []
    used = 0
    stop_at = work_clock() + budget.seconds
    while used < budget.moves:
        seats = bot_seats(rules, record)
        if not seats or (moves and work_clock() >= stop_at):
            break
        seat = seats[0]
        kind = record.seats[seat].kind
        cost = SEARCH_MOVE_COST if kind is PlayerKind.SEARCH_BOT else 1
        if (cost > 1 and not budget.search) or (moves and used + cost > budget.moves):
            break
        action = bot_move(spec, rules, record, seat, kind, version + len(moves))
        record, move = step(spec, rules, record, seat, action, at_ms)
        moves.append(move)
        used += cost
    return record, moves


def game_state(rules: Rules[Any, Any, Any], record: GameRecord) -> str:
    """:data:`OVER`, :data:`RUNNING` (only bots are to act) or :data:`WAITING` (a human is)."""
    if outcome_of(rules, record) is not None:
        return OVER
    to_act = seats_to_act(rules, record)
    if to_act and all(record.seats[s].kind.is_bot for s in to_act):
        return RUNNING
    return WAITING


def due_ms(rules: Rules[Any, Any, Any], record: GameRecord, now_ms: int) -> int | None:
    """When the service must act on the game next, ``None`` when only a person can.

    That is now while bots are to move, else the first human deadline.
    """
    state = game_state(rules, record)
    if state == OVER:
        return None
    if state == RUNNING:
        return now_ms
    found = first_deadline(record)
    return None if found is None else found[0]


def listing_of(rules: Rules[Any, Any, Any], record: GameRecord, now_ms: int) -> Listing:
    """Where the game stands, for the indexes its write keeps."""
    state = game_state(rules, record)
    return Listing(record.created_at_ms, state, due_ms(rules, record, now_ms), now_ms)


@dataclass(frozen=True, slots=True)
class Reached:
    """A game as a write left it; a seat's view of it is built only when asked for.

    A Play move sent brief is answered with the version alone, so it builds no view.
    """

    rules: Rules[Any, Any, Any]
    game_id: str
    record: GameRecord
    version: int

    def seat_view(self, seat: int | None) -> SeatView:
        """``seat``'s view of the game at :attr:`version` (``None``: a spectator's)."""
        return seat_view(self.rules, self.game_id, self.record, self.version, seat)


def seat_view(
    rules: Rules[Any, Any, Any], game_id: str, record: GameRecord, version: int, seat: int | None
) -> SeatView:
    """``seat``'s view of ``record`` at ``version`` (``None``: a spectator's)."""
    state = record.state
    to_act = seats_to_act(rules, record)
    acting = seat is not None and seat in to_act and record.seats[seat].kind is PlayerKind.HUMAN
    return SeatView(
        game_id=game_id,
        game_type=record.game_type,
        version=version,
        viewer=seat,
        to_act=to_act,
        legal=rules.legal_actions(state, seat) if acting and seat is not None else (),
        outcome=outcome_of(rules, record),
        seats=tuple(s.kind for s in record.seats),
        config=record.config,
        view=rules.view(state, seat),
        record=record,
    )
