"""Guandan in players' words: card lists in playing order and combinations named as people say them.

A reading such as ``full_house:14:5`` or ``plate:13:6`` is exact but not what a player says;
this module writes ``"full house, aces over fives"`` and ``"plate, queens and kings"``.

Card lists run from weakest to strongest at the level being played (G-R3): 2 .. A with the
level rank lifted above the ace, then the black and the red joker; within a rank, clubs,
diamonds, spades, hearts. The wild cards (the hearts of the level rank, G-R5) carry a ``*``.
A sequence's cards are written along the run instead (the ace first in an ace-low run), wild
cards last.

Sequences are named by their whole run, lowest rank first, so the reading's rank (the
natural top card, G-R12: ``straight:5:5`` is ace to five) is the last rank named.

>>> from engine_service.games.guandan.cards import parse_kind
>>> from engine_service.games.guandan.reading import Reading
>>> cards = [parse_kind(c) for c in "5H 8C 5H 8S 8D".split()]
>>> describe_play(cards, Reading.parse("full_house:8:5"), level=5)
'full house, eights over two wilds: 8C 8D 8S 5H* 5H*'
>>> describe_play(cards, Reading.parse("bomb:8:5"), level=5)
'bomb of five eights: 8C 8D 8S 5H* 5H*'
>>> format_cards([parse_kind(c) for c in "RJ 7H AS 3C 7C BJ".split()], level=7)
'3C AS 7C 7H* BJ RJ'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from types import MappingProxyType
from typing import Final

from engine_service.core.cards import Suit
from engine_service.games.guandan.cards import (
    BLACK_JOKER_RANK,
    RED_JOKER_RANK,
    is_wild,
    kind_text,
    rank_of,
    strength,
    suit_of,
)
from engine_service.games.guandan.reading import Reading, Shape
from engine_service.games.guandan.sequences import SEQUENCES, window

WILD_MARK: Final = "*"
"""Written after a wild card (G-R5), e.g. ``7H*`` at level 7."""

RANK_WORDS: Final = MappingProxyType(
    {
        2: ("two", "twos"),
        3: ("three", "threes"),
        4: ("four", "fours"),
        5: ("five", "fives"),
        6: ("six", "sixes"),
        7: ("seven", "sevens"),
        8: ("eight", "eights"),
        9: ("nine", "nines"),
        10: ("ten", "tens"),
        11: ("jack", "jacks"),
        12: ("queen", "queens"),
        13: ("king", "kings"),
        14: ("ace", "aces"),
        BLACK_JOKER_RANK: ("black joker", "black jokers"),
        RED_JOKER_RANK: ("red joker", "red jokers"),
    }
)
"""Each natural rank in words, one and many."""

COUNT_WORDS: Final = MappingProxyType(
    {4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten"}
)
"""The sizes of rank bombs (G-R14) in words."""

_SUIT_WORDS: Final = MappingProxyType(
    {Suit.CLUBS: "clubs", Suit.DIAMONDS: "diamonds", Suit.SPADES: "spades", Suit.HEARTS: "hearts"}
)
_SEQUENCE_LENGTHS: Final = MappingProxyType(
    {
        Shape.STRAIGHT: SEQUENCES[Shape.STRAIGHT].length,
        Shape.STRAIGHT_FLUSH: SEQUENCES[Shape.STRAIGHT].length,
        Shape.TUBE: SEQUENCES[Shape.TUBE].length,
        Shape.PLATE: SEQUENCES[Shape.PLATE].length,
    }
)


def card_text(kind: int, level: int) -> str:
    """One card as in :func:`format_cards`: ``"QS"``, ``"RJ"``, a wild ``"7H*"``."""
    return kind_text(kind) + (WILD_MARK if is_wild(kind, level) else "")


def playing_order(kind: int, level: int) -> tuple[int, int]:
    """The sort key of G-R3: strength at ``level``, then the suit (a joker has none)."""
    suit = suit_of(kind)
    return strength(rank_of(kind), level), -1 if suit is None else int(suit)


def format_cards(kinds: Iterable[int], level: int) -> str:
    """Cards from weakest to strongest at ``level``, wild cards marked.

    >>> from engine_service.games.guandan.cards import parse_kind
    >>> format_cards([parse_kind(c) for c in "2C KD 2H AS 9C".split()], level=2)
    '9C KD AS 2C 2H*'
    """
    ordered = sorted(kinds, key=lambda kind: playing_order(kind, level))
    return " ".join(card_text(kind, level) for kind in ordered)


def play_order(cards: Sequence[int], reading: Reading, level: int) -> tuple[int, ...]:
    """``cards`` in the order :func:`describe_play` writes them.

    A sequence runs along its ranks, lowest first (the ace first when the run is ace-low),
    wild cards last; anything else is in G-R3 order, a full house's triple before its pair.
    """
    if reading.shape in _SEQUENCE_LENGTHS:
        ranks = window(reading.rank, _SEQUENCE_LENGTHS[reading.shape])
        place = {rank: index for index, rank in enumerate(ranks)}

        def along_run(kind: int) -> tuple[int, int, int]:
            wild = is_wild(kind, level)
            spot = len(ranks) if wild else place.get(rank_of(kind), len(ranks))
            return int(wild), spot, playing_order(kind, level)[1]

        return tuple(sorted(cards, key=along_run))
    ordered = sorted(cards, key=lambda kind: playing_order(kind, level))
    if reading.shape is Shape.FULL_HOUSE:
        ordered.sort(key=lambda kind: _in_pair(kind, reading.rank, level))
    return tuple(ordered)


def _in_pair(kind: int, triple: int, level: int) -> bool:
    """Whether a natural card of a full house belongs to its pair (wilds sort as level cards)."""
    return not is_wild(kind, level) and rank_of(kind) != triple


def name_play(cards: Sequence[int], reading: Reading, level: int) -> str:
    """The combination ``cards`` make when read as ``reading``, in words.

    >>> from engine_service.games.guandan.cards import parse_kind
    >>> run = [parse_kind(c) for c in "AC 2D 3S 4H 5C".split()]
    >>> name_play(run, Reading.parse("straight:5:5"), level=9)
    'straight, ace to five'
    >>> name_play(run[:1], Reading.parse("single:14:1"), level=9)
    'single ace'
    """
    shape, rank = reading.shape, reading.rank
    if shape is Shape.SINGLE:
        return f"single {_one(rank)}"
    if shape is Shape.PAIR:
        return f"pair of {_many(rank)}"
    if shape is Shape.TRIPLE:
        return f"triple of {_many(rank)}"
    if shape is Shape.BOMB:
        return f"bomb of {COUNT_WORDS.get(reading.size, str(reading.size))} {_many(rank)}"
    if shape is Shape.JOKER_BOMB:
        return "joker bomb"
    if shape is Shape.FULL_HOUSE:
        return f"full house, {_many(rank)} over {_pair_words(cards, rank, level)}"
    ranks = window(rank, _SEQUENCE_LENGTHS[shape])
    low, top = ranks[0], ranks[-1]
    if shape is Shape.STRAIGHT:
        return f"straight, {_one(low)} to {_one(top)}"
    if shape is Shape.STRAIGHT_FLUSH:
        return f"straight flush of {_flush_suit(cards, level)}, {_one(low)} to {_one(top)}"
    if shape is Shape.TUBE:
        return f"tube, {_many(low)} to {_many(top)}"
    return f"plate, {_many(low)} and {_many(top)}"


def describe_play(cards: Sequence[int], reading: Reading, level: int) -> str:
    """The play in words with its cards, e.g. ``"pair of kings: KC KS"``."""
    ordered = play_order(cards, reading, level)
    return f"{name_play(cards, reading, level)}: {' '.join(card_text(k, level) for k in ordered)}"


def _one(rank: int) -> str:
    return RANK_WORDS[rank][0]


def _many(rank: int) -> str:
    return RANK_WORDS[rank][1]


def _pair_words(cards: Sequence[int], triple: int, level: int) -> str:
    """G-R11: the pair's rank, or ``"two wilds"`` when it is made of the wild cards alone."""
    others = {rank_of(kind) for kind in cards if _in_pair(kind, triple, level)}
    return _many(min(others)) if others else "two wilds"


def _flush_suit(cards: Sequence[int], level: int) -> str:
    """The suit of a straight flush's natural cards (the wilds take it, G-R5)."""
    suits = {suit_of(kind) for kind in cards if not is_wild(kind, level)}
    suit = next(iter(suits), Suit.HEARTS) if len(suits) == 1 else None
    return _SUIT_WORDS[suit] if suit is not None else "mixed suits"
