"""Games in Redis, and the indexes across them, written by one Lua script per move.

Each game has a hash, a list for its log and a stream of its versions' events; the key
schema is in :mod:`engine_service.store.keys`.

Keeping the replies in the game's hash lets a move be loaded with one plain ``HMGET`` (version,
snapshot and the request's reply), and they expire with the game. Writes go through
:file:`save.lua`, a single round trip that checks the version and writes everything or
nothing, the game's index entries included. Every write refreshes the expiry of the game's
three keys; index entries of expired games are dropped when a reader meets them.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from typing import Any, Final, cast

import redis.asyncio as redis
from redis.exceptions import NoScriptError, RedisError

from engine_service.core.errors import GameNotFound, VersionConflict
from engine_service.store.connect import (
    Client,
    PackedConnection,
    ReplicasBehind,
    node_target,
    open_client,
    parse_target,
)
from engine_service.store.due_notices import notice
from engine_service.store.failures import storage_trouble
from engine_service.store.gate import WriteGate
from engine_service.store.keys import (
    CHECKPOINT_EVERY,
    DUE_CHANNEL,
    GROUPS,
    LIST_STATES,
    TIMERS_KEY,
    checkpoint_bucket,
    due_key,
    events_key,
    game_key,
    game_of_member,
    group_of,
    list_key,
    list_member,
    log_key,
    new_game_id,
    request_key,
    stream_id,
    version_of_stream_id,
)
from engine_service.store.node_reads import NodeReads
from engine_service.store.outage_log import OutageLog
from engine_service.store.protocol import (
    WHOLE,
    FirstReply,
    GameSummary,
    Listing,
    NewVersion,
    RequestReplayed,
    StoredGame,
    StoredVersion,
    TimerShare,
)

SAVE_SCRIPT: Final = resources.files(__package__).joinpath("save.lua").read_text()
CREATE_SCRIPT: Final = resources.files(__package__).joinpath("create.lua").read_text()
CLAIM_SCRIPT: Final = """
local due = redis.call('ZSCORE', KEYS[1], ARGV[1])
if due and tonumber(due) <= tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  if redis.call('EXISTS', KEYS[2]) == 1 then
    redis.call('HSET', KEYS[2], 'd', ARGV[3])
  end
  return 1
