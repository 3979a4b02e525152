"""The table rules of ``seeds/table.md`` (T-R1 .. T-R10) on plain game records.

These are unit tests of the pure functions the service is built from
(:mod:`engine_service.core.table`, :mod:`engine_service.app.play`, and the pure helpers of
:mod:`engine_service.app.tables` and :mod:`engine_service.app.seats`): no store, no server.
The service tests check the same rules end to end over gRPC and Redis.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import pytest

from engine_service.app.play import (
    OVER,
    RUNNING,
    WAITING,
    BotBudget,
    bot_move,
    bot_seats,
    due_ms,
    game_state,
    play_bots,
    seat_view,
    step,
)
from engine_service.app.seats import authorize, new_token
from engine_service.app.tables import leaving_bot, rotated
from engine_service.codec.record import (
    decode_log_entry,
    decode_record,
    encode_events,
    encode_log_entry,
    encode_record,
    visible_events,
)
from engine_service.core.errors import IllegalAction, Unauthenticated
from engine_service.core.protocol import GameSpec, Rules
from engine_service.core.record import (
    ClockPolicy,
    ExpiryAction,
    GameRecord,
    PlayerKind,
    SeatClock,
    SeatRecord,
)
from engine_service.core.table import (
    WHOLE_GAME,
    ClockExpired,
    GameEndedEarly,
    SeatHandedOver,
    SeatLeft,
    SeatResigned,
    SeatTokenReissued,
    TableChange,
    TableEvent,
    check_can_act,
    check_change,
    first_deadline,
    forfeit_winners,
    initial_clocks,
    outcome_of,
    seats_to_act,
    tick_clocks,
)
from engine_service.registry import REGISTRY

HUMAN = PlayerKind.HUMAN
RANDOM = PlayerKind.RANDOM_BOT
HEURISTIC = PlayerKind.HEURISTIC_BOT
T0 = 1_000_000
"""The creation time of every game here (ms)."""
POLICY = ClockPolicy(per_decision_ms=1_000, bank_ms=5_000, on_expiry=ExpiryAction.HEURISTIC_BOT)
UNBOUNDED = BotBudget(moves=100_000, seconds=1e9)
SHORT = {"hearts": {"target": 1}, "klaberjass": {"target": 1}, "guandan": {}}
"""Options that keep the games played to the end here short."""

Spec = GameSpec[Any, Any, Any, Any]
AnyRules = Rules[Any, Any, Any]


def table(
    name: str, kinds: Sequence[PlayerKind], clock: ClockPolicy | None = None, seed: int = 7
) -> tuple[Spec, AnyRules, GameRecord]:
    """A new short game as ``Engine.create_game`` builds it, before any bot has moved.

    Each human seat's token hash is its seat number repeated, so tests can tell them apart.
    """
    spec = REGISTRY[name]
    config = spec.config_type(**SHORT[name])
    rules = spec.make_rules(config)
    seats = tuple(
        SeatRecord(kind, bytes([index + 1]) * 32 if kind is HUMAN else b"")
        for index, kind in enumerate(kinds)
    )
    record = GameRecord(
        game_type=name,
        config=config,
        seed=seed,
        seats=seats,
        state=rules.new_game(seed),
        clock=clock,
        clocks=initial_clocks(clock, spec.seats),
        created_at_ms=T0,
    )
    return spec, rules, tick_clocks(rules, record, None, T0)


def first_legal(rules: AnyRules, record: GameRecord, seat: int) -> Any:
    return rules.legal_actions(record.state, seat)[0]


def refused(check: Callable[..., None], *args: Any) -> tuple[str, str]:
    """The reason and rule ID ``check(*args)`` refuses with."""
    with pytest.raises(IllegalAction) as raised:
        check(*args)
    found = raised.value.violation
    return found.reason, found.rule_id


def finished(name: str, seed: int = 3) -> tuple[Spec, AnyRules, GameRecord]:
    """An all-bot game played to the end by its rules."""
    spec, rules, record = table(name, [RANDOM] * REGISTRY[name].seats, seed=seed)
    record, _ = play_bots(spec, rules, record, 1, T0, UNBOUNDED)
    assert record.ending is None and rules.outcome(record.state) is not None
    return spec, rules, record


# -- T-R1: a finished game ------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_t_r1_a_game_its_rules_finished_takes_no_table_change(name: str) -> None:
    _, rules, record = finished(name)
    for seat, change in [
        (0, SeatLeft(HEURISTIC)),
        (0, SeatHandedOver(HUMAN)),
        (0, SeatTokenReissued(bytes(32))),
        (WHOLE_GAME, GameEndedEarly("late")),
    ]:
        assert refused(check_change, rules, record, seat, change) == ("GAME_OVER", "T-R1")


def test_t_r1_a_game_ended_early_takes_no_move_and_no_table_change() -> None:
    spec, rules, record = table("klaberjass", [HUMAN, HUMAN])
    record, _ = step(spec, rules, record, WHOLE_GAME, GameEndedEarly("closed"), T0 + 10)
    assert seats_to_act(rules, record) == ()
    assert refused(check_can_act, record, 0) == ("GAME_OVER", "T-R1")
    change = SeatResigned(True, None)
    assert refused(check_change, rules, record, 1, change) == ("GAME_OVER", "T-R1")


# -- T-R2: leaving --------------------------------------------------------------------------


def test_t_r2_a_seat_left_is_played_by_a_bot_and_keeps_its_token_for_reading() -> None:
    spec, rules, record = table("guandan", [HUMAN, RANDOM, HUMAN, RANDOM], POLICY)
    token_hash = record.seats[0].token_sha256
    record, move = step(spec, rules, record, 0, SeatLeft(leaving_bot(record)), T0 + 5)
    assert record.seats[0] == SeatRecord(HEURISTIC, token_hash)
    assert move.events == (move.events[0],) and move.events[0].audience is None
    assert refused(check_can_act, record, 0) == ("SEAT_PLAYED_BY_BOT", "T-R2")
    for change in (SeatLeft(HEURISTIC), SeatResigned(True, None)):
        assert refused(check_change, rules, record, 0, change) == (
            "SEAT_PLAYED_BY_BOT",
            "T-R2",
        )
    view = seat_view(rules, "g", record, 2, 0)
    assert view.viewer == 0 and view.view == rules.view(record.state, 0) and not view.legal


def test_t_r2_the_leaving_bot_is_the_clocks_expiry_bot_else_the_heuristic() -> None:
    _, _, record = table("hearts", [HUMAN] * 4)
    assert leaving_bot(record) is HEURISTIC
    for expiry, bot in [
        (ExpiryAction.RANDOM_BOT, RANDOM),
        (ExpiryAction.HEURISTIC_BOT, HEURISTIC),
        (ExpiryAction.FORFEIT, HEURISTIC),
    ]:
        assert leaving_bot(replace(record, clock=replace(POLICY, on_expiry=expiry))) is bot


# -- T-R3: resigning ------------------------------------------------------------------------


def test_t_r3_forfeit_winners_are_every_seat_off_the_resigners_side() -> None:
    assert forfeit_winners(((0, 2), (1, 3)), 1) == (0, 2)
    assert forfeit_winners(((0, 2), (1, 3)), 2) == (1, 3)
    assert forfeit_winners(((0,), (1,)), 0) == (1,)


@pytest.mark.parametrize(
    ("name", "seat", "winners"), [("guandan", 3, (0, 2)), ("klaberjass", 0, (1,))]
)
def test_t_r3_resigning_with_sides_ends_the_game_for_the_other_side(
    name: str, seat: int, winners: tuple[int, ...]
) -> None:
    spec, rules, record = table(name, [HUMAN] * REGISTRY[name].seats, POLICY)
    record, _ = step(spec, rules, record, seat, SeatResigned(True, None), T0 + 5)
    outcome = outcome_of(rules, record)
    assert outcome is not None
    assert outcome.winners == winners and outcome.ended_early == f"seat {seat} resigned"
    assert game_state(rules, record) == OVER and seats_to_act(rules, record) == ()
    assert all(clock.turn_started_ms is None for clock in record.clocks), "T-R4: clocks stop"


def test_t_r3_resigning_in_hearts_is_leaving() -> None:
    spec, rules, record = table("hearts", [HUMAN] * 4)
    assert spec.sides is None
    record, _ = step(spec, rules, record, 2, SeatResigned(False, RANDOM), T0 + 5)
    assert record.ending is None and record.seats[2].kind is RANDOM
    assert game_state(rules, record) == WAITING


# -- T-R4: turn clocks ----------------------------------------------------------------------


def test_t_r4_a_clock_runs_only_for_a_human_seat_that_must_act() -> None:
    _, rules, record = table("hearts", [HUMAN, RANDOM, HUMAN, HEURISTIC], POLICY)
    assert set(seats_to_act(rules, record)) == {0, 1, 2, 3}  # the simultaneous pass
    assert record.clocks == (
        SeatClock(T0, 5_000),
        SeatClock(None, 5_000),
        SeatClock(T0, 5_000),
        SeatClock(None, 5_000),
    )
    assert record.clocks[0].deadline_ms(POLICY) == T0 + 1_000 + 5_000
    assert record.clocks[1].deadline_ms(POLICY) is None


@pytest.mark.parametrize(
    ("took_ms", "bank_after"), [(400, 5_000), (1_000, 5_000), (2_500, 3_500), (60_000, 0)]
)
def test_t_r4_acting_charges_the_time_beyond_per_decision_to_the_bank(
    took_ms: int, bank_after: int
) -> None:
    spec, rules, record = table("hearts", [HUMAN] * 4, POLICY)
    pass_cards = first_legal(rules, record, 0)
    record, _ = step(spec, rules, record, 0, pass_cards, T0 + took_ms)
    assert record.clocks[0] == SeatClock(None, bank_after), "seat 0 has passed and waits"


def test_t_r4_simultaneous_decisions_keep_their_own_start() -> None:
    spec, rules, record = table("hearts", [HUMAN] * 4, POLICY)
    record, _ = step(spec, rules, record, 0, first_legal(rules, record, 0), T0 + 300)
    record, _ = step(spec, rules, record, 1, first_legal(rules, record, 1), T0 + 700)
    assert [clock.turn_started_ms for clock in record.clocks] == [None, None, T0, T0]
    assert first_deadline(record) == (T0 + 6_000, 2)


def test_t_r4_a_decision_starts_when_the_seat_comes_to_act() -> None:
    spec, rules, record = table("klaberjass", [HUMAN, HUMAN], POLICY)
    (first,) = seats_to_act(rules, record)
    other = 1 - first
    assert record.clocks[other].turn_started_ms is None
    hand_on = next(  # a bid that passes the turn (taking trump may leave a dix decision)
        action
        for action in rules.legal_actions(record.state, first)
        if rules.current_seats(rules.apply(record.state, first, action)) == (other,)
    )
    record, _ = step(spec, rules, record, first, hand_on, T0 + 800)
    assert record.clocks[other] == SeatClock(T0 + 800, 5_000)
    assert record.clocks[first] == SeatClock(None, 5_000)


def test_t_r4_clocks_stop_for_a_seat_handed_to_a_bot_and_at_the_end() -> None:
    spec, rules, record = table("hearts", [HUMAN] * 4, POLICY)
    record, _ = step(spec, rules, record, 1, SeatHandedOver(RANDOM), T0 + 3_000)
    assert record.clocks[1] == SeatClock(None, 3_000), "charged for its running decision"
    record, _ = step(spec, rules, record, WHOLE_GAME, GameEndedEarly("closed"), T0 + 4_000)
    assert all(clock.turn_started_ms is None for clock in record.clocks)
    assert first_deadline(record) is None


def test_t_r4_no_clock_no_deadline() -> None:
    spec, rules, record = table("hearts", [HUMAN] * 4)
    assert record.clocks == () and first_deadline(record) is None
    after, _ = step(spec, rules, record, 0, first_legal(rules, record, 0), T0 + 99_000)
    assert after.clocks == () and first_deadline(after) is None


def test_t_r4_first_deadline_is_the_earliest_running_one() -> None:
    _, _, record = table("hearts", [HUMAN] * 4, POLICY)
    clocks = (SeatClock(T0, 100), SeatClock(None, 0), SeatClock(T0 - 50, 200), SeatClock(T0, 50))
    assert first_deadline(replace(record, clocks=clocks)) == (T0 + 1_000 + 50, 3)


# -- T-R5: expiry ---------------------------------------------------------------------------


def test_t_r5_an_expired_seat_gets_its_bots_move_and_stays_the_persons() -> None:
    spec, rules, record = table("klaberjass", [HUMAN, HUMAN], POLICY)
    deadline, seat = first_deadline(record) or (0, 0)
    assert deadline == T0 + 6_000
    record, expiry = step(spec, rules, record, seat, ClockExpired(POLICY.on_expiry), deadline)
    assert expiry.events[0].fact == TableEvent(seat, ClockExpired(POLICY.on_expiry))
    assert seats_to_act(rules, record) == (seat,), "the expiry entry is no move"
    action = bot_move(spec, rules, record, seat, HEURISTIC, 2)
    assert action in rules.legal_actions(record.state, seat)
    record, _ = step(spec, rules, record, seat, action, deadline)
    assert record.seats[seat].kind is HUMAN
    assert record.clocks[seat].bank_ms == 0, "the bank is used up"


@pytest.mark.parametrize(("name", "winners"), [("guandan", (1, 3)), ("klaberjass", (1,))])
def test_t_r5_a_forfeiting_clock_ends_the_game(name: str, winners: tuple[int, ...]) -> None:
    forfeit = replace(POLICY, on_expiry=ExpiryAction.FORFEIT)
    spec, rules, record = table(name, [HUMAN] * REGISTRY[name].seats, forfeit)
    record, _ = step(spec, rules, record, 0, ClockExpired(ExpiryAction.FORFEIT), T0 + 6_000)
    outcome = outcome_of(rules, record)
    assert outcome is not None and outcome.winners == winners
    assert outcome.ended_early == "seat 0 ran out of time"


# -- T-R6, T-R7: the admin's seat changes ---------------------------------------------------


def test_t_r6_hand_over_to_a_bot_and_back_keeps_the_token() -> None:
    spec, rules, record = table("guandan", [HUMAN, HUMAN, RANDOM, RANDOM])
    token_hash = record.seats[1].token_sha256
    record, _ = step(spec, rules, record, 1, SeatHandedOver(RANDOM), T0 + 1)
    assert record.seats[1] == SeatRecord(RANDOM, token_hash)
    record, _ = step(spec, rules, record, 1, SeatHandedOver(HUMAN), T0 + 2)
    assert record.seats[1] == SeatRecord(HUMAN, token_hash)
    for seat, kind in [(1, HUMAN), (2, RANDOM), (3, RANDOM)]:
        change = SeatHandedOver(kind)
        assert refused(check_change, rules, record, seat, change) == (
            "NOTHING_TO_CHANGE",
            "T-R6",
        )
    check_change(rules, record, 2, SeatHandedOver(HEURISTIC))


def test_t_r7_a_reissued_token_replaces_the_old_one_at_once() -> None:
    spec, rules, record = table("hearts", [HUMAN] * 4, POLICY)
    old, old_hash = new_token()
    new, new_hash = new_token()
    record = replace(record, seats=(SeatRecord(HUMAN, old_hash), *record.seats[1:]))
    authorize(record, 0, old)
    record, move = step(spec, rules, record, 0, SeatTokenReissued(new_hash), T0 + 1_500)
    authorize(record, 0, new)
    with pytest.raises(Unauthenticated):
        authorize(record, 0, old)
    assert record.clocks[0] == SeatClock(T0 + 1_500, 4_500), "an entry about the seat (T-R4)"
    entry = encode_log_entry("hearts", 0, move.action, T0 + 1_500)
    assert decode_log_entry("hearts", entry).action == SeatTokenReissued(new_hash)
    told = visible_events(encode_events("hearts", move.events), None)
    assert len(told) == 1 and new_hash not in told[0].SerializeToString()


# -- T-R8: EndGame --------------------------------------------------------------------------


def test_t_r8_the_admin_ends_the_game_with_no_winner_and_the_reason() -> None:
    spec, rules, record = table("guandan", [HUMAN, RANDOM, HUMAN, RANDOM], POLICY)
    record, move = step(spec, rules, record, WHOLE_GAME, GameEndedEarly("venue closed"), T0)
    outcome = outcome_of(rules, record)
    assert outcome is not None
    assert outcome.winners == () and outcome.ended_early == "venue closed"
    assert "venue closed" in outcome.summary and "nobody wins" in outcome.summary
    assert game_state(rules, record) == OVER and due_ms(rules, record, T0) is None
    assert move.seat == WHOLE_GAME and move.events[0].fact.seat == WHOLE_GAME


def test_t_r8_an_early_ending_overrides_nothing_while_the_game_runs() -> None:
    """Without an early ending, the outcome is the rules' own (``None`` while running)."""
    _, rules, record = table("hearts", [HUMAN] * 4)
    assert outcome_of(rules, record) is None
    _, rules, done = finished("hearts")
    outcome = rules.outcome(done.state)
    assert outcome is not None and not outcome.ended_early
    assert outcome_of(rules, done) == outcome


