"""Seat numbering shared by all games: seats are 0..n-1 in clockwise order."""

from __future__ import annotations

from typing import NewType

Seat = NewType("Seat", int)


def next_seat(seat: int, seats: int, step: int = 1) -> Seat:
    """The seat ``step`` places clockwise from ``seat`` at a table of ``seats``."""
    return Seat((seat + step) % seats)
