"""Tribute, anti-tribute and the cards that may be returned (G-R29 .. G-R37).

Tribute is computed on the newly dealt hands at the new deal's level (G-R30). It is automatic:
the payer's strongest card is forced (G-R34); only the copy among equal cards of different
suits is a choice, settled by the ``tribute_copy`` option.

>>> from engine_service.games.guandan.cards import hand_of, kind_text, parse_kind
>>> hand = hand_of(parse_kind(c) for c in "2C AS AD 5H KH".split())
>>> kind_text(tribute_card(hand, 5, TributeCopy.LOWEST_SUIT))  # 5H is wild at level 5
'AD'
"""

from __future__ import annotations

from dataclasses import dataclass

from engine_service.games.guandan.cards import (
    BLACK_JOKER,
    RED_JOKER,
    Hand,
    is_wild,
    rank_of,
    strength,
)
from engine_service.games.guandan.config import GuandanConfig, TributeCopy
from engine_service.games.guandan.levels import partner_place
from engine_service.games.guandan.state import SEATS, Tribute, partner_of

RETURN_MAX_RANK = 10
"""G-R35: a return is a card of rank 2..10."""


@dataclass(frozen=True, slots=True)
class TributePlan:
    """Who pays whom after the previous deal (G-R31, G-R32), before anti-tribute.

    Attributes:
        first: the previous deal's first finisher.
        payers: one payer (single tribute) or two, in turn order from ``first``.
        receivers: ``first``, and in a double tribute also ``first``'s partner.
    """

    first: int
    payers: tuple[int, ...]
    receivers: tuple[int, ...]


def plan_tribute(order: tuple[int, ...]) -> TributePlan:
    """G-R31, G-R32: 1-2 means double tribute; 1-3 and 1-4 mean last place pays first."""
    first = order[0]
    if partner_place(order) == 2:
        payers = ((first + 1) % SEATS, (first + 3) % SEATS)
        return TributePlan(first, payers, (first, partner_of(first)))
    return TributePlan(first, (order[-1],), (first,))


def red_joker_holders(hands: tuple[Hand, ...], payers: tuple[int, ...]) -> tuple[int, ...]:
    """G-R33: the payer of each red joker when the payers hold both, else ``()``."""
    holders = tuple(p for p in payers for _ in range(hands[p][RED_JOKER]))
    return holders if len(holders) == 2 else ()


def tribute_card(hand: Hand, level: int, copy: TributeCopy) -> int:
    """G-R31, G-R34: the strongest card that is not a heart-level wild, copy by option."""
    candidates = [k for k, n in enumerate(hand) if n and not is_wild(k, level)]
    best = max(strength(rank_of(k), level) for k in candidates)
    tied = [k for k in candidates if strength(rank_of(k), level) == best]
    return min(tied) if copy is TributeCopy.LOWEST_SUIT else max(tied)


def pay(
    hands: tuple[Hand, ...], plan: TributePlan, level: int, copy: TributeCopy
) -> tuple[Tribute, ...]:
    """The payments of G-R31/G-R32, the one to 1st place first.

    In a double tribute the higher card goes to 1st place; equal cards go in turn order from
    1st place, so the payer seated next after 1st place pays 1st place.
    """
    cards = [tribute_card(hands[p], level, copy) for p in plan.payers]
    if len(cards) == 1:
        return (Tribute(plan.payers[0], plan.first, cards[0]),)
    order = (0, 1) if _value(cards[0], level) >= _value(cards[1], level) else (1, 0)
    return tuple(
        Tribute(plan.payers[i], receiver, cards[i])
        for i, receiver in zip(order, plan.receivers, strict=True)
    )


def _value(kind: int, level: int) -> int:
    return strength(rank_of(kind), level)


def returnable(hand: Hand, tribute: Tribute, level: int, config: GuandanConfig) -> tuple[int, ...]:
    """G-R35: the kinds the receiver of ``tribute`` may give back, from its current hand.

    A non-joker, non-wild card of rank 2..10 (level-rank cards excluded by option); the tribute
    card itself only by option, or when the receiver held another copy of it before. With no
    such card, the cards of the lowest strength (G-R3 order, wilds at level value).
    """

    def offered(kind: int) -> bool:
        if kind != tribute.card or config.return_may_be_tribute_card:
            return hand[kind] > 0
        return hand[kind] > 1

    held = [k for k in range(len(hand)) if offered(k)]
    usual = [
        k
        for k in held
        if k < BLACK_JOKER
        and not is_wild(k, level)
        and rank_of(k) <= RETURN_MAX_RANK
        and not (config.return_excludes_level_rank and rank_of(k) == level)
    ]
    if usual:
        return tuple(usual)
    lowest = min(_value(k, level) for k in held)
    return tuple(k for k in held if _value(k, level) == lowest)


def moved(hands: tuple[Hand, ...], giver: int, taker: int, kind: int) -> tuple[Hand, ...]:
    """The hands after one copy of ``kind`` goes from ``giver`` to ``taker``."""
    return tuple(
        _changed(hand, kind, -1 if seat == giver else 1 if seat == taker else 0)
        for seat, hand in enumerate(hands)
    )


def _changed(hand: Hand, kind: int, delta: int) -> Hand:
    if not delta:
        return hand
    return (*hand[:kind], hand[kind] + delta, *hand[kind + 1 :])