# -- T-R9: rematch seating ------------------------------------------------------------------


def test_t_r9_every_occupant_moves_one_seat_on() -> None:
    assert rotated([HUMAN, RANDOM, HEURISTIC, HUMAN]) == [HUMAN, HUMAN, RANDOM, HEURISTIC]
    assert rotated([HUMAN, RANDOM]) == [RANDOM, HUMAN]
    seats = list(range(4))
    assert all(rotated(seats)[(i + 1) % 4] == i for i in seats)


# -- T-R10: bounded bot work ----------------------------------------------------------------


def ticking(step_seconds: float) -> Callable[[], float]:
    """A work clock that moves on ``step_seconds`` each time it is read."""
    counter = itertools.count()
    return lambda: next(counter) * step_seconds


@pytest.mark.parametrize("moves", [1, 5, 40])
def test_t_r10_bots_make_at_most_the_budgets_moves(moves: int) -> None:
    spec, rules, record = table("guandan", [RANDOM, HEURISTIC, RANDOM, HEURISTIC])
    after, made = play_bots(spec, rules, record, 1, T0, BotBudget(moves=moves, seconds=1e9))
    assert len(made) == moves and game_state(rules, after) == RUNNING


@pytest.mark.parametrize(("seconds", "moves"), [(0.0, 1), (2.5, 3), (10.0, 10)])
def test_t_r10_bots_stop_when_the_budgets_time_is_spent(seconds: float, moves: int) -> None:
    """The work clock moves on a second per read: the budget's start is read before the first
    move, then one read before each further move; one move is made at least."""
    spec, rules, record = table("guandan", [RANDOM] * 4)
    budget = BotBudget(moves=1_000, seconds=seconds)
    _, made = play_bots(spec, rules, record, 1, T0, budget, ticking(1.0))
    assert len(made) == moves


