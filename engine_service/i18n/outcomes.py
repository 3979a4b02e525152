"""A finished game's summary in every language, from its structured outcome.

Each game's ``outcome()`` gives winners and scores, plus one English sentence:

* Hearts (H-R12, H-R13): the winner or winners, and the winning (lowest) total.
* Guandan (G-R26): the two winning seats, the match won at A, the deal it was won in and that
  deal's finishing order (``Outcome.deal`` and ``finishing_order``).
* Klaberjass (K-R21): the winner and the winner's total.

English always returns the rules' own sentence unchanged, so English replies stay
byte-identical; the English templates below reproduce it and a test checks that they do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Final

from engine_service.core.protocol import Outcome
from engine_service.i18n.languages import ENGLISH, SUPPORTED

Texts = Mapping[str, str]


def _t(en: str, es: str, fr: str, de: str, nl: str) -> Texts:
    return MappingProxyType({"en": en, "es": es, "fr": fr, "de": de, "nl": nl})


AND: Final[Texts] = _t(" and ", " y ", " et ", " und ", " en ")

HEARTS_ONE: Final = _t(
    "seat {seats} wins with {points} points.",
    "Gana el asiento {seats} con {points} puntos.",
    "La place {seats} gagne avec {points} points.",
    "Platz {seats} gewinnt mit {points} Punkten.",
    "Plaats {seats} wint met {points} punten.",
)
HEARTS_SHARED: Final = _t(
    "{seats} share the win with {points} points.",
    "Los asientos {seats} comparten la victoria con {points} puntos.",
    "Les places {seats} se partagent la victoire avec {points} points.",
    "Die Plätze {seats} teilen sich den Sieg mit {points} Punkten.",
    "De plaatsen {seats} delen de winst met {points} punten.",
)
GUANDAN_FULL: Final = _t(
    "Seats {first} and {second} win the match at A in deal {deal}, finishing {order}.",
    "Los asientos {first} y {second} ganan la partida en el as en la mano {deal}; "
    "orden de llegada: {order}.",
    "Les places {first} et {second} gagnent le match à l'as lors de la donne {deal} ; "
    "ordre d'arrivée : {order}.",
    "Die Plätze {first} und {second} gewinnen das Match beim Ass im Spiel {deal}; "
    "Reihenfolge: {order}.",
    "De plaatsen {first} en {second} winnen de wedstrijd bij de aas in ronde {deal}; "
    "volgorde van uitgaan: {order}.",
)
GUANDAN_SHORT: Final = _t(
    "Seats {first} and {second} win the match at A.",
    "Los asientos {first} y {second} ganan la partida en el as.",
    "Les places {first} et {second} gagnent le match à l'as.",
    "Die Plätze {first} und {second} gewinnen das Match beim Ass.",
    "De plaatsen {first} en {second} winnen de wedstrijd bij de aas.",
)
KLABERJASS: Final = _t(
    "seat {winner} wins with {points} points.",
    "Gana el asiento {winner} con {points} puntos.",
    "La place {winner} gagne avec {points} points.",
    "Platz {winner} gewinnt mit {points} Punkten.",
    "Plaats {winner} wint met {points} punten.",
)

ENDED_EARLY: Final = _t(
    "The game ended early ({reason}); {seats}.",
    "La partida terminó antes de tiempo ({reason}); {seats}.",
    "La partie s'est terminée plus tôt ({reason}) ; {seats}.",
    "Das Spiel endete vorzeitig ({reason}); {seats}.",
    "Het spel eindigde vroegtijdig ({reason}); {seats}.",
)
NOBODY_WINS: Final = _t(
    "nobody wins", "nadie gana", "personne ne gagne", "niemand gewinnt", "niemand wint"
)
WINNERS: Final = _t(
    "{seats} win", "ganan {seats}", "{seats} gagnent", "{seats} gewinnen", "{seats} winnen"
)


def _winners(outcome: Outcome, language: str) -> str:
    """Who won an early-ended game, in ``language``: nobody, or the forfeit's other side."""
    if not outcome.winners:
        return NOBODY_WINS[language]
    return WINNERS[language].format(seats=_seat_list(outcome.winners, language))


SUMMARIES: Final[Mapping[str, tuple[Texts, ...]]] = MappingProxyType(
    {
        "hearts": (HEARTS_ONE, HEARTS_SHARED),
        "guandan": (GUANDAN_FULL, GUANDAN_SHORT),
        "klaberjass": (KLABERJASS,),
    }
)
"""Every summary text by game, for completeness checks."""


def _seat_list(seats: Sequence[int], language: str) -> str:
    """``0``, ``0 and 2``, ``0, 1 and 3`` in ``language``."""
    names = [str(s) for s in seats]
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + AND[language] + names[-1]


def _hearts(outcome: Outcome, language: str) -> str:
    points = min(outcome.scores)
    if len(outcome.winners) == 1:
        return HEARTS_ONE[language].format(seats=outcome.winners[0], points=points)
    if language == ENGLISH:
        seats = ", ".join(f"seat {s}" for s in outcome.winners)
    else:
        seats = _seat_list(outcome.winners, language)
    return HEARTS_SHARED[language].format(seats=seats, points=points)


def _guandan(outcome: Outcome, language: str) -> str:
    first, second = outcome.winners
    if not outcome.deal:
        return GUANDAN_SHORT[language].format(first=first, second=second)
    order = "-".join(map(str, outcome.finishing_order))
    return GUANDAN_FULL[language].format(first=first, second=second, deal=outcome.deal, order=order)


def _klaberjass(outcome: Outcome, language: str) -> str:
    winner = outcome.winners[0]
    return KLABERJASS[language].format(winner=winner, points=outcome.scores[winner])


_GAMES: Final = MappingProxyType(
    {"hearts": _hearts, "guandan": _guandan, "klaberjass": _klaberjass}
)


def compose(game_type: str, outcome: Outcome, language: str) -> str:
    """The summary built from the templates (English included), without the English shortcut."""
    lang = language if language in SUPPORTED else ENGLISH
    return _GAMES[game_type](outcome, lang)


def outcome_summary(outcome: Outcome, language: str, game_type: str) -> str:
    """A finished game's summary in ``language``; the rules' own sentence in English.

    An outcome of a game without templates keeps its English sentence.

    >>> done = Outcome((2,), (71, 102, 38, 89), "seat 2 wins with 38 points.")
    >>> outcome_summary(done, "fr", "hearts")
    'La place 2 gagne avec 38 points.'
    >>> outcome_summary(done, "en", "hearts") == done.summary
    True
    """
    if language not in SUPPORTED or language == ENGLISH or game_type not in _GAMES:
        return outcome.summary
    if outcome.ended_early:
        return ENDED_EARLY[language].format(
            reason=outcome.ended_early, seats=_winners(outcome, language)
        )
    return compose(game_type, outcome, language)
