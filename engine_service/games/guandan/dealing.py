"""Shuffling and dealing from the match seed (G-R1, G-R29).

Each deal is shuffled from ``Random(f"{seed}:{deal_number}")`` and the first deal's leader is
drawn from ``Random(f"{seed}:leader")``, so a match is fully defined by its config, its seed and
its action log, and the seed must never reach a view.
"""

from __future__ import annotations

import random

from engine_service.games.guandan.cards import Hand, deck, hand_of
from engine_service.games.guandan.state import HAND_SIZE, SEATS


def deal_hands(seed: int, deal_number: int) -> tuple[Hand, ...]:
    """Shuffle both decks and give each seat 27 cards (G-R1)."""
    cards = list(deck())
    random.Random(f"{seed}:{deal_number}").shuffle(cards)
    return tuple(hand_of(cards[s * HAND_SIZE : (s + 1) * HAND_SIZE]) for s in range(SEATS))


def first_leader(seed: int) -> int:
    """G-R29: the first deal's leader is chosen at random (from the seed)."""
    return random.Random(f"{seed}:leader").randrange(SEATS)
