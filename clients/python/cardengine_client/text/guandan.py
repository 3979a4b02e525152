"""Guandan as text: levels, the hand in playing order, the play to beat, and moves typed as cards.

A view is shown as a few labelled lines: the deal and its level, each team's level, the
viewer's hand from weakest to strongest at this level (the level rank sits above the ace and
its hearts are wild, G-R3/G-R5), card counts, the play to beat, the plays and passes of the
current round, finishing order and tribute. From the end of a deal until the next deal's first
play, the deal just ended is shown too: its finish, the winners' promotion and its last round.
Events (:func:`describe_guandan_event`) are told as short sentences as they arrive.

Typed moves: ``pass``; ``return 4C``; cards to play, such as ``8C 8D 8S 5H 5H``, optionally
with the reading they count as (``full_house:8:5``, see
:func:`cardengine_client.actions.parse_reading`). Without a reading, the client takes it from
the legal plays that use the same ranks and the same number of wilds, and asks when there is
more than one (say, a five-bomb or a full house). While tribute is being returned, a single
card without a verb is a return.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import groupby
from types import MappingProxyType
from typing import Final

from cardengine.v1 import cards_pb2, game_pb2, guandan_pb2

from cardengine_client.actions import (
    format_reading,
    guandan_pass,
    guandan_play,
    guandan_return,
    parse_reading,
)
from cardengine_client.cards import format_card, format_cards, parse_cards
from cardengine_client.text.common import GameText, seat_name, seat_names

_View = guandan_pb2.GuandanView
_PHASES: Final = MappingProxyType(
    {
        _View.PHASE_RETURNING: "returning tribute",
        _View.PHASE_PLAYING: "playing",
        _View.PHASE_GAME_OVER: "match over",
    }
)
_FACE_NAMES: Final = MappingProxyType({11: "J", 12: "Q", 13: "K", 14: "A"})
_LEVEL_STRENGTH: Final = 15
"""G-R3: the level rank ranks above the ace and below the jokers."""
_PLACES: Final = ("1st", "2nd", "3rd", "4th")
_TEAMS: Final = 2


def level_name(level: int) -> str:
    """A level as people say it: ``"7"``, ``"10"``, ``"A"``."""
    return _FACE_NAMES.get(level, str(level))


def is_wild(card: cards_pb2.Card, level: int) -> bool:
    """G-R5: the two hearts of the level rank are wild."""
    return card.rank == level and card.suit == cards_pb2.SUIT_HEARTS


def card_strength(card: cards_pb2.Card, level: int) -> tuple[int, int]:
    """Sorts cards from weakest to strongest at ``level`` (G-R3), then by suit."""
    rank = int(card.rank)
    if rank == level:
        rank = _LEVEL_STRENGTH
    elif rank >= cards_pb2.RANK_BLACK_JOKER:
        rank += 1
    return (rank, card.suit)


def render_hand(cards: Iterable[cards_pb2.Card], level: int) -> str:
    """The cards from weakest to strongest at ``level``, each rank's cards joined by ``-``.

    E.g. ``"3C-3D 9S AH 7C-7H RJ  (wild 7H)"`` at level 7: the wild cards are named again at
    the end so that a player does not miss them.
    """
    ordered = sorted(cards, key=lambda card: card_strength(card, level))
    groups = groupby(ordered, key=lambda card: card.rank)
    text = " ".join("-".join(format_card(card) for card in group) for _, group in groups)
    wilds = [card for card in ordered if is_wild(card, level)]
    return f"{text}  (wild {format_cards(wilds)})" if wilds else text


def _team_text(view: game_pb2.GameView, team: int) -> str:
    seats = [seat for seat in range(len(view.seats)) if seat % _TEAMS == team]
    return " & ".join(seat_name(view, seat) for seat in seats)


def _level_lines(view: game_pb2.GameView) -> list[str]:
    guandan = view.guandan
    phase = _PHASES.get(guandan.phase, "unknown phase")
    declarer = (
        f"{_team_text(view, guandan.declarer)}'s level"
        if guandan.HasField("declarer")
        else "first deal"
    )
    levels = ", ".join(
        f"{_team_text(view, team)} at {level_name(level)}"
        for team, level in enumerate(guandan.levels)
    )
    return [
        f"Deal {guandan.deal_number + 1}, {phase}, level {level_name(guandan.level)} ({declarer})",
        f"Levels: {levels}",
    ]


def _count_text(count: int) -> str:
    return "?" if count < 0 else str(count)


def _table_lines(view: game_pb2.GameView) -> list[str]:
    guandan = view.guandan
    counts = ", ".join(
        f"{seat_name(view, seat)} {_count_text(count)}"
        for seat, count in enumerate(guandan.card_counts)
    )
    lines = [f"Cards left: {counts}"]
    if guandan.HasField("top"):
        top = guandan.top
        line = f"To beat: {seat_name(view, top.seat)} {describe_play(top.cards, top.reading)}"
        if guandan.passed:
            line += f"   (passed: {seat_names(view, guandan.passed)})"
        lines.append(line)
    elif guandan.phase == _View.PHASE_PLAYING and view.to_act:
        lines.append(f"To beat: nothing, {seat_names(view, view.to_act)} to lead")
    if guandan.round_history:
        lines.append(f"This round: {describe_round(view, guandan.round_history)}")
    if guandan.finished:
        lines.append(f"Finished: {_places_text(view, guandan.finished)}")
    return lines


def _places_text(view: game_pb2.GameView, order: Sequence[int]) -> str:
    return ", ".join(
        f"{_PLACES[place]} {seat_name(view, seat)}" for place, seat in enumerate(order)
    )


def describe_round(
    view: game_pb2.GameView, entries: Iterable[guandan_pb2.GuandanRoundEntry]
) -> str:
    """``"seat 3 pair:5:2 5C 5D, you pass"``: each play or pass of a round, oldest first."""
    return ", ".join(
        f"{seat_name(view, entry.seat)} "
        + (
            describe_play(entry.play.cards, entry.play.reading)
            if entry.HasField("play")
            else "pass"
        )
        for entry in entries
    )


def _previous_deal_lines(view: game_pb2.GameView) -> list[str]:
    """G-R24 .. G-R27: how the deal just ended went, shown until the next deal's first play."""
    result = view.guandan.previous_deal
    changes = []
    for team, (before, after) in enumerate(zip(result.levels_before, result.levels, strict=False)):
        name = _team_text(view, team)
        if before == after:
            changes.append(f"{name} stay at {level_name(after)}")
            continue
        change = f"{name} {level_name(before)} -> {level_name(after)}"
        if team == result.team and result.steps:
            change += f" (up {result.steps})"
        changes.append(change)
    return [
        f"Deal {result.deal_number + 1} (level {level_name(result.level)}) ended: "
        f"{_places_text(view, result.order)}",
        f"Level change: {', '.join(changes)}",
        f"Its last round: {describe_round(view, result.last_plays)}",
    ]


