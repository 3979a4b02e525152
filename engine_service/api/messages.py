"""Requests into use-case arguments and use-case results into replies.

Game-specific parts go through the game's codec (:mod:`engine_service.codec.registry`);
this module handles the envelope every game shares.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from typing import Any, Final

from cardengine.v1 import engine_service_pb2, game_pb2

from engine_service.app.engine import ActionLog, CreatedGame, NewGame
from engine_service.app.play import SeatView
from engine_service.app.suggest import Suggestion
from engine_service.app.watch import Idle, Update, WatchItem
from engine_service.bots.search import SearchBot, ValueKind
from engine_service.codec.players import PLAYER_TYPES, decode_player_type
from engine_service.codec.registry import CODECS
from engine_service.codec.table import decode_clock_policy, encode_action, encode_seat_clocks
from engine_service.core.errors import MalformedRequest
from engine_service.core.protocol import GameSpec, OptionSpec, Outcome
from engine_service.core.record import PlayerKind
from engine_service.i18n import ENGLISH, outcome_summary

GAME_ID: Final = re.compile(r"[0-9a-f]{32}")
REQUEST_ID: Final = re.compile(r"[\x21-\x7e]{1,64}")
LABEL_KEY: Final = re.compile(r"[a-z][a-z0-9_.-]{0,62}")
MAX_LABELS: Final = 16
MAX_LABEL_VALUE: Final = 256
MAX_REASON: Final = 256
MAX_LOG_INDEX: Final = 2**62
"""Beyond any action log; Redis list indexes are signed 64-bit, so a page must end below 2^63."""
MAX_GAME_TYPE: Final = 32
"""No hosted game's name is longer; a longer one is refused before any lookup or echo."""
_OPTION_KINDS: Final = {
    "int": engine_service_pb2.OPTION_KIND_INT,
    "bool": engine_service_pb2.OPTION_KIND_BOOL,
    "choice": engine_service_pb2.OPTION_KIND_CHOICE,
}

_VALUE_KINDS: Final = {
    ValueKind.HAND_POINTS_MARGIN: engine_service_pb2.SUGGESTION_VALUE_KIND_HAND_POINTS_MARGIN,
    ValueKind.DEAL_SCORE_MARGIN: engine_service_pb2.SUGGESTION_VALUE_KIND_DEAL_SCORE_MARGIN,
    ValueKind.LEVELS: engine_service_pb2.SUGGESTION_VALUE_KIND_LEVELS,
}


def game_id_of(game_id: str) -> str:
    """A well-formed game id (an unknown one is NOT_FOUND later, a malformed one is not)."""
    if not GAME_ID.fullmatch(game_id):
        raise MalformedRequest("game_id", "must be the 32-hex-digit id CreateGame returned")
    return game_id


def game_type_of(game_type: str, field_path: str = "game_type") -> str:
    """A game type short enough to be one (whether it is hosted is the engine's to say)."""
    if len(game_type) > MAX_GAME_TYPE:
        raise MalformedRequest(
            field_path, f"is no hosted game type (names have at most {MAX_GAME_TYPE} characters)"
        )
    return game_type


def request_id_of(request_id: str) -> str:
    """A request id of 1 to 64 printable ASCII characters."""
    if not REQUEST_ID.fullmatch(request_id):
        raise MalformedRequest("request_id", "must be 1 to 64 printable ASCII characters")
    return request_id


def version_of(expected_version: int) -> int:
    """A version a view could have shown (versions start at 1)."""
    if expected_version < 1:
        raise MalformedRequest("expected_version", "must be the version of the view acted on")
    return expected_version


def seats_of(request: engine_service_pb2.CreateGameRequest) -> list[PlayerKind]:
    """The seat list of a CreateGame request."""
    return [decode_player_type(t, f"seats[{i}]") for i, t in enumerate(request.seats)]


def config_of(spec: GameSpec[Any, Any, Any, Any], options: game_pb2.GameOptions) -> Any:
    """The config a CreateGame request asks for; defaults when options are unset."""
    chosen = options.WhichOneof("game")
    if chosen is not None and chosen != spec.name:
        raise MalformedRequest("options", f"options are for {chosen}, the game is {spec.name}")
    return CODECS[spec.name].decode_options(options)


def action_of(action: game_pb2.Action) -> tuple[str, Any]:
    """The game an action is for, and the domain action."""
    game = action.WhichOneof("game")
    if game is None:
        raise MalformedRequest("action", "set the field of the game being played")
    if game == "table":
        raise MalformedRequest(
            "action.table", "table changes are made with LeaveGame, UpdateSeat or EndGame"
        )
    return game, CODECS[game].decode_action(action)


