"""Two-player Klaberjass end to end, through a real gRPC server and a real redis-server.

Every error path a Klaberjass client meets (malformed moves, rule breaks with their rule ID,
stale versions and races), views that never show a hidden card over many random games, and
an exact replay from the action log. Moves are built with the Python client's builders.
"""

from __future__ import annotations

import random
import uuid
from functools import partial
from typing import Any

import grpc
import pytest
from cardengine.v1 import cards_pb2, game_pb2, hearts_pb2, klaberjass_pb2
from cardengine.v1 import engine_service_pb2 as api
from cardengine_client import (
    hearts_play,
    klaberjass_dix,
    klaberjass_pass,
    klaberjass_play,
    klaberjass_trump,
)

from tests.conformance.klaberjass_adapter import KlaberjassAdapter
from tests.service.rpc_helpers import (
    HEURISTIC,
    HUMAN,
    ONE_WINS,
    RANDOM,
    Move,
    assert_invalid_field,
    assert_malformed,
    assert_refused,
    failure_changing_nothing,
    failure_of,
    finish,
    first_legal,
    play_randomly,
    race,
    replayed,
    stored,
    stored_state,
    submit,
    token_md,
    tokens_of,
    view,
)
from tests.service.rpc_helpers import create as create_game
from tests.service.test_service_views import cards_anywhere
from tests.volume import volume

KlaberjassView = klaberjass_pb2.KlaberjassView
PLAYING = KlaberjassView.PHASE_PLAYING
LEAK_CHECK_GAMES = volume(100, 300)


create = partial(create_game, game_type="klaberjass")
"""A Klaberjass game, with options set on ``KlaberjassOptions``."""


def until_phase(stub: Any, game_id: str, token: str, phase: int) -> Any:
    """Seat 0's view once it must act in ``phase``.

    Seat 0 passes the first bidding round, takes trump in the second, swaps the dix if it can.
    """
    seat_view = view(stub, game_id, 0, token)
    for _ in range(200):
        if seat_view.klaberjass.phase == phase and list(seat_view.to_act) == [0]:
            return seat_view
        legal = seat_view.legal_actions
        choice = next((a for a in legal if a.klaberjass.WhichOneof("action") != "take_trump"), None)
        if seat_view.klaberjass.phase == KlaberjassView.PHASE_BIDDING_OTHER_SUIT:
            choice = legal[0]  # take trump so that play begins
        seat_view = submit(stub, game_id, 0, token, choice or legal[0], seat_view.version)
    raise AssertionError(f"seat 0 never had to act in phase {phase}")


@pytest.fixture
def bidding(stub):
    """A two-human game in the first bidding round, with its tokens and the elder's view."""
    created = create(stub, [HUMAN, HUMAN], seed=31)
    tokens = tokens_of(created)
    elder = created.view.to_act[0]
    return created.game_id, tokens, view(stub, created.game_id, elder, tokens[elder])


@pytest.fixture
def playing(stub):
    """Seat 0 (human) to play a card against a heuristic bot."""
    created = create(stub, [HUMAN, HEURISTIC], seed=5)
    token = tokens_of(created)[0]
    return created.game_id, token, until_phase(stub, created.game_id, token, PLAYING)


# -- creating and listing ---------------------------------------------------------------------


def test_list_game_types_shows_klaberjass_options_with_defaults(stub):
    reply = stub.ListGameTypes(api.ListGameTypesRequest())
    game = next(t for t in reply.game_types if t.name == "klaberjass")
    assert game.seats == 2
    options = {o.name: o for o in game.options}
    assert (options["target"].default_value, options["target"].rule_id) == ("500", "K-R21")
    assert set(options["equal_totals"].choices) == {"another_deal", "maker_wins"}
    assert options["auto_declare_sequences"].default_value == "true"


def test_k_r4_create_deals_six_each_and_shows_only_the_turn_up(stub):
    created = create(stub, [HUMAN, HUMAN], seed=3, target=200, equal_totals=2)
    table = created.view.klaberjass
    assert not created.view.HasField("viewer_seat") and not table.hand
    assert table.phase == KlaberjassView.PHASE_BIDDING_TURNED_SUIT
    assert list(table.hand_sizes) == [6, 6] and table.HasField("turn_up")
    assert not table.HasField("bottom") and table.trump == cards_pb2.SUIT_UNSPECIFIED
    assert table.options.target == 200
    assert table.options.equal_totals == klaberjass_pb2.KLABERJASS_EQUAL_TOTALS_MAKER_WINS
    assert list(created.view.to_act) == [1 - table.dealer]  # K-R5: the non-dealer bids first


