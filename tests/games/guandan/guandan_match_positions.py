"""Guandan positions written as text, for the match-rule tests.

A position names each seat's cards ("AS AS 5H RJ") and, if a trick is running, the play on top;
everything else gets a neutral default. Hands need not hold 27 cards: the rules only look at
which cards a seat holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from engine_service.games.guandan.actions import PlayCards, parse_action
from engine_service.games.guandan.cards import (
    Hand,
    format_kinds,
    hand_of,
    kinds_in,
    parse_kind,
    rank_of,
)
from engine_service.games.guandan.reading import Reading
from engine_service.games.guandan.rules import GuandanRules
from engine_service.games.guandan.state import GuandanState, Phase, TopPlay, Tribute


def kinds(text: str) -> tuple[int, ...]:
    """The kinds named in ``text``, e.g. ``"2C QS RJ"``, sorted."""
    return tuple(sorted(parse_kind(code) for code in text.split()))


def hand(text: str) -> Hand:
    """The hand holding the cards named in ``text``."""
    return hand_of(kinds(text))


def cards_text(held: Hand) -> str:
    """A hand as text, lowest kind first."""
    return format_kinds(kinds_in(held))


def top(seat: int, reading: str, cards: str) -> TopPlay:
    """The play on top: ``top(1, "pair:9:2", "9C 9D")``."""
    return TopPlay(seat, kinds(cards), Reading.parse(reading))


def position(
    hands: Sequence[str],
    *,
    turn: int = 0,
    top_play: TopPlay | None = None,
    passed: tuple[int, ...] = (),
    finished: tuple[int, ...] = (),
    level: int = 2,
    levels: tuple[int, int] = (2, 2),
    declarer: int | None = None,
    deal_number: int = 1,
    ace_failures: tuple[int, int] = (0, 0),
    previous_order: tuple[int, ...] = (),
    seed: int = 7,
) -> GuandanState:
    """A position in the playing phase."""
    assert len(hands) == 4
    return GuandanState(
        seed=seed,
        phase=Phase.PLAYING,
        deal_number=deal_number,
        levels=levels,
        level=level,
        declarer=declarer,
        ace_failures=ace_failures,
        hands=tuple(hand(text) for text in hands),
        turn=turn,
        top=top_play,
        passed=passed,
        finished=finished,
        tributes=(),
        red_joker_holders=(),
        previous_order=previous_order,
    )


def returning(
    hands: Sequence[str], tributes: Sequence[Tribute], *, level: int = 2, turn: int = 0
) -> GuandanState:
    """A position right after tribute, with ``tributes`` already moved into the hands."""
    return replace(
        position(hands, level=level, turn=turn), phase=Phase.RETURNING, tributes=tuple(tributes)
    )


def play(rules: GuandanRules, state: GuandanState, *moves: str) -> GuandanState:
    """Apply moves in text form (``"play single:14:1 AS"``, ``"pass"``) by the seat on turn."""
    for text in moves:
        state = rules.apply(state, state.turn, parse_action(text))
    return state


def single(card: str) -> PlayCards:
    """The single ``card`` played as itself (not as a wild)."""
    kind = parse_kind(card)
    return PlayCards((kind,), Reading.parse(f"single:{rank_of(kind)}:1"))


def before_finish(
    order: tuple[int, ...],
    *,
    level: int = 2,
    levels: tuple[int, int] = (2, 2),
    declarer: int | None = None,
    ace_failures: tuple[int, int] = (0, 0),
    seed: int = 7,
) -> tuple[GuandanState, int, PlayCards]:
    """A position one play from ending a deal with finishing ``order``, and that play.

    ``order`` names two seats (partners: a double win, G-R21) or three (the fourth is last).
    The last seat of ``order`` leads its one remaining card, which ends the deal.
    """
    card = "QC" if level == 13 else "KC"
    hands = [("" if s in order[:-1] else card if s == order[-1] else "4C 5C") for s in range(4)]
    state = position(
        hands,
        turn=order[-1],
        finished=order[:-1],
        level=level,
        levels=levels,
        declarer=declarer,
        ace_failures=ace_failures,
        seed=seed,
    )
    return state, order[-1], single(card)


def finish(
    rules: GuandanRules,
    order: tuple[int, ...],
    *,
    level: int = 2,
    levels: tuple[int, int] = (2, 2),
    declarer: int | None = None,
    ace_failures: tuple[int, int] = (0, 0),
    seed: int = 7,
) -> GuandanState:
    """End a deal with finishing ``order`` (see :func:`before_finish`); the state after."""
    state, seat, action = before_finish(
        order,
        level=level,
        levels=levels,
        declarer=declarer,
        ace_failures=ace_failures,
        seed=seed,
    )
    return rules.apply(state, seat, action)
