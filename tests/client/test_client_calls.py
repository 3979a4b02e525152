"""EngineClient against a scripted in-process gRPC servicer: retries, tokens, request ids.

Most tests need no Redis and no engine: the servicer answers each SubmitAction with the next
scripted status, so the client's retry policy (only UNAVAILABLE) and its error decoding meet
real grpc errors. The last ones put a lossy front before the real engine: the engine acts,
the reply is lost, and the client's retry (or its refusal to retry) meets the real service.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import grpc
import pytest
import redis
from cardengine.v1 import engine_service_pb2, engine_service_pb2_grpc, game_pb2
from cardengine_client import (
    Aborted,
    EngineClient,
    IllegalAction,
    NotFound,
    RequestIdReused,
    Unavailable,
    hearts_play,
)
from cardengine_client.aio import AsyncEngineClient
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from engine_service.store.keys import game_key
from tests.client.scripted_server import lossy_front, serving


def status_of(code: grpc.StatusCode, reason: str, **metadata: str) -> status_pb2.Status:
    status = status_pb2.Status(code=code.value[0], message=f"{reason.lower()} happened")
    info = error_details_pb2.ErrorInfo(reason=reason, domain="cardengine", metadata=metadata)
    status.details.add().Pack(info)
    return status


class ScriptedServicer(engine_service_pb2_grpc.EngineServiceServicer):
    """Fails SubmitAction with each scripted status in turn, then succeeds; records requests."""

    def __init__(self):
        self.script: list[status_pb2.Status] = []
        self.requests: list[engine_service_pb2.SubmitActionRequest] = []
        self.tokens: list[str | None] = []

    def SubmitAction(self, request, context):  # noqa: N802 (the generated servicer's name)
        self.requests.append(request)
        self.tokens.append(dict(context.invocation_metadata()).get("x-seat-token"))
        if self.script:
            context.abort_with_status(rpc_status.to_status(self.script.pop(0)))
        view = game_pb2.GameView(game_id=request.game_id, version=request.expected_version + 1)
        return engine_service_pb2.SubmitActionResponse(view=view)

    def GetGameView(self, request, context):  # noqa: N802
        self.tokens.append(dict(context.invocation_metadata()).get("x-seat-token"))
        status = status_of(grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND")
        context.abort_with_status(rpc_status.to_status(status))


@pytest.fixture(scope="module")
def server():
    servicer = ScriptedServicer()
    with serving(servicer) as address:
        yield servicer, address


@pytest.fixture
def servicer(server):
    servicer, _ = server
    servicer.script.clear()
    servicer.requests.clear()
    servicer.tokens.clear()
    return servicer


@pytest.fixture
def client(server):
    _, address = server
    with EngineClient(address, retries=3, backoff=0.001) as engine:
        yield engine


def submit(client: EngineClient, **kwargs):
    return client.submit("g1", 0, "secret", hearts_play("2C"), 5, **kwargs)


def test_submit_sends_the_token_and_a_fresh_uuid_request_id(client, servicer):
    view = submit(client)
    assert view.version == 6
    (request,) = servicer.requests
    assert servicer.tokens == ["secret"]
    assert uuid.UUID(request.request_id).version == 4
    assert request.expected_version == 5
    assert request.action == hearts_play("2C")
    submit(client)
    assert servicer.requests[1].request_id != request.request_id


def test_unavailable_is_retried_with_the_same_request_id(client, servicer):
    servicer.script[:] = [status_of(grpc.StatusCode.UNAVAILABLE, "BUSY")] * 2
    assert submit(client).version == 6
    assert len(servicer.requests) == 3
    assert len({request.request_id for request in servicer.requests}) == 1


def test_a_given_request_id_is_used_as_is(client, servicer):
    servicer.script[:] = [status_of(grpc.StatusCode.UNAVAILABLE, "BUSY")]
    submit(client, request_id="my-id")
    assert [request.request_id for request in servicer.requests] == ["my-id", "my-id"]


def test_unavailable_gives_up_after_the_retries(client, servicer):
    servicer.script[:] = [status_of(grpc.StatusCode.UNAVAILABLE, "BUSY")] * 5
    with pytest.raises(Unavailable) as caught:
        submit(client)
    assert caught.value.reason == "BUSY"
    assert len(servicer.requests) == 4  # the first attempt and three retries


def test_aborted_is_raised_at_once_for_the_caller_to_reload(client, servicer):
    servicer.script[:] = [status_of(grpc.StatusCode.ABORTED, "VERSION_MISMATCH")]
    with pytest.raises(Aborted) as caught:
        submit(client)
    assert caught.value.reason == "VERSION_MISMATCH"
    assert len(servicer.requests) == 1


def test_a_rule_break_arrives_as_illegal_action_with_rule_id_h_r3(client, servicer):
    status = status_of(grpc.StatusCode.FAILED_PRECONDITION, "MUST_LEAD_TWO_OF_CLUBS", ruleId="H-R3")
    servicer.script[:] = [status]
    with pytest.raises(IllegalAction) as caught:
        submit(client)
    error = caught.value
    assert (error.reason, error.rule_id, error.domain) == (
        "MUST_LEAD_TWO_OF_CLUBS",
        "H-R3",
        "cardengine",
    )
    assert error.message == "must_lead_two_of_clubs happened"
    assert isinstance(error.__cause__, grpc.RpcError)
    assert len(servicer.requests) == 1


def test_a_spectator_call_sends_no_token(client, servicer):
    with pytest.raises(NotFound) as caught:
        client.view("missing")
    assert caught.value.reason == "GAME_NOT_FOUND"
    assert servicer.tokens == [None]


def test_a_transport_failure_is_unavailable_after_retries():
    engine = EngineClient("127.0.0.1:1", retries=1, backoff=0.001, timeout=5)
    with engine, pytest.raises(Unavailable) as caught:
        engine.list_game_types()
    assert caught.value.code is grpc.StatusCode.UNAVAILABLE


def test_a_given_channel_stays_open_after_close(server, servicer):
    _, address = server
    channel = grpc.insecure_channel(address)
    EngineClient("ignored", channel=channel).close()
    engine = EngineClient("ignored", channel=channel)
    assert submit(engine).version == 6
    channel.close()


def test_negative_retries_are_refused():
    with pytest.raises(ValueError, match="retries"):
        EngineClient("127.0.0.1:1", retries=-1)


SEATS = ["human", "random", "random", "random"]


def games_in(client: redis.Redis) -> set[bytes]:
    return set(client.scan_iter(match="ce:*:game", count=1000))


def test_create_game_is_sent_again_with_its_request_id_and_makes_one_game(
    engine_address, redis_client
):
    before = games_in(redis_client)
    with (
        lossy_front(engine_address, ["CreateGame"]) as (address, front),
        EngineClient(address, retries=3, backoff=0.001) as engine,
    ):
        game = engine.create_game("hearts", SEATS, seed=31)
    first, second = front.requests["CreateGame"]
    assert first == second
    assert uuid.UUID(first.request_id).version == 4
    assert front.replies["CreateGame"] == [game, game]
    assert games_in(redis_client) - before == {game_key(game.game_id).encode()}


def test_the_async_client_sends_create_game_again_with_its_request_id(engine_address):
    async def create() -> tuple[Any, Any]:
        with lossy_front(engine_address, ["CreateGame"]) as (address, front):
            async with AsyncEngineClient(address, retries=3, backoff=0.001) as engine:
                return await engine.create_game("hearts", SEATS, seed=32), front

    game, front = asyncio.run(create())
    first, second = front.requests["CreateGame"]
    assert first == second and first.request_id
    assert front.replies["CreateGame"] == [game, game]


def test_a_given_create_request_id_returns_the_first_game_and_refuses_other_arguments(
    engine_address,
):
    request_id = str(uuid.uuid4())
    with EngineClient(engine_address) as engine:
        game = engine.create_game("hearts", SEATS, seed=33, request_id=request_id)
        assert engine.create_game("hearts", SEATS, seed=33, request_id=request_id) == game
        with pytest.raises(RequestIdReused) as caught:
            engine.create_game("hearts", SEATS, seed=34, request_id=request_id)
    assert caught.value.code is grpc.StatusCode.INVALID_ARGUMENT
    assert caught.value.reason == "REQUEST_ID_REUSED"


def test_table_changes_are_sent_once_even_when_their_reply_is_lost(engine_address):
    with EngineClient(engine_address) as direct:
        game = direct.create_game("hearts", SEATS, seed=35)
    token = game.seat_tokens[0].token
    with (
        lossy_front(engine_address, ["EndGame", "LeaveGame"]) as (address, front),
        EngineClient(address, retries=3, backoff=0.001) as engine,
    ):
        with pytest.raises(Unavailable):
            engine.leave_game(game.game_id, 0, token)
        with pytest.raises(Unavailable):
            engine.end_game(game.game_id, game.admin_token, "closing")
    assert len(front.requests["LeaveGame"]) == 1
    assert len(front.requests["EndGame"]) == 1
