"""Python client for the card-game engine service.

``EngineClient`` wraps the generated ``cardengine.v1`` stubs: it sends seat tokens, retries
UNAVAILABLE, and raises one exception class per status family (``IllegalAction`` carries the
broken rule's ID). ``EngineClient.watch`` follows a game live and resumes by itself after a
drop; ``choose_cards`` turns a view's ``CardChoice`` (the Hearts pass) into an action.
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
    PLAYER_TYPES,
    SEAT_TOKEN_KEY,
    EngineClient,
    GameWatch,
    WatchItem,
    player_type,
)
from cardengine_client.errors import (
    Aborted,
    Cancelled,
    EngineError,
    FieldViolation,
    IllegalAction,
    Internal,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    Unauthenticated,
    Unavailable,
    VersionExpired,
    Violation,
    WatcherTooSlow,
    from_rpc_error,
    from_status,
)

__all__ = [
    "PLAYER_TYPES",
    "SEAT_TOKEN_KEY",
    "Aborted",
    "Cancelled",
    "EngineClient",
    "EngineError",
    "FieldViolation",
    "GameWatch",
    "IllegalAction",
    "Internal",
    "InvalidArgument",
    "NotFound",
    "PermissionDenied",
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
