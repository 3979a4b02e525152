"""Pieces shared by every game's text support: the per-game interface, seats, suits, tricks."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import groupby
from types import MappingProxyType
from typing import Final

from cardengine.v1 import cards_pb2, game_pb2

from cardengine_client.cards import card_sort_key, format_card, format_cards


@dataclass(frozen=True, slots=True)
class GameText:
    """How one game type is shown and typed in a terminal.

    Attributes:
        render: the game-specific lines of a view (hand, table, scores).
        describe: the short text of one of its actions, e.g. ``"play QS"``.
        parse: the action a player typed, judged against the view (e.g. its phase).
            Raises ValueError with a message meant for the player.
        card_text: how a card is written in this game's events, for the viewer of ``view``
            (Guandan marks the wild cards of the deal's level).
    """

    render: Callable[[game_pb2.GameView], list[str]]
    describe: Callable[[game_pb2.Action], str]
    parse: Callable[[game_pb2.GameView, str], game_pb2.Action]
    card_text: Callable[[game_pb2.GameView, cards_pb2.Card], str]


_PLAYER_LABELS: Final = MappingProxyType(
    {
        game_pb2.PLAYER_TYPE_HUMAN: "human",
        game_pb2.PLAYER_TYPE_BOT_RANDOM: "random bot",
        game_pb2.PLAYER_TYPE_BOT_HEURISTIC: "heuristic bot",
        game_pb2.PLAYER_TYPE_BOT_SEARCH: "search bot",
    }
)


SUIT_NAMES: Final = MappingProxyType(
    {
        cards_pb2.SUIT_CLUBS: "clubs",
        cards_pb2.SUIT_DIAMONDS: "diamonds",
        cards_pb2.SUIT_SPADES: "spades",
        cards_pb2.SUIT_HEARTS: "hearts",
    }
)


def suit_name(suit: cards_pb2.Suit.ValueType) -> str:
    """The lower-case name of a suit; ``"?"`` for one this client does not know."""
    return SUIT_NAMES.get(suit, "?")


def render_hand(cards: Iterable[cards_pb2.Card]) -> str:
    """The cards grouped by suit, each suit low to high: ``"clubs 2C 9C | hearts AH"``."""
    ordered = sorted(cards, key=card_sort_key)
    groups = groupby(ordered, key=lambda card: card.suit)
    return " | ".join(f"{suit_name(suit)} {format_cards(suited)}" for suit, suited in groups)


def trick_text(view: game_pb2.GameView, leader: int, cards: Iterable[cards_pb2.Card]) -> str:
    """Each played card with its seat, in play order: ``"seat 2 KD, you 4D"``.

    Seats follow the leader clockwise; a trick with no card yet says who is to lead.
    """
    seat_count = len(view.seats)
    plays = [
        f"{seat_name(view, (leader + k) % seat_count)} {format_card(card)}"
        for k, card in enumerate(cards)
    ]
    return ", ".join(plays) or f"{seat_name(view, leader)} to lead"


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


def score_table(
    view: game_pb2.GameView,
    totals: Sequence[int],
    last: Sequence[int],
    current: Sequence[str] | None,
    round_name: str,
) -> list[str]:
    """A score table, one row per seat: running total, last completed round, this round.

    Args:
        view: the view, for seat names.
        totals: per seat, the running total.
        last: per seat, the last completed round's score; empty before the first.
        current: per seat, how this round stands (e.g. ``"13 pts, 2 tricks"``), or ``None``
            for no such column.
        round_name: what a round is called in this game (``"hand"``, ``"deal"``); the
            last-round column is nine characters wide.
    """
    header = f"{'Scores:':10}{'total':>5}  {'last ' + round_name:>9}"
    lines = [header + (f"  this {round_name}" if current is not None else "")]
    for seat, total in enumerate(totals):
        last_score = f"{last[seat]:9}" if seat < len(last) else " " * 9
        line = f"  {seat_name(view, seat):8}{total:5}  {last_score}"
        if current is not None and seat < len(current):
            line += f"  {current[seat]}"
        lines.append(line.rstrip())
    return lines
