"""Play over a WebSocket on the web port, against a real server and redis-server.

Four seats each on a socket of their own play a whole game (some with the seat token in the
handshake's headers, some in each request, as a browser must), and each hears every version
once, in order; requests that are no move, an illegal move and bytes that are no request
each answer only themselves and change nothing stored; a page's ``?language=`` stands for
its Accept-Language; what ends the session closes the socket with its status (a service key
that is no key: 4016), a frame over the request limit with 1009; a page of another origin
cannot open one, nor can any other path; a reader that stops taking messages is cut off and
logged once as WATCHER_TOO_SLOW.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
import redis
import websockets
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import engine_service_pb2_grpc, game_pb2
from google.rpc import error_details_pb2
from websockets.sync.client import connect as sync_connect

from engine_service.api.wire import DEFAULT_MAX_REQUEST_BYTES
from engine_service.devtools.local import free_port, local_service
from tests.service.keyed import new_key
from tests.service.rpc_helpers import (
    HUMAN,
    RANDOM,
    create,
    first_legal,
    short_pass,
    tokens_of,
    view,
)
from tests.service.stored import contents
from tests.service.test_service_play import reason_of
from tests.service.test_web_connect import assert_no_errors_logged, cut_records

pytestmark = pytest.mark.service

PLAY_PATH = "/cardengine.v1.EngineService/Play"
MAX_MESSAGES = 5_000
"""Every loop over a socket's frames stops after this many (a whole Hearts game is fewer)."""
WAIT = 30.0
FINISHED_GAMES = 8
"""Finished games the reader who stops reading joins from their first version (about 120 KB
each; a join of a game already joined would end the one before)."""


@pytest.fixture(scope="module")
def ports(redis_url: str) -> Iterator[tuple[str, int]]:
    """A server with a web port: its gRPC address and that port."""
    port = free_port()
    with local_service(redis_url, web_port=port) as address:
        yield address, port


@pytest.fixture(scope="module")
def stub(ports: tuple[str, int]) -> Iterator[Any]:
    with grpc.insecure_channel(ports[0]) as channel:
        yield engine_service_pb2_grpc.EngineServiceStub(channel)


def play_url(port: int) -> str:
    return f"ws://127.0.0.1:{port}{PLAY_PATH}"


def request(ref: int, **fields: Any) -> bytes:
    return api.PlayRequest(ref=ref, **fields).SerializeToString()


async def play_seat(port: int, game_id: str, seat: int, token: str) -> list[int]:
    """One seat on its own socket: join, move (brief) whenever it is to act, until the end.

    Even seats give their token in the handshake, odd seats in every request. A move that
    another seat's move overtook (ABORTED) is decided again from the next update. Returns
    every version the seat was told, in order.
    """
    in_headers = seat % 2 == 0
    headers = [("x-seat-token", token)] if in_headers else []
    own = {} if in_headers else {"token": token}
    versions: list[int] = []
    async with websockets.connect(play_url(port), additional_headers=headers) as ws:
        join = api.WatchGameRequest(game_id=game_id, seat=seat, from_version=0)
        await ws.send(request(1, join=join, **own))
        for _ in range(MAX_MESSAGES):
            answer = api.PlayResponse.FromString(await ws.recv())
            kind = answer.WhichOneof("response")
            if kind == "error":
                assert answer.error.code == grpc.StatusCode.ABORTED.value[0], answer
                continue
            if kind != "watch":
                continue
            if answer.watch.HasField("ended"):
                return versions
            update = answer.watch.update
            versions.append(update.version)
            if seat in update.view.to_act:
                move = api.SubmitActionRequest(
                    game_id=game_id,
                    seat=seat,
                    expected_version=update.version,
                    request_id=f"{seat}-{update.version}",
                    action=first_legal(update.view),
                )
                await ws.send(request(update.version + 1, move=move, brief=True, **own))
    raise AssertionError("the game did not end within the bound")


