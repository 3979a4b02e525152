"""Guandan as text: levels, the hand in playing order, the play to beat, and moves typed as cards.

A view is shown as a few labelled lines: the deal and its level, each team's level, the
viewer's hand from weakest to strongest at this level (the level rank sits above the ace and
its hearts are wild, G-R3/G-R5), card counts, the play to beat, the plays and passes of the
current round, finishing order and tribute. From the end of a deal until the next deal's first
play, the deal just ended is shown too: its finish, the level change and why (the partner's
place, G-R24; the ace rules G-R25 .. G-R27 where they applied) and its last round; once the
match is over, the finish that won it (G-R26).
Events are worded from the shared catalogue (:mod:`cardengine_client.text.events`); their
cards are written as here, the wild ones marked.

Plays are named as players say them, with their cards from weakest to strongest (a sequence
along its run) and the wild cards marked ``*``: ``"full house, eights over two wilds: 8C 8D 8S
5H* 5H*"``, ``"straight, ace to five: AC 2D 3S 4H 5C"``, ``"plate, queens and kings: ..."``.
Sequences are named by their whole run, so the reading's rank (the natural top card, G-R12) is
the last rank named. These are the words of the service's own notation
(``engine_service.games.guandan.notation``, which ExplainPlay's descriptions use), written
again here over the messages because this package does not depend on the service; a test
holds the two to the same text. The menu of legal actions is written without the view, so
there the level is unknown: its plays are named and ordered from 2 to A, without wild marks.

Typed moves: ``pass``; ``return 4C``; cards to play, such as ``8C 8D 8S 5H 5H``, optionally
with the reading they count as (``full_house:8:5``, see
:func:`cardengine_client.actions.parse_reading`). Without a reading, the client takes it from
the legal plays that use the same ranks and the same number of wilds, and asks when there is
more than one (say, a five-bomb or a full house). While tribute is being returned, a single
card without a verb is a return.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
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
from cardengine_client.text.common import GameText, seat_name, seat_names, suit_name

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
_SEATS: Final = 4
_TOP_LEVEL: Final = 14
"""G-R25: levels stop at A."""
_PROMOTION_STEPS: Final = MappingProxyType({2: 3, 3: 2, 4: 1})
"""G-R24: levels up by the winner's partner's place."""


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


WILD_MARK: Final = "*"
"""Written after a wild card (G-R5), e.g. ``7H*`` at level 7."""
_RANK_WORDS: Final = MappingProxyType(
    {
        2: ("two", "twos"),
        3: ("three", "threes"),
        4: ("four", "fours"),
        5: ("five", "fives"),
        6: ("six", "sixes"),
        7: ("seven", "sevens"),
        8: ("eight", "eights"),
        9: ("nine", "nines"),
        10: ("ten", "tens"),
        11: ("jack", "jacks"),
        12: ("queen", "queens"),
        13: ("king", "kings"),
        14: ("ace", "aces"),
        15: ("black joker", "black jokers"),
        16: ("red joker", "red jokers"),
    }
)
_COUNT_WORDS: Final = MappingProxyType(
    {4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten"}
)
_SEQUENCE_LENGTHS: Final = MappingProxyType(
    {
        guandan_pb2.GuandanReading.SHAPE_STRAIGHT: 5,
        guandan_pb2.GuandanReading.SHAPE_STRAIGHT_FLUSH: 5,
        guandan_pb2.GuandanReading.SHAPE_TUBE: 3,
        guandan_pb2.GuandanReading.SHAPE_PLATE: 2,
    }
)
"""G-R8: the number of ranks each sequence spans."""
_NO_LEVEL: Final = 0
"""The level of a text written without the view: no rank is lifted and no card is wild."""


def _wild(card: cards_pb2.Card, level: int) -> bool:
    return level != _NO_LEVEL and is_wild(card, level)


def card_text(card: cards_pb2.Card, level: int = _NO_LEVEL) -> str:
    """``"QS"``, ``"RJ"``, or a wild card marked: ``"7H*"`` at level 7."""
    return format_card(card) + (WILD_MARK if _wild(card, level) else "")


def format_play_cards(cards: Iterable[cards_pb2.Card], level: int = _NO_LEVEL) -> str:
    """Cards from weakest to strongest at ``level`` (G-R3), the wild cards marked (G-R5).

    Without a level (0) they run from 2 to A, jokers last.
    """
    ordered = sorted(cards, key=lambda card: card_strength(card, level))
    return " ".join(card_text(card, level) for card in ordered)


def _window(top: int, length: int) -> tuple[int, ...]:
    """G-R7: the ranks of the run ending at its natural top card, the ace low below 2."""
    return tuple(14 if rank == 1 else rank for rank in range(top - length + 1, top + 1))


def _play_order(
    cards: Sequence[cards_pb2.Card], reading: guandan_pb2.GuandanReading, level: int
) -> list[cards_pb2.Card]:
    """A sequence along its run, wilds last; else G-R3 order, a full house's triple first."""
    length = _SEQUENCE_LENGTHS.get(reading.shape)
    if length is not None:
        ranks = _window(reading.rank, length)

        def along_run(card: cards_pb2.Card) -> tuple[int, int, int]:
            wild = _wild(card, level)
            spot = len(ranks) if wild or card.rank not in ranks else ranks.index(card.rank)
            return int(wild), spot, card.suit

        return sorted(cards, key=along_run)
    ordered = sorted(cards, key=lambda card: card_strength(card, level))
    if reading.shape == guandan_pb2.GuandanReading.SHAPE_FULL_HOUSE:
        ordered.sort(key=lambda card: not _wild(card, level) and card.rank != reading.rank)
    return ordered


