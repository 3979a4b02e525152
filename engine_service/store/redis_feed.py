"""Follow many games' event streams over one Redis connection per process.

A watcher must not cost a blocked Redis connection of its own: one reader task per process
issues ``XREAD BLOCK`` over the streams of every game someone here is watching, and hands each
new version to that game's subscriptions. When a game is added, the blocked read is
interrupted (``CLIENT UNBLOCK``) so the new stream joins the next read at once.

On a Redis Cluster one ``XREAD`` may only name keys of one slot, so there is one reader (a
*lane*) per slot group (:mod:`engine_service.store.keys`) that has watched games, each on a
connection to the node serving that group's slot; elsewhere one lane reads every group.

Each subscription buffers at most ``queue_limit`` versions. For a watcher that falls further
behind, the subscription drops what it holds and keeps only the newest version, rather than
slowing the others or growing memory without bound: the watcher sees the gap and reads what
it missed back from the store (:mod:`engine_service.app.watch`).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from typing import Any, Final

import redis.asyncio as redis
from redis.exceptions import ResponseError

from engine_service.core.errors import ShuttingDown
from engine_service.store.connect import (
    UNAVAILABLE_ERRORS,
    Client,
    RedisTarget,
    node_target,
    parse_target,
    reader_client,
    refresh_nodes,
)
from engine_service.store.failures import storage_trouble
from engine_service.store.keys import due_key, events_key, group_of, stream_id
from engine_service.store.outage_log import OutageLog
from engine_service.store.protocol import StoredVersion
from engine_service.store.redis_store import stored_version

BLOCK_MILLISECONDS: Final = 2_000
"""How long one ``XREAD`` waits before the reader looks at its list of games again; well
under the client's socket timeout, so a quiet read is never taken for a dead Redis."""
RECONNECT_SECONDS: Final = 0.5
UNBLOCK_TRIES: Final = 50
"""How often a new subscription nudges a reader that had not yet seen it (1 ms apart)."""


def _release(waiter: asyncio.Future[None]) -> None:
    """End a subscription's wait: a version came, the feed failed, or the time is up."""
    if not waiter.done():
        waiter.set_result(None)


class Subscription:
    """One watcher's view of one game's new versions, in the order the store wrote them."""

    def __init__(self, feed: RedisEventFeed, game_id: str, limit: int) -> None:
        self.game_id = game_id
        self._feed = feed
        self._limit = limit
        self._pending: collections.deque[StoredVersion] = collections.deque()
        self._waiter: asyncio.Future[None] | None = None
        self._error: Exception | None = None

    def deliver(self, version: StoredVersion) -> None:
        """Queue a version (called by the reader); past the limit, only the newest."""
        if self._error is not None:
            return
        if len(self._pending) >= self._limit:
            self._pending.clear()
        self._pending.append(version)
        self._wake()

    def fail(self, error: Exception) -> None:
        """End the subscription: the next :meth:`next` raises ``error``."""
        self._error = error
        self._pending.clear()
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None:
            _release(self._waiter)

    async def next(self, timeout: float) -> StoredVersion | None:
        """The next version, or ``None`` when ``timeout`` seconds pass without one.

        Raises:
            ShuttingDown: the process is stopping.
        """
        if not self._pending and self._error is None:
            # One future and one timer per wait, the least asyncio offers: no task (as
            # wait_for makes), no Event, no Timeout context to enter and leave.
            loop = asyncio.get_running_loop()
            waiter = self._waiter = loop.create_future()
            timer = loop.call_later(timeout, _release, waiter)
            try:
                await waiter
            finally:
                timer.cancel()
                self._waiter = None
        if self._error is not None:
            raise self._error
        return self._pending.popleft() if self._pending else None

    def close(self) -> None:
        """Stop following the game."""
        self._feed.unsubscribe(self)


class _Followed:
    """A game the reader follows: where it has read to, and who is waiting."""

    def __init__(self, cursor: str) -> None:
        self.cursor = cursor
        self.subscriptions: set[Subscription] = set()


