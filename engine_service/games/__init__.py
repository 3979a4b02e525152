"""The game registry: every game the service hosts, by name.

A game registers here once; the service, the conformance suite, the golden files and the
benchmarks all iterate over this mapping, so a new game needs no new transport code.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from engine_service.core.protocol import GameSpec
from engine_service.games.guandan.spec import GUANDAN
from engine_service.games.hearts.spec import HEARTS
from engine_service.games.klaberjass.spec import KLABERJASS

REGISTRY: Final[Mapping[str, GameSpec[Any, Any, Any, Any]]] = {
    HEARTS.name: HEARTS,
    GUANDAN.name: GUANDAN,
    KLABERJASS.name: KLABERJASS,
}
