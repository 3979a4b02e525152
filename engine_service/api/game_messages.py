"""GetGame and ListGames replies, and ListGames filters and page tokens."""

from __future__ import annotations

import base64
import hashlib
from typing import Final

from cardengine.v1 import engine_service_pb2

from engine_service.api.messages import encode_outcome, game_type_of, labels_of
from engine_service.app.games import STATES, GameFilter, GameInfo
from engine_service.app.play import OVER, RUNNING, WAITING
from engine_service.codec.players import PLAYER_TYPES
from engine_service.codec.registry import CODECS
from engine_service.codec.table import encode_clock_policy, encode_seat_clocks
from engine_service.core.errors import MalformedRequest
from engine_service.i18n import ENGLISH

GAME_STATES: Final = {
    WAITING: engine_service_pb2.GAME_STATE_WAITING_FOR_HUMAN,
    RUNNING: engine_service_pb2.GAME_STATE_RUNNING,
    OVER: engine_service_pb2.GAME_STATE_OVER,
}
STATE_NAMES: Final = {number: name for name, number in GAME_STATES.items()}


def encode_game_info(info: GameInfo, language: str = ENGLISH) -> engine_service_pb2.GameInfo:
    """A game's metadata; never a card."""
    record = info.record
    message = engine_service_pb2.GameInfo(
        game_id=info.game_id,
        game_type=record.game_type,
        options=CODECS[record.game_type].encode_options(record.config),
        seats=[
            engine_service_pb2.SeatInfo(
                seat=seat, player_type=PLAYER_TYPES[s.kind], has_token=bool(s.token_sha256)
            )
            for seat, s in enumerate(record.seats)
        ],
        version=info.version,
        state=GAME_STATES[info.state],
        labels=dict(record.labels),
        clocks=encode_seat_clocks(record),
        rematch_of=record.rematch_of,
        rematch_id=info.rematch_id,
    )
    message.create_time.FromMilliseconds(record.created_at_ms)
    message.update_time.FromMilliseconds(info.updated_ms or record.created_at_ms)
    if info.outcome is not None:
        message.outcome.CopyFrom(encode_outcome(info.outcome, record.game_type, language))
    if record.clock is not None:
        message.clock.CopyFrom(encode_clock_policy(record.clock))
    return message


def filter_of(request: engine_service_pb2.ListGamesRequest) -> GameFilter:
    """The filter a ListGames request asks for."""
    states: tuple[str, ...] = STATES
    if request.state:
        name = STATE_NAMES.get(request.state)
        if name is None:
            raise MalformedRequest("state", "must be a GameState value")
        states = (name,)
    labels = dict(labels_of(request.labels))
    return GameFilter(game_type_of(request.game_type), states, labels)


def _filter_digest(request: engine_service_pb2.ListGamesRequest) -> str:
    """A short digest of the request's filters, which a page token carries.

    The page size is left out: AIP-158 lets it change from page to page.
    """
    text = repr((request.game_type, request.state, sorted(request.labels.items())))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def list_token(request: engine_service_pb2.ListGamesRequest, cursor: str) -> str:
    """The opaque token of the page after ``cursor`` (AIP-158), bound to the same filters."""
    text = f"{_filter_digest(request)}|{cursor}"
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def list_cursor(request: engine_service_pb2.ListGamesRequest) -> str | None:
    """The cursor a ListGames page token stands for (``None`` without a token).

    Raises:
        MalformedRequest: a token that is not one this service gave for the same filters.
    """
    if not request.page_token:
        return None
    padded = request.page_token + "=" * (-len(request.page_token) % 4)
    try:
        digest, _, cursor = base64.urlsafe_b64decode(padded).decode().partition("|")
    except (ValueError, UnicodeError):
        digest, cursor = "", ""
    if not cursor or digest != _filter_digest(request):
        raise MalformedRequest(
            "page_token", "must be the next_page_token of the same request's previous page"
        )
    return cursor
