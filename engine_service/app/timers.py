"""The timer loop every server process runs: fire due turn clocks, play bots on in slices.

Due games are found in the store's due index (kept by the same atomic write as each move),
never by scanning keys. A look (every ``interval_seconds``, a second by default) reads the
games due before the next look, and the loop tries each at its own due time, so a turn clock
fires on time although the index is read only once a second. A game that a write makes due
before the next look (bots left to move after a request's budget, a clock about to run out)
is announced by that write (:mod:`~engine_service.store.due_notices`), and the loop whose
share holds it plans it at once; were the notice lost, the next look would find the game.
The store answers each try (the claim), so a plan made from a look or a notice that a later
move made stale does nothing.

Any number of processes may run the loop over the same games: a process first claims a due
game for a short lease (so the others do not compute the same slice), then moves it on
through :meth:`Engine.advance`, whose compare-and-set is what makes it exactly once: when a
lease runs out, or a person's move races the expiry, one write wins.

The running loops divide the due index among themselves: each renews its place every
second and reads only its share of the slot groups (:class:`~.protocol.TimerShare`), so the
looking costs the same however many processes run. A loop that stops leaves at once; one
that dies is dropped after :data:`SHARE_LAPSE_MS`, and the others take its groups over at
their next renewal, so its due games wait at most that long (plus a second).

The loop spends at most ``share`` of its process's time on bot slices, so a long all-bot
game runs beside the requests of people instead of in front of them.

While the storage is gone the loop fails every look; it says so once, then
once a minute, then once when the storage is back
(:class:`~engine_service.store.outage_log.OutageLog`), so an outage does not flood the log
with tracebacks.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import logging
import os
import secrets
import socket
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Final

from engine_service.app.engine import Engine
from engine_service.store.outage_log import OutageLog
from engine_service.store.protocol import WHOLE, DueNotice, Listing, TimerShare

log = logging.getLogger(__name__)
DUE_PER_ROUND: Final = 64
SHARE_LAPSE_MS: Final = 5000
"""How long a loop's place among the loops lasts without renewal (it renews every second)."""
SHARE_RENEW_SECONDS: Final = 1.0
LEASE_MS: Final = 2000
"""How long a claimed game is left to the process that claimed it before others may take it."""
Classify = Callable[[BaseException], "str | None"]
"""What kind of storage trouble an error is (e.g. ``CONNECTION``), ``None`` for a bug."""


@dataclass(frozen=True, slots=True)
class TimerSettings:
    """How often the loop looks for due games, and how much of the time it may work.

    Attributes:
        interval_seconds: the time between looks at the due index, and how far ahead each
            look reads.
        share: the fraction of wall time the loop may spend working; after a round that
            took ``t`` seconds it rests ``t * (1 / share - 1)``.
    """

    interval_seconds: float = 1.0
    share: float = 0.25


async def run_timers(
    engine: Engine,
    settings: TimerSettings,
    stop: asyncio.Event,
    classify: Classify,
    outage: OutageLog | None = None,
    notices: AsyncIterator[DueNotice] | None = None,
) -> None:
    """Advance due games until ``stop`` is set; errors are logged and the loop goes on.

    After each game that was worked on, the loop rests so that work stays within
    ``settings.share`` of the time; otherwise it waits for the next planned game, the next
    look or a notice (a game of its share that a write made due before the next look).
    ``classify`` tells storage trouble (told through ``outage``) from a bug (logged with its
    traceback); the store's own module knows its errors, the loop does not.
    """
    outage = outage or OutageLog("timer loop")
    shares = _Shares(engine)
    plan = _Plan()
    woken = asyncio.Event()
    helpers = [asyncio.create_task(_relay(stop, woken))]
    if notices is not None:
        helpers.append(asyncio.create_task(_take_notices(notices, shares, plan, woken)))
    look_at = 0.0
    try:
        while not stop.is_set():
            game_id = plan.pop_due(engine.now_ms())
            if game_id is not None:
                started = time.perf_counter()
                left = await _advance(engine, game_id, classify, outage)
                if left is not None:
                    if left.due_ms is not None:  # more bots to move, or the next clock
                        plan.add(game_id, left.due_ms)
                    elapsed = time.perf_counter() - started
                    await _rest(stop, elapsed * (1 / settings.share - 1))
            elif time.monotonic() >= look_at:
                covered = await _look(engine, shares, plan, settings, classify, outage)
                look_at = time.monotonic() + max(0.0, (covered - engine.now_ms()) / 1000)
            else:
                wait = min(look_at - time.monotonic(), plan.seconds_until_next(engine.now_ms()))
                await _rest(woken, wait)
                woken.clear()
    finally:
        for helper in helpers:
            helper.cancel()
        await asyncio.gather(*helpers, return_exceptions=True)
        await shares.leave()


