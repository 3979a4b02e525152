"""A page of the web port plays through Play's WebSocket in real chromium.

The browser opens the socket from the port's own page (its Origin is the port's), joins a
game as seat 0 with the seat token in the request (a browser cannot set headers on a
WebSocket) and moves; the frames are the protobuf bytes of PlayRequest and PlayResponse.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest
from cardengine.v1 import engine_service_pb2 as api
from google.protobuf import json_format

from tests.service.rpc_helpers import first_legal
from tests.web.table import Table

pytestmark = pytest.mark.service

EXCHANGE = """
const [url, requests, wanted, done] = arguments;
const socket = new WebSocket(url);
socket.binaryType = "arraybuffer";
const answers = [];
socket.onopen = () => { for (const bytes of requests) socket.send(new Uint8Array(bytes)); };
socket.onmessage = ({ data }) => {
  answers.push(Array.from(new Uint8Array(data)));
  if (answers.length === wanted) { socket.close(); done(answers); }
};
socket.onclose = ({ code }) => { if (answers.length < wanted) done({ closed: code }); };
"""
"""Opens the socket, sends each request's bytes, and returns the first ``wanted`` answers."""


def exchange(table: Table, requests: list[api.PlayRequest], wanted: int) -> list[api.PlayResponse]:
    """``requests`` sent on a WebSocket opened by the page; the answers it got, parsed."""
    url = table.base_url.replace("http:", "ws:") + "cardengine.v1.EngineService/Play"
    frames = [list(request.SerializeToString()) for request in requests]
    answers: Any = table.browser.execute_async_script(EXCHANGE, url, frames, wanted)
    assert isinstance(answers, list), answers  # else the socket closed first: its code
    return [api.PlayResponse.FromString(bytes(answer)) for answer in answers]


def create_game(base_url: str) -> api.CreateGameResponse:
    """A Hearts game of one human seat and three bots, created with a Connect JSON call."""
    body = {
        "gameType": "hearts",
        "seed": "31",
        "seats": ["PLAYER_TYPE_HUMAN"] + ["PLAYER_TYPE_BOT_RANDOM"] * 3,
    }
    request = urllib.request.Request(
        base_url + "cardengine.v1.EngineService/CreateGame",
        json.dumps(body).encode(),
        {"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json_format.Parse(answer.read(), api.CreateGameResponse())


def test_a_page_joins_and_moves_over_the_socket(open_table: Callable[[], Table]) -> None:
    table = open_table()
    table.open()
    created = create_game(table.base_url)
    token = created.seat_tokens[0].token
    join = api.WatchGameRequest(game_id=created.game_id, seat=0, from_version=0)
    [joined] = exchange(table, [api.PlayRequest(ref=1, token=token, join=join)], 1)
    view = joined.watch.update.view
    assert joined.ref == 1 and view.viewer_seat == 0 and len(view.hearts.hand) == 13
    move = api.SubmitActionRequest(
        game_id=created.game_id,
        seat=0,
        expected_version=view.version,
        request_id="page-pass",
        action=first_legal(view),
    )
    [moved] = exchange(table, [api.PlayRequest(ref=2, token=token, move=move)], 1)
    assert moved.ref == 2 and moved.moved.view.version > view.version
    assert moved.moved.view.hearts.pass_submitted[0]