def test_create_returns_a_token_for_the_human_seat_only(stub):
    created = create(stub, [HUMAN, HEURISTIC], seed=4)
    assert sorted(tokens_of(created)) == [0]


def create_request(seats: int = 2, **options: Any) -> api.CreateGameRequest:
    """A CreateGame request for Klaberjass with ``seats`` human seats."""
    game_options = game_pb2.GameOptions(klaberjass=klaberjass_pb2.KlaberjassOptions(**options))
    return api.CreateGameRequest(
        game_type="klaberjass", seats=[HUMAN] * seats, options=game_options
    )


HEARTS_OPTIONS = game_pb2.GameOptions(hearts=hearts_pb2.HeartsOptions(target=50))


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        (create_request(4), "seats"),
        (create_request(target=0), "options.klaberjass"),
        (create_request(second_deal_order=0), "options.klaberjass.second_deal_order"),
        (create_request(equal_totals=7), "options.klaberjass.equal_totals"),
        (
            api.CreateGameRequest(
                game_type="klaberjass", seats=[HUMAN] * 2, options=HEARTS_OPTIONS
            ),
            "options",
        ),
    ],
)
def test_bad_create_requests_are_invalid_argument(stub, request_, field):
    assert_invalid_field(failure_of(lambda: stub.CreateGame(request_)), field)


# -- INVALID_ARGUMENT: malformed moves ----------------------------------------------------------


def _card_action(rank: int, suit: int) -> game_pb2.Action:
    return klaberjass_play(cards_pb2.Card(rank=rank, suit=suit))


@pytest.mark.parametrize(
    ("action", "field"),
    [
        (game_pb2.Action(), "action"),
        (game_pb2.Action(klaberjass=klaberjass_pb2.KlaberjassAction()), "action.klaberjass.action"),
        (klaberjass_trump(cards_pb2.SUIT_UNSPECIFIED), "action.klaberjass.take_trump.suit"),
        (klaberjass_trump(9), "action.klaberjass.take_trump.suit"),
        (
            _card_action(cards_pb2.RANK_TWO, cards_pb2.SUIT_CLUBS),
            "action.klaberjass.play_card.card.rank",
        ),
        (
            _card_action(cards_pb2.RANK_SIX, cards_pb2.SUIT_HEARTS),
            "action.klaberjass.play_card.card.rank",
        ),
        (_card_action(0, cards_pb2.SUIT_HEARTS), "action.klaberjass.play_card.card.rank"),
        (_card_action(cards_pb2.RANK_ACE, 0), "action.klaberjass.play_card.card.suit"),
        (hearts_play("AS"), "action"),
    ],
)
def test_malformed_moves_are_invalid_argument_and_change_nothing(
    stub, redis_client, bidding, action, field
):
    game_id, tokens, seat_view = bidding
    seat = seat_view.viewer_seat
    assert_malformed(
        stub, redis_client, game_id, seat, tokens[seat], action, seat_view.version, field
    )


# -- FAILED_PRECONDITION: rule breaks, each with its rule ID ---------------------------------


def test_k_r5_first_round_takes_only_the_turned_suit(stub, redis_client, bidding):
    game_id, tokens, seat_view = bidding
    seat = seat_view.viewer_seat
    turned = seat_view.klaberjass.turn_up.suit
    other = next(s for s in (1, 2, 3, 4) if s != turned)
    args = (stub, redis_client, game_id, seat, tokens[seat])
    assert_refused(
        *args, klaberjass_trump(other), seat_view.version, "MUST_TAKE_TURNED_SUIT", "K-R5"
    )


def test_k_r6_second_round_refuses_the_turned_suit(stub, redis_client, bidding):
    game_id, tokens, seat_view = bidding
    elder = seat_view.viewer_seat
    dealer = 1 - elder
    seat_view = submit(stub, game_id, elder, tokens[elder], klaberjass_pass(), seat_view.version)
    seat_view = submit(stub, game_id, dealer, tokens[dealer], klaberjass_pass(), seat_view.version)
    assert seat_view.klaberjass.phase == KlaberjassView.PHASE_BIDDING_OTHER_SUIT
    turned = klaberjass_trump(seat_view.klaberjass.turn_up.suit)
    args = (stub, redis_client, game_id, elder, tokens[elder])
    assert_refused(*args, turned, seat_view.version, "TURNED_SUIT_REFUSED", "K-R6")