def _tribute_lines(view: game_pb2.GameView) -> list[str]:
    guandan = view.guandan
    lines = []
    for tribute in guandan.tributes:
        line = (
            f"Tribute: {seat_name(view, tribute.payer)} gave {format_card(tribute.card)}"
            f" to {seat_name(view, tribute.receiver)}"
        )
        if tribute.HasField("returned"):
            line += f", got back {format_card(tribute.returned)}"
        lines.append(line)
    if guandan.anti_tribute:
        holders = seat_names(view, guandan.red_joker_holders)
        shown = f": red jokers held by {holders}" if guandan.red_joker_holders else ""
        lines.append(f"No tribute this deal (anti-tribute{shown})")
    if guandan.HasField("previous_deal"):
        lines.extend(_previous_deal_lines(view))
    elif guandan.previous_order:
        lines.append(f"Previous deal's finish: {seat_names(view, guandan.previous_order)}")
    return lines


def render_guandan(view: game_pb2.GameView) -> list[str]:
    """The Guandan part of a view, a few labelled lines."""
    lines = _level_lines(view)
    if view.guandan.hand:
        hand = view.guandan.hand
        lines.append(f"Your hand ({len(hand)}): {render_hand(hand, view.guandan.level)}")
    return lines + _table_lines(view) + _tribute_lines(view)


