"""Move games stored under the earlier key schema (16 slot groups) to the current one.

Run with the engine stopped (no process writing), against the same ``REDIS_URL``::

    python -m engine_service.store.migrate --redis-url redis://127.0.0.1:6379/0

The earlier schema tagged every key ``{s00}`` to ``{s15}`` by ``crc32(game id) % 16``;
:mod:`~.keys` describes the current one. Each game's hash, log and event stream are copied
to their new names (``DUMP``/``RESTORE``, expiry kept: on a cluster the new names live in
other slots, so ``RENAME`` cannot move them), its hash learns which list and due entry it
has (``l``, ``d``), its index entries are added in its new group, and only then are the old
keys and entries deleted. A run that stops half-way leaves every game whole under its old
names or its new ones (or both, old winning), so running it again finishes the job. The
sealed replies of CreateGame request ids move the same way.
"""

from __future__ import annotations

import argparse
import asyncio
import zlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Final

from redis.asyncio.cluster import RedisCluster

from engine_service.store.connect import Client, open_client, parse_target
from engine_service.store.keys import (
    LIST_STATES,
    due_key,
    events_key,
    game_key,
    group_of,
    list_key,
    log_key,
    request_key,
)
from engine_service.store.url_secrets import redacted

LEGACY_GROUPS: Final = 16
LEGACY_PATTERN: Final = "ce:{s[0-9][0-9]}:*"
SCAN_COUNT: Final = 1000


def legacy_tag(game_id: str) -> str:
    """The earlier key prefix of a game (the earlier schema's own examples: groups 0 and 3).

    >>> legacy_tag("0" * 32), legacy_tag("x")
    ('ce:{s00}', 'ce:{s03}')
    """
    return f"ce:{{s{zlib.crc32(game_id.encode()) % LEGACY_GROUPS:02d}}}"


def legacy_game_keys(game_id: str) -> tuple[str, str, str]:
    """The earlier names of a game's hash, log and event stream."""
    tag = legacy_tag(game_id)
    return f"{tag}:{game_id}:game", f"{tag}:{game_id}:log", f"{tag}:{game_id}:events"


def legacy_due_key(group: int) -> str:
    """The earlier due index of a group."""
    return f"ce:{{s{group:02d}}}:due"


def legacy_list_key(group: int, state: str) -> str:
    """The earlier list index of a group and state."""
    return f"ce:{{s{group:02d}}}:list:{state}"


@dataclass
class Moved:
    """What a run moved."""

    games: int = 0
    replies: int = 0
    due: int = 0
    listed: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LIST_STATES, 0))


@dataclass
class _Legacy:
    """The earlier indexes, read whole: each game's list entry and due time."""

    listed: dict[str, tuple[str, str]] = field(default_factory=dict)
    due: dict[str, float] = field(default_factory=dict)


async def _scan(client: Client, pattern: str) -> AsyncIterator[str]:
    """Every key matching ``pattern``, on every master of a cluster."""
    nodes: list[Any] = client.get_primaries() if isinstance(client, RedisCluster) else [None]
    for node in nodes:
        target = {} if node is None else {"target_nodes": node}
        cursor = 0
        while True:
            cursor, found = await client.execute_command(
                "SCAN", cursor, "MATCH", pattern, "COUNT", SCAN_COUNT, **target
            )
            for key in found:
                yield key.decode() if isinstance(key, bytes) else key
            if int(cursor) == 0:
                break


async def _read_legacy_indexes(client: Client) -> _Legacy:
    legacy = _Legacy()
    for group in range(LEGACY_GROUPS):
        for state in LIST_STATES:
            members: list[Any] = await client.zrange(legacy_list_key(group, state), 0, -1)
            for member in members:
                text = member.decode()
                legacy.listed[text.partition(":")[2]] = (state, text)
        due: list[Any] = await client.zrange(legacy_due_key(group), 0, -1, withscores=True)
        for member, score in due:
            legacy.due[member.decode()] = float(score)
    return legacy


async def _copy(client: Client, old: str, new: str) -> bool:
    """DUMP ``old`` and RESTORE it as ``new`` with the same expiry; whether it existed."""
    dumped = await client.dump(old)
    if dumped is None:
        return False
    remaining = max(int(await client.pttl(old)), 0)
    await client.restore(new, remaining, dumped, replace=True)
    return True


async def _move_game(client: Client, game_id: str, legacy: _Legacy, moved: Moved) -> None:
    old = legacy_game_keys(game_id)
    new = (game_key(game_id), log_key(game_id), events_key(game_id))
    if not await _copy(client, old[0], new[0]):
        return
    for old_key, new_key in zip(old[1:], new[1:], strict=True):
        await _copy(client, old_key, new_key)
    group = group_of(game_id)
    listed = legacy.listed.get(game_id)
    if listed is not None:
        state, member = listed
        await client.zadd(list_key(group, state), {member: 0})
        await client.hset(new[0], "l", str(5 + LIST_STATES.index(state)))
        moved.listed[state] += 1
    due = legacy.due.get(game_id)
    if due is not None:
        await client.zadd(due_key(group), {game_id: due})
        await client.hset(new[0], "d", str(int(due)))
        moved.due += 1
    await client.delete(*old)
    moved.games += 1


async def _drop_legacy_indexes(client: Client) -> None:
    for group in range(LEGACY_GROUPS):
        keys = [legacy_list_key(group, state) for state in LIST_STATES]
        await client.delete(legacy_due_key(group), *keys)


async def migrate(client: Client) -> Moved:
    """Move every game, index entry and request reply of the earlier schema."""
    moved = Moved()
    legacy = await _read_legacy_indexes(client)
    async for key in _scan(client, LEGACY_PATTERN):
        if key.endswith(":game"):
            await _move_game(client, key.split(":")[2], legacy, moved)
        elif ":req:" in key:
            digest = bytes.fromhex(key.rpartition(":")[2])
            if await _copy(client, key, request_key(digest)[1]):
                await client.delete(key)
                moved.replies += 1
    await _drop_legacy_indexes(client)
    return moved


async def _main(url: str) -> Moved:
    client = open_client(parse_target(url), max_connections=4)
    try:
        return await migrate(client)
    finally:
        await client.aclose()


def main() -> None:
    """Migrate the Redis that ``--redis-url`` names, and say what moved."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redis-url", required=True, help="the REDIS_URL the engine uses")
    url = parser.parse_args().redis_url
    moved = asyncio.run(_main(url))
    print(
        f"{redacted(url)}: moved {moved.games} games ({moved.due} due, listed "
        + ", ".join(f"{count} {state}" for state, count in moved.listed.items())
        + f") and {moved.replies} request replies to the current key schema"
    )


if __name__ == "__main__":
    main()