def labels_of(labels: Mapping[str, str], field_path: str = "labels") -> tuple[tuple[str, str], ...]:
    """Well-formed labels, sorted by key: at most 16, keys as in the CreateGame comment."""
    if len(labels) > MAX_LABELS:
        raise MalformedRequest(field_path, f"at most {MAX_LABELS} labels")
    for key, value in labels.items():
        if not LABEL_KEY.fullmatch(key):
            raise MalformedRequest(
                f"{field_path}[{key[:64]!r}]",
                "keys are 1 to 63 characters of a-z, 0-9, _, . and -, starting with a letter",
            )
        if len(value) > MAX_LABEL_VALUE:
            raise MalformedRequest(f"{field_path}[{key!r}]", "values are at most 256 characters")
    return tuple(sorted(labels.items()))


def new_game_of(
    spec: GameSpec[Any, Any, Any, Any], request: engine_service_pb2.CreateGameRequest
) -> NewGame:
    """Everything a CreateGame request asks for beside the game type and the seats."""
    return NewGame(
        config=config_of(spec, request.options),
        seed=request.seed if request.HasField("seed") else None,
        clock=decode_clock_policy(request.clock) if request.HasField("clock") else None,
        labels=labels_of(request.labels),
    )


def reason_of(reason: str) -> str:
    """An EndGame reason of 1 to 256 characters."""
    if not 1 <= len(reason) <= MAX_REASON:
        raise MalformedRequest("reason", "must be 1 to 256 characters")
    return reason


def encode_option(option: OptionSpec) -> engine_service_pb2.GameOption:
    """One option as listed by ListGameTypes."""
    return engine_service_pb2.GameOption(
        name=option.name,
        rule_id=option.rule_id,
        description=option.description,
        default_value=option.default,
        choices=option.choices,
        kind=_OPTION_KINDS[option.kind],
    )


def encode_game_type(spec: GameSpec[Any, Any, Any, Any]) -> engine_service_pb2.GameType:
    """A registry entry as listed by ListGameTypes."""
    return engine_service_pb2.GameType(
        name=spec.name,
        title=spec.title,
        seats=spec.seats,
        options=[encode_option(o) for o in spec.options],
        bots=[encode_bot(name, bot) for name, bot in spec.bots.items()],
        teams=[engine_service_pb2.Team(seats=team) for team in teams_of(spec)],
    )


def teams_of(spec: GameSpec[Any, Any, Any, Any]) -> tuple[tuple[int, ...], ...]:
    """The game's partnerships: its sides, or every seat alone where it defines none."""
    return spec.sides or tuple((seat,) for seat in range(spec.seats))


def encode_bot(name: str, bot: object) -> engine_service_pb2.BotInfo:
    """A game's bot as listed by ListGameTypes: its player type and search budget."""
    return engine_service_pb2.BotInfo(
        player_type=PLAYER_TYPES[PlayerKind(name)],
        name=name,
        simulations=bot.budget if isinstance(bot, SearchBot) else 0,
    )


def encode_outcome(outcome: Outcome, game_type: str, language: str = ENGLISH) -> game_pb2.Outcome:
    """A finished game's result, its summary in ``language`` (English: the rules' own)."""
    summary = outcome_summary(outcome, language, game_type)
    return game_pb2.Outcome(
        winners=outcome.winners,
        scores=outcome.scores,
        summary=summary,
        ended_early=outcome.ended_early,
        deal=outcome.deal,
        finishing_order=outcome.finishing_order,
    )


def encode_view(
    seat_view: SeatView, language: str = ENGLISH, out: game_pb2.GameView | None = None
) -> game_pb2.GameView:
    """The reply form of a seat's view, legal actions included, texts in ``language``.

    Written into ``out`` when given (a reply's own ``view`` field, empty), so a reply need
    not copy a view built apart; returns the message written.
    """
    codec = CODECS[seat_view.game_type]
    over = seat_view.outcome is not None
    message = game_pb2.GameView() if out is None else out
    message.game_id = seat_view.game_id
    message.game_type = seat_view.game_type
    message.version = seat_view.version
    message.status = game_pb2.GAME_STATUS_FINISHED if over else game_pb2.GAME_STATUS_IN_PROGRESS
    message.to_act.extend(seat_view.to_act)
    message.seats.extend([PLAYER_TYPES[kind] for kind in seat_view.seats])
    message.clocks.extend(encode_seat_clocks(seat_view.record))
    if seat_view.viewer is not None:
        message.viewer_seat = seat_view.viewer
    if seat_view.outcome is not None:
        message.outcome.CopyFrom(encode_outcome(seat_view.outcome, seat_view.game_type, language))
    codec.encode_legal(seat_view.legal, message)
    codec.encode_view(seat_view.view, seat_view.config, message)
    return message


def playouts_of(request: engine_service_pb2.SuggestActionRequest) -> int | None:
    """The playouts a SuggestAction asks for; ``None`` when unset (the game's default)."""
    return request.playouts if request.HasField("playouts") else None


