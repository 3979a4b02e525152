"""Search bots through the real server: refused where not offered, moved by the timer loop.

A search move costs tens of milliseconds of CPU, so no request makes one (``BotBudget.search``):
a human's SubmitAction comes back with only its own move applied, and the search bots' moves
arrive afterwards as WatchGame updates from the timer loop's slices. The servers here run on
tiny budgets (``search_budgets``), or with the search bot taken off Hearts, to see both.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator

import grpc
import pytest
import redis
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import engine_service_pb2_grpc, game_pb2

from engine_service.devtools.local import local_service
from tests.service.clock_helpers import action_log, end_game, replay_problems
from tests.service.rpc_helpers import (
    HEURISTIC,
    HUMAN,
    assert_invalid_field,
    failure_changing_nothing,
    failure_of,
    random_legal,
    submit,
    tokens_of,
    turn_of,
    view,
    watch_until,
)
from tests.service.table_helpers import update_seat

SEARCH = game_pb2.PLAYER_TYPE_BOT_SEARCH
HUMAN_MOVES = 14
"""The human's moves in the Hearts game: a pass and one hand's 13 cards (then it is ended)."""
SEARCH_MOVES = 6
"""Search moves awaited in each all-search game before it is ended."""


@contextlib.contextmanager
def stub_on(
    redis_url: str, budgets: tuple[str, ...]
) -> Iterator[engine_service_pb2_grpc.EngineServiceStub]:
    """A stub of a server of its own whose search bots play on ``budgets``."""
    with (
        local_service(redis_url, search_budgets=budgets) as address,
        grpc.insecure_channel(address) as channel,
    ):
        yield engine_service_pb2_grpc.EngineServiceStub(channel)


@pytest.fixture(scope="module")
def tiny_stub(redis_url: str) -> Iterator[engine_service_pb2_grpc.EngineServiceStub]:
    """A server whose search bots make a playout or two per decision."""
    with stub_on(redis_url, ("hearts=2", "guandan=1", "klaberjass=1")) as stub:
        yield stub


@pytest.fixture(scope="module")
def no_search_stub(redis_url: str) -> Iterator[engine_service_pb2_grpc.EngineServiceStub]:
    """A server with the search bot taken off Hearts (``hearts=0``)."""
    with stub_on(redis_url, ("hearts=0",)) as stub:
        yield stub


def bots_of(stub: engine_service_pb2_grpc.EngineServiceStub) -> dict[str, dict[int, int]]:
    """Each game's offered bots as ListGameTypes shows them: player type -> simulations."""
    reply = stub.ListGameTypes(api.ListGameTypesRequest())
    return {
        game.name: {bot.player_type: bot.simulations for bot in game.bots}
        for game in reply.game_types
    }


def test_list_game_types_shows_the_configured_budgets(
    tiny_stub: engine_service_pb2_grpc.EngineServiceStub,
    no_search_stub: engine_service_pb2_grpc.EngineServiceStub,
) -> None:
    tiny = bots_of(tiny_stub)
    assert (tiny["hearts"][SEARCH], tiny["guandan"][SEARCH], tiny["klaberjass"][SEARCH]) == (
        2,
        1,
        1,
    )
    off = bots_of(no_search_stub)
    assert SEARCH not in off["hearts"] and HEURISTIC in off["hearts"]
    assert SEARCH in off["guandan"]


def test_create_game_refuses_a_bot_the_game_does_not_offer(
    no_search_stub: engine_service_pb2_grpc.EngineServiceStub,
) -> None:
    request = api.CreateGameRequest(game_type="hearts", seats=[HUMAN, SEARCH, HEURISTIC, HUMAN])
    assert_invalid_field(failure_of(lambda: no_search_stub.CreateGame(request)), "seats[1]")


def test_update_seat_refuses_a_bot_the_game_does_not_offer(
    no_search_stub: engine_service_pb2_grpc.EngineServiceStub, redis_client: redis.Redis
) -> None:
    request = api.CreateGameRequest(game_type="hearts", seats=[HUMAN, HEURISTIC, HEURISTIC, HUMAN])
    created = no_search_stub.CreateGame(request)
    try:
        failure = failure_changing_nothing(
            redis_client,
            created.game_id,
            lambda: update_seat(no_search_stub, created.game_id, created.admin_token, 1, SEARCH),
        )
        assert_invalid_field(failure, "player_type")
    finally:
        end_game(no_search_stub, created)


def test_hearts_search_bots_move_in_the_timer_loop_and_replay(
    tiny_stub: engine_service_pb2_grpc.EngineServiceStub, redis_url: str
) -> None:
    created = tiny_stub.CreateGame(
        api.CreateGameRequest(game_type="hearts", seats=[HUMAN, SEARCH, SEARCH, SEARCH], seed=7)
    )
    token = tokens_of(created)[0]
    rng = random.Random(7)
    try:
        seat_view = view(tiny_stub, created.game_id, 0, token)
        for _ in range(HUMAN_MOVES):
            seat_view = turn_of(tiny_stub, created.game_id, 0, token, seat_view)
            if seat_view.status != game_pb2.GAME_STATUS_IN_PROGRESS:
                break
            sent = seat_view.version
            seat_view = submit(
                tiny_stub, created.game_id, 0, token, random_legal(seat_view, rng), sent
            )
            assert seat_view.version == sent + 1  # the request made no search move
        log = action_log(tiny_stub, created.game_id)
        assert {entry.seat for entry in log.entries} == {0, 1, 2, 3}
    finally:
        end_game(tiny_stub, created)
    assert replay_problems(redis_url, [created.game_id]) == []


@pytest.mark.parametrize("game_type", ["guandan", "klaberjass"])
def test_an_all_search_game_plays_on_in_the_timer_loop_and_replays(
    tiny_stub: engine_service_pb2_grpc.EngineServiceStub, redis_url: str, game_type: str
) -> None:
    seats = {"guandan": [SEARCH] * 4, "klaberjass": [SEARCH] * 2}[game_type]
    created = tiny_stub.CreateGame(api.CreateGameRequest(game_type=game_type, seats=seats, seed=3))
    try:
        assert created.view.version == 1  # the request made no search move
        moved = watch_until(
            tiny_stub,
            created.game_id,
            None,
            None,
            created.view.version,
            lambda shown: shown.version > SEARCH_MOVES,
        )
        assert moved.version > SEARCH_MOVES
    finally:
        end_game(tiny_stub, created)
    assert replay_problems(redis_url, [created.game_id]) == []
