"""Every RPC against thousands of generated requests (:mod:`tests.service.fuzz_requests`).

The requests go as raw bytes through the real server of the session, aimed at real games
(every seat human, no clock, so nothing moves unless a request makes it move). After each
request the run checks: the status is never INTERNAL or UNKNOWN, no traceback was logged,
and when the request was refused, every stored key of every watched game holds the same
bytes as before (``DUMP``). A request that succeeds and changes a game (or creates one)
takes that game out of the watch and puts a fresh one in; games it creates are ended at
once so that no bots play on in the background. At the end the server must still answer.

A fifth as many cases go through the web port (as gRPC-Web), which decodes requests on its own
path. ``FUZZ_SEED`` repeats a run; ``FUZZ_CASES`` changes its length.
"""

from __future__ import annotations

import json
import logging
import os
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
import redis
from cardengine.v1 import engine_service_pb2 as api
from google.protobuf import json_format, message_factory
from grpc_health.v1 import health_pb2, health_pb2_grpc

from engine_service.devtools.local import free_port, local_service
from engine_service.settings import Settings
from engine_service.store.keys import events_key, game_key, log_key
from tests.service.fuzz_requests import SERVICE, FuzzCase, Pools, RequestFuzzer
from tests.service.grpc_web import (
    SERVICE_PATH,
    envelopes,
    grpc_web_call,
    http_request,
    raw_http,
)
from tests.service.rpc_helpers import HUMAN, token_md
from tests.service.stored import contents
from tests.volume import volume

SEED = int(os.environ.get("FUZZ_SEED", "20261201"))
CASES = int(os.environ.get("FUZZ_CASES", str(volume(600, 2500))))
CALL_SECONDS = 20.0
"""A bound on one call, far above what one takes."""
SEATS = {"hearts": 4, "guandan": 4, "klaberjass": 2}
CHANGING = frozenset(
    {"SubmitAction", "LeaveGame", "UpdateSeat", "EndGame", "RematchGame", "CreateGame"}
)
"""Methods whose success may change a game or make one."""
NEVER = (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN)
GATEWAY_CASES = CASES // 5
"""Cases sent through the web port as gRPC-Web (unary methods, no credentials)."""
CODES = {code.value[0]: code for code in grpc.StatusCode}


@dataclass
class Game:
    """A real game the run aims at: its id, tokens and stored content."""

    game_id: str
    game_type: str
    tokens: dict[int, str]
    admin_token: str
    stored: dict[bytes | str, Any] = field(default_factory=dict)


def stored_content(client: redis.Redis, game_id: str) -> dict[bytes | str, Any]:
    """Every key of the game with its content (``None`` when absent)."""
    return contents(client, (game_key(game_id), log_key(game_id), events_key(game_id)))