def encode_suggestion(suggestion: Suggestion) -> engine_service_pb2.SuggestActionResponse:
    """The SuggestAction reply: the suggested action and every candidate with its value."""
    game_type = suggestion.game_type
    reply = engine_service_pb2.SuggestActionResponse(
        action=encode_action(game_type, suggestion.action),
        version=suggestion.version,
        value_kind=_VALUE_KINDS[suggestion.value_kind],
        playouts=suggestion.budget,
        max_playouts=suggestion.max_budget,
    )
    for candidate in suggestion.candidates:
        entry = reply.candidates.add(
            action=encode_action(game_type, candidate.action), playouts=candidate.playouts
        )
        if candidate.value is not None:
            entry.value = candidate.value
    return reply


def encode_created(
    created: CreatedGame, language: str = ENGLISH
) -> engine_service_pb2.CreateGameResponse:
    """The CreateGame reply: id, the only copy of each token, and the spectator's view."""
    return engine_service_pb2.CreateGameResponse(
        game_id=created.game_id,
        seat_tokens=[
            engine_service_pb2.SeatToken(seat=seat, token=token)
            for seat, token in sorted(created.tokens.items())
        ],
        view=encode_view(created.view, language),
        admin_token=created.admin_token,
    )


def encode_log(log: ActionLog, next_page_token: str) -> engine_service_pb2.GetActionLogResponse:
    """The GetActionLog reply, with the token of the next page ("" after the last)."""
    message = engine_service_pb2.GetActionLogResponse(
        game_type=log.game_type,
        options=CODECS[log.game_type].encode_options(log.config),
        seats=[PLAYER_TYPES[kind] for kind in log.seats],
        version=log.version,
        next_page_token=next_page_token,
    )
    if log.seed is not None:
        message.seed = log.seed
    for line in log.entries:
        entry = message.entries.add(index=line.index, seat=line.seat, redacted=line.action is None)
        if line.applied_at_ms:
            entry.applied_at.FromMilliseconds(line.applied_at_ms)
        if line.action is not None:
            entry.action.CopyFrom(encode_action(log.game_type, line.action))
    return message


def page_token(game_id: str, seat: int | None, index: int) -> str:
    """An opaque token for the page starting at ``index`` (AIP-158).

    It binds the request it continues (game and reader), so a token cannot be carried over
    to another game or seat unnoticed; the page size may change between pages, as AIP-158
    allows and ListGames does.
    """
    text = f"{game_id}:{'' if seat is None else seat}:{index}"
    encoded: bytes = base64.urlsafe_b64encode(text.encode())
    return encoded.decode().rstrip("=")


def page_start(
    request: engine_service_pb2.GetActionLogRequest, game_id: str, seat: int | None
) -> int:
    """Where the requested page starts: the token's index, else ``from_index``.

    Raises:
        MalformedRequest: a token that is not one this service gave for the same request, or
            a ``from_index`` beyond any log.
    """
    if not request.page_token:
        if request.from_index > MAX_LOG_INDEX:
            raise MalformedRequest("from_index", f"must be at most {MAX_LOG_INDEX}")
        return request.from_index
    padded = request.page_token + "=" * (-len(request.page_token) % 4)
    try:
        index = int(base64.urlsafe_b64decode(padded).decode().rpartition(":")[2])
    except (ValueError, UnicodeError):
        index = -1
    valid = 0 <= index <= MAX_LOG_INDEX
    if not valid or page_token(game_id, seat, index) != request.page_token:
        raise MalformedRequest(
            "page_token", "must be the next_page_token of the same request's previous page"
        )
    return index


def encode_update(update: Update, language: str, out: engine_service_pb2.WatchGameResponse) -> None:
    """One version of a watched game (or several merged, for a watcher far behind)."""
    message = out.update
    message.version = update.version
    message.events.extend(update.events)
    message.first_version = update.first_version
    if update.seat is not None:
        message.seat = update.seat
    if update.applied_at_ms:
        message.applied_at.FromMilliseconds(update.applied_at_ms)
    if update.view is not None:
        encode_view(update.view, language, message.view)


def encode_watch_item(
    item: WatchItem,
    language: str = ENGLISH,
    out: engine_service_pb2.WatchGameResponse | None = None,
) -> engine_service_pb2.WatchGameResponse:
    """A message of the WatchGame stream, texts in ``language``.

    Written into ``out`` when given (a Play answer's own ``watch`` field, empty), so a
    session need not copy an update built apart; returns the message written.
    """
    message = engine_service_pb2.WatchGameResponse() if out is None else out
    if isinstance(item, Update):
        encode_update(item, language, message)
    elif isinstance(item, Idle):
        message.heartbeat.version = item.version
    else:
        message.ended.version = item.version
        message.ended.outcome.CopyFrom(encode_outcome(item.outcome, item.game_type, language))
    return message
