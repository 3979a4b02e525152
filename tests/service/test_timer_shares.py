"""The timer loops divide the due index among themselves, and take over from one that stops.

On a real Redis, and on a real three-master cluster: every group's due entries are read by
exactly one of the running loops; a loop that leaves hands its groups over at once, one that
dies (stops renewing) after its place lapses; and a due game found through the shares is
the same as through the whole index.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from engine_service.devtools.local import redis_cluster
from engine_service.store.keys import (
    GROUPS,
    due_key,
    group_of,
    list_key,
    list_member,
    new_game_id,
)
from engine_service.store.protocol import WHOLE, TimerShare
from engine_service.store.redis_store import RedisGameStore

pytestmark = pytest.mark.service

LAPSE_MS = 600
TTL = 60


def groups_of(share: TimerShare) -> set[int]:
    return set(range(share.index, GROUPS, share.count))


async def shares_of(store: RedisGameStore, members: list[str]) -> list[TimerShare]:
    return [await store.timer_share(member, LAPSE_MS) for member in members]


def test_running_loops_read_disjoint_shares_that_cover_every_group(own_url: str) -> None:
    async def run() -> None:
        store = RedisGameStore.from_url(own_url, TTL)
        members = [f"loop-{time.monotonic_ns()}-{n}" for n in range(3)]
        try:
            await shares_of(store, members)
            shares = await shares_of(store, members)
            assert sorted(share.index for share in shares) == [0, 1, 2]
            assert {share.count for share in shares} == {3}
            covered = [groups_of(share) for share in shares]
            assert set().union(*covered) == set(range(GROUPS))
            assert sum(map(len, covered)) == GROUPS

            await store.leave_timers(members[0])
            left = await shares_of(store, members[1:])
            assert sorted(share.index for share in left) == [0, 1]
            assert {share.count for share in left} == {2}

            await asyncio.sleep(LAPSE_MS / 1000 + 0.2)  # members[2] stops renewing
            assert await store.timer_share(members[1], LAPSE_MS) == WHOLE
        finally:
            for member in members:
                await store.leave_timers(member)
            await store.client.aclose()

    asyncio.run(run())


def test_every_due_game_is_found_by_exactly_one_share(own_url: str) -> None:
    async def run() -> None:
        store = RedisGameStore.from_url(own_url, TTL)
        games = [new_game_id() for _ in range(200)]
        try:
            for index, game in enumerate(games):
                await store.client.zadd(due_key(group_of(game)), {game: 1000 + index})
            whole = await store.due_games(10_000, len(games) + 1)
            # earliest first, with when, across every group and node
            assert whole == [(game, 1000 + index) for index, game in enumerate(games)]
            found = [
                await store.due_games(10_000, len(games) + 1, TimerShare(index, 3))
                for index in range(3)
            ]
            assert sorted(game for part in found for game, _ in part) == sorted(games)
            assert all(len(part) > len(games) / 5 for part in found)
            assert [game for game, _ in await store.due_games(1000 + 9, 100)] == games[:10]
        finally:
            for game in games:
                await store.drop_due(game)
            await store.client.aclose()

    asyncio.run(run())


def test_reads_stay_exact_while_a_slot_moves_between_masters() -> None:
    """A due entry and a list entry in a slot half-way through a migration (MIGRATING on its
    old master, IMPORTING on the new one, the keys already moved) are still found once."""

    async def run(url: str) -> None:
        store = RedisGameStore.from_url(url, TTL)
        client = store.client
        try:
            game = new_game_id()
            group = group_of(game)
            due, listed = due_key(group), list_key(group, "waiting")
            await client.zadd(due, {game: 5})
            await client.zadd(listed, {list_member(7, game): 0})
            source = client.get_node_from_key(due)
            target = next(node for node in client.get_primaries() if node != source)
            slot = client.keyslot(due)
            ids = {}
            for node in (source, target):
                ids[node.name] = await client.execute_command("CLUSTER MYID", target_nodes=node)
            await client.execute_command(
                "CLUSTER SETSLOT", slot, "IMPORTING", ids[source.name], target_nodes=target
            )
            await client.execute_command(
                "CLUSTER SETSLOT", slot, "MIGRATING", ids[target.name], target_nodes=source
            )
            await client.execute_command(
                "MIGRATE",
                target.host,
                target.port,
                "",
                0,
                5000,
                "KEYS",
                due,
                listed,
                target_nodes=source,
            )
            assert await store.due_games(10, 10) == [(game, 5)]
            assert await store.listed_before(["waiting"], None, 10) == [list_member(7, game)]
        finally:
            await client.aclose()

    with redis_cluster(masters=3, replicas=0) as url:
        asyncio.run(run(url))
