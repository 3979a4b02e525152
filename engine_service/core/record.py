"""A stored game as the service sees it: who sits where, the rules, the seed and the state."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine_service.core.table import ClockPolicy, Ending, SeatClock


class PlayerKind(Enum):
    """Who plays a seat; bots carry the name of the registry bot that plays for them."""

    HUMAN = "human"
    RANDOM_BOT = "random"
    HEURISTIC_BOT = "heuristic"
    SEARCH_BOT = "search"

    @property
    def is_bot(self) -> bool:
        """Whether the service itself plays this seat."""
        return self is not PlayerKind.HUMAN


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """One seat: its player kind and, for a human, the SHA-256 of its token."""

    kind: PlayerKind
    token_sha256: bytes = b""


@dataclass(frozen=True, slots=True)
class GameRecord:
    """Everything stored about a game except its version and action log.

    ``config`` and ``state`` are the game's own types; the registry entry named by
    ``game_type`` says which. The rest is the table around the game
    (:mod:`engine_service.core.table`): the admin token's hash, the clock policy and each
    seat's clock, an early ending, the creator's labels, the creation time and the finished
    game this one is a rematch of.
    """

    game_type: str
    config: Any
    seed: int
    seats: tuple[SeatRecord, ...]
    state: Any
    admin_sha256: bytes = b""
    clock: ClockPolicy | None = None
    clocks: tuple[SeatClock, ...] = ()
    ending: Ending | None = None
    labels: tuple[tuple[str, str], ...] = ()
    created_at_ms: int = 0
    rematch_of: str = ""
