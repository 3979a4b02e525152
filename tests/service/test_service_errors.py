"""Every error path: status code, ErrorInfo reason and rule ID, and nothing stored changes."""

from __future__ import annotations

import grpc
import pytest
from cardengine.v1 import cards_pb2, game_pb2, hearts_pb2
from cardengine.v1 import engine_service_pb2 as api

from tests.service.rpc_helpers import (
    HUMAN,
    RANDOM,
    assert_invalid_field,
    assert_malformed,
    assert_refused,
    create,
    failure_changing_nothing,
    failure_of,
    first_legal,
    stored,
    submit,
    token_md,
    tokens_of,
    view,
)

UNKNOWN_GAME = "0" * 32


def play(rank: int, suit: int) -> game_pb2.Action:
    card = cards_pb2.Card(rank=rank, suit=suit)
    return game_pb2.Action(
        hearts=hearts_pb2.HeartsAction(play_card=hearts_pb2.HeartsPlayCard(card=card))
    )


def pass_cards(cards: list[cards_pb2.Card]) -> game_pb2.Action:
    return game_pb2.Action(
        hearts=hearts_pb2.HeartsAction(pass_cards=hearts_pb2.HeartsPassCards(cards=cards))
    )


@pytest.fixture
def game(stub):
    """A four-human game at the pass, with its tokens."""
    created = create(stub, [HUMAN, HUMAN, HUMAN, HUMAN], seed=21)
    return created.game_id, tokens_of(created)


@pytest.fixture
def playing(stub):
    """A game where seat 0 is human, the bots have passed, and play has begun."""
    created = create(stub, [HUMAN, RANDOM, RANDOM, RANDOM], seed=4)
    token = tokens_of(created)[0]
    seat_view = view(stub, created.game_id, 0, token)
    seat_view = submit(stub, created.game_id, 0, token, first_legal(seat_view), seat_view.version)
    return created.game_id, token, seat_view


# -- INVALID_ARGUMENT ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        (api.CreateGameRequest(game_type="chess", seats=[HUMAN] * 4), "game_type"),
        (api.CreateGameRequest(game_type="hearts", seats=[HUMAN] * 3), "seats"),
        (api.CreateGameRequest(game_type="hearts", seats=[HUMAN, 0, HUMAN, HUMAN]), "seats[1]"),
        (api.CreateGameRequest(game_type="hearts", seats=[HUMAN, 99, HUMAN, HUMAN]), "seats[1]"),
        (
            api.CreateGameRequest(
                game_type="hearts",
                seats=[HUMAN] * 4,
                options=game_pb2.GameOptions(hearts=hearts_pb2.HeartsOptions(target=0)),
            ),
            "options.hearts",
        ),
        (
            api.CreateGameRequest(
                game_type="hearts",
                seats=[HUMAN] * 4,
                options=game_pb2.GameOptions(hearts=hearts_pb2.HeartsOptions(variant=0)),
            ),
            "options.hearts.variant",
        ),
    ],
)
def test_bad_create_requests_are_invalid_argument(stub, request_, field):
    assert_invalid_field(failure_of(lambda: stub.CreateGame(request_)), field)


def test_malformed_game_id_is_invalid_argument(stub):
    failure = failure_of(lambda: view(stub, "not an id"))
    assert failure.code is grpc.StatusCode.INVALID_ARGUMENT


@pytest.mark.parametrize(
    ("action", "field"),
    [
        (game_pb2.Action(), "action"),
        (game_pb2.Action(hearts=hearts_pb2.HeartsAction()), "action.hearts.action"),
        (play(0, cards_pb2.SUIT_HEARTS), "action.hearts.play_card.card.rank"),
        (play(cards_pb2.RANK_ACE, 0), "action.hearts.play_card.card.suit"),
        (play(cards_pb2.RANK_ACE, 17), "action.hearts.play_card.card.suit"),
        (
            pass_cards([cards_pb2.Card(rank=2, suit=1)] * 3),
            "action.hearts.pass_cards.cards",
        ),
    ],
)
def test_malformed_actions_are_invalid_argument_and_change_nothing(
    stub, redis_client, game, action, field
):
    game_id, tokens = game
    assert_malformed(stub, redis_client, game_id, 0, tokens[0], action, 1, field)


