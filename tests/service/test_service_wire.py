"""What reaches the service on the wire: bytes that are no request, sizes, reflection.

Requests whose bytes do not parse are INVALID_ARGUMENT (``REQUEST_UNDECODABLE``) with one
log line and no traceback, on the gRPC port and on the web port; requests are
bounded before any work; echoed texts and logged values are bounded; reflection never
serves the internal snapshot schema.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
import redis
from cardengine.v1 import cards_pb2, game_pb2, guandan_pb2, hearts_pb2
from cardengine.v1 import engine_service_pb2 as api
from google.protobuf import descriptor_pb2
from google.rpc import error_details_pb2
from grpc_reflection.v1alpha import reflection_pb2 as reflection

from engine_service.devtools.local import free_port, local_service
from engine_service.settings import parse_settings
from tests.service.fuzz_requests import SERVICE
from tests.service.grpc_web import grpc_web, http_request, raw_http, web_reply
from tests.service.rpc_helpers import (
    HUMAN,
    create,
    failure_changing_nothing,
    failure_of,
    token_md,
)

NOT_A_MESSAGE = b"\xff"
"""A varint cut short: no message of any type."""
NOT_UTF8 = b"\x0a\x02\xff\xfe"
"""Field 1 (``game_id`` or ``game_type`` in most requests) holding bytes that are not UTF-8."""
LOG_WAIT_SECONDS = 5.0
SMALL_LIMIT = 4096


def call_raw(channel: grpc.Channel, method: Any, data: bytes) -> Any:
    """Send ``data`` as the request of ``method``; what the server answers (or raise)."""
    path = f"/{SERVICE.full_name}/{method.name}"
    if method.client_streaming:  # Play: the bytes are answered in the stream, which goes on
        answers = channel.stream_stream(path)(iter([data]), timeout=10)
        first = api.PlayResponse.FromString(next(answers))
        answers.cancel()
        raise PlayRefusal(first.error)
    if method.server_streaming:
        stream = channel.unary_stream(path)(data, timeout=10)
        try:
            return list(stream)
        finally:
            stream.cancel()
    return channel.unary_unary(path)(data, timeout=10)


class PlayRefusal(Exception):
    """A Play session's answer to bytes that are no request: the error, in the stream."""

    def __init__(self, error: api.PlayError) -> None:
        super().__init__(error.message)
        self.error = error


def rpc_lines(caplog: pytest.LogCaptureFixture, name: str, count: int) -> list[logging.LogRecord]:
    """The ``rpc`` log lines of ``name``, once there are ``count`` (the line follows the reply)."""
    deadline = time.monotonic() + LOG_WAIT_SECONDS
    while True:
        lines = [r for r in caplog.records if getattr(r, "rpc", None) == name]
        if len(lines) >= count or time.monotonic() > deadline:
            return lines
        time.sleep(0.01)


@pytest.mark.parametrize("data", [NOT_A_MESSAGE, NOT_UTF8], ids=["not-a-message", "not-utf8"])
@pytest.mark.parametrize("method", list(SERVICE.methods), ids=lambda m: m.name)
def test_bytes_that_are_no_request_are_invalid_argument_with_one_line_and_no_traceback(
    channel: grpc.Channel, caplog: pytest.LogCaptureFixture, method: Any, data: bytes
) -> None:
    first = method.input_type.fields_by_number.get(1)
    if data == NOT_UTF8 and (first is None or first.type != first.TYPE_STRING):
        # ListGameTypesRequest has no field 1 (any field 1 is unknown), PlayRequest's is a number
        data = NOT_A_MESSAGE
    caplog.set_level(logging.INFO)
    caplog.clear()
    if method.client_streaming:
        with pytest.raises(PlayRefusal) as answered:
            call_raw(channel, method, data)
        assert answered.value.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
        info = error_details_pb2.ErrorInfo()
        assert answered.value.error.details[0].Unpack(info)
        assert info.reason == "REQUEST_UNDECODABLE"
        name = f"{method.name}.request"
    else:
        failure = failure_of(lambda: call_raw(channel, method, data))
        assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
        assert failure.reason == "REQUEST_UNDECODABLE"
        name = method.name
    [line] = rpc_lines(caplog, name, 1)
    assert line.result == "REQUEST_UNDECODABLE"  # type: ignore[attr-defined]
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


@pytest.fixture(scope="module")
def web_port(redis_url: str) -> Iterator[int]:
    """An engine server with the web port on and a small request limit."""
    port = free_port()
    with local_service(redis_url, web_port=port, max_request_bytes=SMALL_LIMIT):
        yield port


