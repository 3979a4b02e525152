"""SuggestAction through a real gRPC server and redis-server, in every game.

A suggestion is one of the seat's legal moves and SubmitAction accepts it; the same game,
version, seat and budget give the same bytes, from this process or another; the search reads
the seat's view only (a twin game whose hidden cards differ but whose view of the seat is the
same byte for byte gets the same suggestion); every refusal is the one a move would get, and
nothing stored changes. Budgets are tiny: only what the call answers is under test here.
"""

from __future__ import annotations

import dataclasses
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis
from cardengine.v1 import cards_pb2, engine_service_pb2_grpc, game_pb2
from cardengine.v1 import engine_service_pb2 as api

from engine_service.api.messages import encode_suggestion, encode_view
from engine_service.app.play import bot_move, seat_view
from engine_service.app.search_budgets import with_search_budgets
from engine_service.app.suggest import MAX_BUDGET_FACTOR, suggest
from engine_service.bots.search import SearchBot
from engine_service.codec.record import decode_record
from engine_service.core.record import GameRecord, PlayerKind
from engine_service.devtools.local import free_port, local_service
from engine_service.registry import REGISTRY
from engine_service.store.keys import events_key, game_key, log_key
from tests.service.keyed import new_key, refusal
from tests.service.rpc_helpers import (
    HUMAN,
    RpcFailure,
    assert_invalid_field,
    assert_rule_break,
    create,
    failure_of,
    first_legal,
    random_legal,
    stored,
    submit,
    token_md,
    tokens_of,
    view,
)
from tests.service.stored import contents
from tests.service.table_helpers import admin_md, leave
from tests.service.test_web_connect import connect_call

pytestmark = pytest.mark.service

GAMES = ("hearts", "guandan", "klaberjass")
SEATS = {"hearts": 4, "guandan": 4, "klaberjass": 2}
WARM_UP = {"hearts": 12, "guandan": 3, "klaberjass": 3}
"""Random moves made before a position is taken (Hearts: the four passes and some tricks)."""
BUDGET = 8
VALUE_KINDS = {
    "hearts": api.SUGGESTION_VALUE_KIND_HAND_POINTS_MARGIN,
    "guandan": api.SUGGESTION_VALUE_KIND_LEVELS,
    "klaberjass": api.SUGGESTION_VALUE_KIND_DEAL_SCORE_MARGIN,
}
UNKNOWN_GAME = "0" * 32
BOTS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "bots.md"
SESSION = re.compile(
    r"<!-- suggest-session -->\n```python\n(?P<code>.*?)```\n\n```text\n(?P<output>.*?)```\n"
    r"<!-- /suggest-session -->",
    re.S,
)
DOCS_ADDRESS = "127.0.0.1:50051"


@dataclass(frozen=True)
class Position:
    """A live all-human game where ``seat`` must choose among two or more listed moves."""

    game_type: str
    game_id: str
    admin_token: str
    tokens: dict[int, str]
    seat: int
    view: Any

    @property
    def token(self) -> str:
        return self.tokens[self.seat]


def live_position(stub: Any, game_type: str, seed: int, warm_up: int | None = None) -> Position:
    """A game of ``game_type`` after ``warm_up`` random moves, at a seat with a real choice."""
    created = create(stub, [HUMAN] * SEATS[game_type], seed=seed, game_type=game_type)
    tokens = tokens_of(created)
    rng = random.Random(seed)
    moves = WARM_UP[game_type] if warm_up is None else warm_up
    while True:
        seat = view(stub, created.game_id).to_act[0]
        shown = view(stub, created.game_id, seat, tokens[seat])
        if moves <= 0 and len(shown.legal_actions) >= 2:
            return Position(game_type, created.game_id, created.admin_token, tokens, seat, shown)
        submit(stub, created.game_id, seat, tokens[seat], random_legal(shown, rng), shown.version)
        moves -= 1


