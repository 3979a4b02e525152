"""Games stored under the earlier key schema (16 slot groups) are moved by the migrate command.

Games of all three types are played part-way on the current schema, then laid out as the
earlier schema stored them (its key names, its indexes, no ``l``/``d``/``x`` fields), which
the service no longer finds. After ``python -m engine_service.store.migrate`` every game is
found again, plays on, replays from its log to its snapshot, is listed once and keeps its
turn clock; no key of the earlier schema is left.
"""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
import redis
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import engine_service_pb2_grpc, game_pb2

from bench.consistency import check_game
from engine_service.devtools.local import local_service, redis_server
from engine_service.store import keys, migrate
from tests.conftest import UNTIMED
from tests.service.clock_helpers import clock, create_clocked
from tests.service.rpc_helpers import (
    HUMAN,
    RANDOM,
    create,
    failure_of,
    play_randomly,
    tokens_of,
    view,
)

pytestmark = pytest.mark.service

SEATS = {"hearts": 4, "guandan": 4, "klaberjass": 2}
MOVES = 6


@pytest.fixture(scope="module")
def service() -> Iterator[tuple[str, redis.Redis]]:
    with redis_server() as url, local_service(url, bot_seconds_per_call=UNTIMED) as address:
        client = redis.Redis.from_url(url)
        yield address, client
        client.close()


@pytest.fixture(scope="module")
def stub(service: tuple[str, redis.Redis]) -> Iterator[Any]:
    with grpc.insecure_channel(service[0]) as channel:
        yield engine_service_pb2_grpc.EngineServiceStub(channel)


def to_legacy(client: redis.Redis, game_id: str) -> None:
    """Lay a stored game out as the earlier schema did: its names and indexes, no l/d/x."""
    game = keys.game_key(game_id)
    group = keys.group_of(game_id)
    for new, old in zip(
        (game, keys.log_key(game_id), keys.events_key(game_id)),
        migrate.legacy_game_keys(game_id),
        strict=True,
    ):
        if client.exists(new):
            client.rename(new, old)
    legacy_group = int(migrate.legacy_tag(game_id)[5:7])
    due = client.zscore(keys.due_key(group), game_id)
    if due is not None:
        client.zrem(keys.due_key(group), game_id)
        client.zadd(migrate.legacy_due_key(legacy_group), {game_id: due})
    for state in keys.LIST_STATES:
        for member in client.zrange(keys.list_key(group, state), 0, -1):
            if keys.game_of_member(member) == game_id:
                client.zrem(keys.list_key(group, state), member)
                client.zadd(migrate.legacy_list_key(legacy_group, state), {member: 0})
    client.hdel(migrate.legacy_game_keys(game_id)[0], "l", "d", "x")


def listed_ids(stub: Any) -> list[str]:
    found: list[str] = []
    request = api.ListGamesRequest(page_size=7)
    for _ in range(50):
        page = stub.ListGames(request)
        found += [game.game_id for game in page.games]
        if not page.next_page_token:
            return found
        request.page_token = page.next_page_token
    raise AssertionError("listing did not end")


def test_legacy_names_are_the_earlier_schemas() -> None:
    # The earlier keys module's own examples: group_of("0" * 32) == 0, group_of("x") == 3.
    assert migrate.legacy_game_keys("0" * 32)[0] == f"ce:{{s00}}:{'0' * 32}:game"
    assert migrate.legacy_due_key(3) == "ce:{s03}:due"
    assert migrate.legacy_list_key(15, "over") == "ce:{s15}:list:over"


def test_games_of_every_type_mid_play_are_migrated(
    stub: Any, service: tuple[str, redis.Redis]
) -> None:
    client = service[1]
    rng = random.Random(3)
    games: dict[str, str] = {}
    for game_type, seats in SEATS.items():
        created = create(stub, [HUMAN] + [RANDOM] * (seats - 1), seed=11, game_type=game_type)
        play_randomly(stub, created.game_id, 0, tokens_of(created)[0], rng, MOVES)
        games[created.game_id] = tokens_of(created)[0]
    policy = clock(600_000, game_pb2.EXPIRY_ACTION_BOT_HEURISTIC)
    timed = create_clocked(stub, [HUMAN, RANDOM, RANDOM, RANDOM], policy, seed=4)
    games[timed.game_id] = tokens_of(timed)[0]
    due_before = client.zscore(keys.due_key(keys.group_of(timed.game_id)), timed.game_id)
    assert due_before is not None
    versions = {game_id: view(stub, game_id).version for game_id in games}
    for game_id in games:
        to_legacy(client, game_id)
        assert failure_of(lambda g=game_id: view(stub, g)).code == grpc.StatusCode.NOT_FOUND

    done = subprocess.run(
        [sys.executable, "-m", "engine_service.store.migrate", "--redis-url", url_of(client)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert f"moved {len(games)} games (1 due" in done.stdout

    assert not list(client.scan_iter(migrate.LEGACY_PATTERN))
    assert client.zscore(keys.due_key(keys.group_of(timed.game_id)), timed.game_id) == due_before
    listed = listed_ids(stub)
    for game_id, token in games.items():
        assert listed.count(game_id) == 1
        assert view(stub, game_id).version == versions[game_id]
        assert check_game(client, game_id) == []
        play_randomly(stub, game_id, 0, token, rng, 2)
        assert view(stub, game_id).version > versions[game_id]
        assert check_game(client, game_id) == []


def url_of(client: redis.Redis) -> str:
    kwargs = client.connection_pool.connection_kwargs
    return f"redis://{kwargs['host']}:{kwargs['port']}/{kwargs.get('db', 0)}"
