"""The conformance checks, one small function each, and a game loop that runs them all.

Both the seeded random games (``test_all_games.py``) and the Hypothesis state machine
(``tests/property``) call these, so a rule break is described the same way wherever it is found.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from engine_service.bots.search import SearchBot, bot_choice
from engine_service.codec.record import decode_record, encode_record
from engine_service.codec.registry import CODECS
from engine_service.core.errors import IllegalAction, RuleViolation
from engine_service.core.events import Event, visible
from engine_service.core.protocol import Bot, GameSpec, Rules
from engine_service.core.record import GameRecord, PlayerKind, SeatRecord
from engine_service.registry import REGISTRY
from tests.conformance.adapter import CardId, GameAdapter
from tests.conformance.game_adapters import ADAPTERS

RULE_ID = re.compile(r"[A-Z]+-R\d+")
MAX_STEPS = 100_000
"""A game longer than this is taken to be stuck (every rule set ends under random play)."""

Views = Mapping[int | None, Any]
"""Every seat's view of one state, and the spectator's (``None``)."""

ChooseFn = Callable[[Views, Mapping[int, Sequence[Any]], random.Random], tuple[int, Any]]
"""Picks the ``(seat, action)`` to apply, from the views and each seat's legal actions."""


def adapter_for(name: str) -> GameAdapter:
    """The conformance adapter of a registered game; fails the test when there is none."""
    if name not in ADAPTERS:
        pytest.fail(f"game {name!r} is registered but has no adapter in game_adapters.ADAPTERS")
    return ADAPTERS[name]


def check_to_act(rules: Rules[Any, Any, Any], state: Any) -> tuple[int, ...]:
    """Somebody must act exactly while the game has no outcome."""
    seats = rules.current_seats(state)
    finished = rules.outcome(state) is not None
    assert bool(seats) != finished, f"seats to act {seats} with outcome set={finished}"
    return seats


def check_legal_listing(
    rules: Rules[Any, Any, Any], state: Any, to_act: tuple[int, ...]
) -> dict[int, Sequence[Any]]:
    """Legal actions exist for every seat to act and for no other seat."""
    legal = {}
    for seat in range(rules.seats):
        actions = rules.legal_actions(state, seat)
        if seat in to_act:
            assert actions, f"seat {seat} must act but has no legal action"
            legal[seat] = actions
        else:
            assert not actions, f"seat {seat} need not act but may {actions[0]}"
    return legal


def check_illegal_rejected(
    rules: Rules[Any, Any, Any], adapter: GameAdapter, state: Any, rng: random.Random
) -> None:
    """A sampled illegal action is explained by ``check`` and refused by ``apply``, harmlessly."""
    seat, action = adapter.sample_illegal(rules, state, rng)
    violation = rules.check(state, seat, action)
    assert isinstance(violation, RuleViolation), f"seat {seat} {action} was not refused"
    assert violation.reason.isupper() and RULE_ID.fullmatch(violation.rule_id), violation
    snapshot = field_values(state)
    with pytest.raises(IllegalAction) as raised:
        rules.apply(state, seat, action)
    assert raised.value.violation == violation
    assert field_values(state) == snapshot, "a refused action changed the state"


def field_values(state: Any) -> tuple[Any, ...]:
    """A state's field values: a full snapshot, as states are frozen and made of values.

    Compared with ``==``, this is as strict as comparing with a copy, and cheaper to take.
    """
    return tuple(getattr(state, name) for name in state.__dataclass_fields__)


def check_cards_conserved(adapter: GameAdapter, state: Any, log: Sequence[Any]) -> None:
    """Every card of the deck is in exactly one place."""
    found = adapter.all_cards(state, log)
    expected = adapter.deck()
    # Counting leaves no zero counts, so the plain (and much faster) dict comparison is exact.
    assert dict.__eq__(found, expected), (
        f"cards missing {sorted(map(str, expected - found))}, "
        f"extra {sorted(map(str, found - expected))}"
    )


Hidden = Mapping[int | None, frozenset[CardId]]
"""The cards each seat, and the spectator (``None``), may not know in one state."""