def describe_play(cards: Sequence[cards_pb2.Card], reading: guandan_pb2.GuandanReading) -> str:
    """``"full_house:8:5 8C 8D 8S 5H 5H"``: the reading, then the cards as sent."""
    return f"{format_reading(reading)} {format_cards(cards)}"


def describe_guandan(action: game_pb2.Action) -> str:
    """``"play full_house:8:5 8C 8D 8S 5H 5H"``, ``"pass"`` or ``"return 4C"``."""
    move = action.guandan
    kind = move.WhichOneof("action")
    if kind == "play":
        return "play " + describe_play(move.play.cards, move.play.reading)
    if kind == "return_card":
        return "return " + format_card(move.return_card.card)
    return "pass"


def _signature(cards: Iterable[cards_pb2.Card], level: int) -> tuple[int, tuple[int, ...]]:
    """What decides a play apart from suits: the wild count and the natural ranks."""
    cards = list(cards)
    naturals = sorted(card.rank for card in cards if not is_wild(card, level))
    return len(cards) - len(naturals), tuple(naturals)


def _one_suit(cards: Iterable[cards_pb2.Card], level: int) -> bool:
    return len({card.suit for card in cards if not is_wild(card, level)}) <= 1


def infer_reading(
    view: game_pb2.GameView, cards: list[cards_pb2.Card]
) -> guandan_pb2.GuandanReading:
    """The reading of the legal plays that use the same ranks and wild count as ``cards``.

    Suits matter only for straight flushes, which need the natural cards in one suit.

    Raises:
        ValueError: no legal play, or several readings, fit (the message says what to add).
    """
    level = view.guandan.level
    wanted = _signature(cards, level)
    readings: dict[str, guandan_pb2.GuandanReading] = {}
    for action in view.legal_actions:
        if action.guandan.WhichOneof("action") != "play":
            continue
        play = action.guandan.play
        flush = play.reading.shape == guandan_pb2.GuandanReading.SHAPE_STRAIGHT_FLUSH
        if _signature(play.cards, level) == wanted and (not flush or _one_suit(cards, level)):
            readings[format_reading(play.reading)] = play.reading
    if len(readings) == 1:
        return next(iter(readings.values()))
    typed = format_cards(cards)
    if not readings:
        raise ValueError(
            f"no legal play uses {typed}; add a reading (e.g. pair:8:2) to send it anyway"
        )
    choices = " or ".join(sorted(readings))
    raise ValueError(
        f"{typed} can be {choices}; add the one you mean, e.g. '{typed} {choices.split()[0]}'"
    )


def parse_guandan(view: game_pb2.GameView, text: str) -> game_pb2.Action:
    """The move a player typed: ``pass``, ``return <card>``, or cards with an optional reading.

    Raises:
        ValueError: no card, a word that is neither a card nor a reading, or a reading that
            cannot be inferred (see :func:`infer_reading`).
    """
    words = text.replace(",", " ").split()
    verb = words[0].lower() if words and words[0].lower() in ("pass", "play", "return") else None
    rest = words[1:] if verb else words
    if verb == "pass":
        if rest:
            raise ValueError("'pass' takes no cards")
        return guandan_pass()
    returning = view.guandan.phase == _View.PHASE_RETURNING
    if verb == "return" or (verb is None and returning):
        if len(rest) != 1:
            raise ValueError("return one card, e.g. return 4C")
        return guandan_return(rest[0])
    readings = [word for word in rest if ":" in word]
    codes = [word for word in rest if ":" not in word]
    if not codes:
        raise ValueError("name the cards to play, e.g. 8C 8D, or type pass")
    if len(readings) > 1:
        raise ValueError("give at most one reading, e.g. full_house:8:5")
    cards = parse_cards(codes)
    reading = parse_reading(readings[0]) if readings else infer_reading(view, cards)
    return guandan_play(cards, reading)


