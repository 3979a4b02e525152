"""ExplainPlay's pure part and the players' notation (G-R8 .. G-R16, G-R13, G-R13a).

The random test draws thousands of card sets from random hands and checks the answer against
the rules' own pieces: every reading :func:`readings_of` finds is listed, each listed reading
is judged exactly as ``check`` judges the play declaring it, and the legal ones are exactly
the readings of the distinct plays :func:`plays` lists for the same ranks, wild count and (for
a straight flush) suit.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from dataclasses import replace

import pytest

from engine_service.core.cards import Suit
from engine_service.core.errors import IllegalAction
from engine_service.games.guandan.actions import PlayCards
from engine_service.games.guandan.cards import (
    BLACK_JOKER,
    deck,
    format_kinds,
    hand_of,
    is_wild,
    kind_of,
    kinds_in,
    rank_of,
    suit_of,
)
from engine_service.games.guandan.combos import plays, readings_of
from engine_service.games.guandan.config import GuandanConfig
from engine_service.games.guandan.explain import explain
from engine_service.games.guandan.notation import describe_play, format_cards, name_play
from engine_service.games.guandan.reading import Reading, Shape
from engine_service.games.guandan.rules import GuandanRules
from tests.games.guandan.guandan_match_positions import kinds, position, top

RULES = GuandanRules()
POSITIONS = 600
SETS_PER_POSITION = 5
UNDER = GuandanRules(GuandanConfig(allow_underdeclare_straight_flush=True))


def readings(options):
    return [str(option.reading) for option in options]


def judged(options):
    return {
        str(o.reading): (o.refusal.reason, o.refusal.rule_id) if o.refusal else "legal"
        for o in options
    }


def signature(cards, level):
    """G-R13a: what makes two plays the same play (the flush suit is added for flushes)."""
    naturals = Counter(rank_of(k) for k in cards if not is_wild(k, level))
    return sum(is_wild(k, level) for k in cards), tuple(sorted(naturals.items()))


def natural_suits(cards, level):
    return {suit_of(k) for k in cards if not is_wild(k, level)}


def same_play(listed, cards, level):
    """Whether the listed play ``listed`` is the same distinct play as ``cards`` (G-R13a)."""
    if signature(listed.cards, level) != signature(cards, level):
        return False
    if listed.reading.shape is Shape.STRAIGHT_FLUSH:
        return natural_suits(listed.cards, level) == natural_suits(cards, level)
    return True


def random_position(rng):
    level = rng.randint(2, 14)
    held = rng.sample(deck(), 27)
    wild = kind_of(level, Suit.HEARTS)
    if rng.random() < 0.5:  # both wilds, the hard case for readings
        held = [*[k for k in held if k != wild][:25], wild, wild]
    state = position(["", "", "", ""], level=level)
    hand = hand_of(held)
    return replace(state, hands=(hand, *state.hands[1:])), hand


def random_cards(rng, hand, level, leads):
    """Either any few cards of the hand, or one of its ``leads`` with some suits swapped."""
    held = kinds_in(hand)
    if rng.random() < 0.4:
        return tuple(rng.sample(held, rng.randint(1, 10)))
    play = rng.choice(leads)
    spare = Counter(held) - Counter(play.cards)
    cards = []
    for kind in play.cards:
        chosen = kind
        if kind < BLACK_JOKER and not is_wild(kind, level) and rng.random() < 0.5:
            swaps = [
                k
                for k, n in spare.items()
                if n and rank_of(k) == rank_of(kind) and k != kind and not is_wild(k, level)
            ]
            if swaps:
                chosen = rng.choice(swaps)
                spare[chosen] -= 1
                spare[kind] += 1
        cards.append(chosen)
    return tuple(cards)


def under_declared(cards, level, config):
    """G-R13: a natural one-suit run read as a plain straight, which the default forbids."""
    natural = not any(is_wild(k, level) for k in cards)
    one_suit = len(natural_suits(cards, level)) == 1
    return natural and one_suit and not config.allow_underdeclare_straight_flush


def test_g_r8_g_r13_readings_equal_the_rules_classification_over_random_hands():
    """G-R8, G-R13, G-R13a, G-R16: 3000 card sets from 600 random hands, leading and following."""
    rng = random.Random(20260)
    seen = Counter()
    for _ in range(POSITIONS):
        state, hand = random_position(rng)
        level = state.level
        top_play = None
        if rng.random() < 0.5:
            other = plays(hand_of(rng.sample(deck(), 27)), level, None, RULES.config)
            pick = rng.choice(other)
            top_play = top(1, str(pick.reading), format_kinds(pick.cards))
        state = replace(state, top=top_play)
        rules = UNDER if rng.random() < 0.2 else RULES
        leads = plays(hand, level, None, RULES.config)
        offered = plays(hand, level, top_play.reading if top_play else None, rules.config)
        by_signature = defaultdict(list)
        for listed_play in offered:
            by_signature[signature(listed_play.cards, level)].append(listed_play)
        for _ in range(SETS_PER_POSITION):
            cards = random_cards(rng, hand, level, leads)
            options = explain(rules, state, 0, cards)
            # every reading the combinations module finds is listed, and nothing else
            assert readings(options) == [str(r) for r in readings_of(cards, level)]
            # each is judged by the rules' own check of the play declaring it
            for option in options:
                play = PlayCards.of(cards, option.reading)
                assert option.refusal == rules.check(state, 0, play)
                assert option.description == describe_play(cards, option.reading, level)
            # the legal readings are those of the same distinct plays the listing offers
            listed = {
                p.reading
                for p in by_signature[signature(cards, level)]
                if same_play(p, cards, level)
                and not (
                    p.reading.shape is Shape.STRAIGHT and under_declared(cards, level, rules.config)
                )
            }
            assert {o.reading for o in options if o.legal} == listed
            seen.update(o.reading.shape for o in options if o.legal)
    assert set(seen) >= set(Shape) - {Shape.JOKER_BOMB}, seen


def test_g_r13a_a_natural_one_suit_run_is_a_straight_flush_of_its_suit_only():
    """G-R13, G-R13a: five hearts in a row are a straight flush; the plain straight is refused."""
    state = position(["5H 6H 7H 8H 9H 9C", "", "", ""], level=2)
    cards = kinds("5H 6H 7H 8H 9H")
    options = explain(RULES, state, 0, cards)
    assert judged(options) == {
        "straight_flush:9:5": "legal",
        "straight:9:5": ("NOT_A_COMBINATION", "G-R13"),
    }
    assert options[0].description == "straight flush of hearts, five to nine: 5H 6H 7H 8H 9H"
    assert judged(explain(UNDER, state, 0, cards)) == {
        "straight_flush:9:5": "legal",
        "straight:9:5": "legal",
    }
    mixed = kinds("5H 6H 7H 8H 9C")
    assert judged(explain(RULES, state, 0, mixed)) == {"straight:9:5": "legal"}


def test_g_r13_g_r5_a_run_completed_by_a_wild_may_be_either_and_the_wild_takes_the_suit():
    """G-R5, G-R13: with a wild in it, a one-suit run may be declared a straight or a flush."""
    state = position(["5C 6C 8C 9C 7H", "", "", ""], level=7)
    options = explain(RULES, state, 0, kinds("5C 6C 8C 9C 7H"))
    assert judged(options) == {"straight_flush:9:5": "legal", "straight:9:5": "legal"}
    assert options[0].description == "straight flush of clubs, five to nine: 5C 6C 8C 9C 7H*"


def test_g_r6_g_r11_g_r14_wild_cards_make_singles_pairs_bombs_and_full_houses():
    """G-R6, G-R11, G-R14: wilds alone are the level rank; with a triple, a bomb or a house."""
    state = position(["8C 8D 8S 5H 5H", "", "", ""], level=5)
    assert readings(explain(RULES, state, 0, kinds("5H"))) == ["single:5:1"]
    assert readings(explain(RULES, state, 0, kinds("5H 5H"))) == ["pair:5:2"]
    options = explain(RULES, state, 0, kinds("8C 8D 8S 5H 5H"))
    assert judged(options) == {"bomb:8:5": "legal", "full_house:8:5": "legal"}
    assert [o.description for o in options] == [
        "bomb of five eights: 8C 8D 8S 5H* 5H*",
        "full house, eights over two wilds: 8C 8D 8S 5H* 5H*",
    ]


def test_g_r16_a_reading_that_does_not_beat_the_top_play_says_why():
    """G-R16: the pair of eights cannot beat a pair of kings; the bomb of the same cards could."""
    state = position(
        ["8C 8D 8S 8H", "", "", ""], level=2, top_play=top(1, "pair:13:2", "KC KD"), turn=0
    )
    options = explain(RULES, state, 0, kinds("8C 8D"))
    assert judged(options) == {"pair:8:2": ("DOES_NOT_BEAT", "G-R16")}
    assert judged(explain(RULES, state, 0, kinds("8C 8D 8S 8H"))) == {"bomb:8:4": "legal"}


def test_g_r2_out_of_turn_every_reading_is_listed_but_none_is_legal():
    """G-R2: a seat may ask out of turn; each reading is refused with NOT_YOUR_TURN."""
    state = position(["9C 9D", "", "", ""], level=2, turn=1)
    assert judged(explain(RULES, state, 0, kinds("9C 9D"))) == {
        "pair:9:2": ("NOT_YOUR_TURN", "G-R2")
    }


def test_g_r15_the_four_jokers_are_the_joker_bomb():
    """G-R10, G-R15: two black and two red jokers; a red and a black are never a pair."""
    state = position(["BJ BJ RJ RJ", "", "", ""], level=2)
    options = explain(RULES, state, 0, kinds("RJ BJ RJ BJ"))
    assert judged(options) == {"joker_bomb:16:4": "legal"}
    assert options[0].description == "joker bomb: BJ BJ RJ RJ"
    assert readings(explain(RULES, state, 0, kinds("BJ RJ"))) == []
    assert readings(explain(RULES, state, 0, kinds("RJ RJ"))) == ["pair:16:2"]


def test_g_r8_cards_without_a_reading_get_an_empty_answer():
    """G-R8, G-R9: two pairs are no combination."""
    state = position(["3C 3D 4C 4D", "", "", ""], level=2)
    assert explain(RULES, state, 0, kinds("3C 3D 4C 4D")) == ()


def test_g_r1_cards_not_in_the_hand_are_refused_as_a_play_would_be():
    """G-R1: CARD_NOT_IN_HAND, even out of turn (check would say NOT_YOUR_TURN first)."""
    state = position(["3C", "", "", ""], level=2, turn=2)
    with pytest.raises(IllegalAction) as refused:
        explain(RULES, state, 0, kinds("3C 3C"))
    assert (refused.value.violation.reason, refused.value.violation.rule_id) == (
        "CARD_NOT_IN_HAND",
        "G-R1",
    )
    assert refused.value.violation.metadata["cards"] == "3C"


# -- notation ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "reading", "level", "text"),
    [
        ("7D", "single:7:1", 2, "single seven: 7D"),
        ("9H", "single:9:1", 9, "single nine: 9H*"),
        ("RJ", "single:16:1", 2, "single red joker: RJ"),
        ("KS KC", "pair:13:2", 2, "pair of kings: KC KS"),
        ("BJ BJ", "pair:15:2", 2, "pair of black jokers: BJ BJ"),
        ("QC 2H QD", "triple:12:3", 2, "triple of queens: QC QD 2H*"),
        ("5C AD AS 5D AC", "full_house:14:5", 3, "full house, aces over fives: AC AD AS 5C 5D"),
        (
            "4C 4D 4S RJ RJ",
            "full_house:4:5",
            2,
            "full house, fours over red jokers: 4C 4D 4S RJ RJ",
        ),
        ("9C 5D 7S 6H 8C", "straight:9:5", 2, "straight, five to nine: 5D 6H 7S 8C 9C"),
        ("2C 3D 5S 4H AC", "straight:5:5", 2, "straight, ace to five: AC 2C 3D 4H 5S"),
        ("TC JD QS KH AC", "straight:14:5", 2, "straight, ten to ace: TC JD QS KH AC"),
        (
            "5S 6S 7S 9S 3H",
            "straight_flush:9:5",
            3,
            "straight flush of spades, five to nine: 5S 6S 7S 9S 3H*",
        ),
        ("5C 5D 6C 6D 7C 7D", "tube:7:6", 2, "tube, fives to sevens: 5C 5D 6C 6D 7C 7D"),
        ("AC AD 2C 2D 3C 3D", "tube:3:6", 9, "tube, aces to threes: AC AD 2C 2D 3C 3D"),
        ("KC KD KS QC QD QS", "plate:13:6", 2, "plate, queens and kings: QC QD QS KC KD KS"),
        ("8C 8D 8S 8H", "bomb:8:4", 2, "bomb of four eights: 8C 8D 8S 8H"),
        (
            "8C 8D 8S 8H 8C 8D 8S 8H 2H 2H",
            "bomb:8:10",
            2,
            "bomb of ten eights: 8C 8C 8D 8D 8S 8S 8H 8H 2H* 2H*",
        ),
        ("RJ BJ RJ BJ", "joker_bomb:16:4", 2, "joker bomb: BJ BJ RJ RJ"),
    ],
)
def test_each_shape_is_named_as_players_say_it(cards, reading, level, text):
    """G-R8, G-R12: the words and the card order of every shape."""
    parsed = Reading.parse(reading)
    assert parsed in readings_of(kinds(cards), level)
    assert describe_play(kinds(cards), parsed, level) == text


def test_g_r3_g_r5_card_lists_run_in_the_levels_order_with_the_wilds_marked():
    """G-R3: the level rank above the ace, jokers last; G-R5: its hearts marked wild."""
    assert format_cards(kinds("RJ 7H AS 3C 7C BJ 2D 7H"), level=7) == "2D 3C AS 7C 7H* 7H* BJ RJ"
    assert format_cards(kinds("AS 2C KD"), level=14) == "2C KD AS"


def test_g_r11_a_full_house_names_its_pair_even_when_a_wild_completes_it():
    """G-R11: a wild in the pair does not hide the pair's rank."""
    cards = kinds("9C 9D 9S 4C 2H")
    assert name_play(cards, Reading.parse("full_house:9:5"), level=2) == (
        "full house, nines over fours"
    )
