"""The registry entry for two-player Klaberjass."""

from __future__ import annotations

from typing import Final

from engine_service.bots.klaberjass_heuristic import KlaberjassHeuristicBot
from engine_service.bots.klaberjass_worlds import SEARCH_BUDGET, KlaberjassWorlds
from engine_service.bots.random_bot import RandomBot
from engine_service.bots.search import SearchBot
from engine_service.core.protocol import GameSpec
from engine_service.games.klaberjass.actions import KlaberjassAction
from engine_service.games.klaberjass.config import KlaberjassConfig
from engine_service.games.klaberjass.rules import KlaberjassRules
from engine_service.games.klaberjass.state import SEATS, KlaberjassState
from engine_service.games.klaberjass.view import KlaberjassView

KLABERJASS: Final[GameSpec[KlaberjassConfig, KlaberjassState, KlaberjassAction, KlaberjassView]] = (
    GameSpec(
        name="klaberjass",
        title="Klaberjass for two (Klob, Bela)",
        seats=SEATS,
        config_type=KlaberjassConfig,
        make_rules=KlaberjassRules,
        bots={
            "random": RandomBot[KlaberjassAction](),
            "heuristic": KlaberjassHeuristicBot(),
            "search": SearchBot(KlaberjassWorlds(), SEARCH_BUDGET),
        },
        sides=((0,), (1,)),
    )
)
