"""Operators' search budgets: playouts per decision of each game's search bot, or none at all.

Why a setting: a search move costs CPU (the defaults take some 20 to 50 ms a searched move
at the median, see docs/bots.md), so an operator may buy strength with more playouts, save
CPU with fewer, or take the search bot off a game (``0``), which then refuses it at
CreateGame and UpdateSeat like any bot the game does not offer. The budget counts playouts,
never time, so a game plays the same on any machine; every process of a group must be given
the same budgets, since the moves a seeded game's bots make depend on them (the log keeps the
moves made either way, so replays never do).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from engine_service.bots.search import SearchBot
from engine_service.core.protocol import GameSpec

SEARCH: str = "search"
"""The registry name of the search bot (``PlayerKind.SEARCH_BOT``)."""

Registry = Mapping[str, GameSpec[Any, Any, Any, Any]]


def parse_search_budgets(entries: Iterable[str], registry: Registry) -> dict[str, int]:
    """``GAME=PLAYOUTS`` entries as a mapping, each game one offering a search bot.

    Raises:
        ValueError: an entry that is not ``GAME=N`` with ``N >= 0``, a game the registry
            lacks or whose bots do not search, or a game named twice.
    """
    budgets: dict[str, int] = {}
    for entry in entries:
        game, sep, number = entry.partition("=")
        if not sep or not number.strip().isdigit():
            raise ValueError(f"search budget {entry!r} is not GAME=PLAYOUTS (0 or more)")
        game = game.strip()
        spec = registry.get(game)
        if spec is None or not isinstance(spec.bots.get(SEARCH), SearchBot):
            raise ValueError(f"search budget {entry!r}: {game!r} has no search bot")
        if game in budgets:
            raise ValueError(f"search budget for {game!r} given twice")
        budgets[game] = int(number)
    return budgets


def with_search_budgets(registry: Registry, budgets: Mapping[str, int]) -> Registry:
    """``registry`` with each named game's search bot on its budget (``0``: taken off)."""
    adjusted = dict(registry)
    for game, budget in budgets.items():
        spec = registry[game]
        bots = {
            name: bot.with_budget(budget) if isinstance(bot, SearchBot) else bot
            for name, bot in spec.bots.items()
            if name != SEARCH or budget > 0
        }
        adjusted[game] = replace(spec, bots=bots)
    return adjusted