def test_every_seat_on_its_own_socket_plays_a_whole_game(ports: tuple[str, int], stub: Any) -> None:
    created = create(stub, [HUMAN] * 4, seed=21)
    tokens = tokens_of(created)

    async def all_seats() -> list[list[int]]:
        seats = (play_seat(ports[1], created.game_id, s, t) for s, t in tokens.items())
        return await asyncio.gather(*seats)

    told = asyncio.run(asyncio.wait_for(all_seats(), WAIT * 4))
    final = view(stub, created.game_id)
    assert final.status == game_pb2.GAME_STATUS_FINISHED
    for versions in told:
        assert versions == sorted(set(versions)), "every version once, in order"
        assert versions[-1] == final.version


def test_requests_answer_only_themselves_and_a_refused_move_changes_nothing(
    ports: tuple[str, int], stub: Any, redis_client: redis.Redis
) -> None:
    created = create(stub, [HUMAN] * 4, seed=22)
    tokens = tokens_of(created)
    start = view(stub, created.game_id, 0, tokens[0])
    too_few = short_pass(start)

    def move(action: game_pb2.Action, request_id: str) -> api.SubmitActionRequest:
        return api.SubmitActionRequest(
            game_id=created.game_id,
            seat=0,
            expected_version=start.version,
            request_id=request_id,
            action=action,
        )

    before = contents(redis_client, created.game_id)
    with sync_connect(play_url(ports[1]), additional_headers=[("x-seat-token", tokens[0])]) as ws:
        ws.send(b"\xff\xff\xff")  # no PlayRequest at all
        ws.send(request(2))  # nothing asked
        ws.send(request(3, move=move(too_few, "few")))
        answers = {}
        for _ in range(3):
            answer = api.PlayResponse.FromString(ws.recv(WAIT))
            answers[answer.ref] = answer
        assert contents(redis_client, created.game_id) == before
        ws.send(request(4, move=move(first_legal(start), "pass")))
        answers[4] = api.PlayResponse.FromString(ws.recv(WAIT))
    assert answers.keys() == {0, 2, 3, 4}
    assert answers[0].error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert reason_of(answers[0].error) == "REQUEST_UNDECODABLE"
    assert answers[2].error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert answers[3].error.code == grpc.StatusCode.FAILED_PRECONDITION.value[0]
    assert rule_of(answers[3].error) == "H-R2"
    assert answers[4].moved.view.version > start.version
    assert view(stub, created.game_id, 0, tokens[0]).hearts.pass_submitted[0]


def test_the_language_a_page_asks_for_in_the_url_stands_for_accept_language(
    ports: tuple[str, int], stub: Any
) -> None:
    created = create(stub, [HUMAN] * 4, seed=24)
    tokens = tokens_of(created)
    start = view(stub, created.game_id, 0, tokens[0])
    empty_pass = game_pb2.Action()
    empty_pass.CopyFrom(start.legal_choices[0].action)
    move = api.SubmitActionRequest(
        game_id=created.game_id,
        seat=0,
        expected_version=start.version,
        request_id="few",
        action=empty_pass,
    )
    locales = {}
    for query in ("", "?language=de"):
        url = play_url(ports[1]) + query
        with sync_connect(url, additional_headers=[("accept-language", "fr")]) as ws:
            ws.send(request(1, token=tokens[0], move=move))
            error = api.PlayResponse.FromString(ws.recv(WAIT)).error
        localized = error_details_pb2.LocalizedMessage()
        assert any(detail.Unpack(localized) for detail in error.details)
        locales[query] = localized.locale
    assert locales == {"": "fr", "?language=de": "de"}


def rule_of(error: api.PlayError) -> str:
    info = error_details_pb2.ErrorInfo()
    assert any(detail.Unpack(info) for detail in error.details)
    return info.metadata["ruleId"]


def closed_with(url: str, frame: bytes, **options: Any) -> tuple[int, str]:
    """The close code and reason of a socket sent ``frame`` and then only read."""
    with pytest.raises(websockets.ConnectionClosed) as closed, sync_connect(url, **options) as ws:
        ws.send(frame)
        for _ in range(MAX_MESSAGES):
            ws.recv(WAIT)
    received = closed.value.rcvd
    assert received is not None
    return received.code, received.reason


