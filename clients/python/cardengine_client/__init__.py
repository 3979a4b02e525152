"""Python client for the card-game engine service.

``EngineClient`` wraps the generated ``cardengine.v1`` stubs: it sends seat tokens, retries
UNAVAILABLE, and raises one exception class per status family (``IllegalAction`` carries the
broken rule's ID). ``EngineClient.watch`` follows a game live and resumes by itself after a
drop. ``create_game`` takes a turn ``Clock`` and labels; a backend manages its tables with
``list_games``, ``get_game``, ``update_seat``, ``end_game`` and ``rematch_game`` (with the
game's admin token or a ``service_key``), and a player leaves with ``leave_game``.
``choose_cards`` turns a view's ``CardChoice`` (the Hearts pass) into an action.
``cardengine_client.terminal`` is a playable terminal game built on it.

>>> with EngineClient("127.0.0.1:50051") as client:  # doctest: +SKIP
...     game = client.create_game("hearts", ["human", "heuristic", "heuristic", "heuristic"])
"""

from cardengine_client.actions import (
    choose_cards,
    format_reading,
    guandan_pass,
    guandan_play,
    guandan_return,
    hearts_pass,
    hearts_play,
    klaberjass_dix,
    klaberjass_pass,
    klaberjass_play,
    klaberjass_trump,
    parse_reading,
    parse_suit,
)
from cardengine_client.cards import (
    card_sort_key,
    format_card,
    format_cards,
    parse_card,
    parse_cards,
)
from cardengine_client.client import (
    ADMIN_TOKEN_KEY,
    PLAYER_TYPES,
    SEAT_TOKEN_KEY,
    SERVICE_KEY_KEY,
    Clock,
    EngineClient,
    GameWatch,
    WatchItem,
    player_type,
)
from cardengine_client.errors import (
    Aborted,
    AdminTokenInvalid,
    AlreadyExists,
    AlreadyRematched,
    Cancelled,
    EngineError,
    FieldViolation,
    GameNotOver,
    IllegalAction,
    Internal,
    InvalidArgument,
    NoForfeitInGame,
    NotFound,
    NothingToChange,
    PermissionDenied,
    RequestIdReused,
    SeatPlayedByBot,
    ServiceKeyInvalid,
    Unauthenticated,
    Unavailable,
    VersionExpired,
    Violation,
    WatcherTooSlow,
    from_rpc_error,
    from_status,
)
from cardengine_client.tls import Tls

__all__ = [
    "ADMIN_TOKEN_KEY",
    "PLAYER_TYPES",
    "SEAT_TOKEN_KEY",
    "SERVICE_KEY_KEY",
    "Aborted",
    "AdminTokenInvalid",
    "AlreadyExists",
    "AlreadyRematched",
    "Cancelled",
    "Clock",
    "EngineClient",
    "EngineError",
    "FieldViolation",
    "GameNotOver",
    "GameWatch",
    "IllegalAction",
    "Internal",
    "InvalidArgument",
    "NoForfeitInGame",
    "NotFound",
    "NothingToChange",
    "PermissionDenied",
    "RequestIdReused",
    "SeatPlayedByBot",
    "ServiceKeyInvalid",
    "Tls",
    "Unauthenticated",
    "Unavailable",
    "VersionExpired",
    "Violation",
    "WatchItem",
    "WatcherTooSlow",
    "card_sort_key",
    "choose_cards",
    "format_card",
    "format_cards",
    "format_reading",
    "from_rpc_error",
    "from_status",
    "guandan_pass",
    "guandan_play",
    "guandan_return",
    "hearts_pass",
    "hearts_play",
    "klaberjass_dix",
    "klaberjass_pass",
    "klaberjass_play",
    "klaberjass_trump",
    "parse_card",
    "parse_cards",
    "parse_reading",
    "parse_suit",
    "player_type",
]