def _one(rank: int) -> str:
    return _RANK_WORDS.get(rank, (str(rank), str(rank)))[0]


def _many(rank: int) -> str:
    return _RANK_WORDS.get(rank, (str(rank), str(rank)))[1]


def name_play(
    cards: Sequence[cards_pb2.Card], reading: guandan_pb2.GuandanReading, level: int = _NO_LEVEL
) -> str:
    """The combination in words: ``"pair of kings"``, ``"straight, five to nine"``.

    A reading this client does not know is written as the service writes it.
    """
    shape, rank = reading.shape, int(reading.rank)
    reading_type = guandan_pb2.GuandanReading
    if shape == reading_type.SHAPE_SINGLE:
        return f"single {_one(rank)}"
    if shape == reading_type.SHAPE_PAIR:
        return f"pair of {_many(rank)}"
    if shape == reading_type.SHAPE_TRIPLE:
        return f"triple of {_many(rank)}"
    if shape == reading_type.SHAPE_BOMB:
        return f"bomb of {_COUNT_WORDS.get(reading.size, str(reading.size))} {_many(rank)}"
    if shape == reading_type.SHAPE_JOKER_BOMB:
        return "joker bomb"
    if shape == reading_type.SHAPE_FULL_HOUSE:
        others = Counter(c.rank for c in cards if not _wild(c, level) and c.rank != rank)
        pair = min(others, key=lambda r: (-others[r], r)) if others else None
        return f"full house, {_many(rank)} over {_many(pair) if pair else 'two wilds'}"
    length = _SEQUENCE_LENGTHS.get(shape)
    if length is None:
        return format_reading(reading)
    ranks = _window(rank, length)
    low, top = ranks[0], ranks[-1]
    if shape == reading_type.SHAPE_STRAIGHT:
        return f"straight, {_one(low)} to {_one(top)}"
    if shape == reading_type.SHAPE_STRAIGHT_FLUSH:
        suits = Counter(c.suit for c in cards if not _wild(c, level))
        suit = suit_name(suits.most_common(1)[0][0]) if suits else "?"
        return f"straight flush of {suit}, {_one(low)} to {_one(top)}"
    if shape == reading_type.SHAPE_TUBE:
        return f"tube, {_many(low)} to {_many(top)}"
    return f"plate, {_many(low)} and {_many(top)}"


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
        play = describe_play(top.cards, top.reading, guandan.level)
        line = f"To beat: {seat_name(view, top.seat)} {play}"
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
    """``"seat 3 pair of fives: 5C 5D; you pass"``: each play or pass of a round, oldest first."""
    level = view.guandan.level
    return "; ".join(
        f"{seat_name(view, entry.seat)} "
        + (
            describe_play(entry.play.cards, entry.play.reading, level)
            if entry.HasField("play")
            else "pass"
        )
        for entry in entries
    )


