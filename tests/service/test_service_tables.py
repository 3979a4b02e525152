"""Seats that change hands, early endings and rematches (T-R1 to T-R9), end to end.

Each change goes through a real gRPC server onto a real redis-server, and after each the
stored game is replayed from the record as created plus its log, table changes included,
to the stored snapshot byte for byte. Games are played by people only (every seat a token)
until the phase under test, so nothing but the test moves them there; once a seat is a
bot's, the timer loop plays it on, and the tests wait for that with bounded watches.
"""

from __future__ import annotations

import hashlib
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import engine_service_pb2_grpc, game_pb2, guandan_pb2, hearts_pb2, klaberjass_pb2
from google.protobuf import duration_pb2

from tests.service.rpc_helpers import (
    HEURISTIC,
    HUMAN,
    RANDOM,
    assert_invalid_field,
    assert_malformed,
    assert_refused,
    assert_rule_break,
    create,
    failure_changing_nothing,
    failure_of,
    finished,
    first_legal,
    submit,
    token_md,
    tokens_of,
    view,
)
from tests.service.table_helpers import (
    admin_md,
    assert_replays,
    drive,
    game_info,
    leave,
    message_types_within,
    public_until,
    update_seat,
)

IN_PROGRESS = game_pb2.GAME_STATUS_IN_PROGRESS
SEATS = {"hearts": 4, "guandan": 4, "klaberjass": 2}
SIDES = {"guandan": ((0, 2), (1, 3)), "klaberjass": ((0,), (1,))}
Hearts = hearts_pb2.HeartsView
Guandan = guandan_pb2.GuandanView
Klaberjass = klaberjass_pb2.KlaberjassView


@dataclass(frozen=True)
class Phase:
    """A game type and seed, and the phase the seat to act must be in."""

    game_type: str
    seed: int
    reached: Callable[[Any], bool]


PHASES = {
    "hearts-passing": Phase("hearts", 1, lambda v: v.hearts.phase == Hearts.PHASE_PASSING),
    "hearts-playing": Phase("hearts", 2, lambda v: v.hearts.phase == Hearts.PHASE_PLAYING),
    "guandan-returning": Phase("guandan", 3, lambda v: v.guandan.phase == Guandan.PHASE_RETURNING),
    "guandan-playing": Phase("guandan", 4, lambda v: v.guandan.phase == Guandan.PHASE_PLAYING),
    "klaberjass-bidding": Phase(
        "klaberjass",
        5,
        lambda v: (
            v.klaberjass.phase
            in (Klaberjass.PHASE_BIDDING_TURNED_SUIT, Klaberjass.PHASE_BIDDING_OTHER_SUIT)
        ),
    ),
    "klaberjass-dix": Phase("klaberjass", 6, lambda v: v.klaberjass.phase == Klaberjass.PHASE_DIX),
    "klaberjass-playing": Phase(
        "klaberjass", 7, lambda v: v.klaberjass.phase == Klaberjass.PHASE_PLAYING
    ),
}


@dataclass(frozen=True)
class Table:
    """A game with every seat's token and its admin token, and the seat now to act."""

    game_id: str
    game_type: str
    tokens: dict[int, str]
    admin: str
    seat: int


def create_table(
    stub: Any,
    game_type: str,
    seats: list[int],
    seed: int = 1,
    clock: game_pb2.ClockPolicy | None = None,
    labels: dict[str, str] | None = None,
) -> Any:
    """CreateGame with an optional clock and labels; the full response."""
    request = api.CreateGameRequest(game_type=game_type, seats=seats, seed=seed, labels=labels)
    if clock is not None:
        request.clock.CopyFrom(clock)
    return stub.CreateGame(request)


def people_at(stub: Any, phase: Phase) -> Table:
    """An all-human game played on until a seat must act in ``phase``."""
    created = create_table(stub, phase.game_type, [HUMAN] * SEATS[phase.game_type], phase.seed)
    tokens = tokens_of(created)
    seat, _ = drive(stub, created.game_id, tokens, lambda s, v: phase.reached(v))
    return Table(created.game_id, phase.game_type, tokens, created.admin_token, seat)


def hour_clock(on_expiry: int) -> game_pb2.ClockPolicy:
    """A clock no test outlasts, so only its expiry rule matters."""
    return game_pb2.ClockPolicy(
        per_decision=duration_pb2.Duration(seconds=3600),
        bank=duration_pb2.Duration(seconds=60),
        on_expiry=on_expiry,
    )


