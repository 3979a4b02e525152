"""The record each new version of a game led to, worked out once per process for its watchers.

Every watcher of a game applies each new version's logged action to the game as it last sent
it: with four seats watching in one process, four times the same decoding and the same step
of the rules. The first watcher to apply a version keeps what it made here; the others, when
they stand on the same record (the very object, or an equal one) and read the same stored
entry, take it instead of working it out again, and from then on share the kept records.

Nothing here is trusted beyond what it is: a record is immutable and
:func:`~engine_service.app.play.step` depends on nothing but the record and the entry (the
entry carries its time), so what a watcher takes is exactly what it would have made. A
watcher on another history (the same version number after a failover rolled the game back)
stands on another record or reads another entry, and applies it itself.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from engine_service.codec.record import LoggedAction
from engine_service.core.record import GameRecord

DEFAULT_CAPACITY: Final = 10_000
"""Games kept, the least recently stepped first out: the newest version of each only."""

Apply = Callable[[GameRecord, bytes], tuple[LoggedAction, GameRecord]]
"""Decodes a stored entry and applies it to a record: the logged action and the record made."""


@dataclass(frozen=True, slots=True)
class _Step:
    version: int
    before: GameRecord
    entry: bytes
    logged: LoggedAction
    after: GameRecord


class SharedSteps:
    """For at most ``capacity`` games, the last version applied and what it made."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self._capacity = capacity
        self._games: OrderedDict[str, _Step] = OrderedDict()

    def apply(
        self, game_id: str, version: int, before: GameRecord, entry: bytes, apply: Apply
    ) -> tuple[LoggedAction, GameRecord]:
        """``apply(before, entry)``, the stored ``entry`` of ``version``, made once if shared."""
        kept = self._games.get(game_id)
        if (
            kept is not None
            and kept.version == version
            and kept.entry == entry
            and (kept.before is before or kept.before == before)
        ):
            return kept.logged, kept.after
        logged, after = apply(before, entry)
        if self._capacity > 0:
            self._games[game_id] = _Step(version, before, entry, logged, after)
            self._games.move_to_end(game_id)
            if len(self._games) > self._capacity:
                self._games.popitem(last=False)
        return logged, after