@pytest.mark.parametrize(
    ("seat", "version", "request_id", "field"),
    [
        (4, 1, "r", "seat"),
        (-1, 1, "r", "seat"),
        (0, 0, "r", "expected_version"),
        (0, 1, "", "request_id"),
    ],
)
def test_bad_submit_envelope_is_invalid_argument(
    stub, redis_client, game, seat, version, request_id, field
):
    game_id, tokens = game
    before = stored(redis_client, game_id)
    request = api.SubmitActionRequest(
        game_id=game_id,
        seat=seat,
        expected_version=version,
        request_id=request_id,
        action=play(cards_pb2.RANK_TWO, cards_pb2.SUIT_CLUBS),
    )
    failure = failure_of(lambda: stub.SubmitAction(request, metadata=token_md(tokens[0])))
    assert failure.code is grpc.StatusCode.INVALID_ARGUMENT
    assert failure.details[0].field_violations[0].field == field
    assert stored(redis_client, game_id) == before


# -- NOT_FOUND, UNAUTHENTICATED, PERMISSION_DENIED ---------------------------------------------


def test_unknown_game_is_not_found(stub):
    assert failure_of(lambda: view(stub, UNKNOWN_GAME)).code is grpc.StatusCode.NOT_FOUND
    failure = failure_of(lambda: submit(stub, UNKNOWN_GAME, 0, "t", play(2, 1), 1))
    assert failure.code is grpc.StatusCode.NOT_FOUND
    assert failure.reason == "GAME_NOT_FOUND"
    log_request = api.GetActionLogRequest(game_id=UNKNOWN_GAME)
    assert failure_of(lambda: stub.GetActionLog(log_request)).code is grpc.StatusCode.NOT_FOUND


