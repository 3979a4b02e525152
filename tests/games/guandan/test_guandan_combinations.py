"""Guandan combinations: every shape, every wild reading, every illegal shape (G-R5 .. G-R13).

Cards are written as text (``"8C 8D 5H"``); at level 5 the two ``5H`` are the wilds.
The ordering of readings (G-R12, G-R15, G-R16) is in ``test_guandan_comb_ordering.py`` and
the listing of plays in ``test_guandan_comb_plays.py``.
"""

from __future__ import annotations

import pytest

from engine_service.games.guandan.cards import parse_kind
from engine_service.games.guandan.combos import allowed_readings, readings_of
from engine_service.games.guandan.config import GuandanConfig

DEFAULT = GuandanConfig()
UNDERDECLARE = GuandanConfig(allow_underdeclare_straight_flush=True)


def read(cards: str, level: int = 5) -> list[str]:
    """The readings of ``cards`` at ``level`` as sorted text."""
    return sorted(str(r) for r in readings_of([parse_kind(c) for c in cards.split()], level))


def allowed(cards: str, level: int = 5, config: GuandanConfig = DEFAULT) -> list[str]:
    kinds = [parse_kind(c) for c in cards.split()]
    return sorted(str(r) for r in allowed_readings(kinds, level, config))


# G-R8: the legal shapes, natural cards only.


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        ("9C", ["single:9:1"]),
        ("2D", ["single:2:1"]),
        ("BJ", ["single:15:1"]),
        ("RJ", ["single:16:1"]),
        ("9C 9C", ["pair:9:2"]),
        ("9C 9S", ["pair:9:2"]),
        ("9C 9S 9H", ["triple:9:3"]),
        ("9C 9S 9H 4D 4D", ["full_house:9:5"]),
        ("3C 4D 5S 6H 7C", ["straight:7:5"]),
        ("3C 3D 4S 4H 5C 5D", ["tube:5:6"]),
        ("TC TD TS JC JD JS", ["plate:11:6"]),
        ("3C 4C 5C 6C 7C", ["straight:7:5", "straight_flush:7:5"]),
        ("BJ BJ RJ RJ", ["joker_bomb:16:4"]),
    ],
)
def test_g_r8_legal_shapes(cards: str, expected: list[str]) -> None:
    assert read(cards, level=2) == expected


@pytest.mark.parametrize("size", range(4, 9))
def test_g_r14_natural_rank_bombs_of_four_to_eight(size: int) -> None:
    nines = ["9C", "9C", "9D", "9D", "9S", "9S", "9H", "9H"][:size]
    assert read(" ".join(nines), level=2) == [f"bomb:9:{size}"]


def test_g_r14_bomb_of_ten_is_eight_naturals_and_both_wilds() -> None:
    assert read("9C 9C 9D 9D 9S 9S 9H 9H 5H 5H") == ["bomb:9:10"]


def test_g_r14_level_bomb_tops_out_at_eight() -> None:
    assert read("5C 5C 5D 5D 5S 5S 5H 5H") == ["bomb:5:8"]


def test_g_r8_level_cards_keep_their_natural_rank_in_groups() -> None:
    assert read("5C 5S") == ["pair:5:2"]
    assert read("5C 5S 5D 5D") == ["bomb:5:4"]


# G-R9 and G-R10: never legal.


@pytest.mark.parametrize(
    ("name", "cards"),
    [
        ("triple_and_single", "8C 8D 8S 9C"),
        ("two_pairs", "8C 8D 9C 9D"),
        ("run_of_four", "3C 4D 5S 6C"),
        ("run_of_six", "3C 4D 5S 6C 7D 8S"),
        ("four_pairs", "3C 3D 4C 4D 6C 6D 7C 7D"),
        ("two_pairs_apart", "3C 3D 5C 5D 7C 7D"),
        ("three_triples", "3C 3D 3S 4C 4D 4S 6C 6D 6S"),
        ("airplane_with_single_wings", "3C 3D 3S 4C 4D 4S 8C 9D"),
        ("airplane_with_pair_wings", "3C 3D 3S 4C 4D 4S 8C 8D 9C 9D"),
        ("triple_and_two_singles", "8C 8D 8S 9C TC"),
        ("mixed_pair", "8C 9C"),
        ("one_suit_run_of_four", "3C 4C 6C 7C"),
        ("one_suit_run_of_six", "3C 4C 6C 7C 8C 9C"),
        ("ten_card_hand", "2C 4D 6S 8H TC QD AS BJ RJ 3C"),
        ("run_of_ten", "2C 3D 4S 5C 6D 7S 8C 9D TS JC"),
        ("five_pairs", "2C 2D 3C 3D 4C 4D 5C 5D 6C 6D"),
    ],
)
def test_g_r9_never_legal(name: str, cards: str) -> None:
    assert read(cards, level=2) == [], name