def played_on_by_bot(stub: Any, table: Table) -> Any:
    """The spectator's view once the bot has made the seat's move (or the game ended)."""
    return public_until(
        stub, table.game_id, lambda v: v.status != IN_PROGRESS or table.seat not in v.to_act
    )


def last_entry(stub: Any, game_id: str) -> Any:
    return stub.GetActionLog(api.GetActionLogRequest(game_id=game_id)).entries[-1]


def table_change_logged(stub: Any, game_id: str, seat: int) -> str:
    """The kind of table change of the newest log entry that is one, checking its seat."""
    entries = stub.GetActionLog(api.GetActionLogRequest(game_id=game_id)).entries
    changes = [e for e in entries if e.action.HasField("table")]
    assert changes and changes[-1].seat == seat
    return str(changes[-1].action.table.WhichOneof("change"))


# -- T-R2, T-R3, T-R6 in every game and phase ---------------------------------------------


@pytest.mark.parametrize("phase", PHASES.values(), ids=PHASES.keys())
def test_t_r2_a_seat_left_goes_to_the_heuristic_bot_and_the_game_goes_on(stub, redis_client, phase):
    table = people_at(stub, phase)
    leave(stub, table.game_id, table.seat, table.tokens[table.seat])
    seat_info = game_info(stub, table.game_id, table.admin).seats[table.seat]
    assert (seat_info.player_type, seat_info.has_token) == (HEURISTIC, True)
    assert table_change_logged(stub, table.game_id, table.seat) == "left"
    assert played_on_by_bot(stub, table).status == IN_PROGRESS
    assert_replays(redis_client, table.game_id)


@pytest.mark.parametrize("phase", PHASES.values(), ids=PHASES.keys())
def test_t_r3_resigning_forfeits_where_the_game_has_sides_else_is_leaving(
    stub, redis_client, phase
):
    table = people_at(stub, phase)
    leave(stub, table.game_id, table.seat, table.tokens[table.seat], resign=True)
    assert table_change_logged(stub, table.game_id, table.seat) == "resigned"
    info = game_info(stub, table.game_id, table.admin)
    sides = SIDES.get(phase.game_type)
    if sides is None:
        assert info.seats[table.seat].player_type == HEURISTIC
        assert played_on_by_bot(stub, table).status == IN_PROGRESS
    else:
        winners = next(side for side in sides if table.seat not in side)
        assert info.state == api.GAME_STATE_OVER
        assert list(info.outcome.winners) == list(winners)
        assert info.outcome.ended_early and not info.outcome.scores
        assert view(stub, table.game_id).status != IN_PROGRESS
    assert_replays(redis_client, table.game_id)


@pytest.mark.parametrize("phase", PHASES.values(), ids=PHASES.keys())
def test_t_r6_a_seat_handed_to_a_bot_and_back_keeps_its_token(stub, redis_client, phase):
    table = people_at(stub, phase)
    to_bot = update_seat(stub, table.game_id, table.admin, table.seat, HEURISTIC)
    assert to_bot.token == ""
    assert game_info(stub, table.game_id, table.admin).seats[table.seat].player_type == HEURISTIC
    assert played_on_by_bot(stub, table).status == IN_PROGRESS
    back = update_seat(stub, table.game_id, table.admin, table.seat, HUMAN)
    assert back.token == ""
    assert table_change_logged(stub, table.game_id, table.seat) == "handed_over"
    token = table.tokens[table.seat]
    seat, seat_view = drive(stub, table.game_id, table.tokens, lambda s, v: s == table.seat)
    moved = submit(stub, table.game_id, seat, token, first_legal(seat_view), seat_view.version)
    assert moved.version > seat_view.version
    assert_replays(redis_client, table.game_id)


@pytest.mark.parametrize("game_type", SEATS)
def test_t_r6_a_seat_created_as_a_bot_handed_to_a_person_gets_a_token(
    stub, redis_client, game_type
):
    seats = [HUMAN] + [HEURISTIC] * (SEATS[game_type] - 1)
    created = create_table(stub, game_type, seats, seed=11)
    last = SEATS[game_type] - 1
    assert not game_info(stub, created.game_id, created.admin_token).seats[last].has_token
    handed = update_seat(stub, created.game_id, created.admin_token, last, HUMAN)
    assert handed.token
    assert view(stub, created.game_id, last, handed.token).seats[last] == HUMAN
    seat_info = game_info(stub, created.game_id, created.admin_token).seats[last]
    assert (seat_info.player_type, seat_info.has_token) == (HUMAN, True)
    assert_replays(redis_client, created.game_id)


