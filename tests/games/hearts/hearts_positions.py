"""Hearts positions written as text, for the rule tests.

A position names each seat's cards ("2C 3C QS"), the cards already in the current trick and a
few counters; everything else gets a neutral default. Hands need not hold 13 cards: the rules
only look at which cards a seat holds, and at ``tricks_played`` to know the first and last trick.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine_service.games.hearts.actions import PlayCard
from engine_service.games.hearts.rules import HeartsRules
from engine_service.games.hearts.state import HeartsState, Phase, Trick
from tests.games.positions import cards, mask, show

ZEROS = (0, 0, 0, 0)


def position(
    hands: Sequence[str],
    *,
    trick: str = "",
    leader: int = 0,
    tricks_played: int = 1,
    hearts_broken: bool = False,
    points: tuple[int, ...] = ZEROS,
    totals: tuple[int, ...] = ZEROS,
    opener: int = 0,
    hand_number: int = 0,
) -> HeartsState:
    """A position in the playing phase; ``trick`` holds the cards played so far from ``leader``."""
    masks = [mask(text) for text in hands]
    assert len(masks) == 4
    seen = 0
    for part in [*masks, mask(trick)]:
        assert not seen & part, f"{show(seen & part)} written twice"
        seen |= part
    return HeartsState(
        seed=0,
        phase=Phase.PLAYING,
        hand_number=hand_number,
        hands=tuple(masks),
        passed=ZEROS,
        trick=Trick(leader, cards(trick)),
        tricks_played=tricks_played,
        hearts_broken=hearts_broken,
        points=points,
        tricks_won=ZEROS,
        opener=opener,
        totals=totals,
        hand_scores=(),
    )


def last_trick(
    totals: tuple[int, ...], points: tuple[int, ...], *, opener: int = 0, hand_number: int = 5
) -> HeartsState:
    """The 13th trick, about to be led by seat 0; it carries no points and seat 3 wins it.

    ``points`` are the hand's penalty points so far, which are therefore its final points.
    """
    return position(
        ["2D", "3D", "4D", "5D"],
        tricks_played=12,
        points=points,
        totals=totals,
        opener=opener,
        hand_number=hand_number,
    )


def play(rules: HeartsRules, state: HeartsState, text: str) -> HeartsState:
    """Play the cards in ``text`` one after another, each by the seat whose turn it is."""
    for card in cards(text):
        state = rules.apply(state, state.turn, PlayCard(card))
    return state


def end_hand(
    rules: HeartsRules, totals: tuple[int, ...], points: tuple[int, ...], **kw: int
) -> HeartsState:
    """Play out :func:`last_trick` and return the state after the hand is scored."""
    return play(rules, last_trick(totals, points, **kw), "2D 3D 4D 5D")
