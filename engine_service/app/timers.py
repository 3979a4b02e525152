"""The timer loop every server process runs: fire due turn clocks, play bots on in slices.

Due games are found in the store's due index (kept by the same atomic write as each move),
never by scanning keys. Any number of processes may run the loop over the same games: each
step goes through :meth:`Engine.advance`, whose compare-and-set lets exactly one of them
write, so an expired clock's move is made once even while a person's move races it.

The loop spends at most ``share`` of its process's time on bot slices, so a long all-bot
game runs beside the requests of people instead of in front of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from typing import Final

from engine_service.app.engine import Engine

log = logging.getLogger(__name__)
DUE_PER_ROUND: Final = 64


@dataclass(frozen=True, slots=True)
class TimerSettings:
    """How often the loop looks for due games, and how much of the time it may work.

    Attributes:
        interval_seconds: the pause between looks when nothing was due.
        share: the fraction of wall time the loop may spend working; after a round that
            took ``t`` seconds it rests ``t * (1 / share - 1)``.
    """

    interval_seconds: float = 0.05
    share: float = 0.25


async def run_timers(engine: Engine, settings: TimerSettings, stop: asyncio.Event) -> None:
    """Advance due games until ``stop`` is set; errors are logged and the loop goes on."""
    while not stop.is_set():
        started = time.perf_counter()
        worked = await _round(engine)
        elapsed = time.perf_counter() - started
        rest = elapsed * (1 / settings.share - 1) if worked else settings.interval_seconds
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=max(rest, 0.001))


async def _round(engine: Engine) -> bool:
    """Advance every game due now (at most :data:`DUE_PER_ROUND`); whether any was written."""
    try:
        due = await engine.store.due_games(engine.now_ms(), DUE_PER_ROUND)
    except Exception:  # storage trouble: try again next round
        log.warning("timer loop could not read the due index", exc_info=True)
        return False
    worked = False
    for game_id in due:
        try:
            worked = await engine.advance(game_id) or worked
        except Exception:  # one bad game must not stop the others
            log.exception("timer loop could not advance a game", extra={"game_id": game_id})
    return worked
