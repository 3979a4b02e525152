"""Guandan: two decks with jokers, fixed partners, levels, tribute and wild level cards."""
