"""The registry entry for Guandan."""

from __future__ import annotations

from typing import Final

from engine_service.bots.guandan_heuristic import GuandanHeuristicBot
from engine_service.bots.guandan_worlds import SEARCH_BUDGET, GuandanWorlds
from engine_service.bots.random_bot import RandomBot
from engine_service.bots.search import SearchBot
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
    bots={
        "random": RandomBot[GuandanAction](),
        "heuristic": GuandanHeuristicBot(),
        "search": SearchBot(GuandanWorlds(), SEARCH_BUDGET),
    },
    sides=((0, 2), (1, 3)),
)
