"""The service on a Redis Cluster and on a Sentinel-watched master, with AUTH.

The module's fixtures replace the session's Redis and server with ones on each backend (a
six-node cluster, then a master with a replica and three sentinels), and the live-play and
basic service tests imported below run again on them unchanged. The tests written here add
what only such a Redis has: games spread evenly over the masters and listed together, turn
clocks fired by the timer loop over a cluster, and a failover of the Sentinel master under
writes.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
import redis
import redis.cluster
import redis.sentinel
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import engine_service_pb2_grpc, game_pb2

from engine_service.devtools.local import local_service, redis_cluster, redis_sentinel
from engine_service.store.connect import parse_target
from engine_service.store.keys import game_key
from tests.conftest import UNTIMED
from tests.service.clock_helpers import (
    clock,
    create_clocked,
    end_game,
    is_expiry,
    wait_for_expiry,
)
from tests.service.rpc_helpers import HUMAN, RANDOM, tokens_of
from tests.service.test_service_basics import (  # noqa: F401 - run again on each backend
    test_all_bot_game_is_played_to_the_end_by_the_timer_loop,
    test_create_returns_tokens_for_human_seats_only,
    test_one_human_plays_a_whole_game_against_bots,
)
from tests.service.test_service_request_ids import (  # noqa: F401 - run again on each backend
    test_a_create_id_reused_for_another_request_is_refused,
    test_a_repeated_create_returns_the_first_game_and_creates_no_other,
    test_identical_creates_at_once_make_one_game,
    test_identical_submits_at_once_all_get_the_one_reply,
    test_redis_holds_neither_the_tokens_nor_the_request_id,
)
from tests.service.test_service_watch import (  # noqa: F401 - run again on each backend
    test_a_finished_game_ends_the_stream_with_its_outcome,
    test_events_only_watch_sends_no_views,
    test_every_viewer_receives_exactly_its_events_and_views,
)

pytestmark = pytest.mark.service

PASSWORD = "s3cret"
BACKENDS: dict[str, Callable[..., Any]] = {"cluster": redis_cluster, "sentinel": redis_sentinel}
SPREAD_GAMES = 96
"""Games created in a row: each master of three should get a third of them, give or take 15 %
(the slot groups they are given lie spread along the slots, keys.GROUP_STRIDE)."""
FOUR_HUMANS = api.CreateGameRequest(game_type="hearts", seats=[HUMAN] * 4)
FAILOVER_SECONDS = 30.0
"""How long the service may take to write again after its master was killed (a bound)."""


def sync_client(url: str) -> Any:
    """A blocking redis-py client of the Redis ``url`` names, for looking at stored bytes."""
    target = parse_target(url)
    options = {k: v for k, v in target.options.items() if k != "db"}
    if target.kind == "cluster":
        nodes = [redis.cluster.ClusterNode(host, port) for host, port in target.nodes]
        return redis.cluster.RedisCluster(startup_nodes=nodes, **options)
    sentinel = redis.sentinel.Sentinel(list(target.nodes))
    return sentinel.master_for(target.service, **options)


@pytest.fixture(scope="module", params=sorted(BACKENDS))
def redis_url(request: pytest.FixtureRequest) -> Iterator[str]:
    with BACKENDS[request.param](password=PASSWORD) as url:
        yield url


@pytest.fixture(scope="module")
def redis_client(redis_url: str) -> Iterator[Any]:
    client = sync_client(redis_url)
    yield client
    client.close()


@pytest.fixture(scope="module")
def engine_address(redis_url: str) -> Iterator[str]:
    with local_service(redis_url, bot_seconds_per_call=UNTIMED) as address:
        yield address


@pytest.fixture(scope="module")
def channel(engine_address: str) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(engine_address) as chan:
        yield chan


@pytest.fixture(scope="module")
def stub(channel: grpc.Channel) -> Any:
    return engine_service_pb2_grpc.EngineServiceStub(channel)


def test_games_spread_evenly_over_the_masters_and_are_listed_together(
    stub: Any, redis_client: Any
) -> None:
    made = [stub.CreateGame(FOUR_HUMANS).game_id for _ in range(SPREAD_GAMES)]
    if isinstance(redis_client, redis.cluster.RedisCluster):
        per_master = Counter(redis_client.get_node_from_key(game_key(game)).name for game in made)
        masters = {node.name for node in redis_client.get_primaries()}
        assert set(per_master) == masters
        assert max(per_master.values()) <= 1.15 * SPREAD_GAMES / len(masters), per_master
    listed: set[str] = set()
    request = api.ListGamesRequest(page_size=50)
    for _ in range(SPREAD_GAMES):
        page = stub.ListGames(request)
        listed |= {game.game_id for game in page.games}
        if not page.next_page_token:
            break
        request.page_token = page.next_page_token
    assert set(made) <= listed


def test_turn_clocks_fire_from_the_timer_loop(stub: Any) -> None:
    games = [
        create_clocked(
            stub, [HUMAN, RANDOM, RANDOM, RANDOM], clock(100, game_pb2.EXPIRY_ACTION_BOT_HEURISTIC)
        )
        for _ in range(4)
    ]
    for created in games:
        expiry = wait_for_expiry(stub, created.game_id, 0, tokens_of(created)[0])
        assert is_expiry(expiry)
        end_game(stub, created)


def _master_pid(url: str) -> int:
    client = sync_client(url)
    try:
        return int(client.info("server")["process_id"])
    finally:
        client.close()


class Writer(threading.Thread):
    """Creates games one after another, keeping each call's status and acknowledged ids."""

    def __init__(self, stub: Any) -> None:
        super().__init__(daemon=True)
        self.stub = stub
        self.stop = threading.Event()
        self.codes: list[grpc.StatusCode] = []
        self.acknowledged: list[str] = []

    def run(self) -> None:
        deadline = time.monotonic() + 2 * FAILOVER_SECONDS
        while not self.stop.is_set() and time.monotonic() < deadline:
            try:
                created = self.stub.CreateGame(FOUR_HUMANS, timeout=5)
            except grpc.RpcError as error:
                self.codes.append(error.code())  # type: ignore[attr-defined]
                time.sleep(0.02)
                continue
            self.codes.append(grpc.StatusCode.OK)
            self.acknowledged.append(created.game_id)

    def wait_for_oks(self, count: int, since: int = 0) -> None:
        """Until the last ``count`` calls after call ``since`` all succeeded (bounded)."""
        deadline = time.monotonic() + FAILOVER_SECONDS
        while True:
            after = self.codes[since:]
            if len(after) >= count and after[-count:] == [grpc.StatusCode.OK] * count:
                return
            assert time.monotonic() < deadline, f"no recovery: {after[-5:]}"
            time.sleep(0.05)


