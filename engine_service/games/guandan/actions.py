"""The Guandan actions: play cards with a declared reading, pass, or return a tribute card.

Tribute itself is automatic (G-R34); only its return is a choice (G-R35).

>>> str(PlayCards.parse("play full_house:8:5 8C 8D 8S 5H 5H"))
'play full_house:8:5 8C 8D 8S 5H 5H'
>>> str(parse_action("pass")), str(parse_action("return 3C"))
('pass', 'return 3C')
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from engine_service.games.guandan.cards import format_kinds, parse_kind
from engine_service.games.guandan.reading import Reading


@dataclass(slots=True, init=False, unsafe_hash=True)
class PlayCards:
    """Play ``cards`` read as ``reading`` (G-R13).

    ``cards`` are kinds, copies repeated, sorted ascending so that equal plays compare equal;
    build plays with :meth:`of`. Immutable (``Final`` fields), with a written constructor
    that mypyc compiles: listing a hand's plays builds hundreds of them, and a frozen
    dataclass's generated constructor runs interpreted.
    """

    cards: Final[tuple[int, ...]]
    reading: Final[Reading]

    def __init__(self, cards: tuple[int, ...], reading: Reading) -> None:
        self.cards = cards
        self.reading = reading

    @staticmethod
    def of(cards: Iterable[int], reading: Reading) -> PlayCards:
        """The play of ``cards`` (any order) read as ``reading``."""
        return PlayCards(tuple(sorted(cards)), reading)

    @staticmethod
    def parse(text: str) -> PlayCards:
        """Read ``"play <shape>:<rank>:<size> <card> ..."``."""
        verb, reading, *codes = text.split()
        if verb != "play":
            raise ValueError(f"not a play: {text!r}")
        return PlayCards.of((parse_kind(c) for c in codes), Reading.parse(reading))

    def __str__(self) -> str:
        return f"play {self.reading} {format_kinds(self.cards)}"


@dataclass(frozen=True, slots=True)
class PassTurn:
    """Decline to beat the top play (G-R17); the leader may not pass."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class ReturnCard:
    """Give one card back to the seat whose tribute this seat received (G-R35)."""

    card: int

    def __str__(self) -> str:
        return f"return {format_kinds((self.card,))}"


GuandanAction = PlayCards | PassTurn | ReturnCard


def parse_action(text: str) -> GuandanAction:
    """Read an action in its text form (``play ...``, ``pass`` or ``return 3C``)."""
    words = text.split()
    if words == ["pass"]:
        return PassTurn()
    if len(words) == 2 and words[0] == "return":
        return ReturnCard(parse_kind(words[1]))
    return PlayCards.parse(text)