def test_missing_token_is_unauthenticated(stub, game):
    game_id, _ = game
    failure = failure_of(lambda: view(stub, game_id, 0))
    assert (failure.code, failure.reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING")


def test_unknown_token_is_unauthenticated(stub, redis_client, game):
    game_id, _ = game
    before = stored(redis_client, game_id)
    failure = failure_of(lambda: view(stub, game_id, 0, "x" * 32))
    assert (failure.code, failure.reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID")
    failure = failure_of(lambda: submit(stub, game_id, 0, "x" * 32, play(2, 1), 1))
    assert failure.code is grpc.StatusCode.UNAUTHENTICATED
    assert stored(redis_client, game_id) == before


def test_seat_one_token_can_neither_read_nor_act_for_seat_two(stub, redis_client, game):
    game_id, tokens = game
    before = stored(redis_client, game_id)
    failure = failure_of(lambda: view(stub, game_id, 2, tokens[1]))
    assert (failure.code, failure.reason) == (grpc.StatusCode.PERMISSION_DENIED, "SEAT_NOT_YOURS")
    seat_two = view(stub, game_id, 2, tokens[2])
    failure = failure_of(
        lambda: submit(stub, game_id, 2, tokens[1], first_legal(seat_two), seat_two.version)
    )
    assert failure.code is grpc.StatusCode.PERMISSION_DENIED
    log_request = api.GetActionLogRequest(game_id=game_id, seat=2)
    failure = failure_of(lambda: stub.GetActionLog(log_request, metadata=token_md(tokens[1])))
    assert failure.code is grpc.StatusCode.PERMISSION_DENIED
    assert stored(redis_client, game_id) == before


def test_a_human_cannot_act_for_a_bot_seat(stub, playing):
    game_id, token, seat_view = playing
    failure = failure_of(lambda: submit(stub, game_id, 1, token, play(2, 1), seat_view.version))
    assert failure.code is grpc.StatusCode.PERMISSION_DENIED


# -- FAILED_PRECONDITION: rule breaks --------------------------------------------------------


def test_h_r2_wrong_pass_size_is_failed_precondition(stub, redis_client, game):
    game_id, tokens = game
    seat_view = view(stub, game_id, 0, tokens[0])
    two_cards = pass_cards(list(seat_view.hearts.hand[:2]))
    assert_refused(
        stub,
        redis_client,
        game_id,
        0,
        tokens[0],
        two_cards,
        seat_view.version,
        "WRONG_PASS_SIZE",
        "H-R2",
    )


def test_h_r2_playing_before_the_pass_is_failed_precondition(stub, redis_client, game):
    game_id, tokens = game
    seat_view = view(stub, game_id, 0, tokens[0])
    card = seat_view.hearts.hand[0]
    action = play(card.rank, card.suit)
    assert_refused(
        stub,
        redis_client,
        game_id,
        0,
        tokens[0],
        action,
        seat_view.version,
        "PASSING_NOT_FINISHED",
        "H-R2",
    )


def test_h_r1_card_not_in_hand_is_failed_precondition(stub, redis_client, game):
    game_id, tokens = game
    seat_view = view(stub, game_id, 0, tokens[0])
    others = view(stub, game_id, 1, tokens[1]).hearts.hand
    action = pass_cards(list(others[:3]))
    assert_refused(
        stub,
        redis_client,
        game_id,
        0,
        tokens[0],
        action,
        seat_view.version,
        "CARD_NOT_IN_HAND",
        "H-R1",
    )


def test_illegal_play_names_the_rule_and_changes_nothing(stub, redis_client, playing):
    game_id, token, seat_view = playing
    legal = {
        (a.hearts.play_card.card.rank, a.hearts.play_card.card.suit)
        for a in seat_view.legal_actions
    }
    illegal = [c for c in seat_view.hearts.hand if (c.rank, c.suit) not in legal]
    assert list(seat_view.to_act) == [0] and illegal, "seed 4 gives seat 0 an illegal card"
    action = play(illegal[0].rank, illegal[0].suit)
    failure = failure_changing_nothing(
        redis_client, game_id, lambda: submit(stub, game_id, 0, token, action, seat_view.version)
    )
    assert failure.code is grpc.StatusCode.FAILED_PRECONDITION
    assert failure.reason in {
        "MUST_LEAD_TWO_OF_CLUBS",
        "MUST_FOLLOW_SUIT",
        "HEARTS_NOT_BROKEN",
        "QUEEN_OF_SPADES_ON_FIRST_TRICK",
    }
    assert failure.metadata["ruleId"] in {"H-R3", "H-R4", "H-R5", "H-R7"}


# -- ABORTED ------------------------------------------------------------------------------------


def test_stale_version_is_aborted_and_changes_nothing(stub, redis_client, game):
    """A version from before the seat's own move: the seat has seen the game change."""
    game_id, tokens = game
    seat_view = view(stub, game_id, 0, tokens[0])
    submit(stub, game_id, 0, tokens[0], first_legal(seat_view), seat_view.version)
    action, version = first_legal(seat_view), seat_view.version
    failure = failure_changing_nothing(
        redis_client, game_id, lambda: submit(stub, game_id, 0, tokens[0], action, version)
    )
    assert (failure.code, failure.reason) == (grpc.StatusCode.ABORTED, "VERSION_MISMATCH")
    assert failure.metadata["currentVersion"] == str(seat_view.version + 1)


def test_a_version_from_the_future_is_aborted(stub, redis_client, game):
    game_id, tokens = game
    seat_view = view(stub, game_id, 0, tokens[0])
    action, version = first_legal(seat_view), seat_view.version + 1
    failure = failure_changing_nothing(
        redis_client, game_id, lambda: submit(stub, game_id, 0, tokens[0], action, version)
    )
    assert (failure.code, failure.reason) == (grpc.StatusCode.ABORTED, "VERSION_MISMATCH")
