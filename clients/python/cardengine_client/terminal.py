"""Play a card game in the terminal against the service's bots, as an ordinary gRPC client.

The loop is: show the view, read a move (a number from the menu of legal actions, or the move
as text such as ``QS`` or ``2C 3C AH``), submit it with the view's version, and show the
service's answer. A refused move prints the service's reason and rule ID and the player tries
again; ABORTED (the game moved on) reloads the view. Nothing here knows a game's rules: the
service decides, and :mod:`cardengine_client.text` only draws.

Run ``python -m cardengine_client.terminal --target HOST:PORT [--game hearts] [--seed N]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from typing import Final, TextIO

from cardengine.v1 import engine_service_pb2, game_pb2

from cardengine_client.client import EngineClient
from cardengine_client.errors import Aborted, EngineError, IllegalAction, InvalidArgument
from cardengine_client.text import parse_action, render_menu, render_outcome, render_view

MENU_LIMIT: Final = 20
"""Longer menus (a Hearts pass has 286 choices) are shown only on request, with ``list``."""

POLL_SECONDS: Final = 0.5
"""Wait between reloads while another seat (a person elsewhere) has to act."""

InputFn = Callable[[str], str]


def _human_vs_bots(client: EngineClient, game_type: str) -> list[str]:
    """Seat 0 for the person, heuristic bots in every other seat of ``game_type``.

    Raises:
        ValueError: the service does not host ``game_type``.
    """
    types = client.list_game_types().game_types
    for game in types:
        if game.name == game_type:
            return ["human"] + ["heuristic"] * (game.seats - 1)
    hosted = ", ".join(game.name for game in types)
    raise ValueError(f"the service does not host {game_type!r}; it hosts: {hosted}")


def _seat_token(created: engine_service_pb2.CreateGameResponse) -> tuple[int, str]:
    """The human seat and its token (the only one, as the game was created)."""
    (seat_token,) = created.seat_tokens
    return seat_token.seat, seat_token.token


def describe_rejection(error: EngineError) -> str:
    """Why the service refused a move, with its reason and rule ID or the offending fields."""
    labels = [f"rule {error.rule_id}"] if error.rule_id else []
    labels += [error.reason] if error.reason else []
    text = error.message + (f" [{', '.join(labels)}]" if labels else "")
    fields = "; ".join(f"{v.field}: {v.description}" for v in error.field_violations)
    return f"{text} ({fields})" if fields else text


def _show_turn(view: game_pb2.GameView, show: Callable[[str], None]) -> None:
    show(render_view(view))
    count = len(view.legal_actions)
    if count <= MENU_LIMIT:
        show(render_menu(view))
    else:
        show(f"{count} choices: type the move, 'list' to number them all, or a number 1-{count}.")


def _ask(
    view: game_pb2.GameView, input_fn: InputFn, show: Callable[[str], None]
) -> game_pb2.Action:
    """Read until the player names an action (it may still be illegal: the service judges)."""
    while True:
        typed = input_fn("Your move (number or e.g. QS; 'list' for the menu): ").strip()
        if typed.lower() in ("list", "?"):
            show(render_menu(view))
        elif typed:
            try:
                return parse_action(view, typed)
            except ValueError as err:
                show(f"  {err}")


def _submit(
    client: EngineClient,
    view: game_pb2.GameView,
    token: str,
    action: game_pb2.Action,
    show: Callable[[str], None],
) -> game_pb2.GameView:
    """The view after submitting ``action``: the new one, or the old one if it was refused."""
    try:
        return client.submit(view.game_id, view.viewer_seat, token, action, view.version)
    except (IllegalAction, InvalidArgument) as err:
        show(f"  Refused: {describe_rejection(err)}")
        return view
    except Aborted:
        show("  The game moved on before your move arrived; here it is again.")
        return client.view(view.game_id, view.viewer_seat, token)


def play(
    client: EngineClient,
    game_type: str = "hearts",
    *,
    input_fn: InputFn = input,
    output: TextIO = sys.stdout,
    seed: int | None = None,
) -> game_pb2.GameView:
    """Play one game of ``game_type`` as seat 0 against heuristic bots; return the final view.

    Raises:
        ValueError: the service does not host ``game_type``.
        EngineError: the service failed in a way a move cannot fix (e.g. the game expired).
        EOFError: ``input_fn`` ran out of input (the player quit).
    """

    def show(text: str) -> None:
        print(text, file=output)

    created = client.create_game(game_type, _human_vs_bots(client, game_type), seed=seed)
    seat, token = _seat_token(created)
    view = client.view(created.game_id, seat, token)
    shown_version = None
    while view.status != game_pb2.GAME_STATUS_FINISHED:
        if seat not in view.to_act:
            time.sleep(POLL_SECONDS)
            view = client.view(view.game_id, seat, token)
            continue
        if view.version != shown_version:
            _show_turn(view, show)
            shown_version = view.version
        view = _submit(client, view, token, _ask(view, input_fn, show), show)
    show(render_view(view))
    show(render_outcome(view))
    return view


def run(target: str, game_type: str = "hearts", seed: int | None = None) -> int:
    """Play one game on the service at ``target`` with stdin/stdout; the process exit status."""
    try:
        with EngineClient(target) as client:
            play(client, game_type, seed=seed)
    except (EOFError, KeyboardInterrupt):
        print("\nGoodbye.")
    except (ValueError, EngineError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: ``--target HOST:PORT [--game NAME] [--seed N]``."""
    parser = argparse.ArgumentParser(description="Play a card game against the engine's bots.")
    parser.add_argument("--target", required=True, help="the service's HOST:PORT")
    parser.add_argument("--game", default="hearts", help="the game type (default: hearts)")
    parser.add_argument("--seed", type=int, help="fix the shuffles, to replay a game")
    args = parser.parse_args(argv)
    return run(args.target, args.game, args.seed)


if __name__ == "__main__":
    sys.exit(main())
