"""Turn clocks and the timer loop end to end: real Redis, real servers, real (short) clocks.

An expired clock's move must be made exactly once however many replicas run timer loops and
whatever a person sends at the same moment (T-R4, T-R5); a deadline outlives every replica;
banks are drawn as the policy says; forfeits end games; bot work per call is bounded and its
slicing changes nothing (T-R10).
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import grpc
import redis
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import game_pb2

from engine_service.core.table import ClockExpired
from engine_service.devtools.local import local_service, redis_server
from engine_service.registry import REGISTRY
from tests.service.clock_helpers import (
    action_log,
    clock,
    create_clocked,
    deadline_ms,
    end_game,
    engine_process,
    engine_stub,
    is_expiry,
    replay_problems,
    stored_actions,
    wait_for_expiry,
)
from tests.service.rpc_helpers import (
    HEURISTIC,
    HUMAN,
    RANDOM,
    WAIT_SECONDS,
    assert_invalid_field,
    failure_of,
    finished,
    first_legal,
    submit,
    tokens_of,
    view,
    watch_until,
)

BOT_HEURISTIC = game_pb2.EXPIRY_ACTION_BOT_HEURISTIC
BOT_RANDOM = game_pb2.EXPIRY_ACTION_BOT_RANDOM
FORFEIT = game_pb2.EXPIRY_ACTION_FORFEIT
ONE_HUMAN = [HUMAN, HEURISTIC, HEURISTIC, HEURISTIC]
RACES = 200
DRIVERS = 25


@dataclass
class Race:
    """One game of the exactly-once test: the human's move at its deadline and what came of it."""

    game_id: str
    token: str
    version: int
    action: game_pb2.Action
    result: str


def _race_one(a: Any, b: Any, index: int) -> Race:
    """Create on replica ``a``, submit the human's pass at the deadline through ``b``, end it."""
    on_expiry = BOT_HEURISTIC if index % 2 else BOT_RANDOM
    created = create_clocked(a, ONE_HUMAN, clock(300, on_expiry), seed=index)
    token = tokens_of(created)[0]
    seat_view = view(b, created.game_id, 0, token)
    due = deadline_ms(created.view, 0)
    assert due is not None, "the human's pass has a running clock from creation"
    action = first_legal(seat_view)
    # Around the deadline, so that the person wins some races and the timer loops others;
    # every fourth well after it (three timer intervals), so that the loops win some even
    # when a loaded machine slows them down.
    offset_ms = 600.0 if index % 4 == 3 else random.Random(index).uniform(-120, 80)
    time.sleep(max(0.0, (due + offset_ms) / 1000 - time.time()))
    try:
        submit(b, created.game_id, 0, token, action, seat_view.version, uuid.uuid4().hex)
        result = "ok"
    except grpc.RpcError as error:
        result = str(error.code())
    end_game(a, created)
    return Race(created.game_id, token, seat_view.version, action, result)


def _race_problems(stub: Any, race: Race) -> list[str]:
    """What breaks exactly-once in one race: a double move, a lost move, or another result."""
    entries = action_log(stub, race.game_id, 0, race.token).entries
    # The seat's first entry from the version it decided on (bots' passes may come first).
    mine = [e for e in entries[race.version - 1 :] if e.seat == 0]
    passes = [
        e
        for e in entries
        if e.seat == 0
        and e.action.WhichOneof("game") == "hearts"
        and e.action.hearts.WhichOneof("action") == "pass_cards"
    ]
    problems = []
    if len(passes) != 1:
        problems.append(f"seat 0 passed {len(passes)} times")
    if not mine:
        problems.append("the seat never moved for its decision")
    elif race.result == "ok":
        if mine[0].action != race.action:
            problems.append("an acknowledged move is not the seat's move for its decision")
    elif race.result == str(grpc.StatusCode.ABORTED):
        expiry = mine[0]
        bot = entries[expiry.index + 1] if expiry.index + 1 < len(entries) else None
        if not is_expiry(expiry):
            problems.append("a refused move without a clock expiry for the decision")
        elif bot is None or bot.seat != 0 or is_expiry(bot):
            problems.append("the clock expired but no bot move followed for the seat")
    else:
        problems.append(f"SubmitAction gave {race.result}")
    return [f"{race.game_id}: {problem}" for problem in problems]


