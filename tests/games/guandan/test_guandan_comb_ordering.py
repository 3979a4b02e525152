"""Which Guandan play beats which: G-R3 order, G-R12 keys, G-R15 bomb order, G-R16 shapes."""

from __future__ import annotations

import itertools

import pytest

from engine_service.games.guandan.combos import beats
from engine_service.games.guandan.reading import Reading


def r(text: str) -> Reading:
    return Reading.parse(text)


# G-R15: 4-bomb < 5-bomb < straight flush < 6 < 7 < 8 < 9 < 10 < four-joker bomb.
BOMB_ORDER = [
    "bomb:14:4",
    "bomb:2:5",
    "straight_flush:14:5",
    "bomb:2:6",
    "bomb:2:7",
    "bomb:2:8",
    "bomb:2:9",
    "bomb:2:10",
    "joker_bomb:16:4",
]


@pytest.mark.parametrize(("low", "high"), list(itertools.combinations(BOMB_ORDER, 2)))
def test_g_r15_full_bomb_order(low: str, high: str) -> None:
    assert beats(r(high), r(low), level=9)
    assert not beats(r(low), r(high), level=9)


def test_g_r15_straight_flush_beats_five_bomb_of_the_level() -> None:
    assert beats(r("straight_flush:5:5"), r("bomb:9:5"), level=9)
    assert not beats(r("bomb:9:5"), r("straight_flush:5:5"), level=9)


def test_g_r15_straight_flushes_compare_their_natural_top() -> None:
    assert beats(r("straight_flush:7:5"), r("straight_flush:6:5"), level=7)
    assert beats(r("straight_flush:6:5"), r("straight_flush:5:5"), level=5)
    assert not beats(r("straight_flush:5:5"), r("straight_flush:14:5"), level=14)


def test_g_r14_level_bomb_beats_ace_bomb_of_the_same_size() -> None:
    assert beats(r("bomb:9:4"), r("bomb:14:4"), level=9)
    assert not beats(r("bomb:14:4"), r("bomb:9:4"), level=9)
    assert beats(r("bomb:2:5"), r("bomb:9:4"), level=9)


def test_g_r15_joker_bomb_beats_the_largest_rank_bomb() -> None:
    assert beats(r("joker_bomb:16:4"), r("bomb:9:10"), level=9)
    assert not beats(r("bomb:9:10"), r("joker_bomb:16:4"), level=9)


# G-R3: single and group order, the level rank lifted.

G_R3_SINGLES = [
    "single:2:1",
    "single:3:1",
    "single:8:1",
    "single:10:1",
    "single:13:1",
    "single:14:1",
    "single:9:1",
    "single:15:1",
    "single:16:1",
]


@pytest.mark.parametrize(("low", "high"), list(itertools.combinations(G_R3_SINGLES, 2)))
def test_g_r3_single_order_with_level_nine(low: str, high: str) -> None:
    assert beats(r(high), r(low), level=9)
    assert not beats(r(low), r(high), level=9)


@pytest.mark.parametrize("shape", ["pair", "triple", "full_house"])
def test_g_r3_level_rank_groups_beat_aces(shape: str) -> None:
    size = {"pair": 2, "triple": 3, "full_house": 5}[shape]
    level, ace = r(f"{shape}:4:{size}"), r(f"{shape}:14:{size}")
    assert beats(level, ace, level=4)
    assert not beats(level, ace, level=5)


def test_g_r3_pair_of_jokers_order() -> None:
    assert beats(r("pair:16:2"), r("pair:15:2"), level=2)
    assert beats(r("pair:15:2"), r("pair:2:2"), level=2)


# G-R12: keys; an equal play never beats.


@pytest.mark.parametrize(
    "text",
    [
        "single:9:1",
        "pair:9:2",
        "triple:14:3",
        "full_house:9:5",
        "straight:10:5",
        "tube:5:6",
        "plate:2:6",
        "bomb:9:4",
        "straight_flush:8:5",
        "joker_bomb:16:4",
    ],
)
def test_g_r12_equal_play_never_beats(text: str) -> None:
    assert not beats(r(text), r(text), level=9)


def test_g_r12_sequences_compare_natural_top_not_level() -> None:
    assert beats(r("straight:14:5"), r("straight:9:5"), level=9)
    assert beats(r("straight:6:5"), r("straight:5:5"), level=2)
    assert beats(r("tube:4:6"), r("tube:3:6"), level=2)
    assert beats(r("tube:14:6"), r("tube:13:6"), level=13)
    assert beats(r("plate:3:6"), r("plate:2:6"), level=2)
    assert beats(r("plate:14:6"), r("plate:13:6"), level=13)


def test_g_r12_full_house_compared_by_triple_only() -> None:
    assert beats(r("full_house:9:5"), r("full_house:8:5"), level=2)
    assert not beats(r("full_house:8:5"), r("full_house:9:5"), level=2)


# G-R16: shape and size must match; any bomb beats any non-bomb.


@pytest.mark.parametrize(
    ("new", "top"),
    [
        ("pair:3:2", "single:2:1"),
        ("single:16:1", "pair:2:2"),
        ("triple:14:3", "pair:2:2"),
        ("full_house:14:5", "triple:2:3"),
        ("triple:14:3", "full_house:2:5"),
        ("tube:14:6", "plate:2:6"),
        ("plate:14:6", "tube:3:6"),
        ("straight:14:5", "full_house:2:5"),
        ("full_house:14:5", "straight:5:5"),
        ("pair:16:2", "bomb:2:4"),
        ("straight:14:5", "straight_flush:5:5"),
        ("single:16:1", "joker_bomb:16:4"),
    ],
)
def test_g_r16_other_shapes_never_beat(new: str, top: str) -> None:
    assert not beats(r(new), r(top), level=9)


@pytest.mark.parametrize(
    "top",
    ["single:16:1", "pair:16:2", "triple:9:3", "full_house:9:5", "straight:14:5", "tube:14:6"],
)
@pytest.mark.parametrize("bomb", ["bomb:2:4", "straight_flush:5:5", "joker_bomb:16:4"])
def test_g_r16_any_bomb_beats_any_non_bomb(bomb: str, top: str) -> None:
    assert beats(r(bomb), r(top), level=9)