def test_k_r5_the_dealer_may_not_bid_first(stub, redis_client, bidding):
    game_id, tokens, seat_view = bidding
    dealer = 1 - seat_view.viewer_seat
    args = (stub, redis_client, game_id, dealer, tokens[dealer])
    assert_refused(*args, klaberjass_pass(), seat_view.version, "NOT_YOUR_TURN", "K-R5")


def test_k_r11_and_k_r16_no_dix_and_no_card_while_bidding(stub, redis_client, bidding):
    game_id, tokens, seat_view = bidding
    seat = seat_view.viewer_seat
    args = (stub, redis_client, game_id, seat, tokens[seat])
    assert_refused(*args, klaberjass_dix(True), seat_view.version, "NOT_DIX_NOW", "K-R11")
    card = seat_view.klaberjass.hand[0]
    assert_refused(*args, klaberjass_play(card), seat_view.version, "NOT_PLAYING_NOW", "K-R16")


def test_k_r1_a_card_of_the_other_hand_is_refused(stub, redis_client, playing):
    game_id, token, seat_view = playing
    mine = {(c.rank, c.suit) for c in seat_view.klaberjass.hand}
    ranks = range(cards_pb2.RANK_SEVEN, cards_pb2.RANK_ACE + 1)
    foreign = next(
        cards_pb2.Card(rank=r, suit=s) for r in ranks for s in (1, 2, 3, 4) if (r, s) not in mine
    )
    args = (stub, redis_client, game_id, 0, token)
    assert_refused(*args, klaberjass_play(foreign), seat_view.version, "CARD_NOT_IN_HAND", "K-R1")


def test_k_r15_bella_declined_on_an_ordinary_card_is_refused(stub, redis_client, playing):
    game_id, token, seat_view = playing
    card = first_legal(seat_view).klaberjass.play_card.card
    args = (stub, redis_client, game_id, 0, token)
    assert_refused(
        *args,
        klaberjass_play(card, announce_bella=False),
        seat_view.version,
        "NO_BELLA_TO_DECLINE",
        "K-R15",
    )


def test_k_r14_concealing_sequences_needs_the_manual_option(stub, redis_client, playing):
    game_id, token, seat_view = playing
    card = first_legal(seat_view).klaberjass.play_card.card
    args = (stub, redis_client, game_id, 0, token)
    concealed = klaberjass_play(card, declare_sequences=False)
    assert_refused(*args, concealed, seat_view.version, "NO_SEQUENCE_CHOICE_NOW", "K-R14")


def refusals(stub: Any, redis_client: Any, seat_view: Any, token: str) -> set[tuple[str, str]]:
    """Submit every card of seat 0's hand that is not legal now; the (reason, rule ID) pairs.

    Each refusal is FAILED_PRECONDITION and leaves the stored game byte-identical.
    """
    legal = {
        (a.klaberjass.play_card.card.rank, a.klaberjass.play_card.card.suit)
        for a in seat_view.legal_actions
    }
    before = stored(redis_client, seat_view.game_id)
    found = set()
    for card in seat_view.klaberjass.hand:
        if (card.rank, card.suit) not in legal:
            failure = failure_of(
                lambda c=card: submit(
                    stub, seat_view.game_id, 0, token, klaberjass_play(c), seat_view.version
                )
            )
            assert failure.code is grpc.StatusCode.FAILED_PRECONDITION
            found.add((failure.reason, failure.metadata["ruleId"]))
    assert stored(redis_client, seat_view.game_id) == before
    return found


def test_k_r17_k_r18_an_unplayable_card_names_its_rule(stub, redis_client):
    """Follow suit, else trump (K-R17); beat a led trump when able (K-R18)."""
    expected = {("MUST_FOLLOW_SUIT", "K-R17"), ("MUST_TRUMP", "K-R17"), ("MUST_OVERTRUMP", "K-R18")}
    found: set[tuple[str, str]] = set()
    for seed in range(40):
        # The random bot leads low trumps too, which the heuristic bot seldom does (K-R18).
        created = create(stub, [HUMAN, RANDOM], seed=seed)
        token = tokens_of(created)[0]
        seat_view = until_phase(stub, created.game_id, token, PLAYING)
        while seat_view.status == game_pb2.GAME_STATUS_IN_PROGRESS and found != expected:
            if seat_view.klaberjass.phase == PLAYING:
                found |= refusals(stub, redis_client, seat_view, token)
            seat_view = submit(
                stub, created.game_id, 0, token, first_legal(seat_view), seat_view.version
            )
        assert found <= expected
        if found == expected:
            break
    assert found == expected