def hidden_from_each(rules: Rules[Any, Any, Any], adapter: GameAdapter, state: Any) -> Hidden:
    """What every seat and the spectator may not see in ``state``."""
    return {seat: adapter.hidden_cards(state, seat) for seat in (*range(rules.seats), None)}


def check_no_leaks(
    rules: Rules[Any, Any, Any], adapter: GameAdapter, state: Any, hidden: Hidden
) -> Views:
    """No seat's view, and not the spectator's, shows a card hidden from it.

    Returns:
        the views checked, which the bots then play from.
    """
    views = {seat: rules.view(state, seat) for seat in hidden}
    for seat, view in views.items():
        leaked = adapter.visible_cards(view) & hidden[seat]
        assert not leaked, f"view of seat {seat} shows {sorted(map(str, leaked))}"
    return views


def check_event_leaks(
    adapter: GameAdapter, events: Sequence[Event], before: Any, after: Any, hidden: Hidden
) -> None:
    """No seat, and not a spectator, is told of a card it may not know after the action.

    ``hidden`` is what each may not know in ``after``.
    """
    for viewer, secret in hidden.items():
        told: frozenset[CardId] = frozenset()
        for event in visible(events, viewer):
            told |= adapter.event_cards(event.fact, before, after)
        leaked = told & secret
        assert not leaked, f"events for seat {viewer} show {sorted(map(str, leaked))}: {events}"


def check_events_encode(spec: GameSpec[Any, Any, Any, Any], events: Sequence[Event]) -> None:
    """Every event has a message of its game (the codec knows every event value)."""
    codec = CODECS[spec.name]
    for event in events:
        message = codec.encode_event(event.fact)
        assert message.WhichOneof("game") == spec.name, f"{event.fact} encodes as {message}"


def check_codec_round_trip(
    spec: GameSpec[Any, Any, Any, Any], config: Any, seed: int, state: Any, action: Any
) -> None:
    """The stored snapshot and the action's message decode back to equal values."""
    seats = tuple(SeatRecord(PlayerKind.HUMAN, bytes(32)) for _ in range(spec.seats))
    record = GameRecord(spec.name, config, seed, seats, state)
    assert decode_record(encode_record(record)) == record, "the snapshot does not round-trip"
    codec = CODECS[spec.name]
    assert codec.decode_action(codec.encode_action(action)) == action, f"{action} changed"


def check_outcome(
    rules: Rules[Any, Any, Any], adapter: GameAdapter, config: Any, state: Any
) -> None:
    """A finished game has an outcome that agrees with its scores."""
    outcome = rules.outcome(state)
    assert outcome is not None, "the game stopped without an outcome"
    assert outcome.summary
    adapter.check_outcome(config, state, outcome)


def replay(rules: Rules[Any, Any, Any], seed: int, log: Sequence[tuple[int, Any]]) -> Any:
    """The state reached by applying ``log`` to a new game of ``seed``."""
    state = rules.new_game(seed)
    for seat, action in log:
        state = rules.apply(state, seat, action)
    return state


def check_replay(
    rules: Rules[Any, Any, Any], seed: int, log: Sequence[tuple[int, Any]], final: Any
) -> None:
    """The seed and the action log rebuild the final state exactly."""
    assert replay(rules, seed, log) == final, "replaying the log gave another state"


def check_state(
    rules: Rules[Any, Any, Any],
    adapter: GameAdapter,
    config: Any,
    state: Any,
    log: Sequence[tuple[int, Any]],
    hidden: Hidden,
) -> Views:
    """The invariants that hold in every reachable state; returns the views checked.

    ``hidden`` is :func:`hidden_from_each` of ``state``, found once for views and events.
    """
    check_cards_conserved(adapter, state, log)
    adapter.check_scores(config, state)
    return check_no_leaks(rules, adapter, state, hidden)


