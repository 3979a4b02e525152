"""Hearts as text: the table as a seat sees it, and moves typed as cards.

A view is shown as a few labelled lines: the hand and pass direction, the viewer's hand grouped
by suit, the tricks already played this hand, the trick in progress and the last one, the hand
that just ended (its last trick and scores, until the next hand's first card, with the hearts
and the queen each seat took and what a shot moon did, H-R10/H-R11; once the game is over, the
same for its last hand), and the scores.
Events are worded from the shared catalogue (:mod:`cardengine_client.text.events`). Typed
moves are card codes:
three cards while passing (``"2C 3C AH"``), one card while playing (``"QS"``); an explicit
verb (``"pass ..."``, ``"play ..."``) overrides the phase, so a player can send a move the
service will refuse and see which rule forbids it.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

from cardengine.v1 import cards_pb2, game_pb2, hearts_pb2

from cardengine_client.actions import hearts_pass, hearts_play
from cardengine_client.cards import card_sort_key, format_card, format_cards
from cardengine_client.text.common import (
    GameText,
    render_hand,
    score_table,
    seat_name,
    trick_text,
)

_PHASES: Final = MappingProxyType(
    {hearts_pb2.HeartsView.PHASE_PASSING: "passing", hearts_pb2.HeartsView.PHASE_PLAYING: "playing"}
)

_ALL_POINTS: Final = 26  # H-R11: a seat that took them all shot the moon
_QUEEN_POINTS: Final = 13  # H-R10
_QUEEN_OF_SPADES: Final = cards_pb2.Card(rank=cards_pb2.RANK_QUEEN, suit=cards_pb2.SUIT_SPADES)

# H-R2: where each direction sends the cards, as a step clockwise from the passer.
_PASS_STEPS: Final = MappingProxyType(
    {
        hearts_pb2.HEARTS_PASS_DIRECTION_LEFT: ("left", 1),
        hearts_pb2.HEARTS_PASS_DIRECTION_RIGHT: ("right", -1),
        hearts_pb2.HEARTS_PASS_DIRECTION_ACROSS: ("across", 2),
    }
)


def render_trick(view: game_pb2.GameView, trick: hearts_pb2.HeartsTrick) -> str:
    """Each played card with its seat, in play order: ``"seat 2 KD, you 4D"``."""
    return trick_text(view, trick.leader, trick.cards)


def render_taken(view: game_pb2.GameView, trick: hearts_pb2.HeartsTrick) -> str:
    """A complete trick with who took it (H-R6) and, when told, its points (H-R10)."""
    text = f"{render_trick(view, trick)} -> won by {seat_name(view, trick.winner)}"
    return text + (f" ({trick.points} pts)" if trick.HasField("points") else "")


def _pass_line(view: game_pb2.GameView) -> str:
    hearts = view.hearts
    direction = _PASS_STEPS.get(hearts.pass_direction)
    if direction is None:
        return "no passing this hand"
    name, step = direction
    line = f"passing {name}"
    if view.HasField("viewer_seat"):
        line += f" (to {seat_name(view, (view.viewer_seat + step) % len(view.seats))})"
    return line


def _exchange_lines(view: game_pb2.GameView) -> list[str]:
    hearts = view.hearts
    lines = []
    if hearts.passed:
        lines.append(f"You passed:   {format_cards(sorted(hearts.passed, key=card_sort_key))}")
    if hearts.received:
        lines.append(f"You received: {format_cards(sorted(hearts.received, key=card_sort_key))}")
    if hearts.phase == hearts_pb2.HeartsView.PHASE_PASSING:
        waiting = [seat for seat, done in enumerate(hearts.pass_submitted) if not done]
        lines.append("Still to pass: " + ", ".join(seat_name(view, s) for s in waiting))
    return lines


def _taken_cards(done: hearts_pb2.HeartsFinishedHand, seats: int) -> list[tuple[int, bool]]:
    """Per seat, the hearts and whether the queen of spades it took in a finished hand."""
    taken = [(0, False)] * seats
    for trick in done.tricks:
        hearts, queen = taken[trick.winner]
        hearts += sum(card.suit == cards_pb2.SUIT_HEARTS for card in trick.cards)
        queen = queen or any(card == _QUEEN_OF_SPADES for card in trick.cards)
        taken[trick.winner] = (hearts, queen)
    return taken


def _taken_text(hearts: int, queen: bool) -> str:
    """``"QS + 3 hearts"``, ``"1 heart"``, ``"nothing"``."""
    parts = ["QS"] if queen else []
    if hearts:
        parts.append(f"{hearts} heart{'s' if hearts != 1 else ''}")
    return " + ".join(parts) or "nothing"


def _hand_score_lines(view: game_pb2.GameView, done: hearts_pb2.HeartsFinishedHand) -> list[str]:
    """H-R10, H-R11: what each seat took in a finished hand, its points, and a moon's effect."""
    seats = len(view.seats)
    lines = [f"  Taken (H-R10: 1 a heart, {_QUEEN_POINTS} the queen of spades):"]
    for seat, (hearts, queen) in enumerate(_taken_cards(done, seats)):
        points = done.points_taken[seat] if seat < len(done.points_taken) else 0
        unit = "pt" if points == 1 else "pts"
        lines.append(f"    {seat_name(view, seat)}: {_taken_text(hearts, queen)} = {points} {unit}")
    moon = [seat for seat, taken in enumerate(done.points_taken) if taken == _ALL_POINTS]
    if moon and len(done.scores) == seats:
        shooter = moon[0]
        others = [seat for seat in range(seats) if seat != shooter]
        penalty = done.scores[others[0]] if others else 0
        lines.append(
            f"  {seat_name(view, shooter)} shot the moon (H-R11: all 13 hearts and the queen): "
            f"{seat_name(view, shooter)} 0 instead of {_ALL_POINTS}, "
            f"every other seat {penalty} instead of 0"
        )
    scores = ", ".join(f"{seat_name(view, seat)} {score}" for seat, score in enumerate(done.scores))
    shot = f"   ({seat_name(view, moon[0])} shot the moon)" if moon else ""
    lines.append(f"  It scored: {scores}{shot}")
    return lines


