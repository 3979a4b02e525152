"""The web port's Connect protocol: the README's sessions (curl, and Python over gRPC), run as
written, and JSON calls.

Each session is taken from the README between its markers (``curl-session``,
``python-session``) and run (by bash, or by this Python) against a real server, only its
address changed; its output is compared with the output block that follows it in the README.
"""

from __future__ import annotations

import base64
import http.client
import json
import logging
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import engine_service_pb2_grpc
from google.rpc import error_details_pb2, status_pb2

from engine_service.devtools.local import free_port, local_service
from tests.service.grpc_web import envelopes, http_request
from tests.service.rpc_helpers import (
    HUMAN,
    RANDOM,
    create,
    first_legal,
    submit,
    tokens_of,
    turn_of,
    view,
)

pytestmark = pytest.mark.service

README = Path(__file__).resolve().parents[2] / "README.md"
SESSION = re.compile(
    r"<!-- curl-session -->\n```sh\n(?P<commands>.*?)```\n\n```text\n(?P<output>.*?)```\n"
    r"<!-- /curl-session -->",
    re.S,
)
PYTHON_SESSION = re.compile(
    r"<!-- python-session -->\n```python\n(?P<code>.*?)```\n\n```text\n(?P<output>.*?)```\n"
    r"<!-- /python-session -->",
    re.S,
)
README_ADDRESS = "127.0.0.1:8080"
README_GRPC_ADDRESS = "127.0.0.1:50051"
SERVICE_URL = "/cardengine.v1.EngineService"


@pytest.fixture(scope="module")
def web_address(redis_url: str) -> Iterator[str]:
    port = free_port()
    with local_service(redis_url, web_port=port):
        yield f"127.0.0.1:{port}"


def connect_call(address: str, method: str, body: Any, **headers: str) -> tuple[int, Any]:
    """A unary Connect call with a JSON body: the HTTP status and the JSON answer."""
    request = urllib.request.Request(
        f"http://{address}{SERVICE_URL}/{method}",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", **headers},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def test_the_readme_curl_session_runs_as_written(web_address: str) -> None:
    found = SESSION.search(README.read_text())
    assert found, "the README has no curl session"
    commands = found["commands"].replace(README_ADDRESS, web_address)
    ran = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", commands],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == found["output"]


def test_the_readme_python_session_runs_as_written(redis_url: str) -> None:
    found = PYTHON_SESSION.search(README.read_text())
    assert found, "the README has no Python session"
    with local_service(redis_url) as address:
        code = found["code"].replace(README_GRPC_ADDRESS, address)
        ran = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
        )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == found["output"]


def test_errors_carry_the_grpc_details_and_the_language_asked_for(web_address: str) -> None:
    status, error = connect_call(
        web_address, "GetGameView", {"gameId": "0" * 32}, **{"accept-language": "fr"}
    )
    assert (status, error["code"]) == (404, "not_found")
    kinds = {detail["type"]: detail["debug"] for detail in error["details"]}
    assert kinds["google.rpc.ErrorInfo"]["reason"] == "GAME_NOT_FOUND"
    assert kinds["google.rpc.LocalizedMessage"]["locale"] == "fr"


def test_bad_json_is_invalid_argument_never_unknown(web_address: str) -> None:
    for body in ("{not json", '{"gameId": 5}', '{"noSuchField": 1}'):
        request = urllib.request.Request(
            f"http://{web_address}{SERVICE_URL}/GetGameView",
            data=body.encode(),
            headers={"content-type": "application/json"},
        )
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(request, timeout=10)
        error = json.load(caught.value)
        assert (caught.value.code, error["code"]) == (400, "invalid_argument"), body
        assert error["details"][0]["debug"]["reason"] == "REQUEST_UNDECODABLE"


def preflight(address: str, origin: str) -> tuple[int, dict[str, str]]:
    """A browser's CORS preflight for a Connect call from a page of ``origin``."""
    connection = http.client.HTTPConnection(address, timeout=10)
    try:
        connection.request(
            "OPTIONS",
            f"{SERVICE_URL}/GetGameView",
            headers={
                "origin": origin,
                "access-control-request-method": "POST",
                "access-control-request-headers": "content-type, x-seat-token",
            },
        )
        answer = connection.getresponse()
        answer.read()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}
    finally:
        connection.close()