@dataclass
class CheckedGame:
    """One game under the checks: every move is verified before and after it is made."""

    spec: GameSpec[Any, Any, Any, Any]
    adapter: GameAdapter
    config: Any
    seed: int
    rules: Rules[Any, Any, Any] = field(init=False)
    state: Any = field(init=False)
    views: Views = field(init=False)
    log: list[tuple[int, Any]] = field(default_factory=list)
    events: list[tuple[Event, ...]] = field(default_factory=list)
    """The events of each applied action, in step with ``log``."""

    def __post_init__(self) -> None:
        self.rules = self.spec.make_rules(self.config)
        self.state = self.rules.new_game(self.seed)
        hidden = hidden_from_each(self.rules, self.adapter, self.state)
        self.views = check_state(
            self.rules, self.adapter, self.config, self.state, self.log, hidden
        )

    @property
    def finished(self) -> bool:
        """Whether nobody is left to act (checked against the outcome)."""
        return not check_to_act(self.rules, self.state)

    def step(self, choose: ChooseFn, rng: random.Random) -> None:
        """Probe an illegal action, then make the move ``choose`` picks, checking all around."""
        assert len(self.log) < MAX_STEPS, "the game does not end"
        to_act = check_to_act(self.rules, self.state)
        legal = check_legal_listing(self.rules, self.state, to_act)
        check_illegal_rejected(self.rules, self.adapter, self.state, rng)
        seat, action = choose(self.views, legal, rng)
        self.apply(seat, action)

    def apply(self, seat: int, action: Any) -> None:
        """Make one legal move and check the state it leads to."""
        after = self.rules.apply(self.state, seat, action)
        events = self.rules.events(self.state, seat, action, after)
        hidden = hidden_from_each(self.rules, self.adapter, after)
        check_event_leaks(self.adapter, events, self.state, after, hidden)
        check_events_encode(self.spec, events)
        self.events.append(events)
        self.log.append((seat, action))
        self.adapter.check_transition(self.config, self.state, action, after)
        check_codec_round_trip(self.spec, self.config, self.seed, after, action)
        self.state = after
        self.views = check_state(self.rules, self.adapter, self.config, after, self.log, hidden)

    def finish(self) -> None:
        """The end-of-game checks: outcome, scores and replay."""
        check_outcome(self.rules, self.adapter, self.config, self.state)
        check_replay(self.rules, self.seed, self.log, self.state)

    def describe(self) -> str:
        """Enough to reproduce a failure: the config, the seed and the position reached."""
        return f"config={self.config} seed={self.seed} after {len(self.log)} actions"


@dataclass(frozen=True)
class BotChooser:
    """Any seat to act (simultaneous moves in random order) plays its own seat's bot.

    Search bots simulate under the game's rules, as the service has them do.
    """

    bots: Sequence[Bot[Any, Any]]
    rules: Rules[Any, Any, Any]

    def __call__(
        self, views: Views, legal: Mapping[int, Sequence[Any]], rng: random.Random
    ) -> tuple[int, Any]:
        seat = rng.choice(sorted(legal))
        return seat, bot_choice(self.bots[seat], self.rules, views[seat], legal[seat], rng)


SHORT_PLAYOUT_MOVES = 6
"""How far a conformance search bot plays each candidate out (the hand ends later)."""


class ShortPlayouts:
    """A search bot's worlds whose playouts stop after :data:`SHORT_PLAYOUT_MOVES` moves.

    Conformance checks what a search bot does (a legal move, made from its own view), not how
    well it plays, which ``tests/bots`` and the tournament measure. Full playouts made the
    search seats 94 % of the time of the Guandan games (a random Guandan hand is long, and
    every candidate gets one), and the suite's run on the sources went past its timeout. Every
    value function is defined on any state, so a cut playout is valued like a finished one.
    """

    max_playout_moves = SHORT_PLAYOUT_MOVES

    def __init__(self, worlds: Any) -> None:
        self.worlds = worlds

    def __getattr__(self, name: str) -> Any:
        return getattr(self.worlds, name)


def tiny_search(spec: GameSpec[Any, Any, Any, Any]) -> GameSpec[Any, Any, Any, Any]:
    """``spec`` with its search bot (if any) on 2 short playouts, so games stay quick."""
    bots = {
        name: SearchBot(ShortPlayouts(bot.worlds), 2) if isinstance(bot, SearchBot) else bot
        for name, bot in spec.bots.items()
    }
    return dataclasses.replace(spec, bots=bots)


def registered_games() -> list[str]:
    """The registry names, sorted, for parametrizing."""
    return sorted(REGISTRY)
