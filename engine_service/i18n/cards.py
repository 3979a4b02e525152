"""Suits, ranks, cards and Guandan readings named in each language.

The rules put cards in violation metadata in their canonical text form (``"QS"``, ``"TH"``,
``"BJ"``/``"RJ"`` for Guandan's jokers, Guandan readings as ``"full_house:8:5"``); these
functions turn such codes into words. A code they do not know is returned unchanged, so a new
card form can never make a message fail.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from engine_service.i18n.languages import ENGLISH

RANK_CODES: Final = "23456789TJQKA"
SUIT_CODES: Final = "CDSH"

_frozen = MappingProxyType

SUIT_NAMES: Final[Mapping[str, Mapping[str, str]]] = _frozen(
    {
        "en": _frozen({"C": "clubs", "D": "diamonds", "S": "spades", "H": "hearts"}),
        "es": _frozen({"C": "tréboles", "D": "diamantes", "S": "picas", "H": "corazones"}),
        "fr": _frozen({"C": "trèfle", "D": "carreau", "S": "pique", "H": "cœur"}),
        "de": _frozen({"C": "Kreuz", "D": "Karo", "S": "Pik", "H": "Herz"}),
        "nl": _frozen({"C": "klaveren", "D": "ruiten", "S": "schoppen", "H": "harten"}),
    }
)
"""Suit names by language and suit letter (the suit as a whole: "follow suit: clubs")."""

RANK_NAMES: Final[Mapping[str, tuple[str, ...]]] = _frozen(
    {
        "en": (
            "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
            "jack", "queen", "king", "ace",
        ),
        "es": (
            "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve", "diez",
            "jota", "dama", "rey", "as",
        ),
        "fr": (
            "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf", "dix",
            "valet", "dame", "roi", "as",
        ),
        "de": (
            "Zwei", "Drei", "Vier", "Fünf", "Sechs", "Sieben", "Acht", "Neun", "Zehn",
            "Bube", "Dame", "König", "Ass",
        ),
        "nl": (
            "twee", "drie", "vier", "vijf", "zes", "zeven", "acht", "negen", "tien",
            "boer", "vrouw", "heer", "aas",
        ),
    }
)  # fmt: skip
"""Rank names by language, from the two up to the ace (in ``RANK_CODES`` order)."""

JOKER_NAMES: Final[Mapping[str, Mapping[str, str]]] = _frozen(
    {
        "en": _frozen({"BJ": "black joker", "RJ": "red joker"}),
        "es": _frozen({"BJ": "comodín negro", "RJ": "comodín rojo"}),
        "fr": _frozen({"BJ": "joker noir", "RJ": "joker rouge"}),
        "de": _frozen({"BJ": "schwarzer Joker", "RJ": "roter Joker"}),
        "nl": _frozen({"BJ": "zwarte joker", "RJ": "rode joker"}),
    }
)

CARD_PATTERNS: Final[Mapping[str, str]] = _frozen(
    {
        "en": "{rank} of {suit}",
        "es": "{rank} de {suit}",
        "fr": "{rank} de {suit}",
        "de": "{suit}-{rank}",
        "nl": "{suit}{rank}",
    }
)
"""How a card is named: "queen of spades", "dama de picas", "Pik-Dame", "schoppenvrouw"."""

SHAPE_NAMES: Final[Mapping[str, Mapping[str, str]]] = _frozen(
    {
        "en": _frozen(
            {
                "single": "single",
                "pair": "pair",
                "triple": "triple",
                "full_house": "full house",
                "straight": "straight",
                "tube": "tube of three pairs",
                "plate": "plate of two triples",
                "bomb": "bomb",
                "straight_flush": "straight flush",
                "joker_bomb": "four-joker bomb",
            }
        ),
        "es": _frozen(
            {
                "single": "carta suelta",
                "pair": "pareja",
                "triple": "trío",
                "full_house": "full",
                "straight": "escalera",
                "tube": "escalera de tres parejas",
                "plate": "escalera de dos tríos",
                "bomb": "bomba",
                "straight_flush": "escalera de color",
                "joker_bomb": "bomba de cuatro comodines",
            }
        ),
        "fr": _frozen(
            {
                "single": "carte seule",
                "pair": "paire",
                "triple": "brelan",
                "full_house": "full",
                "straight": "suite",
                "tube": "suite de trois paires",
                "plate": "suite de deux brelans",
                "bomb": "bombe",
                "straight_flush": "quinte flush",
                "joker_bomb": "bombe des quatre jokers",
            }
        ),
        "de": _frozen(
            {
                "single": "Einzelkarte",
                "pair": "Paar",
                "triple": "Drilling",
                "full_house": "Full House",
                "straight": "Straße",
                "tube": "Folge von drei Paaren",
                "plate": "Folge von zwei Drillingen",
                "bomb": "Bombe",
                "straight_flush": "Straight Flush",
                "joker_bomb": "Bombe aus vier Jokern",
            }
        ),
        "nl": _frozen(
            {
                "single": "losse kaart",
                "pair": "paar",
                "triple": "drietal",
                "full_house": "full house",
                "straight": "straat",
                "tube": "reeks van drie paren",
                "plate": "reeks van twee drietallen",
                "bomb": "bom",
                "straight_flush": "kleurstraat",
                "joker_bomb": "bom van vier jokers",
            }
        ),
    }
)
"""Guandan's shapes (G-R8, G-R14, G-R15) by language and shape code."""

