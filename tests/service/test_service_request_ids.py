"""Request ids (AIP-155): CreateGame and SubmitAction answered once, however often they come.

A repeated id gets the first reply and writes nothing; the same id with another request is
refused; identical copies sent at once all get the winner's reply; a retry reads a bounded
number of log entries, however long the game (counted with MONITOR, never timed).
"""

from __future__ import annotations

import itertools
import re
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
import redis
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import engine_service_pb2_grpc, game_pb2

from engine_service.app.engine import MAX_PAGE_SIZE
from engine_service.codec.record import decode_log_entry
from engine_service.store.keys import CHECKPOINT_EVERY, game_key, log_key
from tests.service.rpc_helpers import (
    HUMAN,
    RANDOM,
    failure_of,
    first_legal,
    stored,
    submit,
    token_md,
    tokens_of,
    turn_of,
    view,
)

COPIES = (16, 48)
"""How many identical requests are sent at once."""
LONG_LOG = 4 * CHECKPOINT_EVERY
"""A log this long spans several checkpoints."""
MONITORED_COMMANDS = 100_000
"""Most MONITOR lines read while looking for the end marker (a bound on the loop)."""


def create_request(request_id: str, seed: int = 5) -> api.CreateGameRequest:
    return api.CreateGameRequest(
        game_type="hearts",
        seats=[HUMAN, RANDOM, HUMAN, RANDOM],
        seed=seed,
        labels={"table": "t1"},
        request_id=request_id,
    )


def games_in(client: redis.Redis) -> set[bytes]:
    return set(client.scan_iter(match="ce:*:game", count=1000))


def at_once(call: Callable[[], Any], copies: int) -> list[Any]:
    """Start ``copies`` calls before waiting for any; each reply, or the RpcError it raised."""
    futures = [call() for _ in range(copies)]
    results = []
    for future in futures:
        try:
            results.append(future.result())
        except grpc.RpcError as error:
            results.append(error)
    return results


def test_a_repeated_create_returns_the_first_game_and_creates_no_other(stub, redis_client):
    request_id = str(uuid.uuid4())
    before = games_in(redis_client)
    first = stub.CreateGame(create_request(request_id))
    created = games_in(redis_client) - before
    again = stub.CreateGame(create_request(request_id))
    assert again == first
    assert games_in(redis_client) - before == created
    assert len(created) == 1
    assert game_key(first.game_id).encode() in created


def test_a_create_retried_after_moves_returns_the_view_of_then(stub):
    request_id = str(uuid.uuid4())
    first = stub.CreateGame(create_request(request_id))
    token = tokens_of(first)[0]
    seat_view = turn_of(stub, first.game_id, 0, token, view(stub, first.game_id, 0, token))
    submit(stub, first.game_id, 0, token, first_legal(seat_view), seat_view.version)
    assert stub.CreateGame(create_request(request_id)) == first


def test_without_a_request_id_each_create_makes_a_game(stub):
    one, two = (stub.CreateGame(create_request("")) for _ in range(2))
    assert one.game_id != two.game_id


@pytest.mark.parametrize("copies", COPIES)
def test_identical_creates_at_once_make_one_game(stub, redis_client, copies):
    request = create_request(str(uuid.uuid4()))
    before = games_in(redis_client)
    replies = at_once(lambda: stub.CreateGame.future(request), copies)
    assert all(reply == replies[0] for reply in replies), [type(r) for r in replies]
    assert games_in(redis_client) - before == {game_key(replies[0].game_id).encode()}


def test_a_create_id_reused_for_another_request_is_refused(stub, redis_client):
    request_id = str(uuid.uuid4())
    stub.CreateGame(create_request(request_id, seed=1))
    before = games_in(redis_client)
    for other in (create_request(request_id, seed=2), create_request(request_id)):
        other.labels["table"] = "t2"
        refused = failure_of(lambda other=other: stub.CreateGame(other))
        assert (refused.code, refused.reason) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "REQUEST_ID_REUSED",
        )
    assert games_in(redis_client) == before


