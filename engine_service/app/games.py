"""Finding games: one game's metadata (GetGame) and listings across games (ListGames).

Both show the table around a game (type, options, seats, version, times, state, outcome,
labels, clocks, rematch links) and never a card. Listings walk the indexes every write keeps
(:mod:`engine_service.store.keys`), newest first, by a cursor that is the last game looked
at, so a game that changes state between pages is never listed twice; each call reads a
bounded number of games, and a page may come back short with a cursor to go on from.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from engine_service.app.engine import Engine
from engine_service.app.play import OVER, RUNNING, WAITING, game_state
from engine_service.app.seats import Admin, authorize_admin
from engine_service.codec.record import decode_record
from engine_service.core.errors import MalformedRequest
from engine_service.core.protocol import Outcome
from engine_service.core.record import GameRecord
from engine_service.core.table import outcome_of
from engine_service.store.protocol import GameSummary

STATES: Final = (WAITING, RUNNING, OVER)
MAX_LIST_PAGE: Final = 500
DEFAULT_LIST_PAGE: Final = 50
READS_PER_PAGE: Final = 4
"""A listing call reads at most this many times its page size of games before it returns
(a short page and a cursor), so a filter that matches little cannot make one call long."""


@dataclass(frozen=True, slots=True)
class GameInfo:
    """A game's metadata as GetGame and ListGames show it (no card)."""

    game_id: str
    record: GameRecord
    version: int
    state: str
    updated_ms: int
    outcome: Outcome | None
    rematch_id: str


@dataclass(frozen=True, slots=True)
class GameFilter:
    """Which games a listing wants: of a type (``""``: any), in states, with labels."""

    game_type: str = ""
    states: tuple[str, ...] = STATES
    labels: Mapping[str, str] | None = None

    def matches(self, info: GameInfo) -> bool:
        """Whether a game passes the filter as it is now."""
        if self.game_type and info.record.game_type != self.game_type:
            return False
        if info.state not in self.states:
            return False
        labels = dict(info.record.labels)
        return all(labels.get(k) == v for k, v in (self.labels or {}).items())


def _info(engine: Engine, summary: GameSummary) -> GameInfo:
    record = decode_record(summary.snapshot)
    rules = engine.rules_of(record)
    return GameInfo(
        game_id=summary.game_id,
        record=record,
        version=summary.version,
        state=game_state(rules, record),
        updated_ms=summary.updated_ms,
        outcome=outcome_of(rules, record),
        rematch_id=summary.rematch_id,
    )


async def game_info(engine: Engine, game_id: str, admin: Admin) -> GameInfo:
    """One game's metadata, for its admin (or a service key).

    Raises:
        GameNotFound: no such game.
        Unauthenticated: not the game's admin.
    """
    summary = await engine.store.summary(game_id)
    info = _info(engine, summary)
    authorize_admin(info.record, admin)
    return info


async def list_games(
    engine: Engine, wanted: GameFilter, cursor: str | None, page_size: int
) -> tuple[list[GameInfo], str | None]:
    """The games matching ``wanted`` below ``cursor``, newest first, and the next cursor.

    ``page_size`` 0 means :data:`DEFAULT_LIST_PAGE`; larger than :data:`MAX_LIST_PAGE` is
    lowered to it. The next cursor is ``None`` once no game is left.

    Raises:
        MalformedRequest: a negative page size or an unknown game type.
    """
    if page_size < 0:
        raise MalformedRequest("page_size", "must not be negative")
    if wanted.game_type:
        engine.spec(wanted.game_type)
    size = min(page_size or DEFAULT_LIST_PAGE, MAX_LIST_PAGE)
    found: list[GameInfo] = []
    for _ in range(READS_PER_PAGE):
        members = await engine.store.listed_before(wanted.states, cursor, size)
        if not members:
            return found, None
        summaries = await engine.store.summaries(members)
        for member, summary in zip(members, summaries, strict=True):
            cursor = member
            if summary is None:
                continue
            info = _info(engine, summary)
            if wanted.matches(info):
                found.append(info)
                if len(found) == size:
                    return found, cursor
    return found, cursor
