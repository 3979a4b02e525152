"""Draining a server on SIGTERM: finish what can finish, write nothing after saying UNAVAILABLE.

When a server is asked to stop it has ``grace`` seconds. It stops taking calls at once (gRPC
answers new ones UNAVAILABLE) and lets the running ones finish, with two rules that keep the
promise a client relies on, that UNAVAILABLE means "nothing was done":

* Bot play is cut short: from the start of the drain the work clock the engine's bot budget
  reads (:func:`Drain.work_clock`) is infinitely late, so a call's bots stop after their
  current move and the call writes what it has; the timer loop plays the rest on, as for any
  call whose budget ran out (where a game is cut changes nothing in its course).
* The store's write gate (:class:`~engine_service.store.gate.WriteGate`) closes
  :func:`closing_margin` before the end: a call that reaches its write after that is refused
  before anything is sent (UNAVAILABLE, ``SHUTTING_DOWN``), and a write sent before it has the
  margin to be acknowledged and answered. At the end gRPC cancels whatever is left, and those
  calls wrote nothing either.

gRPC hands calls over to the server one by one as its event loop gets to them. Calls that
arrived while bot play kept the loop busy may still be waiting to be handed over when the
drain begins, and gRPC's shutdown would cancel them (CANCELLED, which clients do not read as
"not done"); so the drain takes them in for :func:`backlog_seconds` before it stops taking
calls, and they are drained like the rest.

The drain starts from a Python signal handler, not an event-loop callback: a handler runs
between two bytecodes even while a call's bot play keeps the loop busy, so the bots notice
the drain at their next move and the process still exits within its grace period.
"""

from __future__ import annotations

import math
import signal
import time
from collections.abc import Callable, Sequence
from types import FrameType
from typing import Final

from engine_service.store.gate import WriteGate

MAX_CLOSING_MARGIN: Final = 1.0
"""The most time before the end of the grace period that the write gate closes."""
CLOSING_SHARE: Final = 0.25
"""The share of a short grace period kept between the gate's closing and its end."""
MAX_BACKLOG_SECONDS: Final = 0.1
"""The most time a drain spends taking in calls that arrived while the loop was busy."""


def closing_margin(grace: float) -> float:
    """How long before the end of ``grace`` writes stop: time for a sent write to be answered.

    >>> closing_margin(10.0), closing_margin(1.0)
    (1.0, 0.25)
    """
    return min(MAX_CLOSING_MARGIN, grace * CLOSING_SHARE)


def backlog_seconds(remaining: float) -> float:
    """How long to take in calls gRPC received but had not handed over yet, before stopping.

    >>> backlog_seconds(10.0), backlog_seconds(0.5)
    (0.1, 0.05)
    """
    return min(MAX_BACKLOG_SECONDS, remaining / 10)


class Drain:
    """One server's drain: when it began, when it must end, and the gate it closes."""

    def __init__(
        self, gate: WriteGate, grace: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.gate = gate
        self.grace = grace
        self._clock = clock
        self._deadline: float | None = None

    @property
    def draining(self) -> bool:
        """Whether the drain has begun."""
        return self._deadline is not None

    def begin(self, grace: float | None = None) -> float:
        """Begin draining now, ending ``grace`` (default: the server's) from now; the end.

        A drain already begun keeps its end. Safe to call from a signal handler: it only sets
        two numbers.
        """
        if self._deadline is None:
            grace = self.grace if grace is None else grace
            self._deadline = self._clock() + grace
            self.gate.close_at(self._deadline - closing_margin(grace))
        return self._deadline

    def remaining(self) -> float:
        """Seconds left until the drain's end (the whole grace before it begins)."""
        if self._deadline is None:
            return self.grace
        return max(0.0, self._deadline - self._clock())

    def work_clock(self) -> float:
        """The clock the bot budget is read by: ``perf_counter``, infinitely late once draining.

        A bot budget ends when this clock reaches the budget's start plus its seconds; ``inf``
        reaches any such time (``inf + s`` is ``inf``), so every play ends after one more move.
        """
        return math.inf if self._deadline is not None else time.perf_counter()


def drain_on_signals(
    drain: Drain,
    stop: Callable[[], object],
    signals: Sequence[signal.Signals] = (signal.SIGTERM, signal.SIGINT),
) -> None:
    """On ``signals``, begin ``drain`` at once and call ``stop`` (which must be thread-safe).

    Call from the main thread. ``stop`` is typically ``loop.call_soon_threadsafe`` of an
    event's ``set``: the signal may arrive while the loop is busy, and the loop runs it next.
    """

    def handler(signum: int, frame: FrameType | None) -> None:
        drain.begin()
        stop()

    for signum in signals:
        signal.signal(signum, handler)
