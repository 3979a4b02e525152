"""The contract every game implements, and the registry entry that describes a game.

A game is a stateless rules object built from a frozen config, plus immutable states. The
service never looks inside a state: it asks the rules who must act, what is legal, applies an
action and asks for a seat's view. The same calls drive bots, tests and replays.
"""

from __future__ import annotations

import dataclasses
import enum
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from engine_service.core.errors import RuleViolation
from engine_service.core.events import Event

StateT = TypeVar("StateT")
ActionT = TypeVar("ActionT")
ViewT = TypeVar("ViewT")
ConfigT = TypeVar("ConfigT")
ViewT_contra = TypeVar("ViewT_contra", contravariant=True)
ViewT_co = TypeVar("ViewT_co", covariant=True)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended.

    Attributes:
        winners: the winning seats (more than one for a shared win).
        scores: each seat's final score, in the game's own unit.
        summary: one English sentence for people.
        ended_early: why the game ended before its rules end it (a resignation, a forfeit on
            time, an admin's reason); empty when the rules ended it. Scores are then empty.
        deal: the deal the game was decided in, counted from 1, where the game names it
            (Guandan's match); 0 otherwise.
        finishing_order: that deal's finishing order, where the game has one (Guandan).

    ``summary`` is made from these fields, and so is every language's summary
    (:mod:`engine_service.i18n.outcomes`): nothing is read back out of the sentence.
    """

    winners: tuple[int, ...]
    scores: tuple[int, ...]
    summary: str
    ended_early: str = ""
    deal: int = 0
    finishing_order: tuple[int, ...] = ()


class Rules(Protocol[StateT, ActionT, ViewT_co]):
    """The rules of one game under one configuration. Pure: no I/O, no clock, no globals."""

    @property
    def seats(self) -> int:
        """How many seats the game has."""

    def new_game(self, seed: int) -> StateT:
        """The opening state; every later shuffle is derived from ``seed`` too."""

    def current_seats(self, state: StateT) -> tuple[int, ...]:
        """The seats that must act now (several when moves are simultaneous)."""

    def legal_actions(self, state: StateT, seat: int) -> Sequence[ActionT]:
        """Every action ``seat`` may take now; empty when it need not act."""

    def check(self, state: StateT, seat: int, action: ActionT) -> RuleViolation | None:
        """Why ``action`` is illegal for ``seat`` now, or ``None`` when it is legal."""

    def apply(self, state: StateT, seat: int, action: ActionT) -> StateT:
        """The state after ``action``; raises :class:`IllegalAction` when ``check`` objects."""

    def events(
        self, before: StateT, seat: int, action: ActionT, after: StateT
    ) -> tuple[Event, ...]:
        """What ``seat``'s ``action`` made happen on the way from ``before`` to ``after``.

        ``after`` is ``apply(before, seat, action)``; the events are told in the order they
        happened, each public or private to one seat (:class:`Event`).
        """

    def view(self, state: StateT, seat: int | None) -> ViewT_co:
        """What ``seat`` may see (``None``: a spectator), built by copying in allowed facts."""

    def outcome(self, state: StateT) -> Outcome | None:
        """The result once the game is over, else ``None``."""

    def is_secret(self, action: ActionT) -> bool:
        """Whether other seats may not learn this action while the game runs."""


class Bot(Protocol[ViewT_contra, ActionT]):
    """A seat player inside the service. It sees one seat's view and its legal actions only."""

    def choose(self, view: ViewT_contra, legal: Sequence[ActionT], rng: random.Random) -> ActionT:
        """Pick one of ``legal`` (never empty)."""


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One configurable rule of a game, as listed to clients."""

    name: str
    rule_id: str
    description: str
    default: str
    choices: tuple[str, ...]
    kind: str


def option(default: Any, rule_id: str, description: str) -> Any:
    """A config field with the rule it configures; :func:`option_specs` lists it."""
    return field(default=default, metadata={"rule_id": rule_id, "description": description})


def option_specs(config_type: type[Any]) -> tuple[OptionSpec, ...]:
    """Describe every option of a config dataclass (name, default, choices, rule ID)."""
    specs = []
    for item in dataclasses.fields(config_type):
        default = item.default
        if isinstance(default, enum.Enum):
            kind, choices, shown = (
                "choice",
                tuple(str(m.value) for m in type(default)),
                default.value,
            )
        elif isinstance(default, bool):
            kind, choices, shown = "bool", ("true", "false"), str(default).lower()
        else:
            kind, choices, shown = "int", (), default
        specs.append(
            OptionSpec(
                name=item.name,
                rule_id=item.metadata["rule_id"],
                description=item.metadata["description"],
                default=str(shown),
                choices=choices,
                kind=kind,
            )
        )
    return tuple(specs)


@dataclass(frozen=True, slots=True)
class GameSpec(Generic[ConfigT, StateT, ActionT, ViewT]):
    """A registered game: its name, table size, config type, rules and bots.

    A game's package declares it without bots (``games/*/spec.py``);
    :mod:`engine_service.registry` pairs it with them, so the rules never import the bots.
    """

    name: str
    title: str
    seats: int
    config_type: type[ConfigT]
    make_rules: Callable[[ConfigT], Rules[StateT, ActionT, ViewT]]
    sides: tuple[tuple[int, ...], ...] | None = None
    """The seats that win or lose together, for games that define a forfeit (T-R3); ``None``
    when the game has none (Hearts: every seat for itself, scores decide)."""
    bots: Mapping[str, Bot[ViewT, ActionT]] = field(default_factory=dict)
    """The bots that may play a seat, by level (``random``, ``heuristic``, ``search``)."""

    @property
    def options(self) -> tuple[OptionSpec, ...]:
        """The game's configurable rules with their defaults."""
        return option_specs(self.config_type)