@pytest.mark.parametrize("method", ["ListGameTypes", "GetGameView", "WatchGame"])
def test_the_gateway_answers_undecodable_bytes_with_invalid_argument(
    web_port: int, method: str
) -> None:
    status, reason = grpc_web(web_port, method, NOT_A_MESSAGE)
    assert (status, reason) == (grpc.StatusCode.INVALID_ARGUMENT.value[0], "REQUEST_UNDECODABLE")


def test_the_gateway_refuses_a_request_over_the_limit_unread(web_port: int) -> None:
    request = api.GetGameViewRequest(game_id="a" * (SMALL_LIMIT + 10))
    status, reason = grpc_web(web_port, "GetGameView", request.SerializeToString())
    assert (status, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED.value[0], "REQUEST_TOO_LARGE")


def test_the_limit_is_a_setting() -> None:
    assert parse_settings([], {}).max_request_bytes == 256 * 1024
    assert parse_settings(["--max-request-bytes", "1000"], {}).max_request_bytes == 1000
    env = {"ENGINE_MAX_REQUEST_BYTES": "2048"}
    assert parse_settings([], env).max_request_bytes == 2048


def test_a_request_over_the_limit_is_resource_exhausted(stub: Any) -> None:
    with pytest.raises(grpc.RpcError) as raised:
        stub.GetGameView(api.GetGameViewRequest(game_id="a" * 300_000), timeout=10)
    assert raised.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED  # type: ignore[attr-defined]


