"""Follow many games' event streams over one Redis connection per process.

A watcher must not cost a blocked Redis connection of its own: one reader task per process
issues ``XREAD BLOCK`` over the streams of every game someone here is watching, and hands each
new version to that game's subscriptions. When a game is added, the blocked read is
interrupted (``CLIENT UNBLOCK``) so the new stream joins the next read at once.

Each subscription buffers at most ``queue_limit`` versions. A watcher that falls further
behind is cut off (:class:`WatcherTooSlow`) rather than slowing the others or growing memory
without bound; it resumes from the last version it received.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
from typing import Any, Final

import redis.asyncio as redis

from engine_service.core.errors import ShuttingDown, WatcherTooSlow
from engine_service.store.keys import events_key, stream_id
from engine_service.store.protocol import StoredVersion
from engine_service.store.redis_store import stored_version

log = logging.getLogger(__name__)

BLOCK_MILLISECONDS: Final = 2_000
"""How long one ``XREAD`` waits before the reader looks at its list of games again; well
under the client's socket timeout, so a quiet read is never taken for a dead Redis."""
RECONNECT_SECONDS: Final = 0.5
UNBLOCK_TRIES: Final = 50
"""How often a new subscription nudges a reader that had not yet seen it (1 ms apart)."""


class Subscription:
    """One watcher's view of one game's new versions, in the order the store wrote them."""

    def __init__(self, feed: RedisEventFeed, game_id: str, limit: int) -> None:
        self.game_id = game_id
        self._feed = feed
        self._limit = limit
        self._pending: collections.deque[StoredVersion] = collections.deque()
        self._ready = asyncio.Event()
        self._error: Exception | None = None

    def deliver(self, version: StoredVersion) -> None:
        """Queue a version (called by the reader); cut the watcher off if it lags too far."""
        if self._error is not None:
            return
        if len(self._pending) >= self._limit:
            self.fail(WatcherTooSlow(f"more than {self._limit} versions behind"))
            return
        self._pending.append(version)
        self._ready.set()

    def fail(self, error: Exception) -> None:
        """End the subscription: the next :meth:`next` raises ``error``."""
        self._error = error
        self._pending.clear()
        self._ready.set()

    async def next(self, timeout: float) -> StoredVersion | None:
        """The next version, or ``None`` when ``timeout`` seconds pass without one.

        Raises:
            WatcherTooSlow: the watcher fell too far behind.
            ShuttingDown: the process is stopping.
        """
        if not self._pending and self._error is None:
            self._ready.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._ready.wait(), timeout)
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


class RedisEventFeed:
    """The per-process reader of every watched game's event stream."""

    def __init__(
        self,
        url: str,
        control: redis.Redis,
        queue_limit: int = 1024,
        block_milliseconds: int = BLOCK_MILLISECONDS,
    ) -> None:
        self._reader = redis.Redis.from_url(url, single_connection_client=True)
        self._control = control
        self._limit = queue_limit
        self._block = block_milliseconds
        self._games: dict[str, _Followed] = {}
        self._changed = asyncio.Event()
        self._generation = 0
        self._read_generation = -1
        self._reader_id: int | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def watched_games(self) -> int:
        """How many games this process follows now."""
        return len(self._games)

    async def start(self) -> None:
        """Start the reader task."""
        self._task = asyncio.create_task(self._run(), name="event-feed")

    async def stop(self) -> None:
        """End every subscription (ShuttingDown) and the reader."""
        for followed in self._games.values():
            for subscription in followed.subscriptions:
                subscription.fail(ShuttingDown("the server is stopping; watch again"))
        self._games.clear()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self._reader.aclose()

    async def subscribe(self, game_id: str, after_version: int) -> Subscription:
        """Follow ``game_id`` from the version after ``after_version`` on.

        The subscription may also receive versions up to ``after_version`` (when the game was
        already followed from further back); callers drop what they already have.
        """
        subscription = Subscription(self, game_id, self._limit)
        followed = self._games.get(game_id)
        if followed is None:
            self._games[game_id] = followed = _Followed(stream_id(after_version))
            await self._wake_reader()
        followed.subscriptions.add(subscription)
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        """Forget a subscription, and its game once nobody here watches it."""
        followed = self._games.get(subscription.game_id)
        if followed is None:
            return
        followed.subscriptions.discard(subscription)
        if not followed.subscriptions:
            del self._games[subscription.game_id]

    async def _wake_reader(self) -> None:
        """Make the reader start a new read that includes every followed game."""
        self._generation += 1
        wanted = self._generation
        self._changed.set()
        for _ in range(UNBLOCK_TRIES):
            if self._read_generation >= wanted or self._task is None or self._task.done():
                return
            if self._reader_id is not None:
                await self._control.client_unblock(self._reader_id)
            await asyncio.sleep(0.001)

    async def _run(self) -> None:
        while True:
            try:
                self._reader_id = int(await self._reader.client_id())
                await self._follow()
            except (redis.ConnectionError, redis.TimeoutError) as error:
                log.warning("event feed lost redis; reconnecting", extra={"error": repr(error)})
                self._reader_id = None
                await asyncio.sleep(RECONNECT_SECONDS)

    async def _follow(self) -> None:
        while True:
            if not self._games:
                self._read_generation = self._generation
                self._changed.clear()
                await self._changed.wait()
                continue
            self._read_generation = self._generation
            games = {events_key(game): game for game in self._games}
            streams = {key: self._games[game].cursor for key, game in games.items()}
            found: Any = await self._reader.xread(streams, block=self._block)  # type: ignore[arg-type]
            for key, entries in found or ():
                self._dispatch(games[key.decode()], entries)

    def _dispatch(self, game_id: str, entries: list[tuple[bytes, dict[bytes, bytes]]]) -> None:
        followed = self._games.get(game_id)
        if followed is None:
            return
        for entry_id, fields in entries:
            followed.cursor = entry_id.decode()
            version = stored_version(entry_id, fields)
            for subscription in list(followed.subscriptions):
                subscription.deliver(version)
