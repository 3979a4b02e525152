"""The rules part of the registry entry for Hearts.

:mod:`engine_service.registry` pairs it with its bots.
"""

from __future__ import annotations

from typing import Final

from engine_service.core.protocol import GameSpec
from engine_service.games.hearts.actions import HeartsAction
from engine_service.games.hearts.config import HeartsConfig
from engine_service.games.hearts.rules import HeartsRules
from engine_service.games.hearts.state import SEATS, HeartsState
from engine_service.games.hearts.view import HeartsView

HEARTS: Final[GameSpec[HeartsConfig, HeartsState, HeartsAction, HeartsView]] = GameSpec(
    name="hearts",
    title="Hearts (GameTwist, with the Special end rules)",
    seats=SEATS,
    config_type=HeartsConfig,
    make_rules=HeartsRules,
)
