"""Our bots as the tournament drives them: the registry's bots, one decision at a time.

A bot gets its seat's view and legal actions only, as the service gives them
(``app.play.bot_move``); a bot that can search under given rules (``choose_under``) gets the
tournament's rules, which may not be the game's defaults. The ``search`` bot may not be
registered for every game yet; :func:`resolve` then names the heuristic as its stand-in, and
the report says so.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any

from engine_service.core.protocol import GameSpec, Rules

SEARCH = "search"
HEURISTIC = "heuristic"


def resolve(spec: GameSpec[Any, Any, Any, Any], kind: str) -> str:
    """The registered bot that plays ``kind`` for ``spec``: itself, or the heuristic."""
    return kind if kind in spec.bots else HEURISTIC


def bot_of(spec: GameSpec[Any, Any, Any, Any], kind: str, budget: int | None) -> Any:
    """The bot playing ``kind``, with ``budget`` playouts when it takes one."""
    bot = spec.bots[resolve(spec, kind)]
    if budget is not None and hasattr(bot, "with_budget"):
        return bot.with_budget(budget)
    return bot


def decide(
    bot: Any,
    rules: Rules[Any, Any, Any],
    state: Any,
    seat: int,
    rng: random.Random,
    times_ms: list[float],
) -> Any:
    """``bot``'s action for ``seat`` from its view alone; the CPU time is added to ``times_ms``."""
    view = rules.view(state, seat)
    legal: Sequence[Any] = rules.legal_actions(state, seat)
    started = time.process_time()
    if hasattr(bot, "choose_under"):
        action = bot.choose_under(rules, view, legal, rng)
    else:
        action = bot.choose(view, legal, rng)
    times_ms.append((time.process_time() - started) * 1000)
    return action