class _Lane:
    """One reader task, its blocked connection, and the games it reads (a group, or all)."""

    def __init__(self, feed: RedisEventFeed, number: int) -> None:
        self.number = number
        self._feed = feed
        self.games: dict[str, _Followed] = {}
        self._changed = asyncio.Event()
        self._generation = 0
        self._read_generation = -1
        self._reader: redis.Redis | None = None
        self._reader_id: int | None = None
        self._unblock_target: dict[str, Any] = {}
        self._outage = OutageLog(f"event feed {number}")
        self.task = asyncio.create_task(self._run(), name=f"event-feed-{number}")

    async def wake(self) -> None:
        """Make the reader start a new read that includes every game of the lane."""
        self._generation += 1
        wanted = self._generation
        self._changed.set()
        for _ in range(UNBLOCK_TRIES):
            if self._read_generation >= wanted or self.task.done():
                return
            if self._reader_id is not None:
                await self._feed.control.execute_command(
                    "CLIENT UNBLOCK", self._reader_id, **self._unblock_target
                )
            await asyncio.sleep(0.001)

    async def close(self) -> None:
        """Stop the reader and close its connection."""
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task
        await self._disconnect()

    async def _disconnect(self) -> None:
        self._reader_id = None
        if self._reader is not None:
            with contextlib.suppress(*UNAVAILABLE_ERRORS):
                await self._reader.aclose()
            self._reader = None

    async def _run(self) -> None:
        # Whatever the store's client says serves the lane's slot: after a failover or a
        # resharding (MOVED) the reader connects again to the server that does now.
        key = due_key(self.number)
        while True:
            try:
                self._reader = reader_client(self._feed.target, self._feed.control, key)
                self._unblock_target = node_target(self._feed.control, key)
                self._reader_id = int(await self._reader.client_id())
                self._outage.succeeded()
                await self._follow(self._reader)
            except (*UNAVAILABLE_ERRORS, ResponseError) as error:
                self._outage.failed(storage_trouble(error) or type(error).__name__)
                await self._disconnect()
                await asyncio.sleep(RECONNECT_SECONDS)
                await refresh_nodes(self._feed.control)

    async def _follow(self, reader: redis.Redis) -> None:
        while True:
            if not self.games:
                self._read_generation = self._generation
                self._changed.clear()
                await self._changed.wait()
                continue
            self._read_generation = self._generation
            games = {events_key(game): game for game in self.games}
            streams = {key: self.games[game].cursor for key, game in games.items()}
            found: Any = await reader.xread(streams, block=self._feed.block)  # type: ignore[arg-type]
            for key, entries in found or ():
                self._dispatch(games[key.decode()], entries)

    def _dispatch(self, game_id: str, entries: list[tuple[bytes, dict[bytes, bytes]]]) -> None:
        followed = self.games.get(game_id)
        if followed is None:
            return
        for entry_id, fields in entries:
            followed.cursor = entry_id.decode()
            version = stored_version(entry_id, fields)
            for subscription in list(followed.subscriptions):
                subscription.deliver(version)


class RedisEventFeed:
    """The per-process reader of every watched game's event stream.

    ``url`` names the Redis (any URL :mod:`~engine_service.store.connect` reads); ``control``
    is the store's client of it, which sends the ``CLIENT UNBLOCK`` nudges.
    """

    def __init__(
        self,
        url: str,
        control: Client,
        queue_limit: int = 1024,
        block_milliseconds: int = BLOCK_MILLISECONDS,
    ) -> None:
        self.target: RedisTarget = parse_target(url)
        self.control = control
        self.block = block_milliseconds
        self._limit = queue_limit
        self._lanes: dict[int, _Lane] = {}
        self._started = False

    @property
    def watched_games(self) -> int:
        """How many games this process follows now."""
        return sum(len(lane.games) for lane in self._lanes.values())

    async def start(self) -> None:
        """Let subscriptions start readers (one per lane, when its first game is watched)."""
        self._started = True

    async def stop(self) -> None:
        """End every subscription (ShuttingDown) and the readers."""
        self._started = False
        lanes = list(self._lanes.values())
        self._lanes.clear()
        for lane in lanes:
            for followed in lane.games.values():
                for subscription in followed.subscriptions:
                    subscription.fail(ShuttingDown("the server is stopping; watch again"))
            lane.games.clear()
            await lane.close()

    async def subscribe(self, game_id: str, after_version: int) -> Subscription:
        """Follow ``game_id`` from the version after ``after_version`` on.

        The subscription may also receive versions up to ``after_version`` (when the game was
        already followed from further back); callers drop what they already have.
        """
        if not self._started:
            raise ShuttingDown("the server is stopping; watch again")
        subscription = Subscription(self, game_id, self._limit)
        lane = self._lane_of(game_id)
        followed = lane.games.get(game_id)
        if followed is None:
            lane.games[game_id] = followed = _Followed(stream_id(after_version))
            await lane.wake()
        followed.subscriptions.add(subscription)
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        """Forget a subscription, and its game once nobody here watches it."""
        lane = self._lanes.get(self._lane_number(subscription.game_id))
        followed = None if lane is None else lane.games.get(subscription.game_id)
        if lane is None or followed is None:
            return
        followed.subscriptions.discard(subscription)
        if not followed.subscriptions:
            del lane.games[subscription.game_id]

    def _lane_number(self, game_id: str) -> int:
        return group_of(game_id) if self.target.per_slot_reads else 0

    def _lane_of(self, game_id: str) -> _Lane:
        number = self._lane_number(game_id)
        lane = self._lanes.get(number)
        if lane is None:
            self._lanes[number] = lane = _Lane(self, number)
        return lane