def _previous_hand_lines(view: game_pb2.GameView) -> list[str]:
    """The hand that just ended: its last trick and what it scored, until the next first card."""
    hearts = view.hearts
    if not hearts.HasField("previous_hand"):
        return []
    done = hearts.previous_hand
    if done.hand_number == hearts.hand_number:
        return []  # the game is over: that hand is still the one shown above
    lines = [f"Hand {done.hand_number + 1} is over."]
    if done.tricks:
        lines.append(f"  Its last trick: {render_taken(view, done.tricks[-1])}")
    return lines + _hand_score_lines(view, done)


def _final_hand_lines(view: game_pb2.GameView) -> list[str]:
    """Once the game is over, how its last hand (its tricks listed above) scored."""
    hearts = view.hearts
    if not hearts.HasField("previous_hand"):
        return []
    done = hearts.previous_hand
    return [f"Hand {done.hand_number + 1} scored:", *_hand_score_lines(view, done)]


def _table_lines(view: game_pb2.GameView) -> list[str]:
    hearts = view.hearts
    lines = []
    earlier = hearts.completed_tricks[:-1]
    if earlier:
        lines.append("Earlier tricks:")
        lines += [
            f"{number:4}) {render_taken(view, trick)}" for number, trick in enumerate(earlier, 1)
        ]
    if hearts.phase == hearts_pb2.HeartsView.PHASE_PLAYING:
        broken = "broken" if hearts.hearts_broken else "not broken"
        lines.append(
            f"Trick {hearts.tricks_played + 1}: {render_trick(view, hearts.trick)}"
            f"   (hearts {broken})"
        )
    if hearts.HasField("last_trick") and hearts.last_trick.HasField("winner"):
        lines.append(f"Last trick: {render_taken(view, hearts.last_trick)}")
    return lines


def _score_lines(view: game_pb2.GameView) -> list[str]:
    """Per seat: the total, the last completed hand's score, and the current hand's so far."""
    hearts = view.hearts
    last_hand = list(hearts.hand_scores[-1].scores) if hearts.hand_scores else []
    current = None
    if hearts.phase != hearts_pb2.HeartsView.PHASE_GAME_OVER:
        taken = zip(hearts.points_taken, hearts.tricks_won, strict=False)
        current = [f"{points:2} pts, {tricks:2} tricks" for points, tricks in taken]
    return score_table(view, hearts.totals, last_hand, current, "hand")


def render_hearts(view: game_pb2.GameView) -> list[str]:
    """The Hearts part of a view, a few labelled lines."""
    hearts = view.hearts
    if hearts.phase == hearts_pb2.HeartsView.PHASE_GAME_OVER:
        return [
            f"Hand {hearts.hand_number + 1}, game over",
            *_table_lines(view),
            *_final_hand_lines(view),
            *_score_lines(view),
        ]
    phase = _PHASES.get(hearts.phase, "unknown phase")
    lines = [
        *_previous_hand_lines(view),
        f"Hand {hearts.hand_number + 1}, {phase}, {_pass_line(view)}",
    ]
    if hearts.hand:
        lines.append(f"Your hand: {render_hand(list(hearts.hand))}")
    return lines + _exchange_lines(view) + _table_lines(view) + _score_lines(view)


def describe_hearts(action: game_pb2.Action) -> str:
    """``"play QS"`` or ``"pass 2C 3C AH"``."""
    move = action.hearts
    if move.WhichOneof("action") == "pass_cards":
        return "pass " + format_cards(sorted(move.pass_cards.cards, key=card_sort_key))
    return "play " + format_card(move.play_card.card)


def parse_hearts(view: game_pb2.GameView, text: str) -> game_pb2.Action:
    """The move a player typed: card codes, with an optional leading ``pass`` or ``play``.

    Without a verb, the phase decides: while passing the cards are a pass, otherwise a play.
    The number of cards is left for the service to judge (H-R2 for a pass).

    Raises:
        ValueError: no card, a word that is not a card, or several cards to play.
    """
    words = text.replace(",", " ").split()
    verb = words[0].lower() if words and words[0].lower() in ("pass", "play") else None
    codes = words[1:] if verb else words
    if not codes:
        raise ValueError("name a card, e.g. QS")
    passing = view.hearts.phase == hearts_pb2.HeartsView.PHASE_PASSING
    if verb == "pass" or (verb is None and passing):
        return hearts_pass(codes)
    if len(codes) != 1:
        raise ValueError("play one card at a time, e.g. QS")
    return hearts_play(codes[0])


HEARTS_TEXT: Final = GameText(
    render=render_hearts,
    describe=describe_hearts,
    parse=parse_hearts,
    card_text=lambda _view, card: format_card(card),
)
