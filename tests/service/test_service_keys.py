"""Scoped, hashed service keys and their quotas in Redis, against real servers.

Each test makes keys of its own (fresh names, so fresh buckets) on the session's Redis.
"""

from __future__ import annotations

import functools
import json
import logging
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import grpc
import pytest
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import engine_service_pb2_grpc
from google.protobuf import json_format

from engine_service.app.seats import parse_key_spec, token_hash
from engine_service.devtools.local import free_port, local_service
from engine_service.store.quota import games_key, rate_key
from tests.service.grpc_web import SERVICE_PATH, envelopes, grpc_web_call
from tests.service.keyed import Key, new_key, refusal, refusal_of, server_process
from tests.service.rpc_helpers import HUMAN

pytestmark = pytest.mark.service

SEATS = [HUMAN] * 4
TRIES = 10
"""Calls made at most to empty a bucket, or to find it refilled."""


@contextmanager
def keyed_stub(redis_url: str, *keys: Key, **settings: Any) -> Iterator[Any]:
    """A server of its own with ``keys``, and a stub to it."""
    lines = tuple(key.line for key in keys)
    with (
        local_service(redis_url, service_keys=lines, **settings) as address,
        grpc.insecure_channel(address) as channel,
    ):
        yield engine_service_pb2_grpc.EngineServiceStub(channel)


def creating(stub: Any, key: Key | None, **fields: Any) -> Any:
    request = api.CreateGameRequest(**{"game_type": "hearts", "seats": SEATS, **fields})
    return functools.partial(stub.CreateGame, request, metadata=key.md if key else ())


def test_each_method_needs_its_scope(redis_url: str) -> None:
    creator, lister, admin = new_key("create"), new_key("list"), new_key("admin")
    stranger = new_key("create,list,admin")  # not configured
    with keyed_stub(redis_url, creator, lister, admin) as stub:
        for key, reason in ((None, "SERVICE_KEY_INVALID"), (stranger, "SERVICE_KEY_INVALID")):
            found = refusal(creating(stub, key))
            assert (found.code, found.reason) == (grpc.StatusCode.UNAUTHENTICATED, reason)
        found = refusal(creating(stub, lister))
        assert (found.code, found.reason) == (
            grpc.StatusCode.PERMISSION_DENIED,
            "SERVICE_KEY_SCOPE",
        )
        assert found.metadata["scope"] == "create"
        game = creating(stub, creator)()

        listing = api.ListGamesRequest()
        assert refusal(lambda: stub.ListGames(listing)).reason == "SERVICE_KEY_INVALID"
        found = refusal(lambda: stub.ListGames(listing, metadata=creator.md))
        assert (found.code, found.metadata["scope"]) == (grpc.StatusCode.PERMISSION_DENIED, "list")
        listed = stub.ListGames(listing, metadata=lister.md)
        assert game.game_id in {g.game_id for g in listed.games}

        # GetGame: a list key, or the admin token; a key lacking list never stands in for it.
        get = api.GetGameRequest(game_id=game.game_id)
        token = (("x-admin-token", game.admin_token),)
        assert stub.GetGame(get, metadata=lister.md).game.game_id == game.game_id
        assert stub.GetGame(get, metadata=creator.md + token).game.game_id == game.game_id
        assert refusal(lambda: stub.GetGame(get, metadata=creator.md)).reason == "SERVICE_KEY_SCOPE"
        wrong = (("x-admin-token", "x" * 32),)
        assert refusal(lambda: stub.GetGame(get, metadata=creator.md + wrong)).reason == (
            "ADMIN_TOKEN_INVALID"
        )

        # Managing a game: an admin key, or the game's admin token.
        end = api.EndGameRequest(game_id=game.game_id, reason="done")
        assert refusal(lambda: stub.EndGame(end, metadata=lister.md)).reason == "SERVICE_KEY_SCOPE"
        assert refusal(lambda: stub.EndGame(end, metadata=lister.md + wrong)).reason == (
            "ADMIN_TOKEN_INVALID"
        )
        stub.EndGame(end, metadata=admin.md)

        # Seat-token calls take any configured key, and no unknown one.
        view = api.GetGameViewRequest(game_id=game.game_id)
        assert stub.GetGameView(view, metadata=lister.md).view.version >= 1
        assert stub.GetGameView(view).view.version >= 1
        assert refusal(lambda: stub.GetGameView(view, metadata=stranger.md)).code == (
            grpc.StatusCode.UNAUTHENTICATED
        )