def test_t_r2_a_seat_left_goes_to_the_clock_expiry_bot(stub, redis_client):
    clock = hour_clock(game_pb2.EXPIRY_ACTION_BOT_RANDOM)
    created = create_table(stub, "hearts", [HUMAN] * 4, seed=12, clock=clock)
    leave(stub, created.game_id, 2, tokens_of(created)[2])
    assert game_info(stub, created.game_id, created.admin_token).seats[2].player_type == RANDOM
    assert_replays(redis_client, created.game_id)


# -- T-R7 ------------------------------------------------------------------------------


def watched_events(stub: Any, game_id: str, from_version: int, until: int) -> list[Any]:
    """Every update message a spectator's watch gives from ``from_version`` up to ``until``."""
    request = api.WatchGameRequest(game_id=game_id, from_version=from_version)
    stream = stub.WatchGame(request, timeout=30)
    updates = []
    try:
        for message in stream:
            if message.HasField("update"):
                updates.append(message.update)
                if message.update.version >= until:
                    break
    finally:
        stream.cancel()
    return updates


def test_t_r7_a_reissued_token_replaces_the_old_one_on_every_replica(
    stub, redis_client, second_server
):
    created = create_table(stub, "hearts", [HUMAN] * 4, seed=13)
    game_id, old = created.game_id, tokens_of(created)[1]
    reissued = update_seat(stub, game_id, created.admin_token, 1, reissue=True)
    new = reissued.token
    assert new and new != old
    passing = first_legal(view(stub, game_id, 1, new))
    with grpc.insecure_channel(second_server) as channel:
        other = engine_service_pb2_grpc.EngineServiceStub(channel)
        for replica in (stub, other):
            calls = [
                lambda r=replica: view(r, game_id, 1, old),
                lambda r=replica: submit(r, game_id, 1, old, passing, reissued.view.version),
            ]
            for call in calls:
                failure = failure_changing_nothing(redis_client, game_id, call)
                assert (failure.code, failure.reason) == (
                    grpc.StatusCode.UNAUTHENTICATED,
                    "TOKEN_INVALID",
                )
            assert view(replica, game_id, 1, new).seats[1] == HUMAN
        moved = submit(other, game_id, 1, new, passing, reissued.view.version)
    assert moved.version == reissued.view.version + 1
    assert table_change_logged(stub, game_id, 1) == "token_reissued"
    (update,) = watched_events(stub, game_id, reissued.view.version - 1, reissued.view.version)
    assert [e.table.change.WhichOneof("change") for e in update.events] == ["token_reissued"]
    replies = [
        reissued,
        update,
        stub.GetGame(api.GetGameRequest(game_id=game_id), metadata=admin_md(created.admin_token)),
        stub.GetActionLog(api.GetActionLogRequest(game_id=game_id)),
        stub.GetActionLog(api.GetActionLogRequest(game_id=game_id, seat=1), metadata=token_md(new)),
        view(stub, game_id, 1, new),
    ]
    for token in (old, new):
        digest = hashlib.sha256(token.encode()).digest()
        for reply in replies:
            raw = reply.SerializeToString()
            assert digest not in raw and digest.hex().encode() not in raw
    assert_replays(redis_client, game_id)


# -- refusals ---------------------------------------------------------------------------


def test_t_r2_a_seat_a_bot_plays_can_neither_leave_again_nor_move(stub, redis_client):
    created = create_table(stub, "hearts", [HUMAN] * 4, seed=14)
    game_id, token = created.game_id, tokens_of(created)[0]
    passing = first_legal(view(stub, game_id, 0, token))
    leave(stub, game_id, 0, token)
    played = played_on_by_bot(stub, Table(game_id, "hearts", {}, created.admin_token, 0))
    again = failure_changing_nothing(redis_client, game_id, lambda: leave(stub, game_id, 0, token))
    assert_rule_break(again, "SEAT_PLAYED_BY_BOT", "T-R2")
    args = (stub, redis_client, game_id, 0, token, passing, played.version)
    assert_refused(*args, "SEAT_PLAYED_BY_BOT", "T-R2")


