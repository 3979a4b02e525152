"""Golden-game text: each view as one compact, deterministic line, and a game as a transcript.

A view line lists every field of the view dataclass under a short per-game label, so a field
added to a view without a label here fails loudly instead of going unrecorded. Values print as:
cards ``2C,QS``; a small record (a trick, a bid) its fields joined by ``:`` (a trick
``leader:cards``); numbers per seat ``3,0,13,10``; rows (per hand, per seat, records) joined by
``/``; ``-`` for nothing. A game whose views hold cards as plain ints (Guandan's card kinds)
names those fields in ``GameFormat.field_texts`` with their own text form.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from engine_service.core.cards import Card
from engine_service.games.guandan import actions as guandan_actions
from engine_service.games.guandan.cards import kind_text
from engine_service.games.guandan.state import DealResult, RoundEntry, TopPlay, Tribute
from engine_service.games.hearts.actions import parse_action
from engine_service.games.klaberjass.actions import parse_action as parse_klaberjass_action
from engine_service.registry import REGISTRY
from tests.conformance.options import option_texts

HEADER: Final = "# Golden game, checked by tests/golden/test_golden.py. Rewrite: make golden"


@dataclass(frozen=True)
class GameFormat:
    """How one game's golden file reads and writes: view labels and the action parser."""

    labels: Mapping[str, str]
    """A short label for every field of the game's view, in the order they are written."""

    parse_action: Callable[[str], Any]
    """Reads the ``str()`` form of an action back."""

    field_texts: Mapping[str, Callable[[Any], str]] = dataclasses.field(default_factory=dict)
    """Fields written by their own function instead of :func:`value_text` (by field name)."""


def kinds_text(kinds: tuple[int, ...]) -> str:
    """Guandan card kinds as ``8C,8D,RJ``; ``-`` for none."""
    return ",".join(map(kind_text, kinds)) or "-"


def played_text(played: tuple[tuple[int, ...], ...]) -> str:
    """Each Guandan seat's plays of the deal (G-R17a), seat 0 first, as ``3C,4D/-/RJ/-``."""
    return "/".join(map(kinds_text, played))


def top_text(top: TopPlay | None) -> str:
    """A Guandan play to beat as ``seat:reading:cards``, e.g. ``2:pair:8:2:8C,8S``."""
    return "-" if top is None else f"{top.seat}:{top.reading}:{kinds_text(top.cards)}"


def tributes_text(tributes: tuple[Tribute, ...]) -> str:
    """Guandan tribute payments, comma-separated; ``-`` for none."""
    return ",".join(map(tribute_text, tributes)) or "-"


def tribute_text(tribute: Tribute) -> str:
    """``payer>receiver:card/returned`` (``?`` while the return is not shown)."""
    returned = "?" if tribute.returned is None else kind_text(tribute.returned)
    return f"{tribute.payer}>{tribute.receiver}:{kind_text(tribute.card)}/{returned}"


def round_text(entries: tuple[RoundEntry, ...]) -> str:
    """A Guandan round as ``seat:reading:cards`` plays and ``seat:pass``, comma-separated.

    E.g. ``0:pair:8:2:8C+8S,1:pass``; ``-`` for none.
    """
    return ",".join(map(_entry_text, entries)) or "-"


def _entry_text(entry: RoundEntry) -> str:
    if entry.reading is None:
        return f"{entry.seat}:pass"
    return f"{entry.seat}:{entry.reading}:{'+'.join(map(kind_text, entry.cards))}"


def deal_result_text(result: DealResult | None) -> str:
    """``deal:order:team+steps:levels_before>levels:last round`` of a Guandan deal; ``-``."""
    if result is None:
        return "-"
    order = "".join(map(str, result.order))
    levels = f"{value_text(result.levels_before)}>{value_text(result.levels)}"
    return (
        f"{result.deal_number}:{order}:{result.team}+{result.steps}:{levels}"
        f":{round_text(result.last_plays)}"
    )


