"""Text for what is not a game's own: the turn clocks (T-R2 to T-R8).

Table events (who left, a clock that ran out, ...) are worded from the shared catalogue, as
every game's events are (:mod:`cardengine_client.text.events`).
"""

from __future__ import annotations

import time

from cardengine.v1 import game_pb2
from google.protobuf import duration_pb2, timestamp_pb2

from cardengine_client.text.common import seat_name


def _seconds(duration: duration_pb2.Duration) -> float:
    return duration.seconds + duration.nanos / 1e9


def _span(seconds: float) -> str:
    """A duration as people read it: ``"45s"``, ``"2m 05s"``; never negative."""
    whole = max(0, round(seconds))
    minutes, rest = divmod(whole, 60)
    return f"{minutes}m {rest:02d}s" if minutes else f"{rest}s"


def render_clocks(view: game_pb2.GameView, now: float | None = None) -> list[str]:
    """One line per human seat's clock: the time left on a running decision, and the bank.

    ``now`` is the current Unix time in seconds (the local clock when ``None``); the deadline
    is the service's, so a skewed local clock shows a skewed count, never a wrong deadline.
    An empty list for a game without a clock.
    """
    if not view.clocks:
        return []
    moment = time.time() if now is None else now
    return [
        f"Clock {seat_name(view, clock.seat)}: {_clock_text(clock, moment)}"
        for clock in view.clocks
    ]


def _clock_text(clock: game_pb2.SeatClock, now: float) -> str:
    """A seat's time, with the bank told as the end of the time left.

    The service's deadline already counts the bank (it is drawn on last), so showing the bank
    as time on top of the deadline would promise time the seat does not have.
    """
    bank = _seconds(clock.bank_remaining)
    if not clock.HasField("deadline"):
        return f"bank {_span(bank)}"
    left = _seconds_of(clock.deadline) - now
    if bank <= 0:
        return f"{_span(left)} left to decide, no bank"
    if left > bank:
        return f"{_span(left)} left to decide, the last {_span(bank)} from the bank"
    return f"{_span(left)} left to decide, on the bank now"


def _seconds_of(moment: timestamp_pb2.Timestamp) -> float:
    return moment.seconds + moment.nanos / 1e9
