"""Play a card game in the terminal against the service's bots, as an ordinary gRPC client.

The game is followed live through ``WatchGame`` (:meth:`EngineClient.watch`): every version
arrives as it is played, so the person sees each bot move, each finished trick and each
hand's end as it happens, told by the game's events (through its text module's event
formatter when it has one, else in protobuf text form) or, for an update without events, by
the lines of the table that changed. When the stream reaches a version where the person's seat
must act, the whole view is shown and a move is read: a number from the menu of legal
actions, or the move as text such as ``QS`` or ``2C 3C AH``. A family of moves the view
offers as a ``CardChoice`` (the Hearts pass: any three cards) is typed as its cards, or
picked by its menu number for the first cards it lists. ``hint`` asks the service what its
search bot would play (SuggestAction) and shows how the search rated each move it tried. The
move goes out with SubmitAction and the stream shows what followed. A refused move prints the
service's reason and rule ID and the player tries again; ABORTED (the game moved on) waits for
the stream to catch up. Nothing here knows a game's rules: the service decides, and
:mod:`cardengine_client.text` only draws. ``help`` lists the commands, ``quit`` leaves.

Table events (a seat handed over, a clock that ran out, an early end) are told in words, and
with a turn clock (``--clock SECONDS``) each view shows every human seat's time and bank.

Run ``python -m cardengine_client.terminal --target HOST:PORT [--game hearts] [--seed N]
[--clock SECONDS]``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Final, TextIO

from cardengine.v1 import cards_pb2, engine_service_pb2, game_pb2
from google.protobuf.message import Message

from cardengine_client.actions import choose_cards
from cardengine_client.cards import card_sort_key, format_cards, parse_cards
from cardengine_client.client import PLAYER_TYPES, Clock, EngineClient
from cardengine_client.errors import Aborted, EngineError, IllegalAction, InvalidArgument
from cardengine_client.text import (
    GAME_TEXTS,
    LANGUAGES,
    describe_action,
    parse_action,
    render_menu,
    render_outcome,
    render_view,
)
from cardengine_client.text import describe_event as catalogue_text
from cardengine_client.text.common import seat_name

MENU_LIMIT: Final = 20
"""Longer menus are shown only on request, with ``list``."""

HELP: Final = """Commands:
  a number       the move of that number in the menu
  cards or text  the move itself, e.g. QS to play, 2C 3C AH to pass (the game's own words)
  list           show the menu of moves again
  hint [N]       what the service's search bot would play here, and how it rates each
                 move it tried (N: playouts to search, else the game's default)
  help           this text
  quit           leave the game (it stays on the service)"""

InputFn = Callable[[str], str]
Show = Callable[[str], None]
Hint = Callable[[int | None], str]
"""Asks the service for a suggestion (with so many playouts, or its default) as text."""

VALUE_UNITS: Final = {
    engine_service_pb2.SUGGESTION_VALUE_KIND_HAND_POINTS_MARGIN: (
        "points fewer than the others' average this hand"
    ),
    engine_service_pb2.SUGGESTION_VALUE_KIND_DEAL_SCORE_MARGIN: (
        "points ahead of the opponent this deal"
    ),
    engine_service_pb2.SUGGESTION_VALUE_KIND_LEVELS: "levels won by your team this deal",
}
"""What each kind of suggestion value counts, in words (higher is always better)."""


class PlayerQuit(EOFError):
    """The player typed ``quit``; handled like the end of input."""


BOT_LEVELS: Final = ("heuristic", "random", "search")
"""The ``--bots`` a person may play against (keys of :data:`PLAYER_TYPES`)."""
PARTNER_SEATS: Final = {"guandan": 2}
"""The seat playing with seat 0 in the games played by partnerships (Guandan: opposite)."""
DEFAULT_PARTNER: Final = "search"
"""The person's partner unless ``--partner`` says otherwise: the strongest bot offered."""


def _human_vs_bots(
    client: EngineClient, game_type: str, bots: str = "heuristic", partner: str | None = None
) -> list[str]:
    """Seat 0 for the person, ``bots`` in every other seat of ``game_type``, but its partner.

    In a partnership game the partner's seat gets ``partner``, or :data:`DEFAULT_PARTNER`
    when the service offers it (else ``bots``).

    Raises:
        ValueError: the service does not host ``game_type``, or that game offers no ``bots``
            (or no ``partner`` asked for).
    """
    types = client.list_game_types().game_types
    game = next((game for game in types if game.name == game_type), None)
    if game is None:
        hosted = ", ".join(game.name for game in types)
        raise ValueError(f"the service does not host {game_type!r}; it hosts: {hosted}")
    offered = {bot.player_type for bot in game.bots}

    def refused(level: str) -> bool:
        return bool(offered) and PLAYER_TYPES[level] not in offered

    for level in (bots, partner):
        if level is not None and refused(level):
            raise ValueError(f"{game_type} offers no {level} bot on this service")
    seats = ["human"] + [bots] * (game.seats - 1)
    if game_type in PARTNER_SEATS:
        fallback = bots if refused(DEFAULT_PARTNER) else DEFAULT_PARTNER
        seats[PARTNER_SEATS[game_type]] = partner or fallback
    return seats


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


def _quick_pick(choice: game_pb2.CardChoice) -> list[cards_pb2.Card]:
    """The cards a choice's menu number stands for: the first ``count`` in hand order."""
    return sorted(choice.cards, key=card_sort_key)[: choice.count]


def render_choices(view: game_pb2.GameView) -> str:
    """The view's card choices, numbered on from the legal actions' menu."""
    first = len(view.legal_actions) + 1
    return "\n".join(
        f"{number:4}) choose {choice.count} of {format_cards(choice.cards)}"
        f"  (type them, or {number} for {format_cards(_quick_pick(choice))})"
        for number, choice in enumerate(view.legal_choices, first)
    )


def _menu(view: game_pb2.GameView) -> str:
    return "\n".join(part for part in (render_menu(view), render_choices(view)) if part)


def _show_turn(view: game_pb2.GameView, show: Show) -> None:
    show(render_view(view))
    count = len(view.legal_actions)
    if count <= MENU_LIMIT:
        menu = _menu(view)
        if menu:
            show(menu)
    else:
        show(f"{count} choices: type the move, 'list' to number them all, or a number 1-{count}.")


def parse_move(view: game_pb2.GameView, typed: str) -> game_pb2.Action:
    """The action a player typed: a menu number, the cards of a choice, or the game's text.

    A number past the legal actions picks a card choice's first cards. Cards typed while the
    view offers one choice fill it unchecked (the service judges the count and the cards, and
    its refusal names the rule); anything else goes to the game's own text parser.

    Raises:
        ValueError: the text is none of these; the message says what to type instead.
    """
    choice_text = typed.strip()
    legal, choices = view.legal_actions, view.legal_choices
    if choice_text.isdigit():
        number = int(choice_text)
        if 1 <= number <= len(legal):
            return legal[number - 1]
        if len(legal) < number <= len(legal) + len(choices):
            choice = choices[number - len(legal) - 1]
            return choose_cards(choice, _quick_pick(choice))
        raise ValueError(f"choose a number from 1 to {len(legal) + len(choices)}")
    if len(choices) == 1:
        try:
            cards = parse_cards(choice_text.replace(",", " ").split())
        except ValueError:
            pass  # not only cards: a verb, or a typo the game's parser will explain
        else:
            if cards:
                return choose_cards(choices[0], cards, strict=False)
    return parse_action(view, choice_text)


def render_suggestion(reply: engine_service_pb2.SuggestActionResponse) -> str:
    """A SuggestAction reply as text: the suggested move, then every move the search tried.

    The moves are listed best first by their mean value, each with the playouts it rests on;
    the unit is said once (a value kind this client does not know is shown as a number).
    """
    unit = VALUE_UNITS.get(reply.value_kind, "the search's value")
    lines = [f"  Hint: {describe_action(reply.action)}"]
    searched = [c for c in reply.candidates if c.HasField("value")]
    if not searched:
        lines[0] += " (the only move worth searching)"
        return "\n".join(lines)
    lines[0] += f" ({reply.playouts} playouts; values in {unit}, higher is better)"
    for candidate in sorted(searched, key=lambda c: -c.value):
        mark = "*" if candidate.action == reply.action else " "
        lines.append(
            f"   {mark} {describe_action(candidate.action)}: {candidate.value:+.2f}"
            f" over {candidate.playouts} playouts"
        )
    return "\n".join(lines)


def move_prompt(view: game_pb2.GameView) -> str:
    """What the player is asked for a move; it names the commands besides moves."""
    if view.legal_choices and not view.legal_actions:
        count = view.legal_choices[0].count
        return f"Your move ({count} cards or a number; 'list', 'help' or 'quit'): "
    return "Your move (a number or e.g. QS; 'list' for the menu, 'help', 'quit'): "


def _ask(view: game_pb2.GameView, input_fn: InputFn, show: Show, hint: Hint) -> game_pb2.Action:
    """Read until the player names an action (it may still be illegal: the service judges).

    Raises:
        PlayerQuit: the player typed ``quit``.
    """
    while True:
        typed = input_fn(move_prompt(view)).strip()
        command = typed.lower()
        word, _, rest = command.partition(" ")
        if command in ("list", "?"):
            show(_menu(view))
        elif word == "hint" and (not rest.strip() or rest.strip().isdigit()):
            show(hint(int(rest) if rest.strip() else None))
        elif command in ("help", "h"):
            show(HELP)
        elif command in ("quit", "exit", "q"):
            raise PlayerQuit
        elif typed:
            try:
                return parse_move(view, typed)
            except ValueError as err:
                show(f"  {err}")


def _has_content(event: game_pb2.GameEvent) -> bool:
    """Whether an event says anything (an event message with no fields set says nothing)."""
    game = event.WhichOneof("game")
    return game is not None and bool(getattr(event, game).ListFields())


def describe_event(
    view: game_pb2.GameView, event: game_pb2.GameEvent, language: str | None = None
) -> str:
    """One event as a sentence in ``language`` (English by default), from the catalogue.

    The catalogue (:mod:`cardengine_client.text.events`) words every event the protos define,
    table events included; an event newer than this client is spelled out field by field by
    :func:`generic_event_text`, which is always complete if not pretty.
    """
    return catalogue_text(view, event, language or "en") or generic_event_text(view, event)


_SEAT_FIELDS: Final = frozenset({"seat", "seats", "winner", "winners", "leader"})
"""Integer fields that name seats (as do ``*_seat`` and ``*_seats``), shown as seat names."""


def _is_seat_field(name: str) -> bool:
    return name in _SEAT_FIELDS or name.endswith(("_seat", "_seats"))


def _enum_text(names: Sequence[str], name: str) -> str:
    """An enum value's name without the words all the enum's ``names`` share, in lower case."""
    words = [each.split("_") for each in names]
    shared = 0
    while all(len(w) > shared + 1 and w[shared] == words[0][shared] for w in words):
        shared += 1
    return "_".join(name.split("_")[shared:]).lower()


def _field_text(view: game_pb2.GameView, message: Message) -> str:
    """The set fields of ``message`` as ``name value`` pairs; cards and seats as in play."""
    parts = []
    for field in message.DESCRIPTOR.fields:
        oneof = field.containing_oneof
        if oneof is not None and message.WhichOneof(oneof.name) != field.name:
            continue
        if not field.is_repeated and field.has_presence and not message.HasField(field.name):
            continue
        value = getattr(message, field.name)
        values = list(value) if field.is_repeated else [value]
        if field.is_repeated and not values:
            continue
        if field.message_type is cards_pb2.Card.DESCRIPTOR:
            text = format_cards(values)
        elif field.message_type is not None:
            text = "; ".join(f"({_field_text(view, item)})" for item in values)
        elif field.enum_type is not None:
            enum = field.enum_type
            names = [each.name for each in enum.values]
            text = " ".join(
                _enum_text(names, enum.values_by_number[item].name)
                if item in enum.values_by_number
                else str(item)
                for item in values
            )
        elif _is_seat_field(field.name):
            text = ", ".join(seat_name(view, item) for item in values)
        else:
            text = " ".join(str(item) for item in values)
        label = field.name.removesuffix("_seats").removesuffix("_seat").removesuffix("seat")
        parts.append(f"{label.replace('_', ' ')} {text}".strip())
    return ", ".join(parts)


def generic_event_text(view: game_pb2.GameView, event: game_pb2.GameEvent) -> str:
    """An event of any game as ``kind: fields``, e.g. ``"card played: seat 1, card 2C"``.

    Built from the message's own fields, so a game whose text module has no event formatter
    (or an event kind newer than this client) is still told in full.
    """
    game = event.WhichOneof("game")
    if game is None:
        return "(an event of a game this client does not know)"
    message: Message = getattr(event, game)
    for oneof in message.DESCRIPTOR.oneofs:
        kind = message.WhichOneof(oneof.name)
        if kind is not None:
            return f"{kind.replace('_', ' ')}: {_field_text(view, getattr(message, kind))}"
    return _field_text(view, message)


def _game_lines(view: game_pb2.GameView) -> list[str]:
    game = view.WhichOneof("game")
    text = GAME_TEXTS.get(game) if game else None
    return text.render(view) if text is not None else []


class _Table:
    """The person's side of one game: tells each update, and plays the seat's turns."""

    def __init__(
        self,
        client: EngineClient,
        seat: int,
        token: str,
        input_fn: InputFn,
        show: Show,
        language: str | None = None,
    ) -> None:
        self.client, self.seat, self.token = client, seat, token
        self.input_fn, self.show, self.language = input_fn, show, language
        self.view: game_pb2.GameView | None = None
        self.lines: list[str] = []
        # The stream lags behind our own SubmitAction replies; act only on views this new.
        self.caught_up_at = 0

    def update(self, update: engine_service_pb2.GameUpdate) -> None:
        """Tell what ``update`` shows, then take the seat's turn if it is the seat's to act."""
        if not update.HasField("view"):
            return
        view = update.view
        self._tell(update, view)
        self.view = view
        if (
            view.status != game_pb2.GAME_STATUS_FINISHED
            and self.seat in view.to_act
            and self._seat_is_ours(view)
            and view.version >= self.caught_up_at
        ):
            self._turn(view)

    def _seat_is_ours(self, view: game_pb2.GameView) -> bool:
        """Whether the person still plays the seat (not after it was handed to a bot, T-R2)."""
        seats = view.seats
        return self.seat >= len(seats) or seats[self.seat] == game_pb2.PLAYER_TYPE_HUMAN

    def _tell(self, update: engine_service_pb2.GameUpdate, view: game_pb2.GameView) -> None:
        events = [event for event in update.events if _has_content(event)]
        lines = _game_lines(view)
        if events:
            for event in events:
                self.show(f"  {describe_event(view, event, self.language)}")
        elif self.view is not None and update.HasField("seat") and update.seat != self.seat:
            # No events to tell: show what changed on the table after another seat's move.
            before = set(self.lines)
            changed = [line for line in lines if line not in before]
            self.show(f"  {seat_name(view, update.seat)} moved (version {view.version}):")
            for line in changed:
                self.show(f"    {line.strip()}")
        self.lines = lines

    def _hint(self, view: game_pb2.GameView, playouts: int | None) -> str:
        """The service's suggestion for the seat at ``view`` as text, or why there is none."""
        try:
            reply = self.client.suggest_action(view.game_id, self.seat, self.token, playouts)
        except (IllegalAction, InvalidArgument) as err:
            return f"  No hint: {describe_rejection(err)}"
        return render_suggestion(reply)

    def _turn(self, view: game_pb2.GameView) -> None:
        """Read moves until one is accepted (or the game moved on without it)."""
        _show_turn(view, self.show)
        while True:
            action = _ask(view, self.input_fn, self.show, lambda n: self._hint(view, n))
            try:
                reply = self.client.submit(
                    view.game_id, self.seat, self.token, action, view.version
                )
            except (IllegalAction, InvalidArgument) as err:
                self.show(f"  Refused: {describe_rejection(err)}")
                continue
            except Aborted:
                self.show("  The game moved on before your move arrived; here it is again.")
                current = self.client.view(view.game_id, self.seat, self.token)
                self.caught_up_at = current.version
                return
            self.caught_up_at = reply.version
            return


def play(
    client: EngineClient,
    game_type: str = "hearts",
    *,
    input_fn: InputFn = input,
    output: TextIO = sys.stdout,
    seed: int | None = None,
    clock: float | None = None,
    bots: str = "heuristic",
    partner: str | None = None,
    language: str | None = None,
) -> game_pb2.GameView:
    """Play one game of ``game_type`` as seat 0 against ``bots``; return the final view.

    In a partnership game (Guandan) the person plays with ``partner`` (by default a search
    bot, see :func:`_human_vs_bots`).

    With ``clock`` the person has that many seconds per decision (and a bank of as many
    again), after which the heuristic bot moves for them; the views show what is left.
    Events are told in ``language`` (en, es, fr, de, nl; English by default).

    Raises:
        ValueError: the service does not host ``game_type``.
        EngineError: the service failed in a way a move cannot fix (e.g. the game expired).
        EOFError: ``input_fn`` ran out of input, or the player typed ``quit``
            (:class:`PlayerQuit`).
    """

    def show(text: str) -> None:
        print(text, file=output, flush=True)

    seats = _human_vs_bots(client, game_type, bots, partner)
    turn_clock = Clock(clock, bank=clock, on_expiry="heuristic") if clock is not None else None
    created = client.create_game(game_type, seats, seed=seed, clock=turn_clock)
    seat, token = _seat_token(created)
    table = _Table(client, seat, token, input_fn, show, language)
    with client.watch(created.game_id, seat, token) as watch:
        for item in watch:
            if isinstance(item, engine_service_pb2.GameUpdate):
                table.update(item)
    final = table.view
    if final is None or final.status != game_pb2.GAME_STATUS_FINISHED:
        final = client.view(created.game_id, seat, token)
    show(render_view(final))
    show(render_outcome(final))
    return final


def run(
    target: str,
    game_type: str = "hearts",
    seed: int | None = None,
    clock: float | None = None,
    bots: str = "heuristic",
    partner: str | None = None,
    language: str | None = None,
) -> int:
    """Play one game on the service at ``target`` with stdin/stdout; the process exit status.

    ``language`` words the events and is asked of the service for refusals and results.
    """
    try:
        with EngineClient(target, language=language) as client:
            play(
                client,
                game_type,
                seed=seed,
                clock=clock,
                bots=bots,
                partner=partner,
                language=language,
            )
    except (EOFError, KeyboardInterrupt):
        print("\nGoodbye.")
    except (ValueError, EngineError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: ``--target HOST:PORT`` and the game arguments (``--game G`` ...)."""
    parser = argparse.ArgumentParser(description="Play a card game against the engine's bots.")
    parser.add_argument("--target", required=True, help="the service's HOST:PORT")
    add_game_arguments(parser)
    args = parser.parse_args(argv)
    return run(
        args.target, args.game, args.seed, args.clock, args.bots, args.partner, args.language
    )


def add_game_arguments(parser: argparse.ArgumentParser) -> None:
    """``--game``, ``--seed``, ``--clock``, ``--bots``, ``--partner``, ``--language``.

    ``make play`` shares them.
    """
    parser.add_argument("--game", default="hearts", help="the game type (default: hearts)")
    parser.add_argument(
        "--bots",
        choices=BOT_LEVELS,
        default="heuristic",
        help="the bots in the other seats (default: heuristic; search is the strongest)",
    )
    parser.add_argument(
        "--partner",
        choices=BOT_LEVELS,
        help=f"the bot playing with you in a partnership game (Guandan; default: "
        f"{DEFAULT_PARTNER})",
    )
    parser.add_argument("--seed", type=int, help="fix the shuffles, to replay a game")
    parser.add_argument(
        "--language",
        choices=LANGUAGES,
        help="the language of events, refusals and results (default: en)",
    )
    parser.add_argument(
        "--clock",
        type=float,
        metavar="SECONDS",
        help="a turn clock: SECONDS per decision plus a bank of as many, then a bot moves",
    )


if __name__ == "__main__":
    sys.exit(main())
