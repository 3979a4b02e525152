"""Checks every game's world sampler must pass, whatever the game."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any

Sampler = Callable[[Any, Any, random.Random], Any]
"""A game's ``sample_world(rules, view, rng)``."""


def check_sampling_depends_only_on_the_view(
    rules: Any, positions: Iterable[Any], sample_world: Sampler, label: str
) -> None:
    """From a twin state with the same view as each true position, the same seeds give the
    same worlds: the sampler reads the view alone, never the true hidden cards."""
    for index, true in enumerate(positions):
        seat = rules.current_seats(true)[0]
        view = rules.view(true, seat)
        twin = sample_world(rules, view, random.Random(f"twin:{label}:{index}"))
        assert rules.view(twin, seat) == view
        for k in range(2):
            first = sample_world(rules, view, random.Random(k))
            second = sample_world(rules, rules.view(twin, seat), random.Random(k))
            assert first == second
