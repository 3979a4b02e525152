"""Position helpers every game's rule tests share: cards written as text, seeded random walks.

Each game's own ``<game>_positions.py`` builds its states; what does not depend on the game
lives here once.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from engine_service.core.cards import Card, cards_in, format_cards, mask_of


class WalkableRules(Protocol):
    """The part of a game's rules a random walk needs."""

    def new_game(self, seed: int) -> Any:
        """The first state."""

    def current_seats(self, state: Any) -> tuple[int, ...]:
        """The seats that may act now."""

    def legal_actions(self, state: Any, seat: int) -> Sequence[Any]:
        """What ``seat`` may do now."""

    def apply(self, state: Any, seat: int, action: Any) -> Any:
        """The state after ``action``."""


def cards(text: str) -> tuple[Card, ...]:
    """The core cards named in ``text`` (``"2C QS"``), in that order."""
    return tuple(Card.parse(code) for code in text.split())


def mask(text: str) -> int:
    """The bitmask of the core cards named in ``text``."""
    return mask_of(cards(text))


def show(held: int) -> str:
    """A bitmask of core cards as text, lowest card first."""
    return format_cards(cards_in(held))


def random_walk(
    rules: WalkableRules, seed: int, max_actions: int = 200_000
) -> Iterator[tuple[Any, int | None, Any | None]]:
    """Walk a game with seeded random legal actions, a random one of the seats that may act.

    Yields each state with the seat about to act and the action it takes, and last the finished
    game with ``None`` twice.
    """
    rng = random.Random(seed)
    state = rules.new_game(seed)
    for _ in range(max_actions):
        seats = rules.current_seats(state)
        if not seats:
            yield state, None, None
            return
        seat = rng.choice(seats)
        action = rng.choice(list(rules.legal_actions(state, seat)))
        yield state, seat, action
        state = rules.apply(state, seat, action)
    raise AssertionError(f"game {seed} did not end within {max_actions} actions")
