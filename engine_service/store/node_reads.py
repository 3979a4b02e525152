"""Reads that span the slot groups, one script per Redis node instead of one command per group.

The timer loop and ListGames read an index of every group (:mod:`~.keys`): 1,024 sorted
sets. One command each would cost the engine a pipeline of a thousand commands per look,
and Redis a thousand parses. Instead each node runs one read-only script over the groups it
serves (``allow-cross-slot-keys``: every key it reads is local to that node) and returns
what it found merged, so a look costs one call per master, and Redis about a microsecond per
group.

A node may refuse (a slot moving between masters during a resharding, so a key is not local
any more; an older Redis without script flags): its groups are then read one command each
through the client, which follows the cluster's redirections, so the answer stays exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.crc import key_slot
from redis.exceptions import NoScriptError, ResponseError

from engine_service.store.connect import Client

DUE_SCRIPT: Final = """#!lua flags=no-writes,allow-cross-slot-keys
-- The due entries (score <= ARGV[1]) of the indexes ARGV[3..], at most ARGV[2] of them,
-- earliest first, as member, score, member, score...
local limit = tonumber(ARGV[2])
local found = {}
for i = 3, #ARGV do
  local part = redis.call(
    'ZRANGEBYSCORE', ARGV[i], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, limit)
  for j = 1, #part, 2 do
    found[#found + 1] = {part[j], tonumber(part[j + 1])}
  end
end
table.sort(found, function(a, b) return a[2] < b[2] end)
local out = {}
for i = 1, math.min(limit, #found) do
  out[#out + 1] = found[i][1]
  out[#out + 1] = tostring(found[i][2])
end
return out
"""

LIST_SCRIPT: Final = """#!lua flags=no-writes,allow-cross-slot-keys
-- The greatest ARGV[2] members below ARGV[1] ('+' or '(member') of the sorted sets
-- ARGV[3..] (all scored 0), greatest first. Each set is read a chunk at a time, and only
-- while its unread members might still belong in the answer: once as many members as asked
-- for are above every open set's last read one, nothing unread can outrank them.
local count = tonumber(ARGV[2])
local chunk = math.max(2, math.ceil(2 * count / math.max(1, #ARGV - 2)))
local found, last, open = {}, {}, {}
for i = 3, #ARGV do open[i] = true end
while true do
  local floor = nil
  for i = 3, #ARGV do
    if open[i] then
      local top = last[i] and ('(' .. last[i]) or ARGV[1]
      local part = redis.call('ZREVRANGEBYLEX', ARGV[i], top, '-', 'LIMIT', 0, chunk)
      for _, member in ipairs(part) do found[#found + 1] = member end
      if #part < chunk then
        open[i] = false
      else
        last[i] = part[#part]
        if floor == nil or last[i] > floor then floor = last[i] end
      end
    end
  end
  if floor == nil then break end
  local above = 0
  for _, member in ipairs(found) do
    if member >= floor then above = above + 1 end
  end
  if above >= count then break end
  chunk = chunk * 2
end
table.sort(found, function(a, b) return a > b end)
local out = {}
for i = 1, math.min(count, #found) do out[i] = found[i] end
return out
"""


class NodeReads:
    """The due and list reads over many groups' keys, a script per node that serves them."""

    def __init__(self, client: Client) -> None:
        self._client = client
        self._scripts = {DUE_SCRIPT: "", LIST_SCRIPT: ""}

    async def due(self, keys: Sequence[str], until_ms: int, limit: int) -> list[tuple[str, int]]:
        """At most ``limit`` members due by ``until_ms`` in ``keys``, with when, earliest first."""
        found: list[tuple[float, str]] = []
        for node, part in self._by_node(keys).items():
            try:
                flat = await self._run(node, DUE_SCRIPT, [until_ms, limit, *part])
                pairs = zip(flat[::2], flat[1::2], strict=True)
                found += ((float(score), _text(member)) for member, score in pairs)
            except ResponseError:
                found += await self._due_per_key(part, until_ms, limit)
        return [(member, int(score)) for score, member in sorted(found)[:limit]]

    async def greatest(self, keys: Sequence[str], top: str, count: int) -> list[str]:
        """The greatest ``count`` members below ``top`` (``+`` or ``(<member>``) of ``keys``."""
        found: list[str] = []
        for node, part in self._by_node(keys).items():
            try:
                found += map(_text, await self._run(node, LIST_SCRIPT, [top, count, *part]))
            except ResponseError:
                found += await self._greatest_per_key(part, top, count)
        return sorted(found, reverse=True)[:count]

    def _by_node(self, keys: Sequence[str]) -> dict[ClusterNode | None, list[str]]:
        """The keys each node serves, by the client's slot map (one node off a cluster)."""
        if not isinstance(self._client, RedisCluster):
            return {None: list(keys)}
        manager = self._client.nodes_manager
        nodes: dict[ClusterNode | None, list[str]] = {}
        for key in keys:
            node = manager.get_node_from_slot(key_slot(key.encode()))
            nodes.setdefault(node, []).append(key)
        return nodes

    async def _run(self, node: ClusterNode | None, script: str, args: list[Any]) -> Any:
        """EVALSHA on ``node`` with no declared keys; loads the script once where missing."""
        target = {} if node is None else {"target_nodes": node}
        for _ in range(2):
            sha = self._scripts[script] or await self._load(script)
            try:
                return await self._client.execute_command("EVALSHA", sha, 0, *args, **target)
            except NoScriptError:
                await self._load(script)
        raise NoScriptError("the script was not kept")  # pragma: no cover

    async def _load(self, script: str) -> str:
        sha = str(await self._client.script_load(script))
        self._scripts[script] = sha
        return sha

    async def _due_per_key(
        self, keys: Sequence[str], until_ms: int, limit: int
    ) -> list[tuple[float, str]]:
        async with self._client.pipeline(transaction=False) as pipe:
            for key in keys:
                pipe.zrangebyscore(key, "-inf", until_ms, 0, limit, withscores=True)
            parts: list[list[tuple[Any, float]]] = await pipe.execute()
        return [(score, _text(member)) for part in parts for member, score in part]

    async def _greatest_per_key(self, keys: Sequence[str], top: str, count: int) -> list[str]:
        async with self._client.pipeline(transaction=False) as pipe:
            for key in keys:
                pipe.zrevrangebylex(key, top, "-", 0, count)
            parts: list[list[Any]] = await pipe.execute()
        return [_text(member) for part in parts for member in part]


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
