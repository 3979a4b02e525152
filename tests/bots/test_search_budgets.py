"""The search budgets setting: GAME=PLAYOUTS entries, checked at start-up, applied per game."""

from __future__ import annotations

import pytest

from engine_service.app.search_budgets import parse_search_budgets, with_search_budgets
from engine_service.bots.search import SearchBot
from engine_service.registry import REGISTRY
from engine_service.settings import parse_settings


def test_budgets_replace_the_default_and_zero_takes_the_bot_off() -> None:
    budgets = parse_search_budgets(["guandan=3", " hearts = 0"], REGISTRY)
    registry = with_search_budgets(REGISTRY, budgets)
    guandan = registry["guandan"].bots["search"]
    assert isinstance(guandan, SearchBot) and guandan.budget == 3
    assert "search" not in registry["hearts"].bots
    assert list(registry["hearts"].bots) == ["random", "heuristic"]
    assert registry["klaberjass"] is REGISTRY["klaberjass"]
    assert "search" in REGISTRY["hearts"].bots  # the registry itself is left alone


@pytest.mark.parametrize(
    "entry", ["hearts", "hearts=", "hearts=-1", "hearts=x", "poker=3", "=3", "hearts=1;"]
)
def test_a_bad_entry_is_refused(entry: str) -> None:
    with pytest.raises(ValueError, match="search budget"):
        parse_search_budgets([entry], REGISTRY)


def test_a_game_named_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="twice"):
        parse_search_budgets(["hearts=1", "hearts=2"], REGISTRY)


def test_the_flag_and_the_environment_set_them() -> None:
    settings = parse_settings(["--search-budget", "hearts=0"], {})
    assert settings.search_budgets == ("hearts=0",)
    from_env = parse_settings([], {"ENGINE_SEARCH_BUDGETS": "guandan=2;klaberjass=5"})
    assert from_env.search_budgets == ("guandan=2", "klaberjass=5")
    with pytest.raises(SystemExit):
        parse_settings(["--search-budget", "poker=1"], {})
