"""Klaberjass positions written as text, for the rule tests.

A position names each seat's cards ("JH 9H AS"), trump, the cards already in the current trick
and a few counters; everything else gets a neutral default. Hands need not hold nine cards: the
rules look only at which cards a seat holds and at ``tricks_played`` for the first and last
trick. Cards named nowhere are taken to be in the stock.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine_service.core.cards import Card, Suit
from engine_service.games.klaberjass.actions import PlayCard, parse_action
from engine_service.games.klaberjass.cards import PACK_MASK
from engine_service.games.klaberjass.rules import KlaberjassRules
from engine_service.games.klaberjass.state import KlaberjassState, Phase, Trick
from tests.games.positions import cards, mask, show


def suit(letter: str) -> Suit:
    """The suit of a one-letter code."""
    return Suit("CDSH".index(letter))


def position(
    hands: Sequence[str],
    *,
    trump: str = "H",
    turn_up: str = "7D",
    trick: str = "",
    leader: int = 1,
    dealer: int = 0,
    maker: int = 1,
    tricks_played: int = 1,
    played: Sequence[str] = ("", ""),
    meld_hands: Sequence[str] = ("", ""),
    totals: tuple[int, int] = (0, 0),
    card_points: tuple[int, int] = (0, 0),
    tricks_won: tuple[int, int] = (0, 0),
) -> KlaberjassState:
    """A position in the playing phase; ``trick`` holds the cards played so far from ``leader``.

    Cards in ``trick`` are also counted as played by the seats that played them.
    """
    masks = [mask(text) for text in hands]
    played_masks = [mask(text) for text in played]
    trick_cards = cards(trick)
    for index, card in enumerate(trick_cards):
        seat = (leader + index) % 2
        played_masks[seat] |= card.bit
    seen = 0
    for part in [*masks, *played_masks, mask(turn_up)]:
        assert not seen & part, f"{show(seen & part)} written twice"
        seen |= part
    return KlaberjassState(
        seed=0,
        phase=Phase.PLAYING,
        deal_number=0,
        dealer=dealer,
        to_move=1 - dealer,
        hands=(masks[0], masks[1]),
        stock=PACK_MASK & ~seen,
        turn_up=Card.parse(turn_up),
        bottom=None,
        bids=(),
        trump=suit(trump),
        maker=maker,
        dix_by=None,
        dix_taken=None,
        meld_hands=(mask(meld_hands[0]), mask(meld_hands[1])),
        declared=(True, True),
        sequences=None,
        trick=Trick(leader, trick_cards),
        last_trick=None,
        tricks_played=tricks_played,
        tricks_won=tricks_won,
        card_points=card_points,
        played=(played_masks[0], played_masks[1]),
        bella_by=None,
        totals=totals,
        deals=(),
    )


def play(rules: KlaberjassRules, state: KlaberjassState, text: str) -> KlaberjassState:
    """Play the cards in ``text`` one after another, each by the seat whose turn it is."""
    for card in cards(text):
        state = rules.apply(state, state.turn, PlayCard(card))
    return state


def act(rules: KlaberjassRules, state: KlaberjassState, *texts: str) -> KlaberjassState:
    """Apply actions given in text form, each by the seat whose turn it is."""
    for text in texts:
        state = rules.apply(state, state.turn, parse_action(text))
    return state