@pytest.mark.parametrize("wait_replicas", [0, 1])
def test_a_sentinel_failover_is_unavailable_then_ok(wait_replicas: int) -> None:
    """kill -9 the master mid-writes: calls fail UNAVAILABLE, never INTERNAL, until the
    sentinels promote a replica; then they succeed, and with WAIT no acknowledged game is lost."""
    with (
        redis_sentinel(password=PASSWORD, replicas=2) as url,
        local_service(url, redis_wait_replicas=wait_replicas) as address,
        grpc.insecure_channel(address) as chan,
    ):
        stub = engine_service_pb2_grpc.EngineServiceStub(chan)
        writer = Writer(stub)
        writer.start()
        try:
            writer.wait_for_oks(20)
            os.kill(_master_pid(url), signal.SIGKILL)
            killed, at_kill = time.monotonic(), len(writer.codes)
            # The sentinels wait a second before they call the master down: calls fail first.
            while grpc.StatusCode.UNAVAILABLE not in writer.codes[at_kill:]:
                assert time.monotonic() < killed + FAILOVER_SECONDS, "no call failed"
                time.sleep(0.05)
            writer.wait_for_oks(20, at_kill)
            recovered = time.monotonic() - killed
        finally:
            writer.stop.set()
            writer.join(FAILOVER_SECONDS)
        codes = set(writer.codes)
        assert codes <= {grpc.StatusCode.OK, grpc.StatusCode.UNAVAILABLE}, codes
        lost = [
            game_id
            for game_id in writer.acknowledged
            if failure_of_view(stub, game_id) == grpc.StatusCode.NOT_FOUND
        ]
    print(
        f"\nfailover wait_replicas={wait_replicas}: {len(writer.acknowledged)} acknowledged, "
        f"{len(lost)} lost, {writer.codes.count(grpc.StatusCode.UNAVAILABLE)} UNAVAILABLE, "
        f"writing again {recovered:.1f} s after the kill"
    )
    if wait_replicas:
        assert not lost


def failure_of_view(stub: Any, game_id: str) -> grpc.StatusCode:
    """The code of GetGame of ``game_id`` (OK when it is there)."""
    try:
        stub.GetGame(api.GetGameRequest(game_id=game_id), timeout=5)
    except grpc.RpcError as error:
        return error.code()  # type: ignore[attr-defined,no-any-return]
    return grpc.StatusCode.OK