def test_t_r10_bots_stop_when_a_person_must_act() -> None:
    spec, rules, record = table("hearts", [HUMAN, RANDOM, RANDOM, RANDOM])
    after, made = play_bots(spec, rules, record, 1, T0, UNBOUNDED)
    assert [move.seat for move in made] == [1, 2, 3]
    assert bot_seats(rules, after) == [] and seats_to_act(rules, after) == (0,)
    assert game_state(rules, after) == WAITING


def slices(
    spec: Spec, rules: AnyRules, record: GameRecord, sizes: Callable[[int], int]
) -> tuple[GameRecord, int]:
    """Play bots on in slices of ``sizes(slice number)`` moves; the record and version reached."""
    version = 1
    for number in range(100_000):
        if not bot_seats(rules, record):
            return record, version
        record, made = play_bots(
            spec, rules, record, version, T0 + number, BotBudget(sizes(number), 1e9)
        )
        version += len(made)
    raise AssertionError("the game does not end")


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_t_r10_slicing_never_changes_the_games_course(name: str) -> None:
    spec, rules, record = table(name, [RANDOM, HEURISTIC] * (REGISTRY[name].seats // 2), seed=11)
    whole, made = play_bots(spec, rules, record, 1, T0, UNBOUNDED)
    assert game_state(rules, whole) == OVER
    for sizes in (lambda _: 1, lambda n: 1 + n % 7, lambda n: 13):
        sliced, version = slices(spec, rules, record, sizes)
        assert sliced.state == whole.state and version == 1 + len(made)


# -- where a game stands --------------------------------------------------------------------


def test_game_state_and_due_ms() -> None:
    """Bots to move: due now (T-R10); a person: due at the deadline (T-R4), or never."""
    spec, rules, bots = table("hearts", [RANDOM] * 4, POLICY)
    assert (game_state(rules, bots), due_ms(rules, bots, T0 + 7)) == (RUNNING, T0 + 7)
    _, _, people = table("hearts", [HUMAN] * 4, POLICY)
    assert (game_state(rules, people), due_ms(rules, people, T0 + 7)) == (WAITING, T0 + 6_000)
    _, _, unclocked = table("hearts", [HUMAN] * 4)
    assert (game_state(rules, unclocked), due_ms(rules, unclocked, T0)) == (WAITING, None)
    mixed, _ = play_bots(
        spec, rules, table("hearts", [HUMAN, RANDOM, RANDOM, RANDOM], POLICY)[2], 1, T0, UNBOUNDED
    )
    assert due_ms(rules, mixed, T0) == T0 + 6_000
    _, rules, over = finished("klaberjass")
    assert (game_state(rules, over), due_ms(rules, over, T0)) == (OVER, None)


# -- every table change: one log entry, one public event, an exact replay -------------------


def test_table_changes_are_logged_told_and_replayed_exactly() -> None:
    """T-R2 .. T-R8: each change is one entry and one public event; the log rebuilds it all."""
    spec, rules, origin = table("guandan", [HUMAN, HUMAN, HUMAN, RANDOM], POLICY)
    changes: list[tuple[int, TableChange | None]] = [
        (1, SeatTokenReissued(bytes(range(32)))),
        (0, None),
        (2, SeatLeft(HEURISTIC)),
        (1, None),
        (3, SeatHandedOver(HUMAN)),
        (1, SeatHandedOver(RANDOM)),
        (0, ClockExpired(ExpiryAction.HEURISTIC_BOT)),
        (0, SeatResigned(True, None)),
    ]
    record, now = origin, T0
    log: list[tuple[int, Any, int]] = []
    for concerned, change in changes:
        now += 1_700
        seat = concerned
        if change is None:  # a move of whoever must act, before the table changes again
            seat = seats_to_act(rules, record)[0]
            if record.seats[seat].kind.is_bot:
                record, made = play_bots(spec, rules, record, len(log) + 1, now, UNBOUNDED)
                log += [(move.seat, move.action, now) for move in made]
                continue
        action = change if change is not None else first_legal(rules, record, seat)
        if change is not None:
            check_change(rules, record, seat, change)
        record, move = step(spec, rules, record, seat, action, now)
        if change is not None:
            assert [event.audience for event in move.events] == [None]
            assert move.events[0].fact == TableEvent(seat, change)
        log.append((seat, action, now))
    assert outcome_of(rules, record) is not None
    replayed = decode_record(encode_record(origin))
    for seat, action, at_ms in log:
        logged = decode_log_entry("guandan", encode_log_entry("guandan", seat, action, at_ms))
        replayed = step(spec, rules, replayed, logged.seat, logged.action, logged.applied_at_ms)[0]
    assert replayed == decode_record(encode_record(record)) == record
