"""Who acts next in a trick (G-R2, G-R17 .. G-R19).

The turn walks seat by seat in turn order (``s + 1``), skipping finished seats. When it comes
back to the seat of the top play, that play has won the trick (G-R18); counting passes is not
needed, and passing players simply get the turn again on the next round (G-R17).

>>> next_turn(0, top_seat=0, finished=()), next_turn(3, top_seat=0, finished=())
((1, False), (0, True))
>>> next_turn(3, top_seat=0, finished=(0,))  # G-R19: seat 0 went out with its last card
(2, True)
"""

from __future__ import annotations

from engine_service.games.guandan.state import SEATS, partner_of


def next_turn(seat: int, top_seat: int, finished: tuple[int, ...]) -> tuple[int, bool]:
    """The seat to act after ``seat`` played or passed, and whether the top play won the trick.

    ``top_seat`` is the seat of the play to beat after the action.
    """
    for step in range(1, SEATS + 1):
        after = (seat + step) % SEATS
        if after == top_seat:
            return leader_after(top_seat, finished), True
        if after not in finished:
            return after, False
    raise AssertionError("the walk always reaches the top play's seat")


def leader_after(owner: int, finished: tuple[int, ...]) -> int:
    """G-R18: the trick's winner leads; G-R19 (jiefeng): its partner, if the winner is out.

    If the partner is out too (possible only without G-R21's early end), the next active seat
    after the winner leads.
    """
    if owner not in finished:
        return owner
    if partner_of(owner) not in finished:
        return partner_of(owner)
    return next(s for s in ((owner + k) % SEATS for k in range(1, SEATS)) if s not in finished)
