"""A stored game as the service sees it: seats, rules, seed, state, clock and early ending."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any


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


class ExpiryAction(Enum):
    """What happens when a human seat's decision time runs out (T-R5)."""

    RANDOM_BOT = "random"
    HEURISTIC_BOT = "heuristic"
    FORFEIT = "forfeit"

    @property
    def bot(self) -> PlayerKind | None:
        """The bot that makes the timed-out move; ``None`` for a forfeit."""
        return {"random": PlayerKind.RANDOM_BOT, "heuristic": PlayerKind.HEURISTIC_BOT}.get(
            self.value
        )


@dataclass(frozen=True, slots=True)
class ClockPolicy:
    """A game's turn clock (T-R4): time per decision, a bank per seat, and the expiry rule."""

    per_decision_ms: int
    bank_ms: int
    on_expiry: ExpiryAction


@dataclass(frozen=True, slots=True)
class SeatClock:
    """One seat's clock: when its running decision began (``None``: not on turn), and its bank."""

    turn_started_ms: int | None
    bank_ms: int

    def deadline_ms(self, policy: ClockPolicy) -> int | None:
        """When the running decision times out; ``None`` when the seat need not act."""
        if self.turn_started_ms is None:
            return None
        return self.turn_started_ms + policy.per_decision_ms + self.bank_ms


@dataclass(frozen=True, slots=True)
class Ending:
    """Why a game ended before its rules end it, and who won (a forfeit's other side)."""

    reason: str
    winners: tuple[int, ...] = ()


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
