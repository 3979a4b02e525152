"""A Hearts bot that plays like a careful beginner: dodge points, dump danger when void.

It passes QS, high spades and high hearts; ducks under the winning card when it must follow;
takes a clean trick with its highest card when it plays last; and when void sheds its high
spades and QS first, then its highest heart, then its highest card.

The card choice (:func:`heuristic_play`) works on the bitmask of playable cards and the
trick's cards alone, so the search bot's playouts ask it directly, without building a view
or a list of legal actions for every simulated move.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from engine_service.core.cards import (
    ACE,
    CARDS,
    KING,
    SUIT_MASKS,
    SUIT_SIZE,
    Card,
    Suit,
    mask_of,
)
from engine_service.games.hearts.actions import HeartsAction, PassCards, PlayCard
from engine_service.games.hearts.scoring import HEARTS_MASK, QUEEN_OF_SPADES, trick_points
from engine_service.games.hearts.view import HeartsView

RANK_BITS: Final = (1 << SUIT_SIZE) - 1
SHED_ORDER: Final = (
    Card.of(ACE, Suit.SPADES).bit,
    Card.of(KING, Suit.SPADES).bit,
    QUEEN_OF_SPADES.bit,
)
"""What a void seat sheds first, in order: the cards :func:`danger` ranks above any heart."""


def danger(card: Card) -> int:
    """How much a card hurts to keep: higher is passed first."""
    if card == QUEEN_OF_SPADES:
        return 100
    if card.suit is Suit.SPADES and card.rank in (ACE, KING):
        return 90 + card.rank
    if card.suit is Suit.HEARTS:
        return 40 + card.rank
    return card.rank


def _highest(mask: int) -> Card:
    """The highest-numbered card of a non-empty mask (the highest rank within one suit)."""
    return CARDS[mask.bit_length() - 1]


def _lowest(mask: int) -> Card:
    """The lowest-numbered card of a non-empty mask (the lowest rank within one suit)."""
    return CARDS[(mask & -mask).bit_length() - 1]


def _ranks(mask: int) -> int:
    """The ranks present in ``mask``, as one suit's 13 bits (bit 0: the twos)."""
    ranks = 0
    for suit in range(4):
        ranks |= mask >> (suit * SUIT_SIZE) & RANK_BITS
    return ranks


def _first_of_rank(mask: int, rank: int) -> Card:
    """The card of ``rank`` (0 for twos) in ``mask`` of the first suit holding one."""
    for suit in range(4):
        if mask >> (suit * SUIT_SIZE + rank) & 1:
            return CARDS[suit * SUIT_SIZE + rank]
    raise AssertionError("unreachable: the rank came from the mask")


def _lowest_rank(mask: int) -> Card:
    """The card of the lowest rank in a non-empty mask; of equal ranks, the first suit's."""
    ranks = _ranks(mask)
    return _first_of_rank(mask, (ranks & -ranks).bit_length() - 1)


def _highest_rank(mask: int) -> Card:
    """The card of the highest rank in a non-empty mask; of equal ranks, the first suit's."""
    return _first_of_rank(mask, _ranks(mask).bit_length() - 1)


def heuristic_lead(playable: int) -> Card:
    """Lead the lowest card, preferring suits other than hearts and never QS if avoidable."""
    plain = playable & ~HEARTS_MASK & ~QUEEN_OF_SPADES.bit
    if plain:
        return _lowest_rank(plain)
    hearts = playable & HEARTS_MASK
    return _lowest(hearts) if hearts else QUEEN_OF_SPADES


def heuristic_discard(playable: int) -> Card:
    """The card a seat void in the suit led sheds: the most dangerous, by :func:`danger`."""
    for bit in SHED_ORDER:
        if playable & bit:
            return CARDS[bit.bit_length() - 1]
    hearts = playable & HEARTS_MASK
    return _highest(hearts) if hearts else _highest_rank(playable)


def heuristic_play(playable: int, trick: Sequence[int]) -> Card:
    """The card to play from the non-empty mask ``playable`` into ``trick`` (its cards so far)."""
    if not trick:
        return heuristic_lead(playable)
    suit = SUIT_MASKS[trick[0] // SUIT_SIZE]
    following = playable & suit
    if not following:
        return heuristic_discard(playable)
    trick_mask = mask_of(trick)
    top = (trick_mask & suit).bit_length() - 1
    if len(trick) == 3 and not trick_points(trick_mask):
        safe = following & ~QUEEN_OF_SPADES.bit
        return _highest(safe or following)
    under = following & ((1 << top) - 1)
    return _highest(under) if under else _lowest(following)


class HeartsHeuristicBot:
    """A deterministic-given-rng Hearts player that beats random play by a wide margin."""

    def choose(
        self, view: HeartsView, legal: Sequence[HeartsAction], rng: random.Random
    ) -> HeartsAction:
        """Pick a pass or a card by the rules of thumb in the module docstring."""
        if isinstance(legal[0], PassCards):
            worst = sorted(view.hand, key=danger, reverse=True)[:3]
            return PassCards.of(*worst)
        playable = mask_of(action.card for action in legal if isinstance(action, PlayCard))
        trick = view.trick.cards if view.trick is not None else ()
        return PlayCard(heuristic_play(playable, trick))
