"""The registry: every game the service hosts, by name, each with the bots that may play it.

The pairing lives here, above both ``games/`` and ``bots/``: a game's package declares only
its rules (``games/*/spec.py``), the bots read the games' views and actions, and so no import
runs from the rules back up to the bots. The service, the conformance suite, the golden files
and the benchmarks iterate over this mapping, so a new game needs no new transport code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Final, TypeVar

from engine_service.bots import guandan_worlds, hearts_worlds, klaberjass_worlds
from engine_service.bots.guandan_heuristic import GuandanHeuristicBot
from engine_service.bots.hearts_heuristic import HeartsHeuristicBot
from engine_service.bots.klaberjass_heuristic import KlaberjassHeuristicBot
from engine_service.bots.random_bot import RandomBot
from engine_service.bots.search import SearchBot
from engine_service.core.protocol import Bot, GameSpec
from engine_service.games.guandan.actions import GuandanAction
from engine_service.games.guandan.spec import GUANDAN
from engine_service.games.hearts.actions import HeartsAction
from engine_service.games.hearts.spec import HEARTS
from engine_service.games.klaberjass.actions import KlaberjassAction
from engine_service.games.klaberjass.spec import KLABERJASS

ActionT = TypeVar("ActionT")
ViewT = TypeVar("ViewT")


def _with_bots(
    spec: GameSpec[Any, Any, ActionT, ViewT],
    random_bot: Bot[ViewT, ActionT],
    heuristic: Bot[ViewT, ActionT],
    search: SearchBot,
) -> GameSpec[Any, Any, ActionT, ViewT]:
    """``spec`` with its three levels of bot (the names CreateGame's player types use)."""
    return replace(spec, bots={"random": random_bot, "heuristic": heuristic, "search": search})


_GAMES: Final = (
    _with_bots(
        HEARTS,
        RandomBot[HeartsAction](),
        HeartsHeuristicBot(),
        SearchBot(hearts_worlds.HeartsWorlds(), hearts_worlds.SEARCH_BUDGET),
    ),
    _with_bots(
        GUANDAN,
        RandomBot[GuandanAction](),
        GuandanHeuristicBot(),
        SearchBot(guandan_worlds.GuandanWorlds(), guandan_worlds.SEARCH_BUDGET),
    ),
    _with_bots(
        KLABERJASS,
        RandomBot[KlaberjassAction](),
        KlaberjassHeuristicBot(),
        SearchBot(klaberjass_worlds.KlaberjassWorlds(), klaberjass_worlds.SEARCH_BUDGET),
    ),
)
REGISTRY: Final[Mapping[str, GameSpec[Any, Any, Any, Any]]] = {game.name: game for game in _GAMES}