def test_a_key_over_its_rate_waits_for_the_bucket_to_refill(redis_url: str) -> None:
    key = new_key("list", "rate=0.5,burst=2")
    with keyed_stub(redis_url, key) as stub:
        call = functools.partial(stub.ListGameTypes, api.ListGameTypesRequest(), metadata=key.md)
        taken = 0
        for _ in range(TRIES):
            try:
                call()
            except grpc.RpcError:
                break
            taken += 1
        found = refusal(call)
        assert taken >= 2
        assert (found.code, found.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED")
        assert 0 < found.retry_seconds <= 2.0
        assert [v.subject for v in found.quota] == [f"service_key:{key.name}"]
        assert found.metadata["key"] == key.name
        for _ in range(TRIES):  # the bucket refills: a token after retry_delay
            time.sleep(found.retry_seconds)
            try:
                call()
                break
            except grpc.RpcError as error:
                assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        else:
            raise AssertionError("the bucket did not refill")


def test_a_key_creates_at_most_its_games_per_window(redis_url: str) -> None:
    key = new_key("create", "games=2")
    with keyed_stub(redis_url, key) as stub:
        bad = refusal(creating(stub, key, game_type="no-such-game"))
        assert bad.code != grpc.StatusCode.RESOURCE_EXHAUSTED  # refused: counts no game
        creating(stub, key)()
        request_id = str(uuid.uuid4())
        second = creating(stub, key, request_id=request_id)()
        found = refusal(creating(stub, key))
        assert (found.code, found.reason) == (
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "GAME_QUOTA_EXCEEDED",
        )
        assert found.metadata["limit"] == "2"
        assert found.retry_seconds > 0
        assert [v.subject for v in found.quota] == [f"service_key:{key.name}"]
        # A retry of a game already counted is answered, not refused.
        assert creating(stub, key, request_id=request_id)().game_id == second.game_id


def test_a_retried_create_takes_a_call_token_but_never_a_second_game(
    redis_url: str, redis_client: Any
) -> None:
    """A CreateGame sent again with its request_id (as clients do after UNAVAILABLE).

    The repeat is a call, so it takes one token from the bucket like any call; the game it
    names was counted when it was made, so it takes no second place in the games window, even
    with copies sent at once.
    """
    key = new_key("create", "rate=0.001,burst=9,games=2")
    with keyed_stub(redis_url, key) as stub:
        request_id = str(uuid.uuid4())
        first = creating(stub, key, request_id=request_id)()
        with ThreadPoolExecutor(max_workers=3) as pool:
            copies = list(pool.map(lambda _: creating(stub, key, request_id=request_id)(), "abc"))
        assert {copy.game_id for copy in copies} == {first.game_id}
        assert redis_client.zcard(games_key(key.name)) == 1
        assert 9 - float(redis_client.hget(rate_key(key.name), "t")) == pytest.approx(4, abs=0.1)
        creating(stub, key)()  # the second game fits: the copies left room for it
        found = refusal(creating(stub, key))
        assert found.reason == "GAME_QUOTA_EXCEEDED"
        assert creating(stub, key, request_id=request_id)().game_id == first.game_id
        assert redis_client.zcard(games_key(key.name)) == 2
        for _ in range(2):  # 7 calls so far: two tokens are left, then none
            creating(stub, key, request_id=request_id)()
        assert refusal(creating(stub, key, request_id=request_id)).reason == "RATE_LIMITED"


def test_two_server_processes_share_a_keys_bucket(redis_url: str) -> None:
    key = new_key("list", "rate=0.01,burst=3")
    request = api.ListGameTypesRequest()
    env = {"ENGINE_SERVICE_KEYS": key.line}
    with (
        server_process(redis_url, **env) as other,
        keyed_stub(redis_url, key) as here,
        grpc.insecure_channel(other) as channel,
    ):
        there = engine_service_pb2_grpc.EngineServiceStub(channel)
        for stub in (here, there, here):
            stub.ListGameTypes(request, metadata=key.md)
        for stub in (there, here):  # each process alone would have had 3
            found = refusal(lambda stub=stub: stub.ListGameTypes(request, metadata=key.md))
            assert found.reason == "RATE_LIMITED"


def test_without_keys_everything_is_open_and_the_start_says_so(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    with (
        caplog.at_level(logging.INFO, logger="engine_service.api.access"),
        local_service(redis_url) as address,
        grpc.insecure_channel(address) as channel,
    ):
        stub = engine_service_pb2_grpc.EngineServiceStub(channel)
        stub.CreateGame(api.CreateGameRequest(game_type="hearts", seats=SEATS))
        stub.ListGames(api.ListGamesRequest(page_size=1))
    assert any("no service keys" in record.getMessage() for record in caplog.records)


def test_the_keys_command_prints_lines_the_server_reads() -> None:
    command = [sys.executable, "-m", "engine_service.api.keys"]
    made = subprocess.run(
        [*command, "new", "--name", "lobby", "--scopes", "create,list", "--limits", "rate=5"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    secret, line = made.stdout.split()
    key = parse_key_spec(line)
    assert (key.name, key.scopes, key.sha256) == (
        "lobby",
        frozenset({"create", "list"}),
        token_hash(secret),
    )
    assert key.limits.rate == 5.0 and secret not in line
    hashed = subprocess.run(
        [*command, "hash"], input="some key\n", capture_output=True, text=True, check=True
    )
    assert hashed.stdout.strip() == token_hash("some key").hex()
    bad = subprocess.run(
        [*command, "hash", "--name", "x", "--scopes", "everything"],
        input="k\n",
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and "scopes" in bad.stderr


def test_a_request_id_is_the_callers_own(redis_url: str) -> None:
    """AIP-155: the same CreateGame request_id from another key is another request.

    It makes a game of its own; it never gets the first key's game, admin token or seat tokens.
    The first key sending its id again still gets its own first reply.
    """
    first, second = new_key("create"), new_key("create")
    request_id = str(uuid.uuid4())
    with keyed_stub(redis_url, first, second) as stub:
        mine = creating(stub, first, request_id=request_id)()
        theirs = creating(stub, second, request_id=request_id)()
        again = creating(stub, first, request_id=request_id)()
    assert theirs.game_id != mine.game_id
    assert theirs.admin_token != mine.admin_token
    assert not {t.token for t in theirs.seat_tokens} & {t.token for t in mine.seat_tokens}
    assert (again.game_id, again.admin_token) == (mine.game_id, mine.admin_token)


def test_a_rematch_needs_a_create_key_and_counts_in_its_games(redis_url: str) -> None:
    """RematchGame makes a game: the admin token alone no longer makes games past every quota.

    With keys configured it needs a key with ``create`` beside the game's admin token, and
    the rematch counts in that key's games window.
    """
    key, lister = new_key("create", "games=2"), new_key("list")
    with keyed_stub(redis_url, key, lister) as stub:
        game = creating(stub, key)()
        token = (("x-admin-token", game.admin_token),)
        stub.EndGame(api.EndGameRequest(game_id=game.game_id, reason="done"), metadata=token)
        rematch = api.RematchGameRequest(game_id=game.game_id)
        found = refusal(lambda: stub.RematchGame(rematch, metadata=token))
        assert (found.code, found.reason) == (
            grpc.StatusCode.UNAUTHENTICATED,
            "SERVICE_KEY_INVALID",
        )
        found = refusal(lambda: stub.RematchGame(rematch, metadata=token + lister.md))
        assert (found.code, found.reason) == (
            grpc.StatusCode.PERMISSION_DENIED,
            "SERVICE_KEY_SCOPE",
        )
        assert found.metadata["scope"] == "create"
        again = stub.RematchGame(rematch, metadata=token + key.md).game  # the key's second game
        assert again.game_id != game.game_id
        ended = api.EndGameRequest(game_id=again.game_id, reason="done")
        stub.EndGame(ended, metadata=(("x-admin-token", again.admin_token),))
        third = api.RematchGameRequest(game_id=again.game_id)
        found = refusal(
            lambda: stub.RematchGame(
                third, metadata=(("x-admin-token", again.admin_token), *key.md)
            )
        )
        assert (found.code, found.reason) == (
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "GAME_QUOTA_EXCEEDED",
        )


def grpc_port_call(address: str) -> Any:
    """Calls on the gRPC port: ``(method, request, metadata) -> (code, reason, reply)``."""
    channel = grpc.insecure_channel(address)

    def call(method: str, request: Any, metadata: tuple[tuple[str, str], ...]) -> Any:
        path = f"{SERVICE_PATH}/{method}"
        streaming = method == "WatchGame"
        stub = (channel.unary_stream if streaming else channel.unary_unary)(path)
        try:
            reply = stub(request.SerializeToString(), metadata=metadata, timeout=10)
            return 0, "", list(reply)[-1] if streaming else reply
        except grpc.RpcError as error:
            return error.code().value[0], refusal_of(error).reason, None

    return call, channel.close


def web_port_call(port: int) -> Any:
    """The same calls on the web port, as gRPC-Web."""

    def call(method: str, request: Any, metadata: tuple[tuple[str, str], ...]) -> Any:
        reply = grpc_web_call(port, method, request.SerializeToString(), metadata)
        return reply.status, reply.reason, reply.message

    return call, lambda: None


def connect_port_call(port: int) -> Any:
    """The same calls on the web port, as Connect with JSON bodies (streams enveloped)."""

    def call(method: str, request: Any, metadata: tuple[tuple[str, str], ...]) -> Any:
        streaming = method == "WatchGame"
        body = json_format.MessageToJson(request).encode()
        if streaming:
            body = b"\x00" + len(body).to_bytes(4, "big") + body
        kind = "application/connect+json" if streaming else "application/json"
        sent = urllib.request.Request(
            f"http://127.0.0.1:{port}{SERVICE_PATH}/{method}",
            data=body,
            headers={"content-type": kind, **dict(metadata)},
        )
        try:
            with urllib.request.urlopen(sent, timeout=10) as answer:
                data = answer.read()
        except urllib.error.HTTPError as error:
            data = error.read()
        if streaming:  # envelopes: messages, then the end of the stream (flag 2) with any error
            messages, found = [], {}
            for flags, payload in envelopes(data):
                if flags & 2:
                    found = json.loads(payload).get("error", {})
                else:
                    messages.append(payload)
            reply = json_format.Parse(messages[-1], api.WatchGameResponse()) if messages else None
        else:  # an error is a JSON object with a code; a reply has none
            answer = json.loads(data)
            found = answer if "code" in answer else {}
            reply = None if found else json_format.ParseDict(answer, RESPONSES[method]())
        if not found:
            return 0, "", None if reply is None else reply.SerializeToString()
        reason = next(
            (d["debug"]["reason"] for d in found.get("details", ()) if "reason" in d["debug"]), ""
        )
        return CONNECT_CODES[found["code"]], reason, None

    return call, lambda: None


RESPONSES = {
    "CreateGame": api.CreateGameResponse,
    "ListGames": api.ListGamesResponse,
    "GetGame": api.GetGameResponse,
    "GetGameView": api.GetGameViewResponse,
    "EndGame": api.EndGameResponse,
    "ListGameTypes": api.ListGameTypesResponse,
}
CONNECT_CODES = {
    code.name.lower().replace("cancelled", "canceled"): code.value[0] for code in grpc.StatusCode
}


OK, UNAUTHENTICATED, DENIED, EXHAUSTED = 0, 16, 7, 8


@pytest.mark.parametrize("door", ["grpc", "web", "connect"])
def test_one_access_policy_on_every_port(redis_url: str, door: str) -> None:
    """Keys, scopes, rate limits and streams: the same answers on the gRPC port and on the web
    port, as gRPC-Web and as Connect with JSON."""
    creator, lister, admin = new_key("create"), new_key("list"), new_key("admin")
    stranger = new_key("create,list,admin")  # not configured
    slow = new_key("list", "rate=0.01,burst=1")
    web_port = free_port()
    lines = tuple(key.line for key in (creator, lister, admin, slow))
    with local_service(redis_url, service_keys=lines, web_port=web_port) as address:
        call, close = {
            "grpc": lambda: grpc_port_call(address),
            "web": lambda: web_port_call(web_port),
            "connect": lambda: connect_port_call(web_port),
        }[door]()
        try:
            create = api.CreateGameRequest(game_type="hearts", seats=SEATS)
            assert call("CreateGame", create, ())[:2] == (UNAUTHENTICATED, "SERVICE_KEY_INVALID")
            assert call("CreateGame", create, stranger.md)[:2] == (
                UNAUTHENTICATED,
                "SERVICE_KEY_INVALID",
            )
            assert call("CreateGame", create, lister.md)[:2] == (DENIED, "SERVICE_KEY_SCOPE")
            code, _, made = call("CreateGame", create, creator.md)
            assert code == OK
            game = api.CreateGameResponse.FromString(made)
            listing = api.ListGamesRequest()
            assert call("ListGames", listing, ())[:2] == (UNAUTHENTICATED, "SERVICE_KEY_INVALID")
            for other in (creator, admin):
                assert call("ListGames", listing, other.md)[:2] == (DENIED, "SERVICE_KEY_SCOPE")
            assert call("ListGames", listing, lister.md)[0] == OK
            get = api.GetGameRequest(game_id=game.game_id)
            token = (("x-admin-token", game.admin_token),)
            assert call("GetGame", get, creator.md)[:2] == (DENIED, "SERVICE_KEY_SCOPE")
            assert call("GetGame", get, creator.md + token)[0] == OK
            view = api.GetGameViewRequest(game_id=game.game_id)
            assert call("GetGameView", view, ())[0] == OK
            assert call("GetGameView", view, stranger.md)[0] == UNAUTHENTICATED
            end = api.EndGameRequest(game_id=game.game_id, reason="done")
            assert call("EndGame", end, lister.md)[:2] == (DENIED, "SERVICE_KEY_SCOPE")
            assert call("EndGame", end, admin.md)[0] == OK
            watch = api.WatchGameRequest(game_id=game.game_id)
            code, _, last = call("WatchGame", watch, lister.md)  # a finished game's stream ends
            assert code == OK
            assert api.WatchGameResponse.FromString(last).HasField("ended")
            assert call("WatchGame", watch, stranger.md)[0] == UNAUTHENTICATED
            types = api.ListGameTypesRequest()
            assert call("ListGameTypes", types, slow.md)[0] == OK
            assert call("ListGameTypes", types, slow.md)[:2] == (EXHAUSTED, "RATE_LIMITED")
        finally:
            close()
