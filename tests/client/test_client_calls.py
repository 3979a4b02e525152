"""EngineClient against a scripted in-process gRPC servicer: retries, tokens, request ids.

No Redis and no engine: the servicer answers each SubmitAction with the next scripted status,
so the client's retry policy (only UNAVAILABLE) and its error decoding meet real grpc errors.
"""

from __future__ import annotations

import uuid

import grpc
import pytest
from cardengine.v1 import engine_service_pb2, engine_service_pb2_grpc, game_pb2
from cardengine_client import (
    Aborted,
    EngineClient,
    IllegalAction,
    NotFound,
    Unavailable,
    hearts_play,
)
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from tests.client.scripted_server import serving


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