def test_expired_clock_moves_exactly_once_across_two_timer_replicas_t_r4_t_r5() -> None:
    """T-R4/T-R5: 200 deadlines raced by a person and two replicas' timer loops.

    Every game's seat makes exactly one move for its decision: the person's acknowledged one,
    or the ClockExpired entry and one bot move; never both, never neither. Each log then
    replays to its stored snapshot.
    """
    with redis_server() as url:
        with (
            engine_process(url) as first,
            engine_process(url) as second,
            engine_stub(first.address) as a,
            engine_stub(second.address) as b,
            ThreadPoolExecutor(DRIVERS) as pool,
        ):
            races = list(pool.map(lambda index: _race_one(a, b, index), range(RACES)))
            problems = [p for race in races for p in _race_problems(a, race)]
        problems += replay_problems(url, [race.game_id for race in races])
    assert problems == []
    results = {race.result for race in races}
    assert results == {"ok", str(grpc.StatusCode.ABORTED)}, "both sides should win some races"


def test_deadline_fires_after_every_replica_was_killed_t_r4() -> None:
    """T-R4: a pending deadline lives in Redis, not in a process; a restarted replica fires it."""
    with redis_server() as url:
        client = redis.Redis.from_url(url)
        try:
            with engine_process(url) as first, engine_process(url) as second:
                with engine_stub(first.address) as a:
                    created = create_clocked(a, ONE_HUMAN, clock(1500, BOT_HEURISTIC), seed=7)
                first.kill()
                second.kill()
            actions = stored_actions(client, created.game_id)
            assert not any(isinstance(a, ClockExpired) for a in actions), "fired before the kill"
            with engine_process(url) as third, engine_stub(third.address) as c:
                expiry = wait_for_expiry(c, created.game_id, 0, tokens_of(created)[0])
                assert expiry.seat == 0
                end_game(c, created)
        finally:
            client.close()


def test_bank_is_drawn_after_per_decision_and_only_turns_have_deadlines_t_r4(stub: Any) -> None:
    """T-R4: time beyond per_decision comes off the seat's bank; deadline = start + both.

    Two people pass in Hearts; seat 1 takes longer than per_decision. Bots have no clock
    entry, and once the play starts only the seat on turn has a deadline.
    """
    per_decision, bank = 200, 5000
    seats = [HUMAN, HUMAN, HEURISTIC, HEURISTIC]
    created = create_clocked(stub, seats, clock(per_decision, BOT_HEURISTIC, bank), seed=11)
    tokens = tokens_of(created)

    def people(seen: Any) -> list[int]:
        return [s for s in seen.to_act if s in (0, 1)]

    def pass_now(seat: int) -> Any:
        seat_view = view(stub, created.game_id, seat, tokens[seat])
        return submit(
            stub, created.game_id, seat, tokens[seat], first_legal(seat_view), seat_view.version
        )

    try:
        shown = created.view
        assert [c.seat for c in shown.clocks] == [0, 1], "bot seats have no clock"
        assert all(c.bank_remaining.ToMilliseconds() == bank for c in shown.clocks)
        due = deadline_ms(shown, 1)
        assert due is not None and due == deadline_ms(shown, 0)
        started = due - per_decision - bank
        pass_now(0)
        time.sleep(max(0.0, (started + 3 * per_decision) / 1000 - time.time()))
        after = pass_now(1)
        # Bots play on in slices: the first view with a person on turn may come later.
        shown = after
        if not people(shown):
            shown = watch_until(
                stub, created.game_id, None, None, after.version, lambda v: bool(people(v))
            )
        entries = action_log(stub, created.game_id).entries[: shown.version - 1]
        passed_at = {e.seat: e.applied_at.ToMilliseconds() for e in entries if e.seat in (0, 1)}
        banks = {c.seat: c.bank_remaining.ToMilliseconds() for c in shown.clocks}
        for seat in (0, 1):
            assert banks[seat] == bank - max(0, passed_at[seat] - started - per_decision)
        assert banks[1] < bank, "seat 1's pass outlasted per_decision"
        [on_turn] = people(shown)
        turn_start = entries[-1].applied_at.ToMilliseconds()
        assert deadline_ms(shown, on_turn) == turn_start + per_decision + banks[on_turn]
        assert deadline_ms(shown, 1 - on_turn) is None, "a seat not on turn has no deadline"
    finally:
        end_game(stub, created)


def _forfeit_on_time(stub: Any, game_type: str, seats: Sequence[Any]) -> None:
    """Let seat 0's FORFEIT clock run out; the game must end with the other side winning."""
    created = create_clocked(stub, seats, clock(100, FORFEIT), game_type=game_type, seed=3)
    final = finished(stub, created.game_id)
    assert final.status == game_pb2.GAME_STATUS_FINISHED
    sides = REGISTRY[game_type].sides
    assert sides is not None
    others = sorted(s for side in sides if 0 not in side for s in side)
    assert final.outcome.ended_early, "a forfeit ends the game early"
    assert list(final.outcome.winners) == others
    last = action_log(stub, created.game_id).entries[-1]
    assert is_expiry(last) and last.seat == 0
    assert last.action.table.clock_expired.on_expiry == FORFEIT