def suggest_rpc(
    stub: Any,
    game_id: str,
    seat: int,
    token: str | None,
    playouts: int | None = BUDGET,
    metadata: tuple[tuple[str, str], ...] = (),
) -> Any:
    request = api.SuggestActionRequest(game_id=game_id, seat=seat, playouts=playouts)
    return stub.SuggestAction(request, metadata=(token_md(token) if token else ()) + metadata)


def game_contents(client: redis.Redis, game_id: str) -> dict[Any, Any]:
    """Everything stored for the game: its hash, action log and event stream."""
    return contents(client, (game_key(game_id), log_key(game_id), events_key(game_id)))


def refused_changing_nothing(client: redis.Redis, game_id: str, call: Any) -> RpcFailure:
    before = game_contents(client, game_id)
    failure = failure_of(call)
    assert game_contents(client, game_id) == before
    return failure


def default_budget(stub: Any, game_type: str) -> int:
    """The game's search bot's budget as ListGameTypes shows it."""
    (game,) = [
        g for g in stub.ListGameTypes(api.ListGameTypesRequest()).game_types if g.name == game_type
    ]
    (bot,) = [b for b in game.bots if b.player_type == game_pb2.PLAYER_TYPE_BOT_SEARCH]
    return int(bot.simulations)


@pytest.mark.parametrize("game_type", GAMES)
def test_a_suggestion_is_a_legal_move_that_submit_accepts(
    stub: Any, redis_client: redis.Redis, game_type: str
) -> None:
    position = live_position(stub, game_type, seed=41)
    before = game_contents(redis_client, position.game_id)
    reply = suggest_rpc(stub, position.game_id, position.seat, position.token)
    assert game_contents(redis_client, position.game_id) == before
    legal = list(position.view.legal_actions)
    assert reply.version == position.view.version
    assert reply.action in legal
    assert reply.value_kind == VALUE_KINDS[game_type]
    assert (reply.playouts, reply.max_playouts) == (
        BUDGET,
        MAX_BUDGET_FACTOR * default_budget(stub, game_type),
    )
    tried = [candidate.action for candidate in reply.candidates]
    assert reply.action in tried and all(action in legal for action in tried)
    assert len(set(map(bytes, (a.SerializeToString() for a in tried)))) == len(tried)
    rounds = max(1, BUDGET // len(tried)) if len(tried) > 1 else 0  # one: nothing to compare
    for candidate in reply.candidates:
        assert candidate.HasField("value") == (rounds > 0) and candidate.playouts == rounds
    after = submit(
        stub, position.game_id, position.seat, position.token, reply.action, reply.version
    )
    assert after.version > reply.version


def test_h_r2_a_suggested_pass_is_three_cards_of_the_hand_and_is_accepted(
    stub: Any, redis_client: redis.Redis
) -> None:
    created = create(stub, [HUMAN] * 4, seed=42)
    token = tokens_of(created)[0]
    shown = view(stub, created.game_id, 0, token)
    before = stored(redis_client, created.game_id)
    reply = suggest_rpc(stub, created.game_id, 0, token)
    assert stored(redis_client, created.game_id) == before
    passed = reply.action.hearts.pass_cards.cards
    assert len(passed) == 3 and all(card in shown.hearts.hand for card in passed)
    assert len(reply.candidates) == 20  # every 3 of the 6 most dangerous cards
    submit(stub, created.game_id, 0, token, reply.action, shown.version)
    assert view(stub, created.game_id, 0, token).hearts.passed == passed


def test_h_r3_a_single_legal_move_is_suggested_without_a_search(stub: Any) -> None:
    created = create(stub, [HUMAN] * 4, seed=43)
    tokens = tokens_of(created)
    for seat, token in tokens.items():
        shown = view(stub, created.game_id, seat, token)
        submit(stub, created.game_id, seat, token, first_legal(shown), shown.version)
    (leader,) = view(stub, created.game_id).to_act
    reply = suggest_rpc(stub, created.game_id, leader, tokens[leader])
    (only,) = reply.candidates
    assert reply.action.hearts.play_card.card == cards_pb2.Card(
        rank=cards_pb2.RANK_TWO, suit=cards_pb2.SUIT_CLUBS
    )  # the two of clubs opens (H-R3)
    assert only.action == reply.action
    assert not only.HasField("value") and only.playouts == 0


@pytest.fixture
def second_stub(second_server: str) -> Iterator[engine_service_pb2_grpc.EngineServiceStub]:
    with grpc.insecure_channel(second_server) as channel:
        yield engine_service_pb2_grpc.EngineServiceStub(channel)


def test_the_same_game_version_seat_and_budget_give_the_same_bytes(
    stub: Any, second_stub: Any
) -> None:
    position = live_position(stub, "hearts", seed=44)
    replies = [
        suggest_rpc(on, position.game_id, position.seat, position.token, 24).SerializeToString(
            deterministic=True
        )
        for on in (stub, stub, second_stub)
    ]
    assert replies[0] == replies[1] == replies[2]


def record_of(client: redis.Redis, game_id: str) -> tuple[GameRecord, int]:
    """The stored record of a game and its version."""
    fields = stored(client, game_id)
    return decode_record(fields[b"s"]), int(fields[b"v"])


@pytest.mark.parametrize("game_type", GAMES)
def test_the_search_reads_only_the_seats_view(
    stub: Any, redis_client: redis.Redis, game_type: str
) -> None:
    """A twin game dealt otherwise but showing the seat the same view gets the same answer.

    The twin is a world the seat's view allows (its sampler keeps every public fact: the
    seat's hand, the cards played, shown voids, counts), checked to show the seat the same
    view byte for byte while the other seats hold other cards.
    """
    position = live_position(stub, game_type, seed=45)
    spec = REGISTRY[game_type]
    record, version = record_of(redis_client, position.game_id)
    rules = spec.make_rules(record.config)
    seat = position.seat
    search = spec.bots["search"]
    assert isinstance(search, SearchBot)
    sampled = search.worlds.sample_world(rules, rules.view(record.state, seat), random.Random(1))
    if game_type == "hearts":
        # A Hearts world knows only the passes the seat made and received; the others' stay
        # as they were (each seat is shown only that they passed, pass_submitted).
        sampled = dataclasses.replace(sampled, passed=record.state.passed)
    twin = dataclasses.replace(record, state=sampled)
    assert twin.state.hands != record.state.hands

    def shown(game: GameRecord) -> bytes:
        seen = seat_view(rules, position.game_id, game, version, seat)
        return encode_view(seen).SerializeToString(deterministic=True)

    assert shown(twin) == shown(record)
    suggestions = [suggest(spec, game, version, seat, BUDGET) for game in (record, twin)]
    assert len(suggestions[0].candidates) >= 2  # a real search, not a forced move
    answers = [encode_suggestion(s).SerializeToString(deterministic=True) for s in suggestions]
    served = suggest_rpc(stub, position.game_id, seat, position.token)
    assert answers[0] == answers[1] == served.SerializeToString(deterministic=True)


@pytest.mark.parametrize("game_type", GAMES)
def test_on_the_default_budget_the_suggestion_is_the_search_bots_move(
    stub: Any, redis_client: redis.Redis, game_type: str
) -> None:
    spec = with_search_budgets(REGISTRY, {game_type: 3})[game_type]
    position = live_position(stub, game_type, seed=46)
    record, version = record_of(redis_client, position.game_id)
    rules = spec.make_rules(record.config)
    suggested = suggest(spec, record, version, position.seat, None)
    assert suggested.budget == 3
    played = bot_move(spec, rules, record, position.seat, PlayerKind.SEARCH_BOT, version)
    assert suggested.action == played


def test_seat_tokens_game_ids_and_budgets_are_checked_and_nothing_changes(
    stub: Any, redis_client: redis.Redis
) -> None:
    position = live_position(stub, "hearts", seed=47)
    game_id, seat = position.game_id, position.seat
    other = (seat + 1) % 4

    def refused(token: str | None, **fields: Any) -> RpcFailure:
        asked = {"game_id": game_id, "seat": seat, "playouts": BUDGET, **fields}
        request = api.SuggestActionRequest(**asked)
        metadata = token_md(token) if token else ()
        return refused_changing_nothing(
            redis_client, game_id, lambda: stub.SuggestAction(request, metadata=metadata)
        )

    missing = refused(None)
    assert (missing.code, missing.reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING")
    wrong = refused("x" * 32)
    assert (wrong.code, wrong.reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID")
    theirs = refused(position.tokens[other])
    assert (theirs.code, theirs.reason) == (grpc.StatusCode.PERMISSION_DENIED, "SEAT_NOT_YOURS")
    unknown = refused(position.token, game_id=UNKNOWN_GAME)
    assert (unknown.code, unknown.reason) == (grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND")
    assert_invalid_field(refused(position.token, game_id="not-an-id"), "game_id")
    assert_invalid_field(refused(position.token, seat=4), "seat")
    assert_invalid_field(refused(position.token, playouts=0), "playouts")


def test_a_seat_with_nothing_to_do_gets_the_refusal_a_move_would_get(
    stub: Any, redis_client: redis.Redis
) -> None:
    """NOT_YOUR_TURN with the game's own rule (H-R4, G-R2, K-R16), ALREADY_PASSED (H-R2)."""
    for game_type, rule in (("hearts", "H-R4"), ("guandan", "G-R2"), ("klaberjass", "K-R16")):
        position = live_position(stub, game_type, seed=48)
        waiting = next(s for s in range(SEATS[game_type]) if s not in position.view.to_act)
        token = position.tokens[waiting]
        failure = refused_changing_nothing(
            redis_client,
            position.game_id,
            lambda: suggest_rpc(stub, position.game_id, waiting, token),  # noqa: B023
        )
        assert_rule_break(failure, "NOT_YOUR_TURN", rule)
        move = position.view.legal_actions[0]
        sent = failure_of(
            lambda: submit(stub, position.game_id, waiting, token, move, position.view.version)  # noqa: B023
        )
        assert (sent.reason, sent.metadata["ruleId"]) == ("NOT_YOUR_TURN", rule)
    created = create(stub, [HUMAN] * 4, seed=49)
    tokens = tokens_of(created)
    shown = view(stub, created.game_id, 0, tokens[0])
    submit(
        stub,
        created.game_id,
        0,
        tokens[0],
        suggest_rpc(stub, created.game_id, 0, tokens[0]).action,
        shown.version,
    )
    failure = refused_changing_nothing(
        redis_client, created.game_id, lambda: suggest_rpc(stub, created.game_id, 0, tokens[0])
    )
    assert_rule_break(failure, "ALREADY_PASSED", "H-R2")


def test_t_r1_t_r2_a_finished_game_and_a_seat_a_bot_plays_are_refused(
    stub: Any, redis_client: redis.Redis
) -> None:
    position = live_position(stub, "klaberjass", seed=50)
    other = 1 - position.seat
    leave(stub, position.game_id, other, position.tokens[other])
    failure = refused_changing_nothing(
        redis_client,
        position.game_id,
        lambda: suggest_rpc(stub, position.game_id, other, position.tokens[other]),
    )
    assert_rule_break(failure, "SEAT_PLAYED_BY_BOT", "T-R2")
    ending = api.EndGameRequest(game_id=position.game_id, reason="the table closed")
    stub.EndGame(ending, metadata=admin_md(position.admin_token))
    failure = refused_changing_nothing(
        redis_client,
        position.game_id,
        lambda: suggest_rpc(stub, position.game_id, position.seat, position.token),
    )
    assert_rule_break(failure, "GAME_OVER", "T-R1")


@pytest.fixture(scope="module")
def tiny_stub(redis_url: str) -> Iterator[engine_service_pb2_grpc.EngineServiceStub]:
    """A server whose Hearts search makes 2 playouts a decision and that offers none in Guandan."""
    with (
        local_service(redis_url, search_budgets=("hearts=2", "guandan=0")) as address,
        grpc.insecure_channel(address) as channel,
    ):
        yield engine_service_pb2_grpc.EngineServiceStub(channel)


def test_the_budget_defaults_to_the_search_bots_and_is_lowered_to_its_cap(
    tiny_stub: Any, redis_client: redis.Redis
) -> None:
    position = live_position(tiny_stub, "hearts", seed=51)
    game_id, seat, token = position.game_id, position.seat, position.token
    default = suggest_rpc(tiny_stub, game_id, seat, token, playouts=None)
    assert (default.playouts, default.max_playouts) == (2, 2 * MAX_BUDGET_FACTOR)
    before = game_contents(redis_client, game_id)
    capped = suggest_rpc(tiny_stub, game_id, seat, token, playouts=2**32 - 1)
    assert capped.playouts == capped.max_playouts == 2 * MAX_BUDGET_FACTOR
    assert capped == suggest_rpc(tiny_stub, game_id, seat, token, playouts=2 * MAX_BUDGET_FACTOR)
    assert game_contents(redis_client, game_id) == before


def test_a_game_whose_search_bot_is_off_makes_no_suggestion(
    tiny_stub: Any, redis_client: redis.Redis
) -> None:
    position = live_position(tiny_stub, "guandan", seed=52)
    failure = refused_changing_nothing(
        redis_client,
        position.game_id,
        lambda: suggest_rpc(tiny_stub, position.game_id, position.seat, position.token),
    )
    assert (failure.code, failure.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "NO_SEARCH_BOT")


def test_a_service_key_is_charged_for_each_suggestion(redis_url: str) -> None:
    key = new_key("create", "rate=0.01,burst=3")
    with (
        local_service(redis_url, service_keys=(key.line,)) as address,
        grpc.insecure_channel(address) as channel,
    ):
        keyed = engine_service_pb2_grpc.EngineServiceStub(channel)
        request = api.CreateGameRequest(game_type="klaberjass", seats=[HUMAN, HUMAN], seed=53)
        created = keyed.CreateGame(request, metadata=key.md)  # the bucket's first call
        seat = created.view.to_act[0]
        token = tokens_of(created)[seat]
        for _ in range(2):
            suggest_rpc(keyed, created.game_id, seat, token, metadata=key.md)
        found = refusal(lambda: suggest_rpc(keyed, created.game_id, seat, token, metadata=key.md))
        assert (found.code, found.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED")
        assert found.metadata["key"] == key.name
        assert suggest_rpc(keyed, created.game_id, seat, token).action  # players pay no key


def test_the_web_port_serves_suggestions_as_connect_json(redis_url: str, stub: Any) -> None:
    port = free_port()
    with local_service(redis_url, web_port=port):
        created = create(stub, [HUMAN, HUMAN], seed=54, game_type="klaberjass")
        seat = created.view.to_act[0]
        body = {"gameId": created.game_id, "seat": seat, "playouts": BUDGET}
        headers = {"x-seat-token": tokens_of(created)[seat]}
        status, answer = connect_call(f"127.0.0.1:{port}", "SuggestAction", body, **headers)
        assert status == 200
        assert answer["valueKind"] == "SUGGESTION_VALUE_KIND_DEAL_SCORE_MARGIN"
        assert answer["action"] in [c["action"] for c in answer["candidates"]]
        status, error = connect_call(f"127.0.0.1:{port}", "SuggestAction", body)
        assert (status, error["code"]) == (401, "unauthenticated")


def test_the_bots_page_python_session_runs_as_written(engine_address: str) -> None:
    found = SESSION.search(BOTS_PAGE.read_text())
    assert found, "docs/bots.md has no suggest session"
    code = found["code"].replace(DOCS_ADDRESS, engine_address)
    ran = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == found["output"]
