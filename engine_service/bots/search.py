"""A game-agnostic search bot: determinized Monte Carlo over worlds sampled from one view.

Why: the heuristic bots follow fixed rules of thumb; a bot that tries each legal action in
many plausible deals and keeps the one that scores best plays far better without knowing
the game's strategy. It still sees only its seat's view: the hidden cards are *sampled* by a
per-game adapter (:class:`Worlds`) consistently with everything public and the seat's own
cards, so the search never reads another seat's hand.

How one decision is made (:meth:`SearchBot.choose_under`):

1. ``candidates = worlds.candidates(view, legal)`` (a subset of ``legal``; all of it unless
   the game has too many to try, such as Hearts' 286 passes). One candidate: no search.
2. ``rounds = max(1, budget // len(candidates))``; for each round one world is sampled
   (``worlds.sample_world(rules, view, rng)``), and every candidate is applied to it and
   played out to the end of the hand with the adapter's playout policy
   (``worlds.playout_action``: the game's heuristic bot, each seat on its own view of the
   sampled world) by ``worlds.play_out``.
   Every candidate meets the same worlds, which removes most of the sampling noise from the
   comparison.
3. The candidate with the highest mean ``worlds.value(rules, end, seat)`` is chosen; ties go
   to the earliest candidate, and another is chosen over the first only if its mean is
   higher by more than ``worlds.switch_margin`` (0 in Hearts and Klaberjass; Guandan's first
   candidate is its heuristic bot's move, which few noisy worlds should not overturn).

:meth:`SearchBot.search` makes the same decision and returns what it rests on (every
candidate's values over the shared worlds, :class:`Searched`): SuggestAction reports it to a
seat's player, in the unit the adapter names (``worlds.value_kind``).

The budget counts playouts, never wall time, and every random draw comes from the ``rng``
the caller gives (the service's ``Random(f"{seed}:bot:{version}")``), so a seeded game
replays exactly however busy the machine is. Each playout is bounded by
``worlds.max_playout_moves``; an adapter may set it below a hand's length and value the
position reached (Guandan does: its random playouts told little and its full heuristic ones
cost too much).

Determinized Monte Carlo ("perfect information Monte Carlo") was chosen over ISMCTS for
this first version: with budgets of a few hundred playouts per move the tree of ISMCTS
barely grows past its first level, where the two coincide, and flat sampling over shared
worlds is simpler to make exactly reproducible.

Rules over full states: a view does not carry the whole config, so the service hands the
bot the game's rules object (public: the config is shown to every seat) through
:meth:`SearchBot.choose_under`; ``app.play.bot_move`` does so for any :class:`SearchBot`.
:meth:`SearchBot.choose` (the plain :class:`~engine_service.core.protocol.Bot` call) falls
back to ``worlds.default_rules(view)``, the game's default rules with what the view tells.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from engine_service.core.errors import IllegalAction
from engine_service.core.protocol import Bot, Rules

REFUSED: Final = -1e9
"""The value of a candidate the simulating rules refuse (see :func:`evaluate`)."""
MAX_PLAYOUT_MOVES: Final = 2000
"""A bound on any one playout, far above a hand of any registered game."""


class ValueKind(enum.Enum):
    """What an adapter's :meth:`Worlds.value` measures, for people reading the estimates.

    Higher is always better for the seat. SuggestAction reports it beside each candidate's
    mean value, so a client can label the numbers without knowing the game.
    """

    HAND_POINTS_MARGIN = "hand_points_margin"
    """Hearts: the others' mean points for the hand minus the seat's own (and the game)."""
    DEAL_SCORE_MARGIN = "deal_score_margin"
    """Klaberjass: the seat's score from the deal minus the opponent's (and the game)."""
    LEVELS = "levels"
    """Guandan: levels the seat's team goes up by the deal, negative when the other team does."""


