"""The web port's Connect protocol: the README's curl session, run as written, and JSON calls.

The session is taken from the README between its ``curl-session`` markers and run by bash
against a real server (only its address changed), and its output compared with the output
block that follows it in the README.
"""

from __future__ import annotations

import http.client
import json
import re
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine_service.devtools.local import free_port, local_service

pytestmark = pytest.mark.service

README = Path(__file__).resolve().parents[2] / "README.md"
SESSION = re.compile(
    r"<!-- curl-session -->\n```sh\n(?P<commands>.*?)```\n\n```text\n(?P<output>.*?)```\n"
    r"<!-- /curl-session -->",
    re.S,
)
README_ADDRESS = "127.0.0.1:8080"
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
