"""The Hearts search bot: its worlds respect every public fact, and it reads views only.

Positions come from games played by the heuristic bot under random Hearts rule sets; the
search runs on tiny budgets, since only its correctness is under test here.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator

import pytest

from engine_service.bots.hearts_heuristic import HeartsHeuristicBot
from engine_service.bots.hearts_worlds import (
    HeartsWorlds,
    Knowledge,
    distinct_plays,
    sample_hands,
)
from engine_service.bots.search import SearchBot, playout
from engine_service.core.cards import DECK_SIZE, SUIT_MASKS, SUIT_SIZE, Card, cards_in, mask_of
from engine_service.games.hearts.actions import HeartsAction, PlayCard
from engine_service.games.hearts.config import HeartsConfig
from engine_service.games.hearts.rules import HeartsRules
from engine_service.games.hearts.scoring import QUEEN_OF_SPADES
from engine_service.games.hearts.state import SEATS, HeartsState, Phase
from engine_service.games.hearts.view import HeartsView
from engine_service.registry import REGISTRY
from tests.conformance.checks import BotChooser, CheckedGame, adapter_for, tiny_search
from tests.conformance.options import random_config

WORLDS = HeartsWorlds()
HEURISTIC = HeartsHeuristicBot()
SAMPLES = 5


def positions(games: int) -> Iterator[tuple[HeartsRules, HeartsState, int]]:
    """Every decision point (rules, state, seat to act) of ``games`` heuristic games."""
    spec = REGISTRY["hearts"]
    for index in range(games):
        rng = random.Random(f"search-positions:{index}")
        config = random_config(spec, {"target": (1, 30), "moon_opponent_penalty": (0, 26)}, rng)
        rules = HeartsRules(config)
        state = rules.new_game(rng.randrange(2**32))
        for _ in range(2_000):
            seats = rules.current_seats(state)
            if not seats:
                break
            seat = seats[0]
            yield rules, state, seat
            legal = rules.legal_actions(state, seat)
            state = rules.apply(state, seat, HEURISTIC.choose(rules.view(state, seat), legal, rng))


def played_by(view: HeartsView) -> list[tuple[int, int, int]]:
    """(seat, card, suit led) of every card played in the view's hand."""
    tricks = list(view.completed_tricks)
    if view.phase is Phase.PLAYING and view.trick is not None:
        tricks.append(view.trick)
    return [
        (trick.seat_of(i), card, trick.cards[0] // SUIT_SIZE)
        for trick in tricks
        for i, card in enumerate(trick.cards)
    ]


def check_world(view: HeartsView, world: HeartsState) -> None:
    """Every public fact of ``view`` and the seat's own cards hold in ``world``."""
    seat = view.seat
    assert seat is not None
    hands = world.hands
    history = played_by(view)
    played = mask_of(card for _, card, _ in history)
    for a in range(SEATS):
        for b in range(a + 1, SEATS):
            assert not hands[a] & hands[b], "a card in two hands"
    everything = played
    for hand in hands:
        everything |= hand
        assert not hand & played, "a played card is in a hand"
    assert everything == (1 << DECK_SIZE) - 1, "a card is missing"
    assert hands[seat] == mask_of(view.hand), "the seat's own hand changed"
    for player in range(SEATS):
        count = sum(1 for p, _, _ in history if p == player)
        assert hands[player].bit_count() == 13 - count, "wrong card count"
    for player, card, led in history:
        if card // SUIT_SIZE != led:
            assert not hands[player] & SUIT_MASKS[led], "a shown void holds the suit"
    if view.phase is Phase.PLAYING and view.pass_direction.step:
        receiver = (seat + view.pass_direction.step) % SEATS
        for card in view.passed:
            assert played >> card & 1 or hands[receiver] >> card & 1, "passed card misplaced"
    assert world.trick == (view.trick if view.trick is not None else world.trick)
    assert world.completed == view.completed_tricks


def test_every_sampled_world_respects_every_public_fact() -> None:
    rng = random.Random(7)
    checked = 0
    for _rules, state, seat in positions(6):
        view = HeartsRules().view(state, seat)
        for _ in range(SAMPLES):
            check_world(view, WORLDS.sample_world(HeartsRules(), view, rng))
        checked += 1
    assert checked > 100


def test_a_sampled_world_shows_the_seat_the_view_it_came_from() -> None:
    rng = random.Random(8)
    for rules, state, seat in positions(3):
        view = rules.view(state, seat)
        world = WORLDS.sample_world(rules, view, rng)
        seen = rules.view(world, seat)
        assert seen.hand == view.hand and seen.received == view.received
        assert seen.passed == view.passed and seen.completed_tricks == view.completed_tricks
        assert tuple(rules.legal_actions(world, seat)) == tuple(rules.legal_actions(state, seat))


def test_sampling_fails_loudly_when_no_deal_fits() -> None:
    view = HeartsRules().view(HeartsRules().new_game(1), 0)
    knowledge = Knowledge(view)
    knowledge.allowed[1] = knowledge.allowed[2] = knowledge.allowed[3] = 0
    with pytest.raises(ValueError, match="admit no deal"):
        sample_hands(knowledge, random.Random(0))


def permuted(state: HeartsState, seat: int, rng: random.Random) -> HeartsState:
    """``state`` with same-suit hidden cards swapped between two other seats.

    Same-suit swaps keep every count and shown void; cards the seat passed stay put.
    """
    view = HeartsRules().view(state, seat)
    fixed = mask_of(view.passed)
    hands = list(state.hands)
    a, b = rng.sample([s for s in range(SEATS) if s != seat], 2)
    for suit_mask in SUIT_MASKS:
        mine = hands[a] & suit_mask & ~fixed
        theirs = hands[b] & suit_mask & ~fixed
        if mine and theirs:
            x, y = mine & -mine, theirs & -theirs
            hands[a] = hands[a] & ~x | y
            hands[b] = hands[b] & ~y | x
    return dataclasses.replace(state, hands=tuple(hands))


def test_decisions_do_not_change_when_hidden_cards_are_permuted() -> None:
    bot = SearchBot(WORLDS, budget=8)
    rng = random.Random(9)
    compared = 0
    for rules, state, seat in positions(2):
        if state.phase is not Phase.PLAYING or len(rules.legal_actions(state, seat)) < 2:
            continue
        other = permuted(state, seat, rng)
        if other.hands == state.hands:
            continue
        first = bot.choose_under(
            rules, rules.view(state, seat), rules.legal_actions(state, seat), random.Random(3)
        )
        second = bot.choose_under(
            rules, rules.view(other, seat), rules.legal_actions(other, seat), random.Random(3)
        )
        assert first == second
        compared += 1
    assert compared > 10


def test_the_same_view_and_seed_give_the_same_move() -> None:
    bot = SearchBot(WORLDS, budget=12)
    for rules, state, seat in positions(1):
        view, legal = rules.view(state, seat), rules.legal_actions(state, seat)
        moves = {bot.choose_under(rules, view, legal, random.Random(f"x:{seat}")) for _ in "ab"}
        assert len(moves) == 1


def test_the_plain_bot_call_searches_under_the_default_rules() -> None:
    rules = HeartsRules(HeartsConfig())
    state = rules.new_game(5)
    legal = rules.legal_actions(state, 0)
    action = SearchBot(WORLDS, budget=4).choose(rules.view(state, 0), legal, random.Random(1))
    assert action in list(legal)


def test_the_integer_playout_values_every_hand_as_the_generic_playout_does() -> None:
    """``HeartsWorlds.play_out`` keeps the hand in plain integers (H-R3 to H-R11 by hand).

    From sampled worlds of positions under random rule sets (first-trick bans, the queen
    breaking hearts, an all-hearts leader passing the lead, moon penalties, low targets so
    that hands end games), it must reach exactly the value that playing the same policy
    through the rules' own ``apply`` reaches.
    """
    compared = 0
    ended_games = 0
    for index, (rules, state, seat) in enumerate(positions(40)):
        if index % 7:
            continue
        view, legal = rules.view(state, seat), rules.legal_actions(state, seat)
        world = WORLDS.sample_world(rules, view, random.Random(index))
        after = rules.apply(world, seat, HEURISTIC.choose(view, legal, random.Random(0)))
        if WORLDS.hand_over(world, after):
            continue
        generic_end = playout(WORLDS, rules, after, random.Random(index), WORLDS.playout_action)
        fast = WORLDS.play_out(rules, after, seat, random.Random(index))
        assert fast == WORLDS.value(rules, generic_end, seat)
        compared += 1
        ended_games += generic_end.phase is Phase.GAME_OVER
    assert compared > 300
    assert ended_games > 5


@pytest.mark.parametrize("index", range(3))
def test_search_bots_in_every_seat_keep_every_conformance_invariant(index: int) -> None:
    spec = tiny_search(REGISTRY["hearts"])
    rng = random.Random(f"search-conformance:{index}")
    adapter = adapter_for("hearts")
    config = random_config(spec, adapter.int_ranges, rng)
    game = CheckedGame(spec, adapter, config, seed=rng.randrange(2**32))
    bots = [spec.bots["search"]] * spec.seats
    chooser = BotChooser(bots, game.rules)
    while not game.finished:
        game.step(chooser, rng)
    game.finish()


def swapped(action: HeartsAction, a: Card, b: Card) -> HeartsAction:
    """``action`` with the cards ``a`` and ``b`` exchanged (plays only)."""
    if isinstance(action, PlayCard) and action.card in (a, b):
        return PlayCard(b if action.card == a else a)
    return action


def test_distinct_plays_keep_the_lowest_of_each_run_and_nothing_else() -> None:
    """A play is dropped exactly when a kept lower card of its suit has no live card between.

    Live: held by another seat (in the true state) or in the current trick.
    """
    checked = 0
    for rules, state, seat in positions(12):
        view = rules.view(state, seat)
        legal = rules.legal_actions(state, seat)
        if view.phase is not Phase.PLAYING:
            continue
        kept = distinct_plays(view, legal)
        assert kept and set(kept) <= set(legal)
        current = view.trick.cards if view.trick is not None else ()
        held = (c for s, hand in enumerate(state.hands) if s != seat for c in cards_in(hand))
        live = mask_of((*held, *current))
        kept_cards = sorted(a.card for a in kept if isinstance(a, PlayCard))
        for action in legal:
            assert isinstance(action, PlayCard)
            card = action.card
            lower = [k for k in kept_cards if k // SUIT_SIZE == card // SUIT_SIZE and k <= card]
            below = max(lower, default=None)
            merged = (
                below is not None
                and below != card
                and QUEEN_OF_SPADES not in (below, card)
                and not live & ((1 << card) - 1) & ~((2 << below) - 1)
            )
            assert (action not in kept) == merged, (view.hand, card, kept_cards)
            checked += action not in kept
    assert checked > 100  # the positions do have runs to merge


def test_equivalent_cards_lead_to_the_same_scores_in_every_continuation() -> None:
    """Playing a dropped card or its kept twin, then mirrored moves, scores the hand alike."""
    compared = 0
    for index, (rules, state, seat) in enumerate(positions(6)):
        view = rules.view(state, seat)
        if view.phase is not Phase.PLAYING:
            continue
        legal = rules.legal_actions(state, seat)
        kept = distinct_plays(view, legal)
        for dropped in (a for a in legal if a not in kept):
            assert isinstance(dropped, PlayCard)
            twin = max(
                a.card
                for a in kept
                if isinstance(a, PlayCard)
                and a.card // SUIT_SIZE == dropped.card // SUIT_SIZE
                and a.card < dropped.card
            )
            rng = random.Random(f"twins:{index}:{dropped.card}")
            one = rules.apply(state, seat, dropped)
            other = rules.apply(state, seat, PlayCard(twin))
            for _ in range(60):  # at most the hand's remaining plays
                if one.hand_number != state.hand_number or one.phase is Phase.GAME_OVER:
                    break
                assert one.points == other.points and one.tricks_won == other.tricks_won
                (mover,) = rules.current_seats(one)
                move = rng.choice(rules.legal_actions(one, mover))
                mirrored = swapped(move, dropped.card, twin)
                assert mirrored in rules.legal_actions(other, mover)
                one = rules.apply(one, mover, move)
                other = rules.apply(other, mover, mirrored)
            ended, twin_ended = one.previous_hand, other.previous_hand
            assert ended is not None and twin_ended is not None
            assert ended.points_taken == twin_ended.points_taken
            assert ended.scores == twin_ended.scores and one.totals == other.totals
            compared += 1
    assert compared > 50
