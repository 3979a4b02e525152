"""Listing a hand's distinct plays (G-R5 .. G-R16 applied to a whole hand).

Two plays are the same play when they use the same number of natural cards of each rank, the
same number of wilds and the same reading (a straight flush also the same suit); the listing
holds one of each, natural cards taken in the suit order clubs, diamonds, spades, hearts.
"""

from __future__ import annotations

from engine_service.games.guandan.cards import hand_of, parse_kind
from engine_service.games.guandan.combos import plays
from engine_service.games.guandan.config import GuandanConfig
from engine_service.games.guandan.reading import Reading, Shape

DEFAULT = GuandanConfig()
UNDERDECLARE = GuandanConfig(allow_underdeclare_straight_flush=True)


def listed(
    cards: str, level: int = 5, top: str | None = None, config: GuandanConfig = DEFAULT
) -> list[str]:
    hand = hand_of(parse_kind(c) for c in cards.split())
    found = plays(hand, level, None if top is None else Reading.parse(top), config)
    return sorted(str(play) for play in found)


def test_g_r6_wild_single_and_pair_listed_apart_from_natural_ones() -> None:
    assert listed("9C 9D 5H") == [
        "play pair:9:2 9C 5H",
        "play pair:9:2 9C 9D",
        "play single:5:1 5H",
        "play single:9:1 9C",
        "play triple:9:3 9C 9D 5H",
    ]


def test_g_r6_two_wilds_listed_as_level_single_and_pair_only() -> None:
    assert listed("5H 5H") == ["play pair:5:2 5H 5H", "play single:5:1 5H"]


def test_distinct_plays_ignore_suits_outside_straight_flushes() -> None:
    assert listed("9H 9S 9C", level=2) == [
        "play pair:9:2 9C 9S",
        "play single:9:1 9C",
        "play triple:9:3 9C 9S 9H",
    ]


def test_g_r10_jokers_listed_without_wilds() -> None:
    assert listed("BJ RJ 5H") == [
        "play single:15:1 BJ",
        "play single:16:1 RJ",
        "play single:5:1 5H",
    ]
    assert "play pair:15:2 BJ BJ" in listed("BJ BJ 5H")
    assert "play joker_bomb:16:4 BJ BJ RJ RJ" in listed("BJ BJ RJ RJ")


def test_g_r11_eights_with_wilds_listed_as_bomb_and_full_house() -> None:
    found = listed("8C 8D 8S 5H 5H")
    assert "play bomb:8:5 8C 8D 8S 5H 5H" in found
    assert "play full_house:8:5 8C 8D 8S 5H 5H" in found


def test_g_r10_joker_pair_completes_a_full_house() -> None:
    assert "play full_house:8:5 8C 8D 8S RJ RJ" in listed("8C 8D 8S RJ RJ", level=2)


def test_g_r13_natural_one_suit_run_listed_as_straight_flush_only() -> None:
    assert listed("3C 4C 5C 6C 7C", level=9) == sorted(
        [*listed_singles("3C 4C 5C 6C 7C", 9), "play straight_flush:7:5 3C 4C 5C 6C 7C"]
    )


def test_g_r13_option_lists_the_straight_too() -> None:
    found = listed("3C 4C 5C 6C 7C", level=9, config=UNDERDECLARE)
    assert "play straight:7:5 3C 4C 5C 6C 7C" in found
    assert "play straight_flush:7:5 3C 4C 5C 6C 7C" in found


def test_g_r13_straight_takes_another_suit_when_the_hand_has_one() -> None:
    found = listed("3C 4C 5C 6C 7C 5D", level=9)
    assert "play straight:7:5 3C 4C 6C 7C 5D" in found
    assert "play straight_flush:7:5 3C 4C 5C 6C 7C" in found
    assert sum(play.startswith("play straight:") for play in found) == 1


def test_g_r5_wild_completed_straight_flush_listed_once_per_suit() -> None:
    found = listed("3C 4C 6C 7C 3D 4D 6D 7D 5H", level=5)
    flushes = [play for play in found if play.startswith("play straight_flush")]
    assert flushes == [
        "play straight_flush:7:5 3C 4C 6C 7C 5H",
        "play straight_flush:7:5 3D 4D 6D 7D 5H",
    ]


def test_g_r16_following_lists_only_higher_same_shape_and_bombs() -> None:
    found = listed("9C 9D 9S 9H AC AD 3C 5H", level=5, top="pair:10:2")
    assert found == [
        "play bomb:9:4 9C 9D 9S 5H",
        "play bomb:9:4 9C 9D 9S 9H",
        "play bomb:9:5 9C 9D 9S 5H 9H",
        "play pair:14:2 AC 5H",
        "play pair:14:2 AC AD",
    ]


def test_g_r15_bombs_on_a_bomb_must_be_higher() -> None:
    found = listed("9C 9D 9S 9H AC AD AS AH 5H", level=5, top="bomb:14:4")
    assert found == [
        "play bomb:14:5 AC AD AS 5H AH",
        "play bomb:9:5 9C 9D 9S 5H 9H",
    ]


def test_g_r7_sequences_listed_with_ace_low_and_high() -> None:
    found = listed("AC 2D 3S 4C 5D TC JD QS KC", level=9)
    straights = [p for p in found if p.startswith("play straight")]
    assert straights == [
        "play straight:14:5 TC KC AC JD QS",
        "play straight:5:5 4C AC 2D 5D 3S",
    ]


def test_lead_lists_every_shape_of_a_rich_hand() -> None:
    hand = "2C 2D 2S 3C 3D 3S 4C 4D 5C 6C 7C 8C 9C 9D 9S 9H BJ BJ RJ RJ 5H"
    shapes = {Reading.parse(p.split()[1]).shape for p in listed(hand, level=5)}
    assert shapes == set(Shape)


def listed_singles(cards: str, level: int) -> list[str]:
    return [f"play single:{parse_kind(c) % 13 + 2}:1 {c}" for c in cards.split()]