def _levels_text(levels: Sequence[int]) -> str:
    return "-".join(level_name(level) for level in levels)


def describe_guandan_event(view: game_pb2.GameView, event: game_pb2.GameEvent) -> str:
    """One Guandan event as a short sentence, e.g. ``"seat 1 plays pair:9:2 9C 9S"``.

    An event kind this client does not know yet is named by its field in ``GuandanEvent``.
    """
    guandan = event.guandan
    kind = guandan.WhichOneof("event")
    name = functools.partial(seat_name, view)

    def does(seat: int, verb: str, you: str) -> str:
        """``"seat 1 plays"`` but ``"you play"``."""
        return f"{name(seat)} {you if name(seat) == 'you' else verb}"

    if kind == "cards_played":
        played = guandan.cards_played
        return f"{does(played.seat, 'plays', 'play')} {describe_play(played.cards, played.reading)}"
    if kind == "turn_passed":
        return does(guandan.turn_passed.seat, "passes", "pass")
    if kind == "trick_won":
        won = guandan.trick_won
        return f"{does(won.winner, 'wins', 'win')} the trick; {name(won.leader)} to lead"
    if kind == "player_finished":
        out = guandan.player_finished
        return f"{does(out.seat, 'is', 'are')} out, {_PLACES[out.place - 1]}"
    if kind == "deal_ended":
        ended = guandan.deal_ended
        return (
            f"deal {ended.deal_number + 1} over: {seat_names(view, ended.order)}; "
            f"{_team_text(view, ended.team)} up {ended.steps}, levels {_levels_text(ended.levels)}"
        )
    if kind == "level_changed":
        changed = guandan.level_changed
        return (
            f"{_team_text(view, changed.team)}: level {level_name(changed.before)}"
            f" -> {level_name(changed.after)}"
        )
    if kind == "deal_started":
        started = guandan.deal_started
        return (
            f"deal {started.deal_number + 1} dealt at level {level_name(started.level)} "
            f"({_team_text(view, started.declarer)}'s); {name(started.leader)} leads"
        )
    if kind == "cards_dealt":
        dealt = guandan.cards_dealt
        return (
            f"{does(dealt.seat, 'is', 'are')} dealt {render_hand(dealt.cards, view.guandan.level)}"
        )
    if kind == "tribute_paid":
        paid = guandan.tribute_paid
        return (
            f"{does(paid.payer, 'pays', 'pay')} {format_card(paid.card)} to {name(paid.receiver)}"
        )
    if kind == "anti_tribute":
        holders = guandan.anti_tribute.red_joker_holders
        shown = f" (red jokers: {seat_names(view, holders)})" if holders else ""
        return f"no tribute: the payers hold both red jokers{shown}"
    if kind == "return_chosen":
        chosen = guandan.return_chosen
        return f"{name(chosen.returner)} will return {format_card(chosen.card)}"
    if kind == "card_returned":
        returned = guandan.card_returned
        return (
            f"{does(returned.returner, 'returns', 'return')} {format_card(returned.card)}"
            f" to {name(returned.payer)}"
        )
    if kind == "match_over":
        return f"match over: {seat_names(view, guandan.match_over.winners)} win"
    return f"guandan event {kind or '(empty)'}"


@dataclass(frozen=True, slots=True)
class GuandanText(GameText):
    """Guandan's :class:`GameText` with its event formatter, which the terminal looks up."""

    describe_event: Callable[[game_pb2.GameView, game_pb2.GameEvent], str]


GUANDAN_TEXT: Final = GuandanText(
    render=render_guandan,
    describe=describe_guandan,
    parse=parse_guandan,
    describe_event=describe_guandan_event,
)
