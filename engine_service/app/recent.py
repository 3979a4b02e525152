"""The snapshots this process wrote last, so a move on one of them skips loading it again.

A person's next move usually comes to the process that answered the last one (a client keeps
its connection), and that process wrote the snapshot it would now load. Keeping it saves a
Redis round trip per move, a third of Redis's work on it. Nothing here is trusted: a
snapshot is used only for a move made on exactly its version, the compare-and-set refuses a
write on any other, and an answer the cached snapshot led to other than a successful write
(a refusal, a lost race) is thrown away and the move judged again on a fresh load
(:meth:`~engine_service.app.engine.Engine.submit`). So a stale entry costs a wasted try,
never a stale write or answer.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Final

from engine_service.core.record import GameRecord
from engine_service.store.protocol import StoredGame

DEFAULT_CAPACITY: Final = 10_000
"""Games kept, least recently written first out: about 10 MB of snapshots."""


@dataclass(frozen=True, slots=True)
class Kept:
    """A written snapshot and the record it encodes (``decode_record(stored.snapshot)``)."""

    stored: StoredGame
    record: GameRecord


class RecentSnapshots:
    """At most ``capacity`` games' last written snapshot, version and record."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self._capacity = capacity
        self._games: OrderedDict[str, Kept] = OrderedDict()

    def at(self, game_id: str, version: int) -> Kept | None:
        """What is kept of ``game_id`` if it is of ``version``."""
        kept = self._games.get(game_id)
        return kept if kept is not None and kept.stored.version == version else None

    def wrote(self, game_id: str, version: int, snapshot: bytes, record: GameRecord) -> None:
        """Keep what this process just wrote: ``snapshot`` and the record it encodes."""
        if self._capacity <= 0:
            return
        self._games[game_id] = Kept(StoredGame(snapshot=snapshot, version=version), record)
        self._games.move_to_end(game_id)
        if len(self._games) > self._capacity:
            self._games.popitem(last=False)

    def forget(self, game_id: str) -> None:
        """Drop a game whose kept snapshot led somewhere other than a write."""
        self._games.pop(game_id, None)