end
return 0
"""
"""KEYS: the due index, the game's hash (its ``d`` mirrors its due entry); ARGV: game id,
now, the lease's end (all ms)."""
TIMERS_SCRIPT: Final = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
local members = redis.call('ZRANGE', KEYS[1], 0, -1)
table.sort(members)
for i, member in ipairs(members) do
  if member == ARGV[1] then
    return {i - 1, #members}
  end
end
"""
"""KEYS: the timer loops' set; ARGV: this loop's name, how long its place lasts (ms). Drops
the lapsed, renews this one, and returns its rank among the names and their number."""
EXPIRY_REFRESH: Final = 100
"""A write sets its game's expiry again once 1/100 of the TTL has passed since the last time,
not on every move (three EXPIREs per move renewed an expiry that lay days ahead)."""
DEFAULT_EVENT_RETENTION: Final = 10_000
"""Versions of events kept per game: a whole Hearts game or a long Guandan match."""
_SUMMARY_FIELDS: Final = ["v", "s", "t", "n"]
DEFAULT_WAIT_MILLISECONDS: Final = 1000
"""How long a write waits for its replicas (``wait_replicas``) before it is reported
unavailable."""
__all__ = ["PackedConnection", "RedisGameStore"]


def stored_version(entry_id: bytes | str, fields: dict[bytes, bytes]) -> StoredVersion:
    """A stream entry as a :class:`StoredVersion`."""
    return StoredVersion(version_of_stream_id(entry_id), fields[b"a"], fields[b"e"])


def _reply_field(request_key: str) -> str:
    return f"r:{request_key}"


def _list_position(state: str) -> int:
    """Where the scripts find the list index of ``state`` among their keys (5, 6 or 7)."""
    return 5 + LIST_STATES.index(state)


def _index_keys(game_id: str) -> list[str]:
    group = group_of(game_id)
    return [due_key(group), *(list_key(group, state) for state in LIST_STATES)]


def _summary(game_id: str, values: Sequence[Any]) -> GameSummary | None:
    version, snapshot, updated, rematch = values
    if version is None or snapshot is None:
        return None
    return GameSummary(
        game_id=game_id,
        snapshot=snapshot,
        version=int(version),
        updated_ms=int(updated or 0),
        rematch_id=(rematch or b"").decode(),
    )


class RedisGameStore:
    """The game store and index (:mod:`engine_service.store.protocol`) over one Redis.

    With ``wait_replicas`` each save is followed, on the same connection, by ``WAIT
    wait_replicas wait_milliseconds``: a move is acknowledged only once that many replicas
    have it, so a failover does not lose it. A write that fewer replicas confirm in time
    raises :class:`~engine_service.store.connect.ReplicasBehind` (UNAVAILABLE: it may or may
    not survive a failover; a retry with the same request id is safe).

    A write that leaves its game due within ``notice_ms`` of now (the timer loops' time
    between looks) also announces it to them (:mod:`~engine_service.store.due_notices`).
    """

    def __init__(
        self,
        client: Client,
        ttl_seconds: int,
        event_retention: int = DEFAULT_EVENT_RETENTION,
        wait_replicas: int = 0,
        wait_milliseconds: int = DEFAULT_WAIT_MILLISECONDS,
        notice_ms: int = 0,
    ) -> None:
        # A RedisCluster has the same commands; redis-py types its replies more loosely
        # (bytes or str), so the store reads both as the plain client's.
        self.client = cast("redis.Redis", client)
        self.gate = WriteGate()
        self._ttl = ttl_seconds
        self._retention = event_retention
        self._wait = (wait_replicas, wait_milliseconds)
        self._notice_ms = notice_ms
        self._notices = OutageLog("due notices' publisher")
        self._save = client.register_script(SAVE_SCRIPT)
        self._create = client.register_script(CREATE_SCRIPT)
        self._claim = client.register_script(CLAIM_SCRIPT)
        self._timers = client.register_script(TIMERS_SCRIPT)
        self._across = NodeReads(client)

    @classmethod
    def from_url(
        cls,
        url: str,
        ttl_seconds: int,
        event_retention: int = DEFAULT_EVENT_RETENTION,
        max_connections: int = 64,
        wait_replicas: int = 0,
        wait_milliseconds: int = DEFAULT_WAIT_MILLISECONDS,
        notice_ms: int = 0,
    ) -> RedisGameStore:
        """A store with its own connection pool, for any URL :mod:`~.connect` reads."""
        client = open_client(parse_target(url), max_connections)
        return cls(
            client, ttl_seconds, event_retention, wait_replicas, wait_milliseconds, notice_ms
        )

    async def create(
        self,
        game_id: str,
        origin: bytes,
        snapshot: bytes,
        moves: Sequence[NewVersion],
        listing: Listing,
        first_reply: FirstReply | None = None,
    ) -> int:
        """Store a new game through :file:`create.lua` (ids are random: nothing collides).

        Raises RequestReplayed when ``first_reply``'s key already holds a reply.
        """
        self.gate.check()
        version = 1 + len(moves)
        group = group_of(game_id)
        keys = [game_key(game_id), log_key(game_id), events_key(game_id), due_key(group)]
        keys.append(list_key(group, listing.state))
        if first_reply is not None:
            reply_group, reply_key = request_key(first_reply.digest)
            if reply_group != group:
                raise ValueError("the game id must come from new_game_id of the request")
            keys.append(reply_key)
        bucket = checkpoint_bucket(1, version)
        args: list[Any] = [
            version,
            snapshot,
            origin,
            listing.now_ms,
            self._ttl,
            self._retention,
            game_id,
            "" if listing.due_ms is None else listing.due_ms,
            list_member(listing.created_at_ms, game_id),
            b"" if first_reply is None else first_reply.sealed,
            "" if bucket is None else bucket,
            _list_position(listing.state),
        ]
        for move in moves:
            args += (move.entry, move.events)
        result = await self._create(keys=keys, args=args)
        if result[0] == b"REPLAYED":
            raise RequestReplayed(StoredGame(snapshot=b"", version=0, replay=result[1]))
        await self._announce(game_id, listing)
        return version

    def new_game_id(self, digest: bytes | None = None) -> str:
        """A random id; with a request's digest, one in its reply's slot group."""
        return new_game_id(None if digest is None else request_key(digest)[0])

    async def first_reply(self, digest: bytes) -> bytes | None:
        """One GET of the request's reply key."""
        found: Any = await self.client.get(request_key(digest)[1])
        return None if found is None else bytes(found)

    async def load(self, game_id: str, request_key: str | None = None) -> StoredGame:
        """One command for the game and, when given, the request's remembered reply."""
        fields = ["v", "s"] if request_key is None else ["v", "s", _reply_field(request_key)]
        values: list[Any] = await self.client.hmget(game_key(game_id), fields)
        version, snapshot, *replay = values
        if version is None or snapshot is None:
            raise GameNotFound(f"no game {game_id!r}")
        return StoredGame(
            snapshot=snapshot, version=int(version), replay=replay[0] if replay else None
        )

    async def save(
        self,
        game_id: str,
        expected_version: int,
        snapshot: bytes,
        moves: Sequence[NewVersion],
        listing: Listing,
        request_key: str | None = None,
        reply: bytes = b"",
        announce: bool = True,
    ) -> int:
        """Compare-and-set through :file:`save.lua`."""
        self.gate.check()
        new_version = expected_version + len(moves)
        keys = [game_key(game_id), log_key(game_id), events_key(game_id), *_index_keys(game_id)]
        reply_field = "" if request_key is None else _reply_field(request_key)
        bucket = checkpoint_bucket(expected_version, new_version)
        args: list[Any] = [
            expected_version,
            new_version,
            snapshot,
            self._ttl,
            reply,
            reply_field,
            self._retention,
            game_id,
            list_member(listing.created_at_ms, game_id),
            _list_position(listing.state),
            "" if listing.due_ms is None else listing.due_ms,
            listing.now_ms,
            "" if bucket is None else bucket,
            self._ttl * 1000 // EXPIRY_REFRESH,
        ]
        for move in moves:
            args += (move.entry, move.events)
        result = await (
            self._save_and_wait(keys, args) if self._wait[0] else self._save(keys, args)
        )
        status = result[0]
        if status == b"OK":
            if announce:
                await self._announce(game_id, listing)
            return new_version
        if status == b"MISSING":
            raise GameNotFound(f"no game {game_id!r}")
        if status == b"REPLAYED":
            _, current, replay, now = result
            raise RequestReplayed(StoredGame(snapshot=now, version=int(current), replay=replay))
        raise VersionConflict(expected_version, int(result[1]))

    async def _announce(self, game_id: str, listing: Listing) -> None:
        """Publish a game written due before the timer loops' next look.

        Only after the write, which holds the truth: a notice makes a loop look, and the
        loop claims the game in the due index. A notice that cannot be sent is dropped (the
        next look finds the game), so the write it follows is still answered as done.
        """
        due = listing.due_ms
        if due is None or due >= listing.now_ms + self._notice_ms:
            return
        try:
            await self.client.publish(DUE_CHANNEL, notice(game_id, due))
        except RedisError as error:  # told, not raised: e.g. an ACL user with no channels
            self._notices.failed(storage_trouble(error) or str(error))
        else:
            self._notices.succeeded()

    async def _save_and_wait(self, keys: list[str], args: list[Any]) -> Any:
        """The save script, then ``WAIT``, in one round trip on one connection.

        WAIT counts the replicas that have this connection's writes, so it must follow the
        script on the same connection.
        """
        replicas, milliseconds = self._wait
        for _ in range(2):
            async with self.client.pipeline(transaction=False) as pipe:
                pipe.evalsha(self._save.sha, len(keys), *keys, *args)
                pipe.execute_command(
                    "WAIT", replicas, milliseconds, **node_target(self.client, keys[0])
                )
                result, acknowledged = await pipe.execute(raise_on_error=False)
            if not isinstance(result, NoScriptError):
                break
            await self.client.script_load(SAVE_SCRIPT)
        if isinstance(result, Exception):
            raise result
        if isinstance(acknowledged, Exception):
            raise ReplicasBehind(f"WAIT failed: {acknowledged}")
        if result[0] == b"OK" and int(acknowledged) < replicas:
            raise ReplicasBehind(f"{acknowledged} of {replicas} replicas have the write")
        return result

    async def log(
        self, game_id: str, start: int = 0, stop: int | None = None
    ) -> tuple[StoredGame, list[bytes]]:
        """The game and a slice of its log, read in one transaction so they match."""
        if stop is not None and stop <= start:
            return await self.load(game_id), []
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.hmget(game_key(game_id), ["v", "s"])
            pipe.lrange(log_key(game_id), start, -1 if stop is None else stop - 1)
            (version, snapshot), entries = await pipe.execute()
        if version is None or snapshot is None:
            raise GameNotFound(f"no game {game_id!r}")
        return StoredGame(snapshot=snapshot, version=int(version)), list(entries)

    async def origin(self, game_id: str, stop: int) -> tuple[bytes, list[bytes]]:
        """The created record and the first ``stop`` log entries, in one transaction."""
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.hget(game_key(game_id), "o")
            pipe.lrange(log_key(game_id), 0, stop - 1)
            origin, entries = await pipe.execute()
        if origin is None:
            raise GameNotFound(f"no game {game_id!r}")
        return origin, list(entries) if stop > 0 else []

    async def checkpoint(self, game_id: str, version: int) -> tuple[int, bytes, list[bytes]]:
        """The newest checkpoint at or before ``version`` (else the origin), then LRANGE on.

        Two reads: what they read of the game is never rewritten (checkpoints and log
        entries up to ``version`` stay as written), so they agree; a game that expired in
        between shows as a short log and is reported as gone.
        """
        bucket = version // CHECKPOINT_EVERY
        fields = ["o", f"cv:{bucket}", f"c:{bucket}", f"cv:{bucket - 1}", f"c:{bucket - 1}"]
        values: list[Any] = await self.client.hmget(game_key(game_id), fields)
        origin, *found = values
        if origin is None:
            raise GameNotFound(f"no game {game_id!r}")
        base, record = 1, origin
        for at, snapshot in ((found[0], found[1]), (found[2], found[3])):
            if at is not None and snapshot is not None and int(at) <= version:
                base, record = int(at), snapshot
                break
        if base == version:
            return base, record, []
        entries: list[Any] = await self.client.lrange(log_key(game_id), base - 1, version - 2)
        if len(entries) != version - base:
            raise GameNotFound(f"no game {game_id!r} at version {version}")
        return base, record, list(entries)

    async def versions_after(self, game_id: str, version: int) -> list[StoredVersion]:
        """XRANGE from the next version to the newest."""
        found: Any = await self.client.xrange(events_key(game_id), min=stream_id(version + 1))
        return [stored_version(entry_id, fields) for entry_id, fields in found]

    # -- indexes -------------------------------------------------------------------------

    async def timer_share(self, member: str, lapse_ms: int) -> TimerShare:
        """One script on ``ce:timers``: renew ``member``'s place, rank it among the others."""
        rank, count = await self._timers(keys=[TIMERS_KEY], args=[member, lapse_ms])
        return TimerShare(int(rank), int(count))

    async def leave_timers(self, member: str) -> None:
        """ZREM from ``ce:timers``."""
        await self.client.zrem(TIMERS_KEY, member)

    async def due_games(
        self, until_ms: int, limit: int, share: TimerShare = WHOLE
    ) -> list[tuple[str, int]]:
        """The share's groups' due indexes, read by one script per node, merged by due time."""
        keys = [due_key(group) for group in range(share.index, GROUPS, share.count)]
        return await self._across.due(keys, until_ms, limit)

    async def claim_due(self, game_id: str, now_ms: int, lease_ms: int) -> bool:
        """One script: move the due time to the lease's end if it has come."""
        keys = [due_key(group_of(game_id)), game_key(game_id)]
        taken = await self._claim(keys=keys, args=[game_id, now_ms, now_ms + lease_ms])
        return bool(taken)

    async def drop_due(self, game_id: str) -> None:
        """ZREM from the game's group's due index."""
        await self.client.zrem(due_key(group_of(game_id)), game_id)

    async def listed_before(
        self, states: Sequence[str], cursor: str | None, count: int
    ) -> list[str]:
        """Every group's list indexes of ``states``, read by one script per node, merged."""
        top = "+" if cursor is None else f"({cursor}"
        keys = [list_key(group, state) for group in range(GROUPS) for state in states]
        return await self._across.greatest(keys, top, count)

    async def summaries(self, members: Sequence[str]) -> list[GameSummary | None]:
        """HMGET per game in one pipeline; ZREM the entries of games that expired."""
        ids = [game_of_member(member) for member in members]
        async with self.client.pipeline(transaction=False) as pipe:
            for game_id in ids:
                pipe.hmget(game_key(game_id), _SUMMARY_FIELDS)
            found: list[list[Any]] = await pipe.execute()
        summaries = [_summary(game_id, values) for game_id, values in zip(ids, found, strict=True)]
        gone = [m for m, s in zip(members, summaries, strict=True) if s is None]
        if gone:
            async with self.client.pipeline(transaction=False) as pipe:
                for member in gone:
                    group = group_of(game_of_member(member))
                    for state in LIST_STATES:
                        pipe.zrem(list_key(group, state), member)
                await pipe.execute()
        return summaries

    async def summary(self, game_id: str) -> GameSummary:
        """One HMGET."""
        values: list[Any] = await self.client.hmget(game_key(game_id), _SUMMARY_FIELDS)
        found = _summary(game_id, values)
        if found is None:
            raise GameNotFound(f"no game {game_id!r}")
        return found

    async def link_rematch(self, game_id: str, rematch_id: str) -> str:
        """HSETNX of the game's ``n`` field, then read back what it holds."""
        self.gate.check()
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.hsetnx(game_key(game_id), "n", rematch_id)
            pipe.hget(game_key(game_id), "n")
            _, linked = await pipe.execute()
        return bytes(linked).decode()
