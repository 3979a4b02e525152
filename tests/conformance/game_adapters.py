"""The conformance adapters, one per registered game, keyed by registry name.

A registered game missing here fails the suite (``checks.adapter_for``). To add a game, write
its adapter (see :mod:`tests.conformance.adapter` for the contract and
:mod:`tests.conformance.hearts_adapter` for an example) and register it below.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from tests.conformance.adapter import GameAdapter
from tests.conformance.guandan_adapter import GuandanAdapter
from tests.conformance.hearts_adapter import HeartsAdapter
from tests.conformance.klaberjass_adapter import KlaberjassAdapter

ADAPTERS: Final[Mapping[str, GameAdapter]] = {
    "hearts": HeartsAdapter(),
    "guandan": GuandanAdapter(),
    "klaberjass": KlaberjassAdapter(),
}