class Worlds(Protocol):
    """What the search needs from one game: the per-game adapter.

    Every method is pure apart from drawing from the ``rng`` it is given; none may look at
    anything but its arguments (the seat's view, the public rules, states it built itself).
    ``Any`` stands for the game's own state, action and view types, and for its rules
    class (the ``rules`` arguments are the game's :class:`Rules`; typed ``Any`` so that an
    adapter may name its own rules class).
    """

    @property
    def max_playout_moves(self) -> int:
        """How many moves one playout may take at most (a loop bound; the hand ends first)."""

    @property
    def switch_margin(self) -> float:
        """How much higher per world another candidate's value must be than the first's."""

    @property
    def value_kind(self) -> ValueKind:
        """What :meth:`value` measures."""

    def seat(self, view: Any) -> int:
        """The seat whose view this is (the bot never gets a spectator's view)."""

    def default_rules(self, view: Any) -> Rules[Any, Any, Any]:
        """Rules to simulate with when the caller gave none: defaults plus what ``view`` tells."""

    def candidates(self, view: Any, legal: Sequence[Any]) -> Sequence[Any]:
        """The legal actions worth searching (non-empty subset of ``legal``; often all)."""

    def sample_world(self, rules: Any, view: Any, rng: random.Random) -> Any:
        """A full state consistent with every public fact of ``view`` and the seat's own cards.

        The state must be one from which ``rules`` can play on: the seat's legal actions in
        it are those of the view, and the other seats' hidden cards are drawn from ``rng``.
        """

    def playout_action(self, rules: Any, state: Any, seat: int, rng: random.Random) -> Any:
        """The playout policy: ``seat``'s move in the simulated full ``state``.

        It may read only ``seat``'s part of ``state`` (its view) and draw only from ``rng``.
        """

    def play_out(self, rules: Any, state: Any, seat: int, rng: random.Random) -> float:
        """The :meth:`value` for ``seat`` of playing on from ``state`` with the playout policy.

        :func:`playout_value` does it through the generic :class:`Rules` calls; an adapter may
        reach the same value a faster way (Hearts keeps the hand's play in plain integers).
        """

    def hand_over(self, before: Any, after: Any) -> bool:
        """Whether the move from ``before`` to ``after`` ended the hand (or the game).

        A playout stops there; an adapter may stop it earlier, where the hand is decided
        enough for :meth:`value` to judge it (Guandan: whenever a seat goes out).
        """

    def value(self, rules: Any, state: Any, seat: int) -> float:
        """How good the position where a playout stopped (``state``) is for ``seat``.

        Usually the hand just ended; a playout cut by ``max_playout_moves`` or stopped early
        by ``hand_over`` is valued too. Higher is better; only differences between candidates
        matter, so a relative value (own score against the others') is the natural choice.
        """


def weighted_choice(choices: list[int], weights: list[int], rng: random.Random) -> int:
    """One of ``choices`` with chance proportional to its weight, drawn from ``rng``.

    The worlds adapters deal each hidden card to one of its possible holders this way.
    """
    pick = rng.randrange(sum(weights))
    for choice, weight in zip(choices, weights, strict=True):
        if pick < weight:
            return choice
        pick -= weight
    raise AssertionError("unreachable: pick is below the sum of the weights")


Policy = Callable[[Rules[Any, Any, Any], Any, int, random.Random], Any]
"""A playout policy: (rules, state, seat, rng) to the seat's move (``Worlds.playout_action``)."""


def seat_bot_action(
    bot: Bot[Any, Any], rules: Rules[Any, Any, Any], state: Any, seat: int, rng: random.Random
) -> Any:
    """``bot``'s move for ``seat`` on its own view of the simulated full ``state``.

    The playout policy of Hearts and Klaberjass, with their heuristic bots: it reads only
    what the seat may see, as ``Worlds.playout_action`` must.
    """
    return bot.choose(rules.view(state, seat), rules.legal_actions(state, seat), rng)


def playout(
    worlds: Worlds, rules: Rules[Any, Any, Any], state: Any, rng: random.Random, policy: Policy
) -> Any:
    """Play ``policy``'s moves from ``state`` until ``worlds.hand_over``; the last state.

    The first seat to act moves when several may (simultaneous choices are independent).
    Stops early, returning the state reached, if nobody can act or the move bound is hit.
    """
    for _ in range(worlds.max_playout_moves):
        seats = rules.current_seats(state)
        if not seats:
            return state
        seat = seats[0]
        after = rules.apply(state, seat, policy(rules, state, seat, rng))
        if worlds.hand_over(state, after):
            return after
        state = after
    return state


