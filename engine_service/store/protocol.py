"""The storage contract the use cases rely on."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class StoredGame:
    """A game as loaded: its snapshot bytes, its version and, when asked, a remembered reply.

    Attributes:
        snapshot: the encoded game record.
        version: 1 at creation, plus one per logged action.
        replay: what the same request stored the first time (``None`` when it is new).
    """

    snapshot: bytes
    version: int
    replay: bytes | None = None


@dataclass(frozen=True, slots=True)
class StoredVersion:
    """One version after the first, as kept in the game's event stream.

    Attributes:
        version: the version the action led to (2 for the first logged action).
        entry: the encoded log entry of that action (who did what, and when).
        events: the encoded events of that action, private parts included.
    """

    version: int
    entry: bytes
    events: bytes


@dataclass(frozen=True, slots=True)
class NewVersion:
    """A logged action and its events, to be written as the next version."""

    entry: bytes
    events: bytes


class GameStore(Protocol):
    """Keeps each game's snapshot, version, action log and events; writes are compare-and-set.

    Every version after the first is one log entry and its events, written in the same atomic
    step as the snapshot, so an event exists exactly when its move does.
    """

    async def create(self, game_id: str, snapshot: bytes, moves: Sequence[NewVersion]) -> int:
        """Store a new game; returns its version (1 + len(moves))."""

    async def load(self, game_id: str, request_key: str | None = None) -> StoredGame:
        """The current snapshot and version; raises GameNotFound."""

    async def save(
        self,
        game_id: str,
        expected_version: int,
        snapshot: bytes,
        moves: Sequence[NewVersion],
        request_key: str,
        reply: bytes,
    ) -> int:
        """Replace the snapshot if the version is still ``expected_version``.

        Appends ``moves``, remembers ``reply`` under ``request_key`` and returns the new version.
        Raises VersionConflict when another writer got there first, GameNotFound if expired.
        """

    async def log(
        self, game_id: str, start: int = 0, stop: int | None = None
    ) -> tuple[StoredGame, list[bytes]]:
        """The current game and its log entries from ``start`` up to ``stop``, read together.

        ``stop`` is exclusive; ``None`` reads to the end. Raises GameNotFound.
        """

    async def versions_after(self, game_id: str, version: int) -> list[StoredVersion]:
        """The kept versions after ``version``, oldest first (older ones may be trimmed)."""


class FeedSubscription(Protocol):
    """One watcher's queue of a game's new versions."""

    async def next(self, timeout: float) -> StoredVersion | None:
        """The next version, or ``None`` after ``timeout`` seconds without one.

        Raises WatcherTooSlow when the watcher fell behind, ShuttingDown when stopping.
        """

    def close(self) -> None:
        """Stop following the game."""


class EventFeed(Protocol):
    """Tells watchers of new versions written by any process."""

    async def subscribe(self, game_id: str, after_version: int) -> FeedSubscription:
        """Follow ``game_id`` from the version after ``after_version`` on.

        Earlier versions may come too; the caller drops what it already has.
        """