def _partner_place(order: Sequence[int]) -> int:
    """The 1-based place of the first finisher's partner; 4th when the order leaves it out."""
    partner = (order[0] + _TEAMS) % _SEATS
    return list(order).index(partner) + 1 if partner in order else _SEATS


def _finish_text(view: game_pb2.GameView, order: Sequence[int]) -> str:
    """``"you 1st, partner seat 2 3rd"``: the winner and its partner's place (G-R24)."""
    place = _partner_place(order)
    partner = (order[0] + _TEAMS) % _SEATS
    return (
        f"{seat_name(view, order[0])} 1st, partner {seat_name(view, partner)} {_PLACES[place - 1]}"
    )


def _why_lines(view: game_pb2.GameView, result: guandan_pb2.GuandanDealResult) -> list[str]:
    """G-R24 .. G-R27: why the levels moved as they did after a deal that did not end the match."""
    if not result.order:
        return []
    team = result.team
    place = _partner_place(result.order)
    nominal = _PROMOTION_STEPS.get(place, 1)
    winners = _team_text(view, team)
    why = f"{_finish_text(view, result.order)}: up {nominal} for {winners} (G-R24)"
    if result.steps < nominal:
        why += f", but levels stop at A, so up {result.steps} (G-R25)"
    reasons = [why]
    before = result.levels_before[team] if team < len(result.levels_before) else 0
    if before == _TOP_LEVEL:
        if result.level != _TOP_LEVEL:
            reasons.append(
                f"no match win: the deal was played at {level_name(result.level)}, not A (G-R26)"
            )
        elif place == _SEATS:
            reasons.append("no match win: a 1-4 finish at A only keeps the team at A (G-R26)")
    for other, (was, now) in enumerate(zip(result.levels_before, result.levels, strict=False)):
        expected = min(was + result.steps, _TOP_LEVEL) if other == team else was
        if now != expected:
            reasons.append(
                f"{_team_text(view, other)} used up their attempts at A and drop back to "
                f"{level_name(now)} (G-R27)"
            )
    return [f"Why: {'; '.join(reasons)}"]


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
        if team == result.team and result.steps and after == before + result.steps:
            change += f" (up {result.steps})"
        changes.append(change)
    return [
        f"Deal {result.deal_number + 1} (level {level_name(result.level)}) ended: "
        f"{_places_text(view, result.order)}",
        f"Level change: {', '.join(changes)}",
        *_why_lines(view, result),
        f"Its last round: {describe_round(view, result.last_plays)}",
    ]


def _match_won_lines(view: game_pb2.GameView) -> list[str]:
    """G-R26: once the match is over, the finish that won it."""
    guandan = view.guandan
    if guandan.phase != _View.PHASE_GAME_OVER or not guandan.finished:
        return []
    order = guandan.finished
    team = _team_text(view, order[0] % _TEAMS)
    return [
        f"Match won by {team} (G-R26): at A, in a deal played at A, "
        f"with {_finish_text(view, order)}"
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
    return lines + _table_lines(view) + _tribute_lines(view) + _match_won_lines(view)


def describe_play(
    cards: Sequence[cards_pb2.Card], reading: guandan_pb2.GuandanReading, level: int = _NO_LEVEL
) -> str:
    """``"full house, eights over two wilds: 8C 8D 8S 5H* 5H*"``: the words, then the cards.

    The same text as the service's notation (``describe_play``) at a known ``level``.
    """
    ordered = _play_order(cards, reading, level)
    text = " ".join(card_text(card, level) for card in ordered)
    return f"{name_play(cards, reading, level)}: {text}"


def describe_guandan(action: game_pb2.Action) -> str:
    """``"play full house, eights over fives: 8C 8D 8S 5H 5H"``, ``"pass"`` or ``"return 4C"``.

    An action carries no level, so its cards run from 2 to A without wild marks.
    """
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


GUANDAN_TEXT: Final = GameText(
    render=render_guandan,
    describe=describe_guandan,
    parse=parse_guandan,
    card_text=lambda view, card: card_text(card, view.guandan.level),
)