def test_only_configured_origins_may_call_from_a_browser(redis_url: str) -> None:
    lobby, stranger = "https://lobby.example", "https://elsewhere.example"
    port = free_port()
    with local_service(redis_url, web_port=port, web_origins=(lobby,)):
        address = f"127.0.0.1:{port}"
        status, headers = preflight(address, lobby)
        assert status == 204
        assert headers["access-control-allow-origin"] == lobby
        assert "x-seat-token" in headers["access-control-allow-headers"]
        status, headers = preflight(address, stranger)
        assert status != 204 and "access-control-allow-origin" not in headers
        request = urllib.request.Request(
            f"http://{address}{SERVICE_URL}/ListGameTypes",
            data=b"{}",
            headers={"content-type": "application/json", "origin": lobby},
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            assert answer.headers["access-control-allow-origin"] == lobby
    with local_service(redis_url, web_port=port):  # the default: no other origin
        status, headers = preflight(f"127.0.0.1:{port}", lobby)
        assert status != 204 and "access-control-allow-origin" not in headers


def post(
    address: str, method: str, body: bytes, kind: str, **headers: str
) -> tuple[int, str, bytes]:
    """A POST of ``body`` as ``kind``: the HTTP status, the answer's content type and body."""
    request = urllib.request.Request(
        f"http://{address}{SERVICE_URL}/{method}",
        data=body,
        headers={"content-type": kind, **headers},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.headers["content-type"], answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["content-type"], error.read()


def test_each_protocol_frames_replies_and_maps_errors(web_address: str) -> None:
    """Connect unary and streaming (binary), gRPC-Web: framing, and errors where each puts
    them, with the same google.rpc details; Connect's HTTP statuses for the codes."""
    missing = api.GetGameViewRequest(game_id="0" * 32).SerializeToString()
    # Connect unary, binary: the reply as it is; an error as JSON with its HTTP status.
    status, kind, body = post(
        web_address, "ListGameTypes", b"", "application/proto", **{"connect-protocol-version": "1"}
    )
    assert (status, kind) == (200, "application/proto")
    assert len(api.ListGameTypesResponse.FromString(body).game_types) == 3
    status, kind, body = post(web_address, "GetGameView", missing, "application/proto")
    error = json.loads(body)
    assert (status, kind, error["code"]) == (404, "application/json", "not_found")
    assert error["details"][0]["type"] == "google.rpc.ErrorInfo"
    # Connect stream, binary: message envelopes, then an end envelope (flag 2) of JSON.
    watch = api.WatchGameRequest(game_id="0" * 32).SerializeToString()
    framed = b"\x00" + len(watch).to_bytes(4, "big") + watch
    status, kind, body = post(web_address, "WatchGame", framed, "application/connect+proto")
    [(flags, end)] = envelopes(body)
    assert (status, kind, flags) == (200, "application/connect+proto", 2)
    assert json.loads(end)["error"]["code"] == "not_found"
    # gRPC-Web: the status in a trailer (flag 0x80), details in grpc-status-details-bin.
    framed = b"\x00" + len(missing).to_bytes(4, "big") + missing
    status, kind, body = post(web_address, "GetGameView", framed, "application/grpc-web+proto")
    trailer = dict(
        line.split(": ", 1) for line in envelopes(body)[-1][1].decode().split("\r\n") if line
    )
    assert (status, trailer["grpc-status"]) == (200, "5")
    details = status_pb2.Status.FromString(
        base64.b64decode(trailer["grpc-status-details-bin"] + "==")
    )
    info = error_details_pb2.ErrorInfo()
    assert details.details[0].Unpack(info) and info.reason == "GAME_NOT_FOUND"


def test_connect_http_statuses_follow_the_codes(web_address: str) -> None:
    """Connect's mapping of codes to HTTP statuses, for errors this service gives."""
    _, game = connect_call(
        web_address, "CreateGame", {"gameType": "hearts", "seats": ["PLAYER_TYPE_HUMAN"] * 4}
    )
    seat0 = {"x-seat-token": game["seatTokens"][0]["token"]}
    stale = {
        "gameId": game["gameId"],
        "seat": 0,
        "expectedVersion": "999",
        "requestId": "r1",
        "action": {"hearts": {"playCard": {"card": {"rank": "RANK_TWO", "suit": "SUIT_CLUBS"}}}},
    }
    cases = [
        ("GetGameView", {"gameId": "0" * 32}, {}, 404, "not_found"),
        ("GetGameView", {"gameId": game["gameId"], "seat": 0}, {}, 401, "unauthenticated"),
        ("GetGameView", {"gameId": game["gameId"], "seat": 9}, seat0, 400, "invalid_argument"),
        ("SubmitAction", stale, seat0, 409, "aborted"),
    ]
    for method, body, headers, http_status, code in cases:
        status, error = connect_call(web_address, method, body, **headers)
        assert (status, error["code"]) == (http_status, code), (method, body)


def cut_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """The log lines of streams cut off for reading nothing."""
    return [r for r in caplog.records if getattr(r, "result", None) == "WATCHER_TOO_SLOW"]


def assert_no_errors_logged(caplog: pytest.LogCaptureFixture) -> None:
    noise = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert not noise, [r.getMessage() for r in noise]


def test_a_web_watcher_that_stops_reading_is_cut_off(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """As on the gRPC port: a Connect stream whose client takes nothing is cut once a write
    has waited the stall time, logged once by the servicer, with nothing else in the log."""
    caplog.set_level(logging.INFO)

    def cut() -> list[logging.LogRecord]:
        return cut_records(caplog)

    port = free_port()
    with (
        local_service(redis_url, web_port=port, watcher_stall_seconds=1.0) as address,
        grpc.insecure_channel(address) as channel,
        socket.socket() as reader,
    ):
        stub = engine_service_pb2_grpc.EngineServiceStub(channel)
        created = create(stub, [HUMAN, RANDOM, RANDOM, RANDOM], seed=9)
        token = tokens_of(created)[0]
        reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a small window
        reader.connect(("127.0.0.1", port))
        body = json.dumps({"gameId": created.game_id, "seat": 0}).encode()
        reader.sendall(
            http_request(
                {"content-type": b"application/connect+json", "x-seat-token": token.encode()},
                b"\x00" + len(body).to_bytes(4, "big") + body,
                path=f"{SERVICE_URL}/WatchGame",
            )
        )  # and then read nothing while the game moves on
        current = view(stub, created.game_id, 0, token)
        for _ in range(400):  # bounded: the game ends, or the stream is cut long before
            current = turn_of(stub, created.game_id, 0, token, current)
            if cut() or not current.to_act:
                break
            current = submit(stub, created.game_id, 0, token, first_legal(current), current.version)
        for _ in range(100):  # bounded: the stall time is 1 s
            if cut():
                break
            time.sleep(0.05)
        logged = cut()
    assert [r.rpc for r in logged] == ["WatchGame"]  # type: ignore[attr-defined]
    assert_no_errors_logged(caplog)