async def _relay(stop: asyncio.Event, woken: asyncio.Event) -> None:
    """Wake the loop's wait when it must stop."""
    await stop.wait()
    woken.set()


async def _take_notices(
    notices: AsyncIterator[DueNotice], shares: _Shares, plan: _Plan, woken: asyncio.Event
) -> None:
    """Plan each announced game of this loop's share and wake the loop's wait.

    Should the notices fail with a bug, the loop goes on without them, on its looks alone.
    """
    try:
        async for notice in notices:
            if shares.holds(notice.group):
                plan.add(notice.game_id, notice.due_ms)
                woken.set()
    except Exception as error:
        log.error("timer loop stopped taking due notices", exc_info=error)


async def _look(
    engine: Engine,
    shares: _Shares,
    plan: _Plan,
    settings: TimerSettings,
    classify: Classify,
    outage: OutageLog,
) -> int:
    """Plan this loop's share of the games due before the next look.

    Returns up to when (ms) the look found every due game: the interval ahead, or, when it
    found as many as it reads at once, the last one's due time (the next look starts there).
    """
    until = engine.now_ms() + int(settings.interval_seconds * 1000)
    try:
        share = await shares.current()
        due = await engine.store.due_games(until, DUE_PER_ROUND, share)
        outage.succeeded()
    except Exception as error:  # try again at the next look
        _failed(error, classify, outage, "timer loop could not read the due index", {})
        return until
    for game_id, due_ms in due:
        plan.add(game_id, due_ms)
    return due[-1][1] if len(due) == DUE_PER_ROUND else until


class _Plan:
    """The games this loop will try to claim, each at its due time (earliest first)."""

    def __init__(self) -> None:
        self._heap: list[tuple[int, str]] = []
        self._due: dict[str, int] = {}

    def add(self, game_id: str, due_ms: int) -> None:
        """Try ``game_id`` at ``due_ms`` (or at its earlier planned time)."""
        if self._due.get(game_id, due_ms + 1) > due_ms:
            self._due[game_id] = due_ms
            heapq.heappush(self._heap, (due_ms, game_id))

    def pop_due(self, now_ms: int) -> str | None:
        """The earliest planned game due by ``now_ms``, taken off the plan."""
        while self._heap and self._heap[0][0] <= now_ms:
            due_ms, game_id = heapq.heappop(self._heap)
            if self._due.get(game_id) == due_ms:  # not replaced by an earlier time
                del self._due[game_id]
                return game_id
        return None

    def seconds_until_next(self, now_ms: int) -> float:
        """How long until the earliest planned game is due (a long time when none is)."""
        return (self._heap[0][0] - now_ms) / 1000 if self._heap else float("inf")


class _Shares:
    """This loop's place among the running loops, renewed every second."""

    def __init__(self, engine: Engine) -> None:
        self._store = engine.store
        self._member = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        self._share = WHOLE
        self._renewed = float("-inf")

    async def current(self) -> TimerShare:
        """The share to read now: renewed when a second has passed since the last renewal."""
        if time.monotonic() - self._renewed >= SHARE_RENEW_SECONDS:
            self._share = await self._store.timer_share(self._member, SHARE_LAPSE_MS)
            self._renewed = time.monotonic()
        return self._share

    def holds(self, group: int) -> bool:
        """Whether ``group`` is in this loop's share as last renewed."""
        return self._share.holds(group)

    async def leave(self) -> None:
        """Give this loop's groups to the others now rather than when its place lapses."""
        with contextlib.suppress(Exception):  # stopping anyway; the place lapses by itself
            await self._store.leave_timers(self._member)


async def _advance(
    engine: Engine, game_id: str, classify: Classify, outage: OutageLog
) -> Listing | None:
    """Claim a due game and move it on; where the write left it, ``None`` if nothing written."""
    try:
        if not await engine.store.claim_due(game_id, engine.now_ms(), LEASE_MS):
            return None  # another process took it, or it is no longer due
        return await engine.advance(game_id)
    except Exception as error:  # one bad game must not stop the others
        what = "timer loop could not advance a game"
        _failed(error, classify, outage, what, {"game_id": game_id})
        return None


def _failed(
    error: Exception, classify: Classify, outage: OutageLog, what: str, extra: dict[str, str]
) -> None:
    """Storage trouble goes to ``outage``; anything else is a bug, logged with its traceback."""
    trouble = classify(error)
    if trouble is None:
        log.error(what, exc_info=error, extra=extra)
    else:
        outage.failed(trouble)


async def _rest(stop: asyncio.Event, seconds: float) -> None:
    """Sleep ``seconds`` (at least a millisecond), waking early when stopping."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), timeout=max(seconds, 0.001))
