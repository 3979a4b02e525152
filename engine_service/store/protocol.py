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


class GameStore(Protocol):
    """Keeps each game's snapshot, version and action log; writes are compare-and-set."""

    def create(self, game_id: str, snapshot: bytes, log: Sequence[bytes]) -> int:
        """Store a new game; returns its version (1 + len(log))."""

    def load(self, game_id: str, request_key: str | None = None) -> StoredGame:
        """The current snapshot and version; raises GameNotFound."""

    def save(
        self,
        game_id: str,
        expected_version: int,
        snapshot: bytes,
        log: Sequence[bytes],
        request_key: str,
        reply: bytes,
    ) -> int:
        """Replace the snapshot if the version is still ``expected_version``.

        Appends ``log``, remembers ``reply`` under ``request_key`` and returns the new version.
        Raises VersionConflict when another writer got there first, GameNotFound if expired.
        """

    def log(self, game_id: str) -> tuple[StoredGame, list[bytes]]:
        """The current game and its whole action log; raises GameNotFound."""
