"""Every distinct play a hand can make on a top play (G-R8 .. G-R16).

Suits decide nothing in Guandan except straight flushes and which hearts are wild, so two
plays are the same play when they use the same number of natural cards of each rank, the
same number of wilds and the same reading (a straight flush also the same suit). The listing
holds one play per distinct play: natural cards are taken in the suit order clubs, diamonds,
spades, hearts (a straight flush takes its own suit). When that order would make a plain
straight of one suit without wilds, which G-R13 forbids by default, the lowest rank of the run
that is held in another suit takes that other suit instead.

The listing works on rank patterns, never on suit combinations: per rank the hand's natural
cards in suit order, the wild count, and the rank windows of
:mod:`~engine_service.games.guandan.sequences`.
"""

from __future__ import annotations

from functools import cache
from typing import Final

from engine_service.core.cards import ACE, Suit
from engine_service.games.guandan.actions import PlayCards
from engine_service.games.guandan.cards import (
    BLACK_JOKER,
    BLACK_JOKER_RANK,
    RED_JOKER,
    RED_JOKER_RANK,
    Hand,
    kind_of,
    suit_of,
)
from engine_service.games.guandan.config import GuandanConfig
from engine_service.games.guandan.ordering import beats
from engine_service.games.guandan.reading import Reading, Shape
from engine_service.games.guandan.sequences import SEQUENCES, SequenceKind, fills

_GROUP_SHAPES = (Shape.SINGLE, Shape.PAIR, Shape.TRIPLE, Shape.BOMB)
_RANKS = range(2, ACE + 1)
_RANK_KINDS: Final = {rank: tuple(kind_of(rank, suit) for suit in Suit) for rank in _RANKS}
"""Each natural rank's four kinds, in suit order: a listing reads them for every rank."""
_NO_RANK = 0
"""The rank of a full house's pair made of two wilds: any rank, never the triple's."""


@cache
def _reading(shape: Shape, rank: int, size: int) -> Reading:
    """One shared value per reading: a hand lists hundreds of plays but few readings."""
    return Reading(shape, rank, size)


def plays(
    hand: Hand,
    level: int,
    top: Reading | None,
    config: GuandanConfig,
    *,
    straight_flushes: bool = True,
) -> list[PlayCards]:
    """Every distinct legal play from ``hand`` that beats ``top`` (any play when leading).

    Args:
        hand: the seat's card counts.
        level: the rank being played (G-R4); its hearts are wild (G-R5).
        top: the play to beat, or ``None`` when the seat leads.
        config: the rule set (G-R13's straight-flush option).
        straight_flushes: ``False`` leaves straight flushes out, about half the listing's
            work, since as bombs they are searched for even when following: the search bot's
            playouts list plays that way (``bots.guandan_eval``); the rules never do.

    Returns:
        One play per distinct play (see the module docstring), in a fixed order.
    """
    listing = _Listing(hand, level, top)
    listing.groups()
    listing.full_houses()
    for kind in SEQUENCES.values():
        listing.sequences(kind, config)
    if straight_flushes:
        listing.straight_flushes()
    joker_bomb = _reading(Shape.JOKER_BOMB, RED_JOKER_RANK, 4)
    if hand[BLACK_JOKER] == hand[RED_JOKER] == 2 and listing.fits(joker_bomb):
        listing.add(joker_bomb, [(BLACK_JOKER, RED_JOKER) * 2])
    return listing.found


