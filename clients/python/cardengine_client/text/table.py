"""Text for what is not a game's own: turn clocks and table events (T-R2 to T-R8).

Table events (``GameEvent.table``) are the same in every game, so they are told here once:
who left, resigned or was handed to whom, a reissued token, an early end, a clock that ran
out. A change kind newer than this client is still told, by name, rather than failing.
"""

from __future__ import annotations

import time
from types import MappingProxyType
from typing import Final

from cardengine.v1 import game_pb2
from google.protobuf import duration_pb2, timestamp_pb2

from cardengine_client.text.common import player_label, seat_name

_EXPIRY_WORDS: Final = MappingProxyType(
    {
        game_pb2.EXPIRY_ACTION_BOT_RANDOM: "a random bot makes the move",
        game_pb2.EXPIRY_ACTION_BOT_HEURISTIC: "the heuristic bot makes the move",
        game_pb2.EXPIRY_ACTION_FORFEIT: "the side forfeits the game",
    }
)


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


def describe_table_event(view: game_pb2.GameView, event: game_pb2.TableEvent) -> str:
    """A table event as a sentence, e.g. ``"seat 2 left; a heuristic bot plays on"``."""
    who = seat_name(view, event.seat) if event.seat >= 0 else "the table"
    change = event.change
    kind = change.WhichOneof("change")
    if kind == "left":
        return f"{who} left; a {player_label(change.left.bot)} plays on"
    if kind == "resigned":
        if change.resigned.forfeit:
            return f"{who} resigned: that side forfeits the game"
        return f"{who} resigned; a {player_label(change.resigned.bot)} plays on"
    if kind == "handed_over":
        return f"{who} was handed to a {player_label(change.handed_over.player_type)}"
    if kind == "token_reissued":
        return f"{who} got a new token; the old one no longer works"
    if kind == "ended_early":
        reason = change.ended_early.reason
        return f"the game was ended early: {reason}" if reason else "the game was ended early"
    if kind == "clock_expired":
        then = _EXPIRY_WORDS.get(change.clock_expired.on_expiry, "the clock's rule applies")
        return f"{who} ran out of time; {then}"
    return f"{who}: a table change this client does not know ({kind or 'empty'})"
