"""Run the doctests of the card and Hearts modules, so the examples in docstrings stay true."""

from __future__ import annotations

import doctest
import importlib

import pytest

# Modules whose docstrings carry examples; each must have at least one.
MODULES_WITH_EXAMPLES = [
    "engine_service.core.cards",
    "engine_service.games.hearts.actions",
    "engine_service.games.hearts.scoring",
]
# Hearts modules without examples today: run them too, so an example added later is checked.
OTHER_HEARTS_MODULES = [
    "engine_service.games.hearts.config",
    "engine_service.games.hearts.rules",
    "engine_service.games.hearts.state",
    "engine_service.games.hearts.view",
]


@pytest.mark.parametrize("name", MODULES_WITH_EXAMPLES + OTHER_HEARTS_MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    if name in MODULES_WITH_EXAMPLES:
        assert result.attempted > 0