def test_t_r1_nothing_changes_a_game_that_is_over(stub, redis_client):
    created = create_table(stub, "guandan", [HUMAN] * 4, seed=15)
    game_id, tokens, admin = created.game_id, tokens_of(created), created.admin_token
    (leader,) = created.view.to_act
    action = first_legal(view(stub, game_id, leader, tokens[leader]))
    ended = stub.EndGame(
        api.EndGameRequest(game_id=game_id, reason="closed"), metadata=admin_md(admin)
    )
    calls = [
        lambda: leave(stub, game_id, 1, tokens[1]),
        lambda: leave(stub, game_id, 1, tokens[1], resign=True),
        lambda: update_seat(stub, game_id, admin, 1, HEURISTIC),
        lambda: update_seat(stub, game_id, admin, 1, reissue=True),
        lambda: stub.EndGame(
            api.EndGameRequest(game_id=game_id, reason="again"), metadata=admin_md(admin)
        ),
    ]
    for call in calls:
        assert_rule_break(
            failure_changing_nothing(redis_client, game_id, call), "GAME_OVER", "T-R1"
        )
    args = (stub, redis_client, game_id, leader, tokens[leader], action, ended.view.version)
    assert_refused(*args, "GAME_OVER", "T-R1")


def test_t_r6_handing_a_seat_to_the_kind_it_has_is_nothing_to_change(stub, redis_client):
    created = create_table(stub, "klaberjass", [HUMAN, HEURISTIC], seed=16)
    game_id, admin = created.game_id, created.admin_token
    public_until(stub, game_id, lambda v: 0 in v.to_act)
    for seat, kind in ((0, HUMAN), (1, HEURISTIC)):
        failure = failure_changing_nothing(
            redis_client, game_id, lambda s=seat, k=kind: update_seat(stub, game_id, admin, s, k)
        )
        assert_rule_break(failure, "NOTHING_TO_CHANGE", "T-R6")


def test_admin_calls_need_the_games_admin_token(stub, redis_client):
    created = create_table(stub, "hearts", [HUMAN] * 4, seed=17)
    game_id = created.game_id
    other = create_table(stub, "hearts", [HUMAN] * 4, seed=17).admin_token
    requests = [
        (stub.GetGame, api.GetGameRequest(game_id=game_id)),
        (stub.UpdateSeat, api.UpdateSeatRequest(game_id=game_id, seat=0, player_type=HEURISTIC)),
        (stub.EndGame, api.EndGameRequest(game_id=game_id, reason="no")),
        (stub.RematchGame, api.RematchGameRequest(game_id=game_id)),
    ]
    credentials = [
        (),
        admin_md(other),
        admin_md(tokens_of(created)[0]),
        token_md(tokens_of(created)[0]),
        token_md(created.admin_token),
    ]
    for method, request in requests:
        for metadata in credentials:
            failure = failure_changing_nothing(
                redis_client, game_id, lambda m=method, r=request, md=metadata: m(r, metadata=md)
            )
            assert (failure.code, failure.reason) == (
                grpc.StatusCode.UNAUTHENTICATED,
                "ADMIN_TOKEN_INVALID",
            )


def test_bad_table_requests_are_refused_and_change_nothing(stub, redis_client):
    created = create_table(stub, "hearts", [HUMAN] * 4, seed=18)
    game_id, tokens, admin = created.game_id, tokens_of(created), created.admin_token

    def refused(call: Callable[[], Any]) -> Any:
        return failure_changing_nothing(redis_client, game_id, call)

    assert (
        refused(lambda: leave(stub, game_id, 0, tokens[1])).code
        is grpc.StatusCode.PERMISSION_DENIED
    )
    assert_invalid_field(refused(lambda: leave(stub, game_id, 4, tokens[0])), "seat")
    assert_invalid_field(refused(lambda: update_seat(stub, game_id, admin, -1, RANDOM)), "seat")
    for reason in ("", "x" * 257):
        request = api.EndGameRequest(game_id=game_id, reason=reason)
        failure = refused(lambda r=request: stub.EndGame(r, metadata=admin_md(admin)))
        assert_invalid_field(failure, "reason")
    table_action = game_pb2.Action(table=game_pb2.TableAction(left=game_pb2.SeatLeft(bot=RANDOM)))
    args = (stub, redis_client, game_id, 0, tokens[0], table_action, created.view.version)
    assert_malformed(*args, "action.table")


