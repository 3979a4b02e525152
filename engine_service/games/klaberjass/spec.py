"""The rules part of the registry entry for two-player Klaberjass.

:mod:`engine_service.registry` pairs it with its bots.
"""

from __future__ import annotations

from typing import Final

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
        sides=((0,), (1,)),
    )
)