def test_a_malformed_create_request_id_is_refused(stub):
    refused = failure_of(lambda: stub.CreateGame(create_request("no spaces allowed")))
    assert (refused.code, refused.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_FIELD")


def test_redis_holds_neither_the_tokens_nor_the_request_id(stub, redis_client):
    request_id = str(uuid.uuid4())
    created = stub.CreateGame(create_request(request_id))
    secrets = [token.token.encode() for token in created.seat_tokens]
    secrets += [created.admin_token.encode(), request_id.encode()]
    found = []
    for key in redis_client.scan_iter(match="ce:*", count=1000):
        kind = redis_client.type(key)
        if kind == b"string":
            values = [redis_client.get(key) or b""]
        elif kind == b"hash":
            values = [b"".join(pair) for pair in redis_client.hgetall(key).items()]
        elif kind == b"list":
            values = redis_client.lrange(key, 0, -1)
        else:
            continue
        found += [key for value in [key, *values] for secret in secrets if secret in value]
    assert found == []
    kept = [key for key in redis_client.scan_iter(match="ce:*:req:*") if redis_client.ttl(key) > 0]
    assert kept, "the first reply is kept, with an expiry"


def submit_request(
    game_id: str, seat: int, action: game_pb2.Action, version: int, request_id: str
) -> api.SubmitActionRequest:
    return api.SubmitActionRequest(
        game_id=game_id, seat=seat, expected_version=version, request_id=request_id, action=action
    )


@pytest.mark.parametrize("copies", COPIES)
def test_identical_submits_at_once_all_get_the_one_reply(stub, redis_client, copies):
    created = stub.CreateGame(create_request(str(uuid.uuid4()), seed=copies))
    token = tokens_of(created)[0]
    seat_view = turn_of(stub, created.game_id, 0, token, view(stub, created.game_id, 0, token))
    logged_before = redis_client.llen(log_key(created.game_id))
    request = submit_request(
        created.game_id, 0, first_legal(seat_view), seat_view.version, str(uuid.uuid4())
    )
    replies = at_once(lambda: stub.SubmitAction.future(request, metadata=token_md(token)), copies)
    assert all(isinstance(reply, api.SubmitActionResponse) for reply in replies), replies
    assert {reply.view.version for reply in replies} == {replies[0].view.version}
    assert all(reply == replies[0] for reply in replies)
    entries = redis_client.lrange(log_key(created.game_id), logged_before, -1)
    seats = [decode_log_entry("hearts", raw).seat for raw in entries]
    assert seats.count(0) == 1, "the action was applied once"


def test_a_submit_id_reused_with_another_action_is_refused_and_writes_nothing(stub, redis_client):
    created = stub.CreateGame(create_request(str(uuid.uuid4()), seed=9))
    token = tokens_of(created)[0]
    seat_view = turn_of(stub, created.game_id, 0, token, view(stub, created.game_id, 0, token))
    request_id = str(uuid.uuid4())
    first = submit(
        stub, created.game_id, 0, token, first_legal(seat_view), seat_view.version, request_id
    )
    # the same action from a newer view is the same request
    assert (
        submit(stub, created.game_id, 0, token, first_legal(seat_view), first.version, request_id)
        == first
    )
    before = stored(redis_client, created.game_id)
    other = seat_view.legal_choices[0]
    action = game_pb2.Action()
    action.CopyFrom(other.action)
    action.hearts.pass_cards.cards.extend(other.cards[-other.count :])
    refused = failure_of(
        lambda: submit(stub, created.game_id, 0, token, action, seat_view.version, request_id)
    )
    assert (refused.code, refused.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "REQUEST_ID_REUSED")
    assert stored(redis_client, created.game_id) == before


@dataclass(frozen=True)
class Sent:
    """A submit made while playing a long game: its request and the reply it got."""

    request: api.SubmitActionRequest
    reply: api.SubmitActionResponse


def play_long(stub: Any, redis_client: redis.Redis) -> tuple[str, str, list[Sent]]:
    """A Hearts game played by seat 0 until its log is LONG_LOG entries (or it ends)."""
    created = stub.CreateGame(
        api.CreateGameRequest(game_type="hearts", seats=[HUMAN, RANDOM, RANDOM, RANDOM], seed=3)
    )
    game_id, token = created.game_id, tokens_of(created)[0]
    seat_view = turn_of(stub, game_id, 0, token, view(stub, game_id, 0, token))
    sent: list[Sent] = []
    for _ in range(LONG_LOG):
        if redis_client.llen(log_key(game_id)) >= LONG_LOG:
            break
        if seat_view.status != game_pb2.GAME_STATUS_IN_PROGRESS:
            break
        request = submit_request(
            game_id, 0, first_legal(seat_view), seat_view.version, str(uuid.uuid4())
        )
        reply = stub.SubmitAction(request, metadata=token_md(token))
        sent.append(Sent(request, reply))
        seat_view = turn_of(stub, game_id, 0, token, reply.view)
    assert redis_client.llen(log_key(game_id)) >= LONG_LOG
    return game_id, token, sent


@pytest.fixture
def monitor(
    redis_client: redis.Redis,
) -> Iterator[Callable[[Callable[[], Any]], tuple[Any, list[str]]]]:
    """Run a call under Redis MONITOR: its result, and the commands clients sent meanwhile.

    Commands that scripts ran are left out (they are the script's, not a client's read).
    """
    with redis_client.monitor() as watching:

        def until(marker: str) -> list[str]:
            redis_client.echo(marker)
            seen = []
            for _ in range(MONITORED_COMMANDS):
                found = watching.next_command()
                if marker in found["command"]:
                    return seen
                if found.get("client_type") != "lua":
                    seen.append(found["command"])
            raise AssertionError(f"the marker {marker} never came")

        def commands(call: Callable[[], Any]) -> tuple[Any, list[str]]:
            until(f"start-{uuid.uuid4()}")
            result = call()
            return result, until(f"end-{uuid.uuid4()}")

        yield commands


def entries_read(commands: list[str], game_id: str) -> list[int]:
    """How many entries each LRANGE of the game's log asked for (-1 stop: all of them)."""
    counts = []
    for command in commands:
        found = re.fullmatch(rf"LRANGE {re.escape(log_key(game_id))} (-?\d+) (-?\d+)", command)
        if found:
            start, stop = int(found[1]), int(found[2])
            counts.append(10**9 if stop < 0 else stop - start + 1)
    return counts


def test_copies_that_lose_the_race_answer_from_the_stored_reply_without_loading_again(
    stub, redis_client, monitor, second_server
):
    """Copies spread over two server processes; a loser's compare-and-set hands it the reply."""
    created = stub.CreateGame(create_request(str(uuid.uuid4()), seed=61))
    token = tokens_of(created)[0]
    seat_view = turn_of(stub, created.game_id, 0, token, view(stub, created.game_id, 0, token))
    request = submit_request(
        created.game_id, 0, first_legal(seat_view), seat_view.version, str(uuid.uuid4())
    )
    copies = COPIES[1]
    with grpc.insecure_channel(second_server) as channel:
        stubs = itertools.cycle([stub, engine_service_pb2_grpc.EngineServiceStub(channel)])
        replies, commands = monitor(
            lambda: at_once(
                lambda: next(stubs).SubmitAction.future(request, metadata=token_md(token)), copies
            )
        )
    assert all(isinstance(reply, api.SubmitActionResponse) for reply in replies), replies
    assert all(reply == replies[0] for reply in replies)
    reply_field = f"r:0:{request.request_id}"
    loads = [c for c in commands if c.startswith("HMGET") and reply_field in c]
    assert len(loads) == copies, "each copy loads the game once, losers answer from the script"


def test_a_retry_reads_a_bounded_part_of_the_log_however_long(stub, redis_client, monitor):
    game_id, token, sent = play_long(stub, redis_client)
    log_length = redis_client.llen(log_key(game_id))
    for earlier in (sent[0], sent[len(sent) // 3], sent[len(sent) // 2], sent[-2], sent[-1]):
        again, commands = monitor(
            lambda earlier=earlier: stub.SubmitAction(earlier.request, metadata=token_md(token))
        )
        assert again == earlier.reply
        assert all(count < CHECKPOINT_EVERY for count in entries_read(commands, game_id))
    assert redis_client.llen(log_key(game_id)) == log_length, "no retry wrote anything"


def test_an_action_log_read_is_bounded_by_its_page(stub, redis_client, monitor):
    game_id, _, _ = play_long(stub, redis_client)
    for page_size, most in ((0, MAX_PAGE_SIZE), (10, 10), (5000, MAX_PAGE_SIZE)):
        request = api.GetActionLogRequest(game_id=game_id, page_size=page_size)
        page, commands = monitor(lambda request=request: stub.GetActionLog(request))
        counts = entries_read(commands, game_id)
        assert counts and all(count <= most for count in counts), (page_size, counts)
        assert len(page.entries) == min(most, redis_client.llen(log_key(game_id)))
    short = stub.GetActionLog(api.GetActionLogRequest(game_id=game_id, page_size=10))
    assert len(short.entries) == 10 and short.next_page_token
