"""Game-independent building blocks shared by every game: cards, seats, rule errors."""