def evaluate(
    worlds: Worlds,
    rules: Rules[Any, Any, Any],
    world: Any,
    seat: int,
    action: Any,
    rng: random.Random,
) -> float:
    """The value for ``seat`` of playing ``action`` in ``world`` and playing out the hand.

    An action ``rules`` refuse in ``world`` is worth :data:`REFUSED`: that happens only when
    the caller gave no rules and the game's real options differ from the defaults.
    """
    try:
        after = rules.apply(world, seat, action)
    except IllegalAction:
        return REFUSED
    if worlds.hand_over(world, after):
        return worlds.value(rules, after, seat)
    return worlds.play_out(rules, after, seat, rng)


def playout_value(
    worlds: Worlds, rules: Rules[Any, Any, Any], state: Any, seat: int, rng: random.Random
) -> float:
    """``Worlds.play_out`` through the generic calls: :func:`playout`, then ``worlds.value``."""
    return worlds.value(rules, playout(worlds, rules, state, rng, worlds.playout_action), seat)


@dataclass(frozen=True, slots=True)
class Searched:
    """One decision's search: every candidate with its values summed over the same worlds.

    Attributes:
        candidates: the actions searched, in the adapter's order (the first is favoured by
            ``switch_margin``).
        totals: each candidate's values summed over the worlds, in the same order.
        rounds: the worlds every candidate was played out in; 0 when there was a single
            candidate, which is taken without a search.
        chosen: the index of the candidate the search picks.
    """

    candidates: tuple[Any, ...]
    totals: tuple[float, ...]
    rounds: int
    chosen: int

    @property
    def action(self) -> Any:
        """The candidate the search picks."""
        return self.candidates[self.chosen]

    def mean(self, index: int) -> float | None:
        """Candidate ``index``'s mean value per world; ``None`` when nothing was searched."""
        return self.totals[index] / self.rounds if self.rounds else None


class SearchBot:
    """Determinized Monte Carlo over worlds from a :class:`Worlds` adapter (module docstring).

    Attributes:
        worlds: the game's adapter.
        budget: playouts per decision, spread evenly over the candidates (at least one each).
    """

    def __init__(self, worlds: Worlds, budget: int) -> None:
        if budget < 1:
            raise ValueError("budget must be at least 1")
        self.worlds = worlds
        self.budget = budget

    def with_budget(self, budget: int) -> SearchBot:
        """The same bot with another budget (tests and tournaments use small or large ones)."""
        return SearchBot(self.worlds, budget)

    def choose(self, view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
        """The plain bot call: search with ``worlds.default_rules(view)``."""
        return self.choose_under(self.worlds.default_rules(view), view, legal, rng)

    def choose_under(
        self, rules: Rules[Any, Any, Any], view: Any, legal: Sequence[Any], rng: random.Random
    ) -> Any:
        """Pick the candidate with the best mean playout value under ``rules``."""
        return self.search(rules, view, legal, rng).action

    def search(
        self, rules: Rules[Any, Any, Any], view: Any, legal: Sequence[Any], rng: random.Random
    ) -> Searched:
        """The decision of :meth:`choose_under` with what it rests on: every candidate's values.

        It reads ``view``, ``legal`` and the public ``rules`` and draws from ``rng`` only, in
        the order :meth:`choose_under` always drew, so both pick the same action.
        """
        candidates = tuple(self.worlds.candidates(view, legal))
        if len(candidates) == 1:
            return Searched(candidates, (0.0,), 0, 0)
        seat = self.worlds.seat(view)
        totals = [0.0] * len(candidates)
        rounds = max(1, self.budget // len(candidates))
        for _ in range(rounds):
            world = self.worlds.sample_world(rules, view, rng)
            for index, action in enumerate(candidates):
                totals[index] += evaluate(self.worlds, rules, world, seat, action, rng)
        best = 0
        for index in range(1, len(candidates)):
            if totals[index] > totals[best]:
                best = index
        if totals[best] <= totals[0] + self.worlds.switch_margin * rounds:
            best = 0
        return Searched(candidates, tuple(totals), rounds, best)


def bot_choice(
    bot: Bot[Any, Any],
    rules: Rules[Any, Any, Any],
    view: Any,
    legal: Sequence[Any],
    rng: random.Random,
) -> Any:
    """The move ``bot`` makes from ``view`` in a game played under ``rules``.

    A search bot simulates under the game's own rules (its options are public), not under
    the defaults :meth:`SearchBot.choose` would assume; any other bot is asked plainly.
    """
    if isinstance(bot, SearchBot):
        return bot.choose_under(rules, view, legal, rng)
    return bot.choose(view, legal, rng)
