"""Property tests of Guandan combinations against a slow, independent reference (G-R5 .. G-R16).

The reference reads a set of cards by brute force: every wild is replaced by every non-joker
card (G-R5), and the resulting natural cards are classified by the plain definitions of
G-R8 .. G-R11; a lone wild and two wilds alone are the level single and pair (G-R6). The
listing of plays is checked play by play, and on small hands against every subset of the
hand read by the reference.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterable, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine_service.games.guandan.cards import (
    BLACK_JOKER,
    RED_JOKER,
    Hand,
    deck,
    hand_of,
    is_wild,
    kind_of,
    rank_of,
    suit_of,
)
from engine_service.games.guandan.combos import allowed_readings, beats, plays, readings_of
from engine_service.games.guandan.config import GuandanConfig
from engine_service.games.guandan.reading import Reading, Shape
from tests.volume import volume

pytestmark = pytest.mark.volume

CONFIGS = st.sampled_from([GuandanConfig(), GuandanConfig(allow_underdeclare_straight_flush=True)])
LEVELS = st.integers(min_value=2, max_value=14)
TOPS = st.sampled_from(
    [
        None,
        *map(
            Reading.parse,
            [
                "single:9:1",
                "single:14:1",
                "pair:5:2",
                "pair:12:2",
                "triple:3:3",
                "full_house:10:5",
                "straight:9:5",
                "tube:7:6",
                "plate:5:6",
                "bomb:2:4",
                "bomb:14:5",
                "straight_flush:8:5",
                "bomb:9:6",
            ],
        ),
    ]
)


def run_top(ranks: Sequence[int]) -> int | None:
    """The natural top of consecutive distinct ranks, ace low or high; None if not a run."""
    for low_ace in (False, True):
        values = sorted(1 if low_ace and r == 14 else r for r in ranks)
        if all(b == a + 1 for a, b in itertools.pairwise(values)):
            return values[-1]
    return None


def classify(kinds: Sequence[int]) -> set[Reading]:
    """The readings of natural cards (no wilds) by the plain shape definitions."""
    size = len(kinds)
    ranks = Counter(rank_of(k) for k in kinds)
    jokers = any(k >= BLACK_JOKER for k in kinds)
    found: set[Reading] = set()
    if Counter(kinds) == Counter({BLACK_JOKER: 2, RED_JOKER: 2}):
        found.add(Reading(Shape.JOKER_BOMB, 16, 4))
    if len(ranks) == 1:
        (rank,) = ranks
        if size <= 2 or not jokers:
            shape = [Shape.SINGLE, Shape.PAIR, Shape.TRIPLE][size - 1] if size <= 3 else Shape.BOMB
            found.add(Reading(shape, rank, size))
    counts = sorted(ranks.values())
    if size == 5 and counts == [2, 3]:
        triple = next(rank for rank, n in ranks.items() if n == 3)
        if triple < 15:
            found.add(Reading(Shape.FULL_HOUSE, triple, 5))
    if not jokers and size in (5, 6):
        top = run_top(list(ranks))
        if top is not None and size == 5 and counts == [1] * 5:
            found.add(Reading(Shape.STRAIGHT, top, 5))
            if len({suit_of(k) for k in kinds}) == 1:
                found.add(Reading(Shape.STRAIGHT_FLUSH, top, 5))
        if top is not None and counts == [2, 2, 2]:
            found.add(Reading(Shape.TUBE, top, 6))
        if top is not None and counts == [3, 3]:
            found.add(Reading(Shape.PLATE, top, 6))
    return found


def reference_readings(cards: Sequence[int], level: int) -> set[Reading]:
    wilds = [k for k in cards if is_wild(k, level)]
    naturals = [k for k in cards if not is_wild(k, level)]
    if not naturals and wilds:
        shape = Shape.SINGLE if len(wilds) == 1 else Shape.PAIR
        return {Reading(shape, level, len(wilds))}
    found: set[Reading] = set()
    for stand_ins in itertools.combinations_with_replacement(range(52), len(wilds)):
        found |= classify([*naturals, *stand_ins])
    return found


def distinct_key(cards: Sequence[int], reading: Reading, level: int) -> tuple[object, ...]:
    """What makes a play distinct: naturals per rank, wilds, reading (a flush's suit)."""
    naturals = [k for k in cards if not is_wild(k, level)]
    suit = {suit_of(k) for k in naturals} if reading.shape is Shape.STRAIGHT_FLUSH else set()
    ranks = sorted(Counter(rank_of(k) for k in naturals).items())
    return (tuple(ranks), len(cards) - len(naturals), reading, tuple(suit))


@st.composite
def card_sets(draw: st.DrawFn, most: int) -> tuple[tuple[int, ...], int]:
    """A level and up to ``most`` cards drawn from a few neighbouring ranks, jokers and wilds."""
    level = draw(LEVELS)
    low = draw(st.integers(min_value=2, max_value=11))
    ranks = [*range(low, low + 4), 14, level]
    pool = [kind_of(r, suit) for r in set(ranks) for suit in range(4)]
    pool += [BLACK_JOKER, RED_JOKER, kind_of(level, 3)]
    cards = draw(st.lists(st.sampled_from(sorted(set(pool))), max_size=most * 2))
    kept = [k for k, n in Counter(cards).items() for _ in range(min(n, 2))]
    return tuple(kept[:most]), level


def held(cards: Iterable[int], hand: Hand) -> bool:
    return all(hand[k] >= n for k, n in Counter(cards).items())


@settings(max_examples=volume(300, 3000), derandomize=True, deadline=None)
@given(card_sets(most=7))
def test_g_r5_g_r8_readings_agree_with_brute_force(case: tuple[tuple[int, ...], int]) -> None:
    cards, level = case
    found = readings_of(cards, level)
    assert len(found) == len(set(found))
    assert set(found) == reference_readings(cards, level)


@settings(max_examples=volume(300, 3000), derandomize=True, deadline=None)
@given(st.randoms(use_true_random=False), LEVELS, TOPS, CONFIGS)
def test_g_r16_every_listed_play_is_legal_held_beating_and_distinct(
    rng: random.Random, level: int, top: Reading | None, config: GuandanConfig
) -> None:
    size = rng.choice([8, 14, 27])
    hand = hand_of(rng.sample(deck(), size))
    found = plays(hand, level, top, config)
    keys = [distinct_key(p.cards, p.reading, level) for p in found]
    assert len(keys) == len(set(keys))
    for play in found:
        assert list(play.cards) == sorted(play.cards)
        assert held(play.cards, hand)
        assert play.reading in allowed_readings(play.cards, level, config)
        assert top is None or beats(play.reading, top, level)


@settings(max_examples=volume(200, 2000), derandomize=True, deadline=None)
@given(card_sets(most=9), TOPS, CONFIGS)
def test_g_r13_listing_covers_every_distinct_play_of_small_hands(
    case: tuple[tuple[int, ...], int], top: Reading | None, config: GuandanConfig
) -> None:
    cards, level = case
    hand = hand_of(cards)
    expected = set()
    for size in range(1, len(cards) + 1):
        for subset in set(itertools.combinations(sorted(cards), size)):
            for reading in allowed_readings(subset, level, config):
                if top is None or beats(reading, top, level):
                    expected.add(distinct_key(subset, reading, level))
    found = {distinct_key(p.cards, p.reading, level) for p in plays(hand, level, top, config)}
    assert found == expected


ALL_READINGS = [
    *(
        Reading(shape, rank, size)
        for shape, size in [(Shape.SINGLE, 1), (Shape.PAIR, 2)]
        for rank in range(2, 17)
    ),
    *(
        Reading(shape, rank, size)
        for shape, size in [(Shape.TRIPLE, 3), (Shape.FULL_HOUSE, 5)]
        for rank in range(2, 15)
    ),
    *(Reading(Shape.STRAIGHT, top, 5) for top in range(5, 15)),
    *(Reading(Shape.STRAIGHT_FLUSH, top, 5) for top in range(5, 15)),
    *(Reading(Shape.TUBE, top, 6) for top in range(3, 15)),
    *(Reading(Shape.PLATE, top, 6) for top in range(2, 15)),
    *(Reading(Shape.BOMB, rank, size) for rank in range(2, 15) for size in range(4, 11)),
    Reading(Shape.JOKER_BOMB, 16, 4),
]


@settings(max_examples=volume(500, 5000), derandomize=True, deadline=None)
@given(LEVELS, st.lists(st.sampled_from(ALL_READINGS), min_size=3, max_size=3))
def test_g_r12_beats_is_a_strict_order(level: int, readings: list[Reading]) -> None:
    a, b, c = readings
    assert not beats(a, a, level)
    assert not (beats(a, b, level) and beats(b, a, level))
    if beats(a, b, level) and beats(b, c, level):
        assert beats(a, c, level)