FORMATS: Final[Mapping[str, GameFormat]] = {
    "hearts": GameFormat(
        labels={
            "seat": "seat",
            "phase": "phase",
            "hand_number": "deal",
            "pass_direction": "pass",
            "to_act": "act",
            "hand": "hand",
            "passed": "passed",
            "received": "got",
            "pass_submitted": "chosen",
            "trick": "trick",
            "last_trick": "last",
            "completed_tricks": "done",
            "previous_hand": "prev",
            "tricks_played": "tricks",
            "hearts_broken": "broken",
            "tricks_won": "won",
            "points_taken": "pts",
            "hand_scores": "scores",
            "totals": "totals",
            "target": "target",
            "winners": "winners",
        },
        parse_action=parse_action,
    ),
    "klaberjass": GameFormat(
        labels={
            "seat": "seat",
            "phase": "phase",
            "deal_number": "deal",
            "dealer": "dealer",
            "to_act": "act",
            "hand": "hand",
            "hand_sizes": "sizes",
            "turn_up": "up",
            "bottom": "bottom",
            "bids": "bids",
            "trump": "trump",
            "maker": "maker",
            "dix_by": "dix",
            "dix_taken": "taken",
            "sequences": "seq",
            "trick": "trick",
            "last_trick": "last",
            "tricks_played": "tricks",
            "tricks_won": "won",
            "card_points": "pts",
            "played": "played",
            "bella_by": "bella",
            "totals": "totals",
            "deals": "deals",
            "target": "target",
            "winners": "winners",
            "completed_tricks": "done",
            "previous_deal": "prev",
        },
        parse_action=parse_klaberjass_action,
    ),
    "guandan": GameFormat(
        labels={
            "seat": "seat",
            "phase": "phase",
            "to_act": "act",
            "deal_number": "deal",
            "levels": "levels",
            "level": "level",
            "declarer": "declarer",
            "hand": "hand",
            "card_counts": "counts",
            "top": "top",
            "passed": "passed",
            "finished": "out",
            "tributes": "tribute",
            "anti_tribute": "anti",
            "red_joker_holders": "red",
            "previous_order": "before",
            "winners": "winners",
            "round_history": "round",
            "previous_deal": "prev",
            "played": "plays",
        },
        parse_action=guandan_actions.parse_action,
        field_texts={
            "hand": kinds_text,
            "top": top_text,
            "tributes": tributes_text,
            "round_history": round_text,
            "previous_deal": deal_result_text,
            "played": played_text,
        },
    ),
}
"""One format per registered game; ``test_golden.py`` fails for a game missing here."""


def value_text(value: object) -> str:
    """One view value in the compact form described in the module docstring."""
    if value is None or value == ():
        return "-"
    if isinstance(value, bool):
        return "y" if value else "n"
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, enum.Enum):
        return value.name.lower()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return ":".join(value_text(getattr(value, item.name)) for item in dataclasses.fields(value))
    if isinstance(value, tuple) and (
        isinstance(value[0], tuple) or dataclasses.is_dataclass(value[0])
    ):
        return "/".join(value_text(row) for row in value)
    if isinstance(value, tuple):
        return ",".join(value_text(item) for item in value)
    return str(value)


def view_line(name: str, view: Any) -> str:
    """Every field of ``view`` as ``label=value``; unknown fields raise ``KeyError``."""
    game_format = FORMATS[name]
    labels = game_format.labels
    fields = [item.name for item in dataclasses.fields(view)]
    unlabelled = set(fields) - set(labels)
    if unlabelled:
        raise KeyError(f"{name} view fields without a golden label: {sorted(unlabelled)}")
    texts = game_format.field_texts
    return " ".join(
        f"{label}={texts.get(field, value_text)(getattr(view, field))}"
        for field, label in labels.items()
    )


def transcript(name: str, config: Any, seed: int, actions: Sequence[tuple[int, Any]]) -> list[str]:
    """The golden text of a game: its rules and seed, then each step, then the outcome.

    Each step shows the actor's view before it acts, the action, and the spectator's view after.
    """
    rules = REGISTRY[name].make_rules(config)
    lines = [HEADER, f"game {name}"]
    lines += [f"option {key}={text}" for key, text in option_texts(config).items()]
    lines.append(f"seed {seed}")
    state = rules.new_game(seed)
    lines.append(f"start: {view_line(name, rules.view(state, None))}")
    for number, (seat, action) in enumerate(actions, 1):
        lines.append(f"step {number}: seat {seat} {action}")
        lines.append(f"  saw: {view_line(name, rules.view(state, seat))}")
        state = rules.apply(state, seat, action)
        lines.append(f"  table: {view_line(name, rules.view(state, None))}")
    outcome = rules.outcome(state)
    if outcome is None:
        lines.append("outcome: none (the game is not over)")
    else:
        winners, scores = value_text(outcome.winners), value_text(outcome.scores)
        lines.append(f"outcome: winners={winners} scores={scores} {outcome.summary}")
    return lines
