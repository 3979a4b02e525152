"""Run the doctests of every engine and client module, so the examples in docstrings stay true.

Modules are found by walking the packages, not listed by hand: a game or module added later
is covered without touching this file.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.machinery
import pkgutil
from types import ModuleType

import cardengine_client
import pytest

import engine_service

# Importing ``__main__`` would start the server.
SKIPPED = {"engine_service.__main__"}


def _module_names(package: ModuleType) -> list[str]:
    found = [package.__name__]
    for info in pkgutil.walk_packages(package.__path__, prefix=f"{package.__name__}."):
        if info.name not in SKIPPED:
            found.append(info.name)
    return sorted(found)


MODULES = _module_names(engine_service) + _module_names(cardengine_client)


def _source_module(name: str) -> ModuleType:
    """The module, skipping the test when it was loaded compiled.

    mypyc keeps no docstrings, so a compiled module's examples exist only in its source: the
    suite run on the sources (``CARDENGINE_PURE=1``, part of ``make test``) runs them.
    """
    module = importlib.import_module(name)
    if str(getattr(module, "__file__", "")).endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
        pytest.skip(f"{name} is compiled; its examples run in the suite on the sources")
    return module


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    """Every example in the module holds."""
    result = doctest.testmod(_source_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


@pytest.mark.parametrize("game", ["hearts", "guandan", "klaberjass"])
def test_each_game_has_examples_that_run(game: str) -> None:
    """The walk reaches every game, and the examples in its action texts really run."""
    assert f"engine_service.games.{game}.rules" in MODULES
    actions = _source_module(f"engine_service.games.{game}.actions")
    assert doctest.testmod(actions, optionflags=doctest.ELLIPSIS).attempted > 0