class Run:
    """The run's games, pools and the raw calls it makes."""

    def __init__(self, stub: Any, channel: grpc.Channel, client: redis.Redis) -> None:
        self.stub = stub
        self.channel = channel
        self.client = client
        self.rng = random.Random(SEED)
        self.pools = Pools(game_types=sorted(SEATS))
        self.games: dict[str, Game] = {}
        self.pools.game_ids.append(self.rng.randbytes(16).hex())  # a game that does not exist
        for game_type in SEATS:
            self.add_game(game_type)
        self.fuzzer = RequestFuzzer(self.rng, self.pools)

    def add_game(self, game_type: str) -> None:
        """Create a game of ``game_type`` with human seats only, and watch its bytes."""
        reply = self.stub.CreateGame(
            api.CreateGameRequest(game_type=game_type, seats=[HUMAN] * SEATS[game_type])
        )
        tokens = {t.seat: t.token for t in reply.seat_tokens}
        game = Game(reply.game_id, game_type, tokens, reply.admin_token)
        for seat, token in tokens.items():
            view = self.stub.GetGameView(
                api.GetGameViewRequest(game_id=game.game_id, seat=seat), metadata=token_md(token)
            ).view
            self.pools.actions.extend(view.legal_actions)
            self.pools.actions.extend(choice.action for choice in view.legal_choices)
        game.stored = stored_content(self.client, game.game_id)
        self.games[game.game_id] = game
        self.pools.game_ids.append(game.game_id)

    def metadata(self, case: FuzzCase) -> list[tuple[str, str]]:
        """Credentials that are right for the aimed-at game part of the time."""
        entries: list[tuple[str, str]] = []
        game = self.games.get(case.game_id) or self.rng.choice(list(self.games.values()))
        roll = self.rng.random()
        if roll < 0.5:
            entries.append(("x-seat-token", self.rng.choice(list(game.tokens.values()))))
        elif roll < 0.6:
            entries.append(("x-seat-token", self.rng.randbytes(self.rng.randrange(60)).hex()))
        if self.rng.random() < 0.3:
            entries.append(("x-admin-token", game.admin_token))
        if self.rng.random() < 0.2:
            entries.append(("x-service-key", self.rng.randbytes(8).hex()))
        if self.rng.random() < 0.3:
            language = self.rng.choice(("de", "xx", "fr-CA;q=0.5, *", "q=", "nl" * 300))
            entries.append(("accept-language", language))
        return entries

    def call(self, case: FuzzCase) -> tuple[grpc.StatusCode, Any]:
        """Send the case's bytes; the status code and, on success, the reply's bytes."""
        metadata = self.metadata(case)
        try:
            if case.method.server_streaming:
                stream = self.channel.unary_stream(case.path)(
                    case.data, metadata=metadata, timeout=CALL_SECONDS
                )
                try:
                    first = next(stream, None)
                finally:
                    stream.cancel()
                return grpc.StatusCode.OK, first
            reply = self.channel.unary_unary(case.path)(
                case.data, metadata=metadata, timeout=CALL_SECONDS
            )
            return grpc.StatusCode.OK, reply
        except grpc.RpcError as error:
            code = error.code()  # type: ignore[attr-defined]
            if code == grpc.StatusCode.CANCELLED and case.method.server_streaming:
                return grpc.StatusCode.OK, None  # our own cancel after the first message
            return code, None

    def after_success(self, case: FuzzCase, reply: bytes | None) -> None:
        """A changing call succeeded: end what it created, replace the game it aimed at."""
        if case.method.name not in CHANGING:
            return
        if case.method.name in ("CreateGame", "RematchGame") and reply is not None:
            created = (
                api.CreateGameResponse.FromString(reply)
                if case.method.name == "CreateGame"
                else api.RematchGameResponse.FromString(reply).game
            )
            self.end(created.game_id, created.admin_token)
        aimed = self.games.pop(case.game_id, None)
        if aimed is not None:
            self.end(aimed.game_id, aimed.admin_token)
            self.add_game(aimed.game_type)

    def end(self, game_id: str, admin_token: str) -> None:
        """End a game so no bot plays it on (it may be over already)."""
        request = api.EndGameRequest(game_id=game_id, reason="fuzz run")
        try:
            self.stub.EndGame(request, metadata=(("x-admin-token", admin_token),))
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, error  # type: ignore[attr-defined]

    def judge(
        self, index: int, case: FuzzCase, code: grpc.StatusCode, reply: bytes | None
    ) -> list[str]:
        """What is wrong with how the service answered the case (nothing, one hopes)."""
        where = f"seed {SEED} case {index} {case.method.name} ({case.how}, {len(case.data)} bytes)"
        failures = []
        if code in NEVER:
            failures.append(f"{where}: {code.name}, bytes {case.data[:80].hex()}")
        if code == grpc.StatusCode.OK:
            self.after_success(case, reply)
            return failures
        changed = self.changed_games()
        if changed:
            failures.append(f"{where}: refused with {code.name} but changed {changed}")
            for game_id in changed:
                self.games[game_id].stored = stored_content(self.client, game_id)
        return failures

    def changed_games(self) -> list[str]:
        return [
            game.game_id
            for game in self.games.values()
            if stored_content(self.client, game.game_id) != game.stored
        ]


@pytest.fixture
def run(stub: Any, channel: grpc.Channel, redis_client: redis.Redis) -> Iterator[Run]:
    yield Run(stub, channel, redis_client)


@pytest.mark.volume
def test_no_generated_request_causes_internal_or_changes_a_refused_game(
    run: Run, channel: grpc.Channel, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR)
    methods = list(SERVICE.methods)
    failures: list[str] = []
    refused = 0
    for index in range(CASES):
        case = run.fuzzer.case(methods[index % len(methods)])
        code, reply = run.call(case)
        failures.extend(run.judge(index, case, code, reply))
        refused += code != grpc.StatusCode.OK
        if len(failures) >= 20:
            break
    assert not failures, "\n".join(failures)
    assert refused > CASES // 2, "most generated requests should be refused"
    tracebacks = [r for r in caplog.records if r.exc_info]
    assert not tracebacks, [r.getMessage() for r in tracebacks[:5]]
    health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
    assert health.status == health_pb2.HealthCheckResponse.SERVING
    assert len(run.stub.ListGameTypes(api.ListGameTypesRequest(), timeout=10).game_types) == 3


