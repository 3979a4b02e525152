"""Guandan's combinations: what a set of cards may be read as (G-R5 .. G-R13).

The public API of combinations lives here: :func:`readings_of` and :func:`allowed_readings`
read a given set of cards, :func:`beats` compares two readings (from
:mod:`~engine_service.games.guandan.ordering`) and :func:`plays` lists a hand's distinct
plays (from :mod:`~engine_service.games.guandan.play_listing`).

Cards are read by their natural ranks, with the hearts of the level rank wild: a wild stands
for any non-joker card, its suit included, and never for a joker (G-R5). A lone wild is a
single of the level rank and two wilds alone are a pair of the level rank (G-R6).

>>> from engine_service.games.guandan.cards import parse_kind
>>> [str(r) for r in readings_of([parse_kind(c) for c in "8C 8D 8S 5H 5H".split()], 5)]
['bomb:8:5', 'full_house:8:5']
>>> [str(r) for r in readings_of([parse_kind(c) for c in "AC 2D 3S 4H 5C".split()], 9)]
['straight:5:5']
"""

from __future__ import annotations

from collections.abc import Sequence

from engine_service.games.guandan.cards import (
    BLACK_JOKER,
    BLACK_JOKER_RANK,
    RED_JOKER_RANK,
    is_wild,
    rank_of,
    suit_of,
)
from engine_service.games.guandan.config import GuandanConfig
from engine_service.games.guandan.ordering import beats
from engine_service.games.guandan.play_listing import plays
from engine_service.games.guandan.reading import Reading, Shape
from engine_service.games.guandan.sequences import SEQUENCES

__all__ = ["allowed_readings", "beats", "plays", "readings_of"]

_JOKER_RANKS = (BLACK_JOKER_RANK, RED_JOKER_RANK)
_FULL_HOUSE_SIZE = 5
_JOKER_BOMB_SIZE = 4


def readings_of(cards: Sequence[int], level: int) -> tuple[Reading, ...]:
    """Every legal reading of exactly ``cards`` (kinds) at ``level``; ``()`` if none.

    A natural one-suit five-card run is listed as both a straight flush and a straight;
    :func:`allowed_readings` applies G-R13's option on top of this.
    """
    counts: dict[int, int] = {}
    suits = set()
    wilds = 0
    for kind in cards:
        if is_wild(kind, level):
            wilds += 1
            continue
        rank = rank_of(kind)
        counts[rank] = counts.get(rank, 0) + 1
        if kind < BLACK_JOKER:
            suits.add(suit_of(kind))
    size = len(cards)
    if not size:
        return ()
    if any(rank in counts for rank in _JOKER_RANKS):
        return _joker_readings(counts, wilds, size)
    found = _group_readings(counts, size, level)
    if size == _FULL_HOUSE_SIZE:
        found += _full_house_readings(counts)
    found += _sequence_readings(counts, size, one_suit=len(suits) == 1)
    return tuple(found)


def allowed_readings(
    cards: Sequence[int], level: int, config: GuandanConfig
) -> tuple[Reading, ...]:
    """The readings of ``cards`` a player may declare under ``config`` (G-R13).

    Unless ``allow_underdeclare_straight_flush`` is set, a one-suit run without wilds is a
    straight flush only; a run completed with wilds may be declared either way.
    """
    found = readings_of(cards, level)
    if config.allow_underdeclare_straight_flush or any(is_wild(k, level) for k in cards):
        return found
    flushes = {r.rank for r in found if r.shape is Shape.STRAIGHT_FLUSH}
    return tuple(r for r in found if not (r.shape is Shape.STRAIGHT and r.rank in flushes))


def _joker_readings(counts: dict[int, int], wilds: int, size: int) -> tuple[Reading, ...]:
    """G-R10: jokers form singles, identical pairs, a full house's pair or the joker bomb."""
    black = counts.get(BLACK_JOKER_RANK, 0)
    red = counts.get(RED_JOKER_RANK, 0)
    if size == 1:
        return (Reading(Shape.SINGLE, next(iter(counts)), 1),)
    if size == 2 and len(counts) == 1 and not wilds:
        return (Reading(Shape.PAIR, next(iter(counts)), 2),)
    if size == _JOKER_BOMB_SIZE and black == red == 2:
        return (Reading(Shape.JOKER_BOMB, RED_JOKER_RANK, _JOKER_BOMB_SIZE),)
    if size == _FULL_HOUSE_SIZE and black + red == 2 and 2 in (black, red):
        ranks = [rank for rank in counts if rank not in _JOKER_RANKS]
        if len(ranks) == 1:
            return (Reading(Shape.FULL_HOUSE, ranks[0], _FULL_HOUSE_SIZE),)
    return ()


def _group_readings(counts: dict[int, int], size: int, level: int) -> list[Reading]:
    """Singles, pairs, triples and rank bombs: one natural rank, the rest wilds (G-R6, G-R14).

    Wilds with no natural card beside them are the level rank (G-R6).
    """
    if len(counts) > 1:
        return []
    rank = next(iter(counts), level)
    shape = (Shape.SINGLE, Shape.PAIR, Shape.TRIPLE)[size - 1] if size <= 3 else Shape.BOMB
    return [Reading(shape, rank, size)]


def _full_house_readings(counts: dict[int, int]) -> list[Reading]:
    """G-R11: a triple and a pair of another rank, wilds filling either; by the triple's rank.

    Five cards with at most two wilds hold at least three naturals, so the triple's rank
    always has a natural card; the pair may be two wilds standing for any other rank.
    """
    found = []
    for triple, count in sorted(counts.items()):
        others = [n for rank, n in counts.items() if rank != triple]
        if count <= 3 and (not others or (len(others) == 1 and others[0] <= 2)):
            found.append(Reading(Shape.FULL_HOUSE, triple, _FULL_HOUSE_SIZE))
    return found


def _sequence_readings(counts: dict[int, int], size: int, *, one_suit: bool) -> list[Reading]:
    """G-R7, G-R8: the straights, straight flushes, tubes and plates the cards complete."""
    found = []
    for kind in SEQUENCES.values():
        if size != kind.size or max(counts.values(), default=0) > kind.copies:
            continue
        for top, ranks in kind.windows:
            if counts.keys() <= set(ranks):
                if kind.shape is Shape.STRAIGHT and one_suit:
                    found.append(Reading(Shape.STRAIGHT_FLUSH, top, size))
                found.append(Reading(kind.shape, top, size))
    return found
