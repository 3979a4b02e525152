"""The rules part of the registry entry for Guandan.

:mod:`engine_service.registry` pairs it with its bots.
"""

from __future__ import annotations

from typing import Final

from engine_service.core.protocol import GameSpec
from engine_service.games.guandan.actions import GuandanAction
from engine_service.games.guandan.config import GuandanConfig
from engine_service.games.guandan.rules import GuandanRules
from engine_service.games.guandan.state import SEATS, GuandanState
from engine_service.games.guandan.view import GuandanView

GUANDAN: Final[GameSpec[GuandanConfig, GuandanState, GuandanAction, GuandanView]] = GameSpec(
    name="guandan",
    title="Guandan (two decks, levels, tribute and wild level cards)",
    seats=SEATS,
    config_type=GuandanConfig,
    make_rules=GuandanRules,
    sides=((0, 2), (1, 3)),
)
