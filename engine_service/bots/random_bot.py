"""A bot that picks uniformly among the legal actions: a baseline and a fuzzer."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Generic, TypeVar

ActionT = TypeVar("ActionT")


class RandomBot(Generic[ActionT]):
    """Choose any legal action with equal probability; works for every game."""

    def choose(self, view: object, legal: Sequence[ActionT], rng: random.Random) -> ActionT:
        """A uniformly random element of ``legal``."""
        return legal[rng.randrange(len(legal))]