READING_PATTERNS: Final[Mapping[str, tuple[str, str]]] = _frozen(
    {
        "en": ("{shape} of rank {rank} ({size} {cards})", "{shape} ({size} {cards})"),
        "es": ("{shape} de rango {rank} ({size} {cards})", "{shape} ({size} {cards})"),
        "fr": ("{shape} de rang {rank} ({size} {cards})", "{shape} ({size} {cards})"),
        "de": ("{shape} vom Rang {rank} ({size} {cards})", "{shape} ({size} {cards})"),
        "nl": ("{shape} van rang {rank} ({size} {cards})", "{shape} ({size} {cards})"),
    }
)
"""A reading with its rank, and one without (the four-joker bomb has no rank to name)."""

CARD_WORDS: Final[Mapping[str, tuple[str, str]]] = _frozen(
    {
        "en": ("card", "cards"),
        "es": ("carta", "cartas"),
        "fr": ("carte", "cartes"),
        "de": ("Karte", "Karten"),
        "nl": ("kaart", "kaarten"),
    }
)
"""The word for one card and for several."""

LIST_SEPARATORS: Final[Mapping[str, str]] = _frozen(
    {"en": ", ", "es": ", ", "fr": ", ", "de": ", ", "nl": ", "}
)


def _language(language: str) -> str:
    return language if language in SUIT_NAMES else ENGLISH


def suit_name(letter: str, language: str) -> str:
    """A suit letter (``C``, ``D``, ``S``, ``H``) as a word.

    >>> suit_name("C", "es"), suit_name("H", "de")
    ('tréboles', 'Herz')
    """
    return SUIT_NAMES[_language(language)].get(letter.upper(), letter)


def rank_name(rank: int, language: str) -> str:
    """A rank 2..14 (ace 14) as a word; 15 and 16 are Guandan's black and red jokers."""
    lang = _language(language)
    if 2 <= rank <= 14:
        return RANK_NAMES[lang][rank - 2]
    if rank in (15, 16):
        return JOKER_NAMES[lang]["BJ" if rank == 15 else "RJ"]
    return str(rank)


def card_name(code: str, language: str) -> str:
    """One card code (``QS``, ``TH``, ``10h``, ``BJ``, ``RJ``) as words.

    >>> [card_name("QS", lang) for lang in ("en", "es", "fr", "de", "nl")]
    ['queen of spades', 'dama de picas', 'dame de pique', 'Pik-Dame', 'schoppenvrouw']
    >>> card_name("RJ", "fr"), card_name("??", "fr")
    ('joker rouge', '??')
    """
    lang = _language(language)
    text = code.strip().upper()
    if text in JOKER_NAMES[lang]:
        return JOKER_NAMES[lang][text]
    if text.startswith("10"):
        text = "T" + text[2:]
    if len(text) != 2 or text[0] not in RANK_CODES or text[1] not in SUIT_CODES:
        return code
    rank = RANK_NAMES[lang][RANK_CODES.index(text[0])]
    return CARD_PATTERNS[lang].format(rank=rank, suit=SUIT_NAMES[lang][text[1]])


def card_list(codes: str, language: str) -> str:
    """Space-separated card codes (``"5H 5H RJ"``) as a list of names."""
    lang = _language(language)
    return LIST_SEPARATORS[lang].join(card_name(code, lang) for code in codes.split())


def cards_word(count: int, language: str) -> str:
    """The word for cards in ``language``, singular for a count of one."""
    one, many = CARD_WORDS[_language(language)]
    return one if count == 1 else many


def reading_name(code: str, language: str) -> str:
    """A Guandan reading (``"shape:rank:size"``) as words.

    >>> reading_name("full_house:8:5", "en")
    'full house of rank eight (5 cards)'
    >>> reading_name("pair:14:2", "fr"), reading_name("joker_bomb:16:4", "de")
    ('paire de rang as (2 cartes)', 'Bombe aus vier Jokern (4 Karten)')
    """
    lang = _language(language)
    try:
        shape, rank_text, size_text = code.split(":")
        rank, size = int(rank_text), int(size_text)
    except ValueError:
        return code
    if shape not in SHAPE_NAMES[lang]:
        return code
    with_rank, without_rank = READING_PATTERNS[lang]
    pattern = without_rank if shape == "joker_bomb" else with_rank
    return pattern.format(
        shape=SHAPE_NAMES[lang][shape],
        rank=rank_name(rank, lang),
        size=size,
        cards=cards_word(size, lang),
    )


def reading_list(codes: str, language: str) -> str:
    """Space-separated readings as a list of names."""
    lang = _language(language)
    return "; ".join(reading_name(code, lang) for code in codes.split())
