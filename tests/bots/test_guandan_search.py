"""The Guandan search bot: it starts from the heuristic bot's move and reads its view alone.

Positions come from seeded matches played by the heuristic bot; the search runs on small
budgets, since only what it may see and how it draws are under test here (the tournament,
``bench.tournament --only guandan``, measures its strength).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from engine_service.bots.guandan_eval import HEURISTIC, playout_options
from engine_service.bots.guandan_worlds import GuandanWorlds, play_candidates, sample_world
from engine_service.bots.search import SearchBot
from engine_service.games.guandan.actions import PassTurn, PlayCards
from engine_service.games.guandan.cards import is_wild
from engine_service.games.guandan.reading import Shape
from engine_service.games.guandan.rules import GuandanRules
from engine_service.games.guandan.state import GuandanState, Phase, partner_of

WORLDS = GuandanWorlds()
MOVES = 400
EVERY = 7


def positions(seed: int) -> Iterator[tuple[GuandanRules, GuandanState, int]]:
    """Every :data:`EVERY`-th decision (rules, state, seat to act) of a heuristic match."""
    rules = GuandanRules()
    rng = random.Random(f"guandan-search:{seed}")
    state = rules.new_game(seed)
    for index in range(MOVES):
        seats = rules.current_seats(state)
        if not seats:
            return
        seat = seats[0]
        if index % EVERY == 0:
            yield rules, state, seat
        view, legal = rules.view(state, seat), rules.legal_actions(state, seat)
        state = rules.apply(state, seat, HEURISTIC.choose(view, legal, rng))


def test_candidates_start_with_the_heuristic_move_and_keep_the_pass_but_trust_the_partner() -> None:
    checked = 0
    for rules, state, seat in positions(1):
        view, legal = rules.view(state, seat), rules.legal_actions(state, seat)
        candidates = play_candidates(view, legal)
        assert candidates[0] == HEURISTIC.choose(view, legal, random.Random(1))
        assert len(set(candidates)) == len(candidates)
        assert all(action in legal for action in candidates)
        if view.top is not None and view.top.seat == partner_of(seat):
            assert len(candidates) == 1
        else:
            assert any(isinstance(a, PassTurn) for a in candidates) == (PassTurn() in legal)
        checked += 1
    assert checked > 20


def test_decisions_do_not_change_when_hidden_cards_are_dealt_otherwise() -> None:
    bot = SearchBot(WORLDS, budget=4)
    compared = 0
    for rules, state, seat in list(positions(2))[::3]:
        view, legal = rules.view(state, seat), rules.legal_actions(state, seat)
        twin = sample_world(rules, view, random.Random(f"twin:{compared}"))
        assert rules.view(twin, seat) == view and twin.hands != state.hands
        first = bot.choose_under(rules, view, legal, random.Random(3))
        second = bot.choose_under(
            rules, rules.view(twin, seat), rules.legal_actions(twin, seat), random.Random(3)
        )
        assert first == second and first in legal
        compared += 1
    assert compared > 5


def test_the_same_view_and_seed_give_the_same_move() -> None:
    bot = SearchBot(WORLDS, budget=6)
    for rules, state, seat in list(positions(3))[::4]:
        view, legal = rules.view(state, seat), rules.legal_actions(state, seat)
        moves = {bot.choose_under(rules, view, legal, random.Random(f"x:{seat}")) for _ in "ab"}
        assert len(moves) == 1


def test_playouts_choose_among_legal_moves_leading_without_wilds_while_naturals_last() -> None:
    leads = 0
    for rules, state, seat in positions(4):
        legal = rules.legal_actions(state, seat)
        options = playout_options(rules, state, seat)
        assert options and all(action in legal for action in options)
        assert (PassTurn() in options) == (PassTurn() in legal)
        played = [a for a in options if isinstance(a, PlayCards)]
        assert all(a.reading.shape is not Shape.STRAIGHT_FLUSH for a in played)
        if state.top is None and state.phase is Phase.PLAYING:
            leads += 1
            hand = state.hands[seat]
            natural = any(n for k, n in enumerate(hand) if not is_wild(k, state.level))
            wild = [a for a in played if any(is_wild(k, state.level) for k in a.cards)]
            assert not wild if natural else wild
    assert leads > 5