@pytest.mark.volume
def test_the_gateway_answers_generated_requests_without_internal_or_unknown(
    run: Run, redis_url: str
) -> None:
    port = free_port()
    unary = [method for method in SERVICE.methods if not method.server_streaming]
    failures: list[str] = []
    with local_service(redis_url, web_port=port):
        for index in range(GATEWAY_CASES):
            case = run.fuzzer.case(unary[index % len(unary)])
            reply = grpc_web_call(port, case.method.name, case.data)
            code = CODES.get(reply.status)
            if code is None:
                failures.append(f"seed {SEED} case {index}: no grpc-status ({reply.status})")
                continue
            failures.extend(run.judge(index, case, code, reply.message))
            if len(failures) >= 20:
                break
        assert not failures, "\n".join(failures)
        assert grpc_web_call(port, "ListGameTypes", b"").status == 0


WEB_TYPES = (b"application/json", b"application/proto")
"""Unary calls' content types; a server stream's is ``application/connect+json``."""
ODD_HEADERS = (b"x-seat-token", b"accept-language", b"connect-timeout-ms", b"grpc-timeout")


def web_variant(rng: random.Random, case: FuzzCase) -> tuple[dict[str, bytes], bytes]:
    """A generated request as one HTTP call to the web port: a content type, JSON (when the
    bytes are a message) or binary, maybe cut or with a byte changed, maybe an odd header."""
    streaming = case.method.server_streaming
    kind = b"application/connect+json" if streaming else rng.choice(WEB_TYPES)
    body = case.data
    if kind != b"application/proto":
        try:
            message = message_factory.GetMessageClass(case.method.input_type).FromString(case.data)
            body = json_format.MessageToJson(message).encode()
        except Exception:  # not a message: its bytes as they are
            pass
    mutation = rng.randrange(4)
    if mutation == 1 and body:
        body = body[: rng.randrange(len(body))]
    elif mutation == 2 and body:
        spot = rng.randrange(len(body))
        body = body[:spot] + bytes([rng.randrange(256)]) + body[spot + 1 :]
    if streaming:
        body = b"\x00" + len(body).to_bytes(4, "big") + body
    headers = {"content-type": kind}
    if rng.random() < 0.3:
        headers[rng.choice(ODD_HEADERS).decode()] = rng.randbytes(rng.randrange(1, 12))
    return headers, body


@pytest.mark.volume
def test_the_web_port_answers_generated_http_without_a_server_error(
    run: Run, redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Generated requests as Connect calls (JSON or binary, cut, a byte changed, odd headers):
    no HTTP 500, no UNKNOWN or INTERNAL, no traceback, and the port still serves."""
    caplog.set_level(logging.ERROR)
    port = free_port()
    methods = list(SERVICE.methods)
    rng = random.Random(SEED + 1)
    failures: list[str] = []
    with local_service(redis_url, web_port=port):
        for index in range(GATEWAY_CASES):
            case = run.fuzzer.case(methods[index % len(methods)])
            headers, body = web_variant(rng, case)
            path = f"{SERVICE_PATH}/{case.method.name}"
            request = http_request(headers, body, path=path)
            try:
                # a watch of a live game stays open: what came within a second is judged
                status, answer = raw_http(port, request, read_seconds=1.0)
            except ConnectionResetError:
                # A body over the limit is answered unread, and the rest it sends is reset.
                if len(body) <= Settings().max_request_bytes:
                    failures.append(f"seed {SEED} web case {index}: connection reset")
                continue
            code = web_code(headers["content-type"], answer)
            if status >= 500 or code in ("unknown", "internal"):
                failures.append(f"seed {SEED} web case {index}: HTTP {status} {code}")
            if len(failures) >= 20:
                break
        assert not failures, "\n".join(failures)
        assert grpc_web_call(port, "ListGameTypes", b"").status == 0
    tracebacks = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert not tracebacks, [r.getMessage() for r in tracebacks[:5]]
    assert not run.changed_games()


def web_code(kind: bytes, answer: bytes) -> str:
    """The Connect error code of an answer, or ``""`` for a success (or no JSON at all)."""
    if kind == b"application/connect+json":  # the end envelope holds the error, if any
        for flags, payload in envelopes(answer):
            if flags & 2:
                return str(json.loads(payload).get("error", {}).get("code", ""))
        return ""
    try:
        found = json.loads(answer)
    except ValueError:
        return ""
    return str(found.get("code", "")) if isinstance(found, dict) else ""