# -- T-R8 -------------------------------------------------------------------------------


def test_t_r8_an_ended_game_has_no_winner_and_watchers_are_told(stub, redis_client):
    created = create_table(stub, "hearts", [HUMAN, HEURISTIC, HUMAN, RANDOM], seed=19)
    game_id = created.game_id
    before = view(stub, game_id).version
    reason = "the tournament closed the table"
    request = api.EndGameRequest(game_id=game_id, reason=reason)
    ended = stub.EndGame(request, metadata=admin_md(created.admin_token)).view
    assert ended.status != IN_PROGRESS
    assert not ended.outcome.winners and ended.outcome.ended_early == reason
    entry = last_entry(stub, game_id)
    assert (entry.seat, entry.action.table.ended_early.reason) == (-1, reason)
    stream = stub.WatchGame(api.WatchGameRequest(game_id=game_id, from_version=before), timeout=30)
    messages = list(stream)
    events = [e for m in messages if m.HasField("update") for e in m.update.events]
    assert events[-1].table.seat == -1 and events[-1].table.change.HasField("ended_early")
    assert messages[-1].HasField("ended")
    assert messages[-1].ended.outcome.ended_early == reason
    assert_replays(redis_client, game_id)


# -- T-R9 -------------------------------------------------------------------------------


RACE_ROUNDS = 3
"""How many times two RematchGame calls race for one game."""


def ended_table(stub: Any, labels: dict[str, str]) -> Any:
    """A Hearts game with a clock, labels and mixed seats, ended by its admin."""
    clock = hour_clock(game_pb2.EXPIRY_ACTION_BOT_HEURISTIC)
    seats = [HUMAN, HEURISTIC, RANDOM, HUMAN]
    created = create_table(stub, "hearts", seats, seed=20, clock=clock, labels=labels)
    request = api.EndGameRequest(game_id=created.game_id, reason="done")
    stub.EndGame(request, metadata=admin_md(created.admin_token))
    return created


def rematch(stub: Any, game_id: str, admin: str) -> Any:
    request = api.RematchGameRequest(game_id=game_id)
    return stub.RematchGame(request, metadata=admin_md(admin)).game


def assert_linked(stub: Any, created: Any, again: Any) -> tuple[Any, Any]:
    """The old game names its rematch and the rematch its origin; both GameInfos."""
    old = game_info(stub, created.game_id, created.admin_token)
    new = game_info(stub, again.game_id, again.admin_token)
    assert (old.rematch_id, new.rematch_of) == (again.game_id, created.game_id)
    assert (new.game_type, new.options, new.clock) == (old.game_type, old.options, old.clock)
    assert dict(new.labels) == dict(old.labels)
    rotated = [old.seats[-1].player_type] + [s.player_type for s in old.seats[:-1]]
    assert [s.player_type for s in new.seats] == rotated
    return old, new


def test_t_r9_only_a_finished_game_is_rematched(stub, redis_client):
    created = create_table(stub, "hearts", [HUMAN] * 4, seed=21)
    failure = failure_changing_nothing(
        redis_client, created.game_id, lambda: rematch(stub, created.game_id, created.admin_token)
    )
    assert_rule_break(failure, "GAME_NOT_OVER", "T-R9")


def test_t_r9_a_rematch_keeps_the_table_and_moves_everyone_one_seat_on(stub, redis_client):
    labels = {"event": "spring", "run": uuid.uuid4().hex}
    created = ended_table(stub, labels)
    again = rematch(stub, created.game_id, created.admin_token)
    new = assert_linked(stub, created, again)[1]
    assert new.clock.on_expiry == game_pb2.EXPIRY_ACTION_BOT_HEURISTIC
    assert dict(new.labels) == labels
    assert [s.player_type for s in new.seats] == [HUMAN, HUMAN, HEURISTIC, RANDOM]
    assert sorted(tokens_of(again)) == [0, 1]
    assert not set(tokens_of(again).values()) & set(tokens_of(created).values())
    assert again.admin_token != created.admin_token
    failure = failure_changing_nothing(
        redis_client, created.game_id, lambda: rematch(stub, created.game_id, created.admin_token)
    )
    assert (failure.code, failure.reason) == (grpc.StatusCode.ALREADY_EXISTS, "ALREADY_REMATCHED")
    assert failure.metadata["rematchId"] == again.game_id
    assert_replays(redis_client, again.game_id)