def test_a_session_ending_status_closes_the_socket_with_it(redis_url: str) -> None:
    key = new_key("create")
    port = free_port()
    with local_service(redis_url, web_port=port, service_keys=(key.line,)):
        leave = request(1, leave=api.PlayLeave(game_id="0" * 32))
        wrong = [("x-service-key", "not-a-key")]
        code, reason = closed_with(play_url(port), leave, additional_headers=wrong)
        assert code == 4000 + grpc.StatusCode.UNAUTHENTICATED.value[0]
        assert "key" in reason
        with sync_connect(play_url(port), additional_headers=list(key.md)) as ws:
            ws.send(leave)
            assert api.PlayResponse.FromString(ws.recv(WAIT)).HasField("left")


def test_a_frame_over_the_request_limit_closes_the_socket(ports: tuple[str, int]) -> None:
    code, _ = closed_with(play_url(ports[1]), b"\x00" * (DEFAULT_MAX_REQUEST_BYTES + 1))
    assert code == 1009


def handshake(port: int, path: str, origin: str | None) -> int:
    """The HTTP status a WebSocket handshake for ``path`` gets (101: opened)."""
    headers = [("origin", origin)] if origin else []
    try:
        with sync_connect(
            f"ws://127.0.0.1:{port}{path}", additional_headers=headers, open_timeout=WAIT
        ):
            return 101
    except websockets.InvalidStatus as refused:
        return int(refused.response.status_code)


def test_only_play_opens_and_only_from_the_ports_own_page(ports: tuple[str, int]) -> None:
    port = ports[1]
    assert handshake(port, PLAY_PATH, None) == 101  # a backend: no origin
    assert handshake(port, PLAY_PATH, f"http://127.0.0.1:{port}") == 101  # the port's own page
    assert handshake(port, PLAY_PATH, "https://elsewhere.example") == 403
    assert handshake(port, "/cardengine.v1.EngineService/WatchGame", None) == 403
    assert handshake(port, "/", None) == 403


def upgrade(port: int) -> bytes:
    """A WebSocket handshake for Play."""
    return (
        f"GET {PLAY_PATH} HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\nupgrade: websocket\r\n"
        "connection: Upgrade\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "sec-websocket-version: 13\r\n\r\n"
    ).encode()


def client_frame(payload: bytes) -> bytes:
    """One binary frame as a client sends it: masked, here with the all-zero mask."""
    assert len(payload) < 126
    return bytes([0x82, 0x80 | len(payload)]) + b"\x00" * 4 + payload


def test_a_socket_that_stops_reading_is_cut_off(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """As on the gRPC port: once a write has waited the stall time, the session ends, logged
    once as WATCHER_TOO_SLOW, with nothing else in the log. The reader joins bots' finished
    games from their first versions (a megabyte in all) and then reads nothing."""
    caplog.set_level(logging.INFO)

    port = free_port()
    with (
        local_service(redis_url, web_port=port, watcher_stall_seconds=1.0) as address,
        grpc.insecure_channel(address) as channel,
        socket.socket() as raw,
    ):
        stub = engine_service_pb2_grpc.EngineServiceStub(channel)
        games = [create(stub, [RANDOM] * 4, seed=seed).game_id for seed in range(FINISHED_GAMES)]
        for _ in range(600):  # bounded: the bots finish them in a few seconds
            states = {view(stub, game_id).status for game_id in games}
            if states == {game_pb2.GAME_STATUS_FINISHED}:
                break
            time.sleep(0.05)
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a small window
        raw.connect(("127.0.0.1", port))
        raw.sendall(upgrade(port))
        assert raw.recv(4096).startswith(b"HTTP/1.1 101 ")  # frames go after the handshake
        for game_id in games:
            join = api.WatchGameRequest(game_id=game_id, from_version=1)
            raw.sendall(client_frame(request(1, join=join)))
        for _ in range(200):  # bounded: the stall time is 1 s
            if cut_records(caplog):
                break
            time.sleep(0.05)
        logged = cut_records(caplog)
    assert [r.rpc for r in logged] == ["Play"]  # type: ignore[attr-defined]
    assert_no_errors_logged(caplog)
