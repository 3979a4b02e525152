"""Pieces shared by every game's text support: the per-game interface and seat names."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from cardengine.v1 import game_pb2


@dataclass(frozen=True, slots=True)
class GameText:
    """How one game type is shown and typed in a terminal.

    Attributes:
        render: the game-specific lines of a view (hand, table, scores).
        describe: the short text of one of its actions, e.g. ``"play QS"``.
        parse: the action a player typed, judged against the view (e.g. its phase).
            Raises ValueError with a message meant for the player.
    """

    render: Callable[[game_pb2.GameView], list[str]]
    describe: Callable[[game_pb2.Action], str]
    parse: Callable[[game_pb2.GameView, str], game_pb2.Action]


_PLAYER_LABELS: Final = MappingProxyType(
    {
        game_pb2.PLAYER_TYPE_HUMAN: "human",
        game_pb2.PLAYER_TYPE_BOT_RANDOM: "random bot",
        game_pb2.PLAYER_TYPE_BOT_HEURISTIC: "heuristic bot",
    }
)


def seat_name(view: game_pb2.GameView, seat: int) -> str:
    """``"you"`` for the viewer's seat, else ``"seat N"``."""
    if view.HasField("viewer_seat") and view.viewer_seat == seat:
        return "you"
    return f"seat {seat}"


def seat_names(view: game_pb2.GameView, seats: Iterable[int]) -> str:
    """Several seat names joined by commas; ``"nobody"`` for none."""
    return ", ".join(seat_name(view, seat) for seat in seats) or "nobody"


def player_label(player_type: game_pb2.PlayerType.ValueType) -> str:
    """A short label for who sits in a seat."""
    return _PLAYER_LABELS.get(player_type, "unknown")
