"""Which readings a set of cards allows, and whether each may be played now (G-R8 .. G-R16).

A player who holds ``8C 8D 8S 5H 5H`` at level 5 may want to know that these cards are a
bomb of five eights or a full house of eights over two wilds (G-R11, G-R13), and which of
those beats the play on the table, without sending a move to find out. :func:`explain`
answers that with the rules' own pieces: the readings come from
:func:`~engine_service.games.guandan.combos.readings_of` (the classification every play is
judged by) and each reading's legality from :meth:`GuandanRules.check` on the play that
declares it, so the answer cannot disagree with what a submitted play gets.

Every reading the cards support is listed, the plain straight of a natural one-suit run
included: unless the game allows under-declaring, ``check`` refuses it with
``NOT_A_COMBINATION`` (G-R13), which tells the player why. Cards with no reading at all get
an empty answer (G-R8).

>>> from engine_service.games.guandan.cards import hand_of, parse_kind
>>> from engine_service.games.guandan.rules import GuandanRules
>>> from engine_service.games.guandan.state import GuandanState, Phase
>>> cards = [parse_kind(c) for c in "8C 8D 8S 5H 5H".split()]
>>> state = GuandanRules().new_game(1)
>>> hands = (hand_of(cards), *state.hands[1:])
>>> from dataclasses import replace
>>> state = replace(state, hands=hands, turn=0, level=5)
>>> for option in explain(GuandanRules(), state, 0, cards):
...     print(option.reading, option.legal, option.description)
bomb:8:5 True bomb of five eights: 8C 8D 8S 5H* 5H*
full_house:8:5 True full house, eights over two wilds: 8C 8D 8S 5H* 5H*
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine_service.core.errors import RuleViolation, refuse, violation
from engine_service.games.guandan.actions import PlayCards
from engine_service.games.guandan.cards import Hand, format_kinds, hand_of
from engine_service.games.guandan.combos import readings_of
from engine_service.games.guandan.notation import describe_play
from engine_service.games.guandan.reading import Reading
from engine_service.games.guandan.rules import GuandanRules
from engine_service.games.guandan.state import GuandanState


@dataclass(frozen=True, slots=True)
class ReadingOption:
    """One reading of the asked cards and what the rules say about playing it now.

    Attributes:
        reading: the shape, rank and size the cards may be declared as (G-R13).
        refusal: why playing the cards as ``reading`` is refused now, as ``check`` says it
            (DOES_NOT_BEAT G-R16, NOT_A_COMBINATION G-R13, NOT_YOUR_TURN G-R2 ...);
            ``None`` when the play is legal.
        description: the play in words with its cards
            (:func:`~engine_service.games.guandan.notation.describe_play`).
    """

    reading: Reading
    refusal: RuleViolation | None
    description: str

    @property
    def legal(self) -> bool:
        """Whether ``seat`` may play the cards as this reading now."""
        return self.refusal is None


def explain(
    rules: GuandanRules, state: GuandanState, seat: int, cards: Sequence[int]
) -> tuple[ReadingOption, ...]:
    """Every reading of ``cards`` at the deal's level, each judged by ``rules.check``.

    Args:
        rules: the match's rules (its config decides G-R13's straight-flush option).
        state: the match now.
        seat: the seat asking; ``cards`` must be in its hand.
        cards: card kinds, copies repeated, in any order.

    Returns:
        One option per reading, in the order of
        :func:`~engine_service.games.guandan.combos.readings_of`; ``()`` when the cards form
        no combination (G-R8).

    Raises:
        IllegalAction: CARD_NOT_IN_HAND (G-R1), as a play of those cards would get.
    """
    refuse(missing_cards(state.hands[seat], cards))
    return tuple(
        ReadingOption(
            reading,
            rules.check(state, seat, PlayCards.of(cards, reading)),
            describe_play(cards, reading, state.level),
        )
        for reading in readings_of(cards, state.level)
    )


def missing_cards(hand: Hand, cards: Sequence[int]) -> RuleViolation | None:
    """CARD_NOT_IN_HAND (G-R1) when ``hand`` lacks some of ``cards``, with the cards missing.

    Asked before any reading is judged: ``check`` tests the turn (G-R2) before the hand, and
    a seat may ask about its cards out of turn.
    """
    wanted = hand_of(cards)
    missing = [kind for kind, n in enumerate(wanted) if n > hand[kind]]
    if not missing:
        return None
    text = format_kinds(missing)
    return violation("CARD_NOT_IN_HAND", "G-R1", f"{text} not in this hand.", cards=text)
