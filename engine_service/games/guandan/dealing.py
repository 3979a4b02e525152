"""Shuffling and dealing from the match seed (G-R1, G-R29).

Each deal is shuffled from ``Random(f"{seed}:{deal_number}")`` and the first deal's leader is
drawn from ``Random(f"{seed}:leader")``, so a match is fully defined by its config, its seed and
its action log, and the seed must never reach a view.
"""

from __future__ import annotations

import random

from engine_service.core.shuffle import shuffled
from engine_service.games.guandan.cards import Hand, deck, hand_of
from engine_service.games.guandan.state import HAND_SIZE, NO_PLAYS, SEATS, GuandanState, Phase


def deal_hands(seed: int, deal_number: int) -> tuple[Hand, ...]:
    """Shuffle both decks and give each seat 27 cards (G-R1)."""
    cards = shuffled(deck(), seed, deal_number)
    return tuple(hand_of(cards[s * HAND_SIZE : (s + 1) * HAND_SIZE]) for s in range(SEATS))


def first_leader(seed: int) -> int:
    """G-R29: the first deal's leader is chosen at random (from the seed)."""
    return random.Random(f"{seed}:leader").randrange(SEATS)


def plays_since_dealt(state: GuandanState) -> tuple[Hand, ...]:
    """Each seat's plays this deal (G-R17a), worked out from the shuffle and the hands now.

    What a seat was dealt, less the tribute it paid and the return it gave, plus the tribute
    and the return it received, less what it holds: what it played. Snapshots stored before
    :attr:`GuandanState.played` existed are read back through this; no play is made while
    returns are chosen, so that phase has none.
    """
    if state.phase is Phase.RETURNING:
        return NO_PLAYS
    counts = [list(hand) for hand in deal_hands(state.seed, state.deal_number)]
    for tribute in state.tributes:
        counts[tribute.payer][tribute.card] -= 1
        counts[tribute.receiver][tribute.card] += 1
        if tribute.returned is not None:
            counts[tribute.receiver][tribute.returned] -= 1
            counts[tribute.payer][tribute.returned] += 1
    return tuple(
        tuple(had - held for had, held in zip(dealt, hand, strict=True))
        for dealt, hand in zip(counts, state.hands, strict=True)
    )