def test_k_r21_no_move_after_the_game_is_over(stub, redis_client):
    created = create(stub, [HUMAN, HEURISTIC], seed=8, target=1)
    token = tokens_of(created)[0]
    final = finish(stub, created.game_id, 0, token, None)
    assert final.klaberjass.phase == KlaberjassView.PHASE_GAME_OVER
    assert final.outcome.summary and max(final.outcome.scores) >= 1
    args = (stub, redis_client, created.game_id, 0, token)
    assert_refused(*args, klaberjass_pass(), final.version, "GAME_OVER", "K-R21")


# -- ABORTED: stale versions and races ---------------------------------------------------------


def test_stale_version_is_aborted_and_changes_nothing(stub, redis_client, bidding):
    game_id, tokens, seat_view = bidding
    elder = seat_view.viewer_seat
    submit(stub, game_id, elder, tokens[elder], klaberjass_pass(), seat_view.version)
    dealer = 1 - elder
    failure = failure_changing_nothing(
        redis_client,
        game_id,
        lambda: submit(stub, game_id, dealer, tokens[dealer], klaberjass_pass(), seat_view.version),
    )
    assert (failure.code, failure.reason) == (grpc.StatusCode.ABORTED, "VERSION_MISMATCH")
    assert failure.metadata["currentVersion"] == str(seat_view.version + 1)


def test_two_clients_of_one_seat_racing_on_one_version_exactly_one_wins(stub, redis_client):
    for round_ in range(10):
        created = create(stub, [HUMAN, HUMAN], seed=100 + round_)
        tokens = tokens_of(created)
        seat = created.view.to_act[0]
        start = view(stub, created.game_id, seat, tokens[seat])
        actions = (klaberjass_pass(), first_legal(start))
        moves = [Move(seat, tokens[seat], action, start.version) for action in actions]
        assert race(stub, created.game_id, moves) == ONE_WINS
        assert int(stored(redis_client, created.game_id)[b"v"]) == start.version + 1


# -- views and the action log ------------------------------------------------------------------


@pytest.mark.volume
def test_views_of_many_random_games_hold_no_hidden_card(stub, redis_client):
    """Seat 0's and a spectator's views never show the other hand or the unseen stock."""
    rng = random.Random(2026)
    adapter = KlaberjassAdapter()
    for number in range(LEAK_CHECK_GAMES):
        created = create(stub, [HUMAN, rng.choice([RANDOM, HEURISTIC])], seed=number)
        token = tokens_of(created)[0]
        seat_view = play_randomly(stub, created.game_id, 0, token, rng, rng.randrange(0, 24))
        state = stored_state(redis_client, created.game_id)
        for seat, shown in ((0, seat_view), (None, view(stub, created.game_id))):
            hidden = {int(card_id.card) for card_id in adapter.hidden_cards(state, seat)}
            assert not cards_anywhere(shown) & hidden, f"game {number} seat {seat}"


def test_action_log_is_open_and_replays_to_the_stored_game(stub, redis_client):
    created = create(stub, [HUMAN, HEURISTIC], seed=77, target=300)
    token = tokens_of(created)[0]
    running = stub.GetActionLog(
        api.GetActionLogRequest(game_id=created.game_id, seat=0), metadata=token_md(token)
    )
    assert not running.HasField("seed")
    assert not any(e.redacted for e in running.entries), "no Klaberjass move is secret"

    final = finish(stub, created.game_id, 0, token, random.Random(5))
    finished = stub.GetActionLog(api.GetActionLogRequest(game_id=created.game_id))
    assert finished.seed == 77 and finished.version == final.version == len(finished.entries) + 1
    assert replayed(finished, "klaberjass") == stored_state(redis_client, created.game_id)
    deals = final.klaberjass.deals
    assert list(final.klaberjass.totals) == [sum(d.scores[s] for d in deals) for s in (0, 1)]
    assert list(final.outcome.scores) == list(final.klaberjass.totals)


def test_retry_with_the_same_request_id_applies_nothing(stub, redis_client, bidding):
    game_id, tokens, seat_view = bidding
    seat = seat_view.viewer_seat
    request_id = uuid.uuid4().hex
    first = submit(
        stub, game_id, seat, tokens[seat], klaberjass_pass(), seat_view.version, request_id
    )
    after = stored(redis_client, game_id)
    again = submit(
        stub, game_id, seat, tokens[seat], klaberjass_pass(), seat_view.version, request_id
    )
    assert again == first and stored(redis_client, game_id) == after