class _Listing:
    """The hand as rank patterns, and the plays found so far.

    Attributes:
        found: the plays listed so far, each beating the top play.
        pools: per rank (jokers 15 and 16 included) the natural cards held, in suit order.
        runs: ``runs[n]`` is ``n`` wilds, for each count the hand can afford.
    """

    def __init__(self, hand: Hand, level: int, top: Reading | None):
        self.hand = hand
        self.level = level
        self.top = top
        self.wild = kind_of(level, Suit.HEARTS)
        self.wilds = hand[self.wild]
        self.runs = tuple((self.wild,) * n for n in range(self.wilds + 1))
        self.found: list[PlayCards] = []
        self.pools: dict[int, tuple[int, ...]] = {}
        for rank in _RANKS:
            kinds = _RANK_KINDS[rank]
            self.pools[rank] = tuple(k for k in kinds if k != self.wild for _ in range(hand[k]))
        self.pools[BLACK_JOKER_RANK] = (BLACK_JOKER,) * hand[BLACK_JOKER]
        self.pools[RED_JOKER_RANK] = (RED_JOKER,) * hand[RED_JOKER]

    def wants(self, shape: Shape) -> bool:
        """Whether plays of ``shape`` can beat the top play at all."""
        return self.top is None or shape.is_bomb or self.top.shape is shape

    def fits(self, reading: Reading) -> bool:
        """Whether ``reading`` beats the top play (every reading fits a lead)."""
        return self.top is None or beats(reading, self.top, self.level)

    def add(self, reading: Reading, cards: list[tuple[int, ...]]) -> None:
        """Record each of ``cards`` (any order) read as ``reading``."""
        self.found += [PlayCards(tuple(sorted(c)), reading) for c in cards]

    def groups(self) -> None:
        """Singles, pairs, triples and rank bombs (G-R6, G-R10, G-R14).

        Jokers form singles and pairs only, without wilds; wilds without a natural card
        form only the level rank's single and pair.
        """
        for rank, pool in self.pools.items():
            wilds = self.wilds if rank <= ACE else 0
            largest = len(pool) + wilds if rank <= ACE else len(pool)
            fewest = 0 if rank == self.level else 1
            if not pool and fewest:
                continue
            for size in range(1, largest + 1):
                reading = _reading(_GROUP_SHAPES[min(size, 4) - 1], rank, size)
                if self.wants(reading.shape) and self.fits(reading):
                    most = min(len(pool), size)
                    least = max(fewest, size - wilds)
                    self.add(
                        reading, [pool[:n] + self.runs[size - n] for n in range(least, most + 1)]
                    )

    def full_houses(self) -> None:
        """G-R10, G-R11: a triple and a pair of another rank (identical jokers allowed).

        A pair of two wilds stands for any rank other than the triple's, so it is one play.
        """
        if not self.wants(Shape.FULL_HOUSE):
            return
        pairs: list[list[tuple[int, tuple[int, ...]]]] = []
        for left in range(self.wilds + 1):
            pairs.append([(_NO_RANK, self.runs[2])] if left == 2 else [])
            for rank, pool in self.pools.items():
                least = max(1, 2 - left) if rank <= ACE else 2
                most = min(2, len(pool))
                pairs[left] += [(rank, pool[:n] + self.runs[2 - n]) for n in range(least, most + 1)]
        for triple in _RANKS:
            reading = _reading(Shape.FULL_HOUSE, triple, 5)
            if not self.fits(reading):
                continue
            pool = self.pools[triple]
            cards = []
            for naturals in range(max(1, 3 - self.wilds), min(3, len(pool)) + 1):
                left = self.wilds - (3 - naturals)
                base = pool[:naturals] + self.runs[3 - naturals]
                cards += [base + pair for rank, pair in pairs[left] if rank != triple]
            self.add(reading, cards)

    def sequences(self, kind: SequenceKind, config: GuandanConfig) -> None:
        """G-R7, G-R8: straights, tubes and plates of the hand's cards and wilds."""
        if not self.wants(kind.shape):
            return
        mixed = kind.shape is Shape.STRAIGHT and not config.allow_underdeclare_straight_flush
        for top, ranks in kind.windows:
            reading = _reading(kind.shape, top, kind.size)
            if not self.fits(reading):
                continue
            held = tuple(min(len(self.pools[rank]), kind.copies) for rank in ranks)
            cards = []
            for naturals, wilds in fills(kind.copies, held, self.wilds):
                parts = [self.pools[r][:n] for r, n in zip(ranks, naturals, strict=True)]
                if mixed and not wilds and not (parts := self._mixed(ranks, parts)):
                    continue
                cards.append(sum(parts, self.runs[wilds]))
            self.add(reading, cards)

    def _mixed(self, ranks: tuple[int, ...], parts: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
        """G-R13: a natural straight's cards with two suits or more; ``[]`` if the hand can't."""
        suit = suit_of(parts[0][0])
        if any(suit_of(part[0]) != suit for part in parts):
            return parts
        for i, rank in enumerate(ranks):
            for kind in self.pools[rank]:
                if suit_of(kind) != suit:
                    return [*parts[:i], (kind,), *parts[i + 1 :]]
        return []

    def straight_flushes(self) -> None:
        """G-R5, G-R15: five consecutive ranks of one suit, wilds taking that suit."""
        if not self.wants(Shape.STRAIGHT_FLUSH):
            return
        windows = SEQUENCES[Shape.STRAIGHT].windows
        for suit in Suit:
            kinds = {rank: kind_of(rank, suit) for rank in _RANKS}
            held = {rank: int(bool(self.hand[k]) and k != self.wild) for rank, k in kinds.items()}
            for top, ranks in windows:
                reading = _reading(Shape.STRAIGHT_FLUSH, top, 5)
                if not self.fits(reading):
                    continue
                cards = [
                    tuple(kinds[r] for r, n in zip(ranks, naturals, strict=True) if n)
                    + self.runs[wilds]
                    for naturals, wilds in fills(1, tuple(held[r] for r in ranks), self.wilds)
                ]
                self.add(reading, cards)