def test_t_r9_a_game_its_rules_finished_is_rematched_with_its_options(stub, redis_client):
    created = create(stub, [RANDOM, HEURISTIC], seed=8, game_type="klaberjass", target=1)
    assert finished(stub, created.game_id).status != IN_PROGRESS
    again = rematch(stub, created.game_id, created.admin_token)
    _, new = assert_linked(stub, created, again)
    assert new.options.klaberjass.target == 1 and not again.seat_tokens
    assert_replays(redis_client, created.game_id)


def racing_rematches(stub: Any, created: Any) -> list[Any]:
    """Two RematchGame calls for one game, sent at once; each reply or error."""
    barrier = threading.Barrier(2, timeout=30)
    results: list[Any] = []

    def call() -> None:
        barrier.wait()
        try:
            results.append(rematch(stub, created.game_id, created.admin_token))
        except grpc.RpcError as error:
            results.append(error)

    threads = [threading.Thread(target=call) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
        assert not thread.is_alive()
    return results


def test_t_r9_two_racing_rematches_make_exactly_one_linked_game(stub):
    for _ in range(RACE_ROUNDS):
        run = uuid.uuid4().hex
        created = ended_table(stub, {"run": run})
        results = racing_rematches(stub, created)
        (won,) = [r for r in results if isinstance(r, api.CreateGameResponse)]
        (lost,) = [r for r in results if isinstance(r, grpc.RpcError)]
        assert lost.code() is grpc.StatusCode.ALREADY_EXISTS
        assert failure_of(lambda e=lost: raise_(e)).metadata["rematchId"] == won.game_id
        assert_linked(stub, created, won)
        listed = stub.ListGames(api.ListGamesRequest(labels={"run": run})).games
        rematches = [g for g in listed if g.rematch_of == created.game_id]
        assert won.game_id in {g.game_id for g in rematches} and len(rematches) <= 2
        for duplicate in (g for g in rematches if g.game_id != won.game_id):
            assert duplicate.state == api.GAME_STATE_OVER and duplicate.outcome.ended_early


def raise_(error: BaseException) -> None:
    """Raise ``error`` again, so that ``failure_of`` can unpack a caught call's status."""
    raise error


# -- GetGame ----------------------------------------------------------------------------


def test_get_game_holds_no_card_and_tells_which_seats_have_tokens(stub):
    assert "cardengine.v1.Card" in message_types_within(api.GetGameViewResponse.DESCRIPTOR)
    assert "cardengine.v1.Card" not in message_types_within(api.GetGameResponse.DESCRIPTOR)
    created = create_table(stub, "hearts", [HUMAN, HEURISTIC, HUMAN, RANDOM], seed=22)
    leave(stub, created.game_id, 2, tokens_of(created)[2])
    info = game_info(stub, created.game_id, created.admin_token)
    seats = [(s.seat, s.player_type, s.has_token) for s in info.seats]
    assert seats == [
        (0, HUMAN, True),
        (1, HEURISTIC, False),
        (2, HEURISTIC, True),
        (3, RANDOM, False),
    ]


def test_t_r7_an_open_watch_ends_when_its_token_is_reissued_on_every_replica(stub, second_server):
    """A WatchGame opened with seat 1's token ends UNAUTHENTICATED at the reissue, on each
    process, without the version that reissued it or anything after (seat 1's cards)."""
    created = create_table(stub, "hearts", [HUMAN] * 4, seed=14)
    game_id, old = created.game_id, tokens_of(created)[1]
    with grpc.insecure_channel(second_server) as channel:
        other = engine_service_pb2_grpc.EngineServiceStub(channel)
        request = api.WatchGameRequest(game_id=game_id, seat=1, from_version=0)
        streams = [
            replica.WatchGame(request, metadata=token_md(old), timeout=60)
            for replica in (stub, other)
        ]
        try:
            firsts = [next(stream) for stream in streams]  # the current view: the watch is open
            assert all(first.update.view.hearts.hand for first in firsts)
            reissued = update_seat(stub, game_id, created.admin_token, 1, reissue=True)
            for stream in streams:
                later = []
                with pytest.raises(grpc.RpcError) as ended:
                    later.extend(message for message in stream)
                assert ended.value.code() is grpc.StatusCode.UNAUTHENTICATED
                assert all(m.update.version < reissued.view.version for m in later), later
        finally:
            for stream in streams:
                stream.cancel()
