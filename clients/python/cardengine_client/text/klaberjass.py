"""Two-player Klaberjass as text: the table as a seat sees it, and moves typed as words.

A view is shown as a few labelled lines: how the previous deal ended (its final trick and
score, until the first card of the next deal, with how the score was made: each seat's card
points, last trick, sequences and bella, then the maker rule of K-R20; once the game is over,
the same for its last deal), the deal and its dealer, the turn-up and bottom
cards, the bidding, trump and maker, the viewer's hand grouped by suit, the trick in progress
and every trick taken so far this deal, sequences and bella, and the scores. Typed moves:
``pass``, ``trump H`` (or just ``hearts``), ``swap`` / ``keep`` (or ``dix swap``) for the dix,
and a card such as ``KH`` to play it, optionally followed by ``no-bella`` or ``no-sequences``.
Events are worded from the shared catalogue (:mod:`cardengine_client.text.events`).
Nothing is checked against the rules here: the service judges, and a refusal names the rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType
from typing import Final

from cardengine.v1 import cards_pb2, game_pb2, klaberjass_pb2

from cardengine_client.actions import (
    klaberjass_dix,
    klaberjass_pass,
    klaberjass_play,
    klaberjass_trump,
    parse_suit,
)
from cardengine_client.cards import format_card, format_cards
from cardengine_client.text.common import (
    GameText,
    render_hand,
    score_table,
    seat_name,
    suit_name,
    trick_text,
)

View = klaberjass_pb2.KlaberjassView

_PHASES: Final = MappingProxyType(
    {
        View.PHASE_BIDDING_TURNED_SUIT: "bidding on the turned suit",
        View.PHASE_BIDDING_OTHER_SUIT: "bidding on another suit",
        View.PHASE_DIX: "dix (swap the trump seven for the turn-up?)",
        View.PHASE_PLAYING: "playing",
        View.PHASE_GAME_OVER: "game over",
    }
)

_FLAGS: Final = ("no-bella", "no-sequences")


def render_trick(view: game_pb2.GameView, trick: klaberjass_pb2.KlaberjassTrick) -> str:
    """Each card with its seat, in play order, and the winner once both are down."""
    text = trick_text(view, trick.leader, trick.cards)
    if trick.HasField("winner"):
        text += f" -> won by {seat_name(view, trick.winner)}"
    return text


def _taken_text(view: game_pb2.GameView, trick: klaberjass_pb2.KlaberjassTrick) -> str:
    """A complete trick with its winner and the points it took: ``... -> won by you (+21)``."""
    return f"{render_trick(view, trick)} (+{trick.points})"


def _history_lines(view: game_pb2.GameView) -> list[str]:
    """Every complete trick of this deal, numbered; the last line is the last trick."""
    tricks = view.klaberjass.completed_tricks
    lines = ["Tricks this deal:"]
    lines += [f"  {number}. {_taken_text(view, trick)}" for number, trick in enumerate(tricks, 1)]
    return lines


def _sequences_text(view: game_pb2.GameView, sequences: klaberjass_pb2.KlaberjassSequences) -> str:
    if not sequences.HasField("winner"):
        return "none scores"
    cards = format_cards(sequences.cards)
    return f"{seat_name(view, sequences.winner)} scores {sequences.points} ({cards})"


_LAST_TRICK_BONUS: Final = 10  # K-R19
_BELLA_POINTS: Final = 20  # K-R15
_ONE_SEQUENCE: Final = (20, 50)  # K-R12: what one sequence scores; more are summed


def _does(view: game_pb2.GameView, seat: int, verb: str, you: str) -> str:
    """``"seat 1 scores"`` but ``"you score"``."""
    name = seat_name(view, seat)
    return f"{name} {you if name == 'you' else verb}"


def _seat_points(
    view: game_pb2.GameView,
    tricks: Sequence[klaberjass_pb2.KlaberjassTrick],
    sequences: klaberjass_pb2.KlaberjassSequences | None,
    bella_by: int | None,
) -> list[list[tuple[str, int]]]:
    """Per seat, the named parts of its deal total (K-R20): cards, last trick, sequence, bella.

    Worked out from the deal's tricks, so they can be checked against its result.
    """
    seats = len(view.seats)
    parts: list[list[tuple[str, int]]] = [[] for _ in range(seats)]
    cards = [0] * seats
    won = [0] * seats
    for trick in tricks:
        cards[trick.winner] += trick.points
        won[trick.winner] += 1
    last = tricks[-1].winner if tricks else None
    if last is not None:
        cards[last] -= _LAST_TRICK_BONUS
    for seat in range(seats):
        parts[seat].append(("in cards", cards[seat]))
        if seat == last:
            parts[seat].append(("last trick (K-R19)", _LAST_TRICK_BONUS))
    if sequences is not None and sequences.HasField("winner"):
        winner = sequences.winner
        if won[winner] or not view.klaberjass.options.melds_need_a_trick:
            word = "sequence" if sequences.points in _ONE_SEQUENCE else "sequences"
            parts[winner].append((f"{word} (K-R12)", sequences.points))
    if bella_by is not None:
        parts[bella_by].append(("bella (K-R15)", _BELLA_POINTS))
    return parts


def _maker_rule_text(view: game_pb2.GameView, result: klaberjass_pb2.KlaberjassDeal) -> str:
    """K-R20: how the maker's total against the opponent's made what each seat scored."""
    maker = result.maker
    other = 1 - maker
    made, against = result.points[maker], result.points[other]
    title = f"Maker {seat_name(view, maker)}: {made} against {against}"
    if made > against:
        return (
            f"{title}, more, so each keeps its own: {seat_name(view, maker)} {made}, "
            f"{seat_name(view, other)} {against} (K-R20)"
        )
    if made == against:
        return (
            f"{title}, not more, so the maker scores 0 and "
            f"{_does(view, other, 'keeps', 'keep')} {against} (K-R20)"
        )
    return (
        f'{title}, less, so the maker is down ("bate"): '
        f"{_does(view, other, 'takes', 'take')} {against} + {made} = {against + made}, "
        f"{seat_name(view, maker)} 0 (K-R20)"
    )


def _explanation_lines(
    view: game_pb2.GameView,
    result: klaberjass_pb2.KlaberjassDeal,
    tricks: Sequence[klaberjass_pb2.KlaberjassTrick],
    sequences: klaberjass_pb2.KlaberjassSequences | None,
    bella_by: int | None,
) -> list[str]:
    """What made a played deal's score: each seat's total by its parts, then the maker rule."""
    lines = ["  Deal points (K-R20):"]
    for seat, parts in enumerate(_seat_points(view, tricks, sequences, bella_by)):
        terms = " + ".join(f"{points} {label}" for label, points in parts)
        total = result.points[seat] if seat < len(result.points) else sum(p for _, p in parts)
        lines.append(f"    {seat_name(view, seat)}: {terms} = {total}")
    if sequences is not None and sequences.HasField("winner"):
        winner = sequences.winner
        lost = not any(trick.winner == winner for trick in tricks)
        if lost and view.klaberjass.options.melds_need_a_trick:
            lines.append(
                f"    ({seat_name(view, winner)} took no trick, so its sequence "
                f"points are lost: K-R14)"
            )
    lines.append(f"  {_maker_rule_text(view, result)}")
    return lines


def _headline(view: game_pb2.GameView, number: int, result: klaberjass_pb2.KlaberjassDeal) -> str:
    maker = seat_name(view, result.maker)
    went = "made it" if result.scores[result.maker] else "went down"
    points = "-".join(map(str, result.points))
    scores = "-".join(map(str, result.scores))
    return (
        f"Deal {number + 1} ended: {suit_name(result.trump)} by {maker}, who {went}; "
        f"points {points}, scored {scores}"
    )


def _previous_lines(view: game_pb2.GameView) -> list[str]:
    """How the deal that just ended went: its final trick, sequences, bella and score."""
    table = view.klaberjass
    if not table.HasField("previous_deal"):
        return []
    previous = table.previous_deal
    result = previous.result
    if not result.HasField("maker"):
        return [f"Deal {previous.deal_number + 1} was thrown in (both passed twice)"]
    sequences = previous.sequences if previous.HasField("sequences") else None
    bella_by = previous.bella_by if previous.HasField("bella_by") else None
    lines = [_headline(view, previous.deal_number, result)]
    if previous.tricks:
        lines.append(f"  Final trick: {_taken_text(view, previous.tricks[-1])}")
    if sequences is not None:
        lines.append(f"  Sequences: {_sequences_text(view, sequences)}")
    if bella_by is not None:
        lines.append(f"  Bella: {seat_name(view, bella_by)}")
    return lines + _explanation_lines(view, result, previous.tricks, sequences, bella_by)


def _final_deal_lines(view: game_pb2.GameView) -> list[str]:
    """Once the game is over, how its last deal scored.

    Its tricks, sequences and bella are still the view's own (shown above), and its result is
    the last of the deal history.
    """
    table = view.klaberjass
    if table.phase != View.PHASE_GAME_OVER or not table.deals:
        return []
    result = table.deals[-1]
    if not result.HasField("maker"):
        return []
    sequences = table.sequences if table.HasField("sequences") else None
    bella_by = table.bella_by if table.HasField("bella_by") else None
    return [
        _headline(view, table.deal_number, result),
        *_explanation_lines(view, result, table.completed_tricks, sequences, bella_by),
    ]


def _bid_text(view: game_pb2.GameView, bid: klaberjass_pb2.KlaberjassBid) -> str:
    choice = "passed" if bid.suit == cards_pb2.SUIT_UNSPECIFIED else f"took {suit_name(bid.suit)}"
    return f"{seat_name(view, bid.seat)} {choice}"


def _deal_lines(view: game_pb2.GameView) -> list[str]:
    """The deal, the cards shown face up, the bidding and the trump."""
    table = view.klaberjass
    phase = _PHASES.get(table.phase, "unknown phase")
    lines = [f"Deal {table.deal_number + 1}, {phase}; dealer {seat_name(view, table.dealer)}"]
    shown = f"Turn-up: {format_card(table.turn_up)}"
    if table.HasField("bottom"):
        shown += f"   bottom of the stock: {format_card(table.bottom)}"
    lines.append(shown)
    if table.bids:
        lines.append("Bids: " + ", ".join(_bid_text(view, bid) for bid in table.bids))
    if table.HasField("maker"):
        trump = f"Trump: {suit_name(table.trump)}, chosen by {seat_name(view, table.maker)}"
        if table.HasField("dix_by"):
            trump += f"; dix swapped by {seat_name(view, table.dix_by)}"
            if table.HasField("dix_taken"):  # K-R11: the turn-up it took, public
                trump += f" for {format_card(table.dix_taken)}"
        lines.append(trump)
    return lines


def _play_lines(view: game_pb2.GameView) -> list[str]:
    """The hand, the tricks, sequences and bella."""
    table = view.klaberjass
    lines = []
    if table.hand:
        lines.append(f"Your hand: {render_hand(list(table.hand))}")
    if table.phase == View.PHASE_PLAYING:
        lines.append(f"Trick {table.tricks_played + 1}: {render_trick(view, table.trick)}")
    if table.completed_tricks:
        lines += _history_lines(view)
    elif table.HasField("last_trick"):
        lines.append(f"Last trick: {render_trick(view, table.last_trick)}")
    if table.HasField("sequences"):
        lines.append(f"Sequences: {_sequences_text(view, table.sequences)}")
    if table.HasField("bella_by"):
        lines.append(f"Bella: {seat_name(view, table.bella_by)}")
    return lines


def _score_lines(view: game_pb2.GameView) -> list[str]:
    """Per seat: the total, the last deal's score, and this deal's card points and tricks."""
    table = view.klaberjass
    last = list(table.deals[-1].scores) if table.deals else []
    current = None
    if table.phase == View.PHASE_PLAYING:
        taken = zip(table.card_points, table.tricks_won, strict=False)
        current = [f"{points:3} pts, {tricks} tricks" for points, tricks in taken]
    lines = score_table(view, table.totals, last, current, "deal")
    lines[0] += f"   (target {table.options.target})"
    return lines


def render_klaberjass(view: game_pb2.GameView) -> list[str]:
    """The Klaberjass part of a view, a few labelled lines."""
    return (
        _previous_lines(view)
        + _deal_lines(view)
        + _play_lines(view)
        + _final_deal_lines(view)
        + _score_lines(view)
    )


def describe_klaberjass(action: game_pb2.Action) -> str:
    """``"pass"``, ``"trump hearts"``, ``"dix swap"`` or ``"play KH"`` (plus any flag)."""
    move = action.klaberjass
    kind = move.WhichOneof("action")
    if kind == "take_trump":
        return f"trump {suit_name(move.take_trump.suit)}"
    if kind == "dix":
        return "dix swap" if move.dix.swap else "dix keep"
    if kind == "play_card":
        play = move.play_card
        words = ["play", format_card(play.card)]
        if play.HasField("announce_bella") and not play.announce_bella:
            words.append("no-bella")
        if play.HasField("declare_sequences") and not play.declare_sequences:
            words.append("no-sequences")
        return " ".join(words)
    return "pass"


def _parse_play(words: list[str]) -> game_pb2.Action:
    card, *flags = words
    unknown = [flag for flag in flags if flag not in _FLAGS]
    if unknown:
        raise ValueError(f"after the card, write only {' or '.join(_FLAGS)}, not {unknown[0]!r}")
    return klaberjass_play(
        card, announce_bella="no-bella" not in flags, declare_sequences="no-sequences" not in flags
    )


def parse_klaberjass(_view: game_pb2.GameView, text: str) -> game_pb2.Action:
    """The move a player typed (see the module docstring for the words).

    Raises:
        ValueError: the words are no move; the message says what to type.
    """
    words = text.replace(",", " ").lower().split()
    if not words:
        raise ValueError("type a move, e.g. pass, trump H, swap or KH")
    verb, rest = words[0], words[1:]
    if words == ["pass"]:
        return klaberjass_pass()
    if verb in ("trump", "take") and len(rest) == 1:
        return klaberjass_trump(rest[0])
    if verb == "dix" and len(rest) == 1:
        verb, rest = rest[0], []
    if verb in ("swap", "keep") and not rest:
        return klaberjass_dix(verb == "swap")
    if verb == "play" and rest:
        return _parse_play(rest)
    if len(words) == 1:  # a suit's letter or name alone takes it as trump
        try:
            return klaberjass_trump(parse_suit(verb))
        except ValueError:
            pass
    return _parse_play(words)


KLABERJASS_TEXT: Final = GameText(
    render=render_klaberjass,
    describe=describe_klaberjass,
    parse=parse_klaberjass,
    card_text=lambda _view, card: format_card(card),
)