@pytest.mark.parametrize(
    ("name", "cards"),
    [
        ("red_and_black_joker_pair", "BJ RJ"),
        ("three_jokers", "BJ BJ RJ"),
        ("joker_triple_impossible", "BJ BJ BJ"),
        ("mixed_jokers_as_full_house_pair", "8C 8D 8S BJ RJ"),
        ("jokers_as_triple_of_full_house", "BJ BJ RJ 8C 8D"),
        ("joker_in_straight", "3C 4D 5S 6C BJ"),
        ("joker_in_tube", "3C 3D 4S 4C BJ BJ"),
        ("joker_in_bomb", "8C 8D 8S 8H BJ"),
        ("wild_is_no_joker", "5H BJ"),
        ("wilds_are_no_jokers", "5H 5H RJ RJ"),
        ("wild_does_not_join_joker_bomb", "5H BJ RJ RJ"),
    ],
)
def test_g_r10_joker_combinations_never_legal(name: str, cards: str) -> None:
    assert read(cards) == [], name


def test_g_r10_joker_pairs_are_identical_jokers() -> None:
    assert read("BJ BJ") == ["pair:15:2"]
    assert read("RJ RJ") == ["pair:16:2"]


def test_g_r10_identical_joker_pair_may_be_a_full_house_pair() -> None:
    assert read("8C 8D 8S RJ RJ") == ["full_house:8:5"]
    assert read("8C 8D 5H BJ BJ") == ["full_house:8:5"]


# G-R5 and G-R6: the wilds.


def test_g_r6_lone_wild_is_a_single_of_the_level_rank() -> None:
    assert read("5H") == ["single:5:1"]
    assert read("AH", level=14) == ["single:14:1"]


def test_g_r6_two_wilds_alone_are_only_a_level_pair() -> None:
    assert read("5H 5H") == ["pair:5:2"]


def test_g_r5_wild_completes_a_pair_triple_and_bomb() -> None:
    assert read("9C 5H") == ["pair:9:2"]
    assert read("9C 5H 5H") == ["triple:9:3"]
    assert read("9C 9D 5H 5H") == ["bomb:9:4"]
    assert read("2C 2D 2S 5H 5H 2H") == ["bomb:2:6"]


def test_g_r5_wild_played_as_itself_beside_level_cards() -> None:
    assert read("5C 5H") == ["pair:5:2"]
    assert read("5C 5D 5H") == ["triple:5:3"]
    assert read("5C 5D 5S 5H") == ["bomb:5:4"]


def test_g_r5_wild_takes_any_suit_in_a_straight_flush() -> None:
    assert read("3S 4S 6S 7S 5H") == ["straight:7:5", "straight_flush:7:5"]
    assert read("9D TD QD 5H 5H") == [
        "straight:12:5",
        "straight:13:5",
        "straight_flush:12:5",
        "straight_flush:13:5",
    ]


def test_g_r5_wild_as_itself_in_a_heart_straight_flush() -> None:
    assert read("3H 4H 5H 6H 7H") == ["straight:7:5", "straight_flush:7:5"]


def test_g_r5_wild_fills_either_end_of_a_straight() -> None:
    assert read("7C 8D 9S TC 5H") == ["straight:10:5", "straight:11:5"]


