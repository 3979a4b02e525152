"""The Klaberjass actions, as small immutable values with a text form.

>>> [str(a) for a in (TakeTrump(Suit.HEARTS), PassBid(), Dix(swap=True), PlayCard.parse("play kh"))]
['trump H', 'pass', 'dix swap', 'play KH']
>>> str(parse_action("play QS no-bella no-sequences"))
'play QS no-bella no-sequences'
"""

from __future__ import annotations

from dataclasses import dataclass

from engine_service.core.cards import Card, Suit

_NO_BELLA = "no-bella"
_NO_SEQUENCES = "no-sequences"


@dataclass(frozen=True, slots=True)
class TakeTrump:
    """Become the maker with ``suit`` as trump.

    In round 1 only the turned suit may be taken (K-R5), in round 2 only another (K-R6).
    """

    suit: Suit

    def __str__(self) -> str:
        return f"trump {self.suit.letter}"


@dataclass(frozen=True, slots=True)
class PassBid:
    """Decline to choose trump in the current bidding round (K-R5, K-R6)."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class Dix:
    """The dix decision before the first card (K-R11).

    ``swap`` exchanges the trump 7 for the turn-up card; otherwise the hand stays as it is,
    the only choice for a seat without the trump 7.
    """

    swap: bool

    def __str__(self) -> str:
        return "dix swap" if self.swap else "dix keep"


@dataclass(frozen=True, slots=True)
class PlayCard:
    """Play one card to the current trick (K-R16 .. K-R19).

    Attributes:
        card: the card played.
        announce_bella: score bella when this card completes trump K and Q (K-R15); ``False``
            is allowed only on that card.
        declare_sequences: with ``auto_declare_sequences`` off, show one's sequences with the
            first card of the deal (K-R14); ``False`` is allowed only there, to conceal them.
    """

    card: Card
    announce_bella: bool = True
    declare_sequences: bool = True

    @staticmethod
    def parse(text: str) -> PlayCard:
        """Read ``"play KH"``, optionally followed by ``no-bella`` and/or ``no-sequences``."""
        verb, code, *flags = text.split()
        if verb != "play" or len(set(flags)) != len(flags):
            raise ValueError(f"not a play: {text!r}")
        if not set(flags) <= {_NO_BELLA, _NO_SEQUENCES}:
            raise ValueError(f"not a play: {text!r}")
        return PlayCard(Card.parse(code), _NO_BELLA not in flags, _NO_SEQUENCES not in flags)

    def __str__(self) -> str:
        flags = ("" if self.announce_bella else f" {_NO_BELLA}") + (
            "" if self.declare_sequences else f" {_NO_SEQUENCES}"
        )
        return f"play {self.card}{flags}"


KlaberjassAction = TakeTrump | PassBid | Dix | PlayCard


def parse_action(text: str) -> KlaberjassAction:
    """Read an action in its text form (``trump H``, ``pass``, ``dix swap``, ``play KH``).

    Raises:
        ValueError: the text is no action.
    """
    words = text.split()
    if words[:1] == ["play"]:
        return PlayCard.parse(text)
    if words == ["pass"]:
        return PassBid()
    if len(words) == 2 and words[0] == "trump" and words[1].upper() in ("C", "D", "S", "H"):
        return TakeTrump(Suit("CDSH".index(words[1].upper())))
    if len(words) == 2 and words[0] == "dix" and words[1] in ("swap", "keep"):
        return Dix(words[1] == "swap")
    raise ValueError(f"not an action: {text!r}")
