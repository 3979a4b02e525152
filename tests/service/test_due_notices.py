"""A write that leaves its game due before the timer loops' next look announces it, and the
loop whose share holds the game plans it at once (:mod:`engine_service.store.due_notices`).

The servers here look at the due index once an hour, so within the tests' bounds only a
notice can make their timer loop move a game on: bots left to move after a request, a turn
clock shorter than the time between looks. On a single Redis and on a Redis Cluster, whose
nodes pass a message published on one to the subscribers of all.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import grpc
import pytest
import redis
from cardengine.v1 import engine_service_pb2_grpc, game_pb2

from engine_service.devtools.local import local_service, redis_server
from engine_service.store.connect import parse_target
from engine_service.store.due_notices import read_notice
from engine_service.store.keys import DUE_CHANNEL, group_of
from engine_service.store.protocol import DueNotice
from tests.service.clock_helpers import clock, create_clocked
from tests.service.rpc_helpers import HUMAN, RANDOM, create, tokens_of, view, watch_until

pytestmark = pytest.mark.service
LOOKS_APART = 3600.0
"""Seconds between two looks at the due index: none comes after the first within a test."""
QUIET_SECONDS = 1.0
"""How long the channel is listened to for a notice that must not come."""


@pytest.fixture(scope="module")
def stub(own_url: str) -> Iterator[Any]:
    """A server whose requests leave every bot move but one to its timer loop."""
    settings: dict[str, Any] = {"timer_interval_seconds": LOOKS_APART, "bot_moves_per_call": 1}
    with local_service(own_url, **settings) as address, grpc.insecure_channel(address) as channel:
        yield engine_service_pb2_grpc.EngineServiceStub(channel)


@pytest.fixture
def channel(own_url: str) -> Iterator[Any]:
    """The notices channel, subscribed on one node (any node of a cluster hears them all)."""
    cluster = own_url.startswith("redis+cluster")
    host, port = parse_target(own_url).nodes[0] if cluster else (None, 0)
    client = redis.Redis(host=host, port=port) if host else redis.Redis.from_url(own_url)
    listener = client.pubsub(ignore_subscribe_messages=True)
    listener.subscribe(DUE_CHANNEL)
    try:
        yield listener
    finally:
        listener.close()
        client.close()


def heard(listener: Any, seconds: float) -> list[DueNotice]:
    """The notices published within ``seconds``."""
    found = []
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        message = listener.get_message(timeout=left)
        if message is not None and message["type"] == "message":
            notice = read_notice(message["data"])
            assert notice is not None, message
            found.append(notice)
    return found


def test_a_game_left_to_bots_is_played_on_at_once(stub: Any) -> None:
    created = create(stub, [RANDOM, RANDOM, RANDOM, RANDOM], seed=5, target=30)
    assert created.view.status == game_pb2.GAME_STATUS_IN_PROGRESS
    start = created.view.version
    moved = watch_until(stub, created.game_id, None, None, start, lambda v: v.version > start + 20)
    assert moved.version > start + 20


def test_a_turn_clock_shorter_than_the_looks_fires(stub: Any) -> None:
    seats = [HUMAN, RANDOM, RANDOM, RANDOM]
    created = create_clocked(stub, seats, clock(200, game_pb2.EXPIRY_ACTION_BOT_RANDOM), seed=9)
    token = tokens_of(created)[0]
    start = view(stub, created.game_id, 0, token)
    assert 0 in start.to_act  # the pass: the human's clock runs, no bot acts before it
    moved = watch_until(
        stub, created.game_id, 0, token, start.version, lambda v: v.version > start.version
    )
    assert moved.version > start.version


def test_a_write_due_before_the_next_look_is_announced(stub: Any, channel: Any) -> None:
    created = create(stub, [RANDOM, RANDOM, RANDOM, RANDOM], seed=6, target=30)
    notices = [n for n in heard(channel, QUIET_SECONDS) if n.game_id == created.game_id]
    assert notices, "no notice of a game left to its bots"
    assert {n.group for n in notices} == {group_of(created.game_id)}
    assert all(n.due_ms <= time.time() * 1000 for n in notices)


def test_a_game_due_only_after_the_next_look_is_not_announced(stub: Any, channel: Any) -> None:
    seats = [HUMAN, RANDOM, RANDOM, RANDOM]
    after_next_look = int(2 * LOOKS_APART * 1000)
    policy = clock(after_next_look, game_pb2.EXPIRY_ACTION_BOT_RANDOM)
    created = create_clocked(stub, seats, policy)
    assert [n for n in heard(channel, QUIET_SECONDS) if n.game_id == created.game_id] == []


def test_a_redis_user_without_channels_still_plays_on_by_the_looks() -> None:
    """Redis 7's ACL users get no Pub/Sub channels unless granted: publishing a notice is
    then refused (NOPERM) after the write, which must still be answered as done, and the
    loop's looks move the game on."""
    with redis_server() as url:
        admin = redis.Redis.from_url(url)
        admin.execute_command("ACL", "SETUSER", "engine", "on", ">secret", "~*", "+@all")
        admin.close()
        settings: dict[str, Any] = {"timer_interval_seconds": 0.5, "bot_moves_per_call": 1}
        limited = f"redis://engine:secret@127.0.0.1:{urlsplit(url).port}/0"
        with local_service(limited, **settings) as address, grpc.insecure_channel(address) as ch:
            stub = engine_service_pb2_grpc.EngineServiceStub(ch)
            created = create(stub, [RANDOM, RANDOM, RANDOM, RANDOM], seed=7, target=30)
            start = created.view.version
            moved = watch_until(
                stub, created.game_id, None, None, start, lambda v: v.version > start + 20
            )
            assert moved.version > start + 20