def test_a_long_game_id_is_refused_and_logged_as_a_short_prefix(
    stub: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    caplog.clear()
    request = api.GetGameViewRequest(game_id="a" * 200_000)
    failure = failure_of(lambda: stub.GetGameView(request, timeout=10))
    assert (failure.code, failure.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_FIELD")
    [line] = rpc_lines(caplog, "GetGameView", 1)
    assert len(line.game_id) <= 65  # type: ignore[attr-defined]


def test_an_unknown_game_type_of_6000_characters_is_invalid_argument_with_short_texts(
    stub: Any,
) -> None:
    for call in (
        lambda: stub.CreateGame(api.CreateGameRequest(game_type="x" * 6000, seats=[HUMAN])),
        lambda: stub.ListGames(api.ListGamesRequest(game_type="x" * 6000)),
    ):
        with pytest.raises(grpc.RpcError) as raised:
            call()
        error: Any = raised.value
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert len(error.details()) < 300
        assert sum(len(value) for _, value in error.trailing_metadata()) < 2000


def guandan_cards(count: int) -> list[cards_pb2.Card]:
    card = cards_pb2.Card(rank=cards_pb2.RANK_FIVE, suit=cards_pb2.SUIT_SPADES)
    return [card] * count


def test_a_play_of_40000_cards_is_refused_by_its_count_before_the_game_is_looked_up(
    stub: Any,
) -> None:
    play = guandan_pb2.GuandanPlay(cards=guandan_cards(40_000))
    play.reading.shape = guandan_pb2.GuandanReading.SHAPE_SINGLE
    play.reading.rank = cards_pb2.RANK_FIVE
    play.reading.size = 1
    request = api.SubmitActionRequest(
        game_id="0" * 32,
        seat=0,
        expected_version=1,
        request_id="r1",
        action=game_pb2.Action(guandan=guandan_pb2.GuandanAction(play=play)),
    )
    failure = failure_of(lambda: stub.SubmitAction(request, timeout=10))
    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
    [bad] = failure.details
    assert bad.field_violations[0].field == "action.guandan.play.cards"


def test_card_lists_of_a_real_game_are_bounded_and_change_nothing(
    stub: Any, redis_client: redis.Redis
) -> None:
    reply = create(stub, [HUMAN] * 4, seed=3, game_type="guandan")
    game_id, token = reply.game_id, reply.seat_tokens[0].token
    explain = guandan_pb2.ExplainPlayRequest(game_id=game_id, seat=0, cards=guandan_cards(109))
    failure = failure_changing_nothing(
        redis_client, game_id, lambda: stub.ExplainPlay(explain, metadata=token_md(token))
    )
    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
    log = api.GetActionLogRequest(game_id=game_id, seat=0, from_index=2**64 - 1)
    failure = failure_changing_nothing(
        redis_client, game_id, lambda: stub.GetActionLog(log, metadata=token_md(token))
    )
    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT


def test_a_hearts_pass_of_more_cards_than_a_pack_is_refused(stub: Any) -> None:
    card = cards_pb2.Card(rank=cards_pb2.RANK_TWO, suit=cards_pb2.SUIT_CLUBS)
    passing = hearts_pb2.HeartsPassCards(cards=[card] * 53)
    request = api.SubmitActionRequest(
        game_id="0" * 32,
        seat=0,
        expected_version=1,
        request_id="r1",
        action=game_pb2.Action(hearts=hearts_pb2.HeartsAction(pass_cards=passing)),
    )
    failure = failure_of(lambda: stub.SubmitAction(request, timeout=10))
    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
    assert failure.details[0].field_violations[0].description == "lists more than 52 cards"


REFLECTION_NAMES = (
    "grpc.reflection.v1.ServerReflection",
    "grpc.reflection.v1alpha.ServerReflection",
)


def reflect(
    channel: grpc.Channel, service: str, requests: list[reflection.ServerReflectionRequest]
) -> list[reflection.ServerReflectionResponse]:
    """One reflection stream under ``service``'s name: a response per request."""
    call = channel.stream_stream(
        f"/{service}/ServerReflectionInfo",
        request_serializer=reflection.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection.ServerReflectionResponse.FromString,
    )
    return list(call(iter(requests), timeout=10))


@pytest.mark.parametrize("service", REFLECTION_NAMES)
def test_reflection_lists_no_internal_file_or_symbol(channel: grpc.Channel, service: str) -> None:
    [listed] = reflect(channel, service, [reflection.ServerReflectionRequest(list_services="")])
    names = [s.name for s in listed.list_services_response.service]
    assert "cardengine.v1.EngineService" in names
    asks = [reflection.ServerReflectionRequest(file_containing_symbol=name) for name in names]
    files: dict[str, descriptor_pb2.FileDescriptorProto] = {}
    for response in reflect(channel, service, asks):
        for data in response.file_descriptor_response.file_descriptor_proto:
            proto = descriptor_pb2.FileDescriptorProto.FromString(data)
            files[proto.name] = proto
    assert "cardengine/v1/engine_service.proto" in files
    for proto in files.values():
        assert not proto.package.startswith("cardengine.internal"), proto.name
        assert not any(d.startswith("cardengine/internal/") for d in proto.dependency)


@pytest.mark.parametrize("service", REFLECTION_NAMES)
def test_reflection_finds_no_internal_file_by_name_symbol_or_extension(
    channel: grpc.Channel, service: str
) -> None:
    asks = [
        reflection.ServerReflectionRequest(
            file_by_filename="cardengine/internal/v1/snapshot.proto"
        ),
        reflection.ServerReflectionRequest(
            file_containing_symbol="cardengine.internal.v1.GameRecord"
        ),
        reflection.ServerReflectionRequest(
            all_extension_numbers_of_type="cardengine.internal.v1.GameRecord"
        ),
        reflection.ServerReflectionRequest(file_by_filename="cardengine/v1/game.proto"),
    ]
    *hidden, public = reflect(channel, service, asks)
    for response in hidden:
        assert response.WhichOneof("message_response") == "error_response"
        assert response.error_response.error_code == grpc.StatusCode.NOT_FOUND.value[0]
        assert b"internal" not in response.error_response.SerializeToString().replace(
            b"cardengine.internal.v1.GameRecord", b""
        ).replace(b"cardengine/internal/v1/snapshot.proto", b"")
    assert public.WhichOneof("message_response") == "file_descriptor_response"


def test_the_gateway_stops_reading_a_body_far_over_the_limit(web_port: int) -> None:
    data = b"\x0a" + b"\xff" * 5 * SMALL_LIMIT  # not even looked at: the body is too long
    status, reason = grpc_web(web_port, "GetGameView", data)
    assert (status, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED.value[0], "REQUEST_TOO_LARGE")
    assert grpc_web(web_port, "ListGameTypes", b"") == (0, "")  # and it still serves


def test_health_and_reflection_answer_undecodable_bytes_with_invalid_argument(
    channel: grpc.Channel,
) -> None:
    calls = [
        lambda: channel.unary_unary("/grpc.health.v1.Health/Check")(NOT_A_MESSAGE, timeout=10),
        lambda: list(
            channel.unary_stream("/grpc.health.v1.Health/Watch")(NOT_A_MESSAGE, timeout=10)
        ),
        *(
            lambda name=name: list(
                channel.stream_stream(f"/{name}/ServerReflectionInfo")(
                    iter([NOT_A_MESSAGE]), timeout=10
                )
            )
            for name in REFLECTION_NAMES
        ),
    ]
    for call in calls:
        failure = failure_of(call)
        assert (failure.code, failure.reason) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "REQUEST_UNDECODABLE",
        )


ONE_FRAME = b"\x00\x00\x00\x00\x00"
"""An empty ListGameTypesRequest in one gRPC-Web message frame."""


GRPC_WEB = {"content-type": b"application/grpc-web+proto", "x-grpc-web": b"1"}
UNDECODABLE_CALLS = {
    "grpc-timeout abc": http_request({**GRPC_WEB, "grpc-timeout": b"abc"}, ONE_FRAME),
    "seat token not ASCII": http_request({**GRPC_WEB, "x-seat-token": b"caf\xe9"}, ONE_FRAME),
    "admin token not ASCII": http_request({**GRPC_WEB, "x-admin-token": b"\xff\xfe"}, ONE_FRAME),
    "connect timeout abc": http_request(
        {"content-type": b"application/json", "connect-timeout-ms": b"abc"}, b"{}"
    ),
    "frame cut short": http_request(GRPC_WEB, b"\x00\x00"),
    "frame longer than said": http_request(GRPC_WEB, b"\x00\x00\x00\x00\x01ab"),
    "compressed frame": http_request(GRPC_WEB, b"\x01\x00\x00\x00\x00"),
}


def gateway_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """What the gateway and uvicorn logged."""
    return [r for r in caplog.records if r.name.startswith(("engine_service.web", "uvicorn"))]


@pytest.mark.parametrize("case", list(UNDECODABLE_CALLS))
def test_the_gateway_answers_a_malformed_call_with_a_status_and_one_line(
    web_port: int, case: str, caplog: pytest.LogCaptureFixture
) -> None:
    """No HTTP 500 and no traceback for anything a client sends: INVALID_ARGUMENT."""
    caplog.set_level(logging.INFO)
    http_status, body = raw_http(web_port, UNDECODABLE_CALLS[case])
    if case.startswith("connect"):  # a Connect unary error: HTTP 400 and the error as JSON
        error = json.loads(body)
        found = (http_status, error["code"], error["details"][0]["debug"]["reason"])
        assert found == (400, "invalid_argument", "REQUEST_UNDECODABLE")
    else:
        reply = web_reply(body)
        assert (http_status, reply.status, reply.reason) == (
            200,
            grpc.StatusCode.INVALID_ARGUMENT.value[0],
            "REQUEST_UNDECODABLE",
        )
    records = gateway_records(caplog)
    assert len(records) == 1 and not records[0].exc_info, [r.getMessage() for r in records]
    assert grpc_web(web_port, "ListGameTypes", b"") == (0, "")  # and it still serves


def test_the_gateway_refuses_ambiguous_framing_websockets_and_unknown_types(
    web_port: int, caplog: pytest.LogCaptureFixture
) -> None:
    """Content-Length and chunked at once (request smuggling): 400, connection closed."""
    caplog.set_level(logging.INFO)
    text = {"content-type": b"application/grpc-web-text", "x-grpc-web": b"1"}
    assert raw_http(web_port, http_request(text, b"AAAAAAA="))[0] == 415
    both = http_request({**GRPC_WEB, "transfer-encoding": b"chunked"}, b"5\r\n" + ONE_FRAME)
    assert raw_http(web_port, both + b"\r\n0\r\n\r\n")[0] == 400
    upgrade = (
        b"GET / HTTP/1.1\r\nhost: 127.0.0.1\r\nupgrade: websocket\r\nconnection: Upgrade\r\n"
        b"sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n\r\n"
    )
    assert raw_http(web_port, upgrade)[0] == 403
    records = gateway_records(caplog)
    assert len(records) == 3 and not any(r.exc_info for r in records), records


def test_the_web_port_sends_small_writes_at_once(web_port: int) -> None:
    """The sockets the web port accepts have Nagle's algorithm off (a stream's small frames
    would otherwise wait for the previous one's acknowledgement). The server runs in this
    process, so its end of a connection is found among this process's descriptors."""
    with socket.create_connection(("127.0.0.1", web_port)) as client:
        client.sendall(b"GET / HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n")
        assert client.recv(4096).startswith(b"HTTP/1.1 ")  # accepted, and kept open
        server_end = []
        for name in os.listdir("/proc/self/fd"):
            with contextlib.suppress(OSError):  # a descriptor closed since it was listed
                if not os.readlink(f"/proc/self/fd/{name}").startswith("socket:"):
                    continue
                with socket.socket(fileno=os.dup(int(name))) as found:
                    if found.getpeername() == client.getsockname():
                        server_end.append(found.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
    assert server_end == [1]


def test_a_client_that_leaves_mid_body_leaves_nothing_in_the_log(
    web_port: int, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    raw_http(web_port, http_request(GRPC_WEB, b"\x00\x00", length=100), leave_early=True)
    time.sleep(0.5)  # the server has seen the connection close
    assert gateway_records(caplog) == []
    assert grpc_web(web_port, "ListGameTypes", b"") == (0, "")
