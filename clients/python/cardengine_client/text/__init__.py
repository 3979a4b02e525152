"""Text forms of views and actions for terminal play, dispatched on each message's game oneof.

The generic parts (header, whose turn, outcome, menu entries) live here; each game type adds
a :class:`GameText` to :data:`GAME_TEXTS` under the name of its field in the ``game`` oneof of
``GameView`` and ``Action`` (``"hearts"``). A game without one is still playable by number.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from cardengine.v1 import game_pb2
from google.protobuf import text_format

from cardengine_client.cards import format_card
from cardengine_client.text.common import GameText, player_label, seat_name, seat_names
from cardengine_client.text.events import LANGUAGES, event_text, pick_language
from cardengine_client.text.guandan import GUANDAN_TEXT
from cardengine_client.text.hearts import HEARTS_TEXT
from cardengine_client.text.klaberjass import KLABERJASS_TEXT
from cardengine_client.text.table import render_clocks

GAME_TEXTS: Final[Mapping[str, GameText]] = MappingProxyType(
    {"hearts": HEARTS_TEXT, "guandan": GUANDAN_TEXT, "klaberjass": KLABERJASS_TEXT}
)
"""Text support per ``game`` oneof field name."""


def render_view(view: game_pb2.GameView) -> str:
    """A whole view as text: the seats, the game-specific part, and whose turn it is."""
    seats = ", ".join(
        f"{seat_name(view, seat)} ({player_label(kind)})" for seat, kind in enumerate(view.seats)
    )
    lines = [f"== {view.game_type} game {view.game_id}, version {view.version} ==", seats]
    game = view.WhichOneof("game")
    text = GAME_TEXTS.get(game) if game else None
    if text is not None:
        lines += text.render(view)
    if view.status != game_pb2.GAME_STATUS_FINISHED:
        lines.append(f"To act: {seat_names(view, view.to_act)}")
        lines += render_clocks(view)
    return "\n".join(lines)


def render_outcome(view: game_pb2.GameView) -> str:
    """The result of a finished game: the summary, the winners and the final scores.

    A game ended early (a resignation, a forfeit on time, the admin's EndGame) says why and
    has no scores, so that line is left out rather than shown empty.
    """
    outcome = view.outcome
    scores = ", ".join(
        f"{seat_name(view, seat)} {score}" for seat, score in enumerate(outcome.scores)
    )
    lines = [f"Game over. {outcome.summary}".rstrip()]
    if outcome.ended_early:
        lines.append(f"Ended early: {outcome.ended_early}")
    lines.append(f"Winner(s): {seat_names(view, outcome.winners)}")
    if scores:
        lines.append(f"Final scores: {scores}")
    return "\n".join(lines)


def describe_action(action: game_pb2.Action) -> str:
    """The short text of an action; its protobuf text form for a game without text support."""
    game = action.WhichOneof("game")
    text = GAME_TEXTS.get(game) if game else None
    if text is None:
        return text_format.MessageToString(action, as_one_line=True)
    return text.describe(action)


def describe_event(
    view: game_pb2.GameView, event: game_pb2.GameEvent, language: str = "en"
) -> str | None:
    """One event as a sentence for the viewer of ``view``, from the shared catalogue.

    ``None`` for an event the catalogue does not know (a server newer than this client).
    """
    game = view.WhichOneof("game")
    text = GAME_TEXTS.get(game) if game else None
    return event_text(
        event,
        view.viewer_seat if view.HasField("viewer_seat") else None,
        seats=len(view.seats),
        language=language,
        card_text=(lambda card: text.card_text(view, card)) if text else format_card,
    )


def parse_action(view: game_pb2.GameView, typed: str) -> game_pb2.Action:
    """The action a player typed: a number from the menu of legal actions, or game text.

    Raises:
        ValueError: the text is neither; the message says what to type instead.
    """
    choice = typed.strip()
    legal = view.legal_actions
    if choice.isdigit():
        number = int(choice)
        if not 1 <= number <= len(legal):
            raise ValueError(f"choose a number from 1 to {len(legal)}")
        return legal[number - 1]
    game = view.WhichOneof("game")
    text = GAME_TEXTS.get(game) if game else None
    if text is None:
        raise ValueError("type the number of an action from the menu")
    return text.parse(view, choice)


def render_menu(view: game_pb2.GameView) -> str:
    """The legal actions, numbered from 1 as :func:`parse_action` reads them."""
    return "\n".join(
        f"{number:4}) {describe_action(action)}"
        for number, action in enumerate(view.legal_actions, 1)
    )


__all__ = [
    "GAME_TEXTS",
    "LANGUAGES",
    "GameText",
    "describe_action",
    "describe_event",
    "parse_action",
    "pick_language",
    "render_clocks",
    "render_menu",
    "render_outcome",
    "render_view",
]
