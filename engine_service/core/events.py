"""Events: what an action made happen, told as small frozen values the rules produce.

A game's rules say what happened next to the new state (``Rules.events``): a card played, a
trick taken, a hand scored, cards received. Each event is either public or private to one
seat, exactly like an action is either public or another seat's secret. The service stores
the events with the move that caused them and sends every viewer those it may see.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened, and who may learn of it.

    Attributes:
        fact: the game's own frozen event value (e.g. a Hearts ``TrickTaken``).
        audience: ``None`` when every seat and every spectator may see it; otherwise the one
            seat that may (the cards a seat passed or received).
    """

    fact: Any
    audience: int | None = None

    def visible_to(self, viewer: int | None) -> bool:
        """Whether ``viewer`` (``None``: a spectator) may see this event.

        >>> Event("x").visible_to(None), Event("x", audience=2).visible_to(1)
        (True, False)
        """
        return self.audience is None or self.audience == viewer


def public(*facts: Any) -> tuple[Event, ...]:
    """Events every viewer may see.

    >>> public("a", "b")[1]
    Event(fact='b', audience=None)
    """
    return tuple(Event(fact) for fact in facts)


def visible(events: Iterable[Event], viewer: int | None) -> tuple[Event, ...]:
    """The events ``viewer`` may see, in order."""
    return tuple(event for event in events if event.visible_to(viewer))