def test_forfeit_on_time_ends_klaberjass_for_the_other_side_t_r5(stub: Any) -> None:
    """T-R5: the human's clock runs out with FORFEIT; the other seat wins at once."""
    _forfeit_on_time(stub, "klaberjass", [HUMAN, HEURISTIC])


def test_forfeit_on_time_ends_guandan_for_the_other_side_t_r5(stub: Any) -> None:
    """T-R5: in Guandan the whole other partnership wins."""
    _forfeit_on_time(stub, "guandan", ONE_HUMAN)


def _stored_games(client: redis.Redis) -> int:
    """How many games the session's Redis holds (to see that a refusal created none)."""
    return sum(1 for _ in client.scan_iter("ce:*:game"))


def test_bad_clocks_are_refused_and_create_nothing_t_r4_t_r5(
    stub: Any, redis_client: redis.Redis
) -> None:
    """T-R5: Hearts has no forfeit; T-R4: per_decision under 100 ms or no expiry action."""
    before = _stored_games(redis_client)
    hearts_forfeit = failure_of(lambda: create_clocked(stub, ONE_HUMAN, clock(1000, FORFEIT)))
    assert hearts_forfeit.code is grpc.StatusCode.INVALID_ARGUMENT
    assert hearts_forfeit.reason == "NO_FORFEIT_IN_GAME"
    too_short = failure_of(lambda: create_clocked(stub, ONE_HUMAN, clock(99, BOT_RANDOM)))
    assert_invalid_field(too_short, "clock.per_decision")
    unset = game_pb2.EXPIRY_ACTION_UNSPECIFIED
    no_action = failure_of(lambda: create_clocked(stub, ONE_HUMAN, clock(1000, unset)))
    assert_invalid_field(no_action, "clock.on_expiry")
    assert _stored_games(redis_client) == before


def test_watchers_see_the_clock_expire_then_the_bots_move_t_r5(stub: Any) -> None:
    """T-R5: an expiry is an event like a move: the seat's ClockExpired, then its bot's move."""
    created = create_clocked(stub, ONE_HUMAN, clock(100, BOT_HEURISTIC), seed=5)
    token = tokens_of(created)[0]
    request = api.WatchGameRequest(
        game_id=created.game_id, seat=0, from_version=created.view.version
    )
    stream = stub.WatchGame(request, metadata=(("x-seat-token", token),), timeout=WAIT_SECONDS)
    updates: list[Any] = []

    def expired(update: Any) -> bool:
        return any(e.table.change.HasField("clock_expired") for e in update.events)

    try:
        for message in stream:  # ends with the stream's timeout at the latest
            if message.HasField("ended"):
                break
            if not message.HasField("update"):
                continue  # the heartbeat that opens a stream with nothing to send yet
            updates.append(message.update)
            if len(updates) >= 2 and expired(updates[-2]):
                break
    finally:
        stream.cancel()
        end_game(stub, created)
    at = next(i for i, update in enumerate(updates) if expired(update))
    assert all(update.seat != 0 for update in updates[:at]), "only bots moved before"
    expiry, bot = updates[at : at + 2]
    [event] = expiry.events
    assert expiry.seat == event.table.seat == 0
    assert event.table.change.clock_expired.on_expiry == BOT_HEURISTIC
    assert bot.seat == 0 and bot.version == expiry.version + 1
    assert bot.events and all(e.WhichOneof("game") == "hearts" for e in bot.events)


def _all_bot_game(stub: Any, moves_per_call: int) -> list[tuple[int, bytes]]:
    """Create a long all-bot Hearts game, check creation was bounded, let the timers finish it."""
    request = api.CreateGameRequest(game_type="hearts", seats=[HEURISTIC, RANDOM] * 2, seed=42)
    request.options.hearts.target = 150
    created = stub.CreateGame(request)
    assert created.view.status == game_pb2.GAME_STATUS_IN_PROGRESS
    assert created.view.version <= 1 + moves_per_call
    final = finished(stub, created.game_id)
    assert final.status == game_pb2.GAME_STATUS_FINISHED
    log = action_log(stub, created.game_id)
    assert len(log.entries) == final.version - 1
    return [(e.seat, e.action.SerializeToString(deterministic=True)) for e in log.entries]


def test_bot_work_per_call_is_bounded_and_slicing_changes_nothing_t_r10(stub: Any) -> None:
    """T-R10: CreateGame makes at most bot_moves_per_call moves; the timer loop plays on.

    The same seeded game sliced 5 moves at a time (its own Redis, so only that server's
    timer loop plays it) reaches exactly the same log as with the default slices.
    """
    default = _all_bot_game(stub, 100)
    with (
        redis_server() as url,
        local_service(url, bot_moves_per_call=5) as address,
        engine_stub(address) as small,
    ):
        sliced = _all_bot_game(small, 5)
    assert sliced == default