def test_g_r5_both_wilds_in_sequences() -> None:
    assert read("3C 3D 4C 4D 5H 5H") == ["plate:4:6", "tube:4:6", "tube:5:6"]
    assert read("3C 4D 6S 5H 5H") == ["straight:6:5", "straight:7:5"]
    assert read("QC QD QS KC 5H 5H") == ["plate:13:6"]
    assert read("QC QD KC KD 5H AC") == ["tube:14:6"]


def test_g_r5_wilds_in_full_houses() -> None:
    assert read("8C 8D 9C 9D 5H") == ["full_house:8:5", "full_house:9:5"]
    assert read("8C 8D 8S 9C 5H") == ["full_house:8:5"]
    assert read("8C 9C 9D 5H 5H") == ["full_house:8:5", "full_house:9:5"]


def test_g_r11_eights_and_two_wilds_are_bomb_or_full_house() -> None:
    assert read("8C 8D 8S 5H 5H") == ["bomb:8:5", "full_house:8:5"]


def test_g_r11_five_natural_cards_of_one_rank_are_only_a_bomb() -> None:
    assert read("8C 8D 8S 8H 8C") == ["bomb:8:5"]


def test_g_r11_level_triple_with_two_wilds_is_also_a_full_house() -> None:
    """The wilds stand for any other pair (G-R5), so five level cards read two ways."""
    assert read("5C 5D 5S 5H 5H") == ["bomb:5:5", "full_house:5:5"]


# G-R7: natural ranks in sequences, ace low or high, no wrap.


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        ("AC 2D 3S 4C 5D", ["straight:5:5"]),
        ("TC JD QS KC AD", ["straight:14:5"]),
        ("QC KD AS 2C 3D", []),
        ("JC QD KS AC 2D", []),
        ("KC AD 2S 3C 4D", []),
        ("AC AD 2C 2D 3C 3D", ["tube:3:6"]),
        ("QC QD KC KD AC AD", ["tube:14:6"]),
        ("KC KD AC AD 2C 2D", []),
        ("AC AD AS 2C 2D 2S", ["plate:2:6"]),
        ("KC KD KS AC AD AS", ["plate:14:6"]),
    ],
)
def test_g_r7_ace_low_or_high_and_no_wrap(cards: str, expected: list[str]) -> None:
    assert read(cards, level=9) == expected


def test_g_r7_no_wrap_with_wilds() -> None:
    assert read("QC KD AS 2C 5H") == []
    assert read("KC KD AC AD 5H 5H") == ["plate:14:6", "tube:14:6"]
    assert read("AC 2D 3S 5H 5H") == ["straight:5:5"]


def test_g_r7_level_cards_use_their_natural_rank_in_sequences() -> None:
    assert read("3C 4D 5S 6C 7D") == ["straight:7:5"]
    assert read("TC JD QS KC AD", level=14) == ["straight:14:5"]
    assert read("4C 4D 5C 5D 6C 6D") == ["tube:6:6"]
    assert read("AC AD AS 2C 2D 2S", level=2) == ["plate:2:6"]


# G-R13: which readings may be declared.


def test_g_r13_natural_one_suit_run_is_only_a_straight_flush_by_default() -> None:
    assert allowed("3C 4C 5C 6C 7C", level=9) == ["straight_flush:7:5"]


def test_g_r13_option_lets_a_natural_one_suit_run_be_a_straight() -> None:
    assert allowed("3C 4C 5C 6C 7C", level=9, config=UNDERDECLARE) == [
        "straight:7:5",
        "straight_flush:7:5",
    ]


def test_g_r13_wild_completed_run_may_be_declared_either_way() -> None:
    assert allowed("3C 4C 6C 7C 5H") == ["straight:7:5", "straight_flush:7:5"]
    assert allowed("3H 4H 5H 6H 7H") == ["straight:7:5", "straight_flush:7:5"]


def test_g_r13_mixed_suit_runs_and_other_shapes_unaffected() -> None:
    assert allowed("3C 4C 5C 6C 7D", level=9) == ["straight:7:5"]
    assert allowed("8C 8D 8S 5H 5H") == ["bomb:8:5", "full_house:8:5"]


def test_g_r13_no_cards_no_reading() -> None:
    assert read("") == []
