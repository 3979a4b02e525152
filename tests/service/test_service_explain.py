"""ExplainPlay through a real gRPC server and redis-server (G-R1, G-R2, G-R13, G-R16).

Each answer is checked against what SubmitAction does with the same play: a reading said to be
legal is accepted, one said to be refused gets the same reason and rule. Asking never changes
a stored byte.
"""

from __future__ import annotations

import grpc
import pytest
from cardengine.v1 import cards_pb2, guandan_pb2

from engine_service.codec.cards import decode_kinds, encode_kind, encode_kinds
from engine_service.codec.guandan import decode_reading
from engine_service.codec.registry import CODECS
from engine_service.games.guandan.actions import PlayCards
from engine_service.games.guandan.cards import rank_of, strength
from engine_service.games.guandan.reading import Reading, Shape
from tests.service.rpc_helpers import (
    HUMAN,
    assert_rule_break,
    create,
    failure_changing_nothing,
    failure_of,
    stored,
    submit,
    token_md,
    tokens_of,
    view,
)

GUANDAN = "guandan"
CODEC = CODECS[GUANDAN]
FOUR_HUMANS = [HUMAN, HUMAN, HUMAN, HUMAN]
UNKNOWN_GAME = "0" * 32


def explain(stub, game_id, seat, token, cards):
    request = guandan_pb2.ExplainPlayRequest(game_id=game_id, seat=seat, cards=cards)
    metadata = token_md(token) if token is not None else ()
    return stub.ExplainPlay(request, metadata=metadata).readings


def hand_of_view(seat_view):
    return decode_kinds(seat_view.guandan.hand, "hand")


def single_action(kind):
    return CODEC.encode_action(PlayCards.of((kind,), Reading(Shape.SINGLE, rank_of(kind), 1)))


@pytest.fixture
def table(stub):
    """Four humans at the first lead: the game id, the tokens, the leader and its view."""
    created = create(stub, FOUR_HUMANS, seed=31, game_type=GUANDAN)
    tokens = tokens_of(created)
    (leader,) = created.view.to_act
    return created.game_id, tokens, leader, view(stub, created.game_id, leader, tokens[leader])


def test_g_r13_the_leader_learns_every_reading_and_each_is_legal_to_lead(stub, redis_client, table):
    """G-R13, G-R17: a lead may be any combination; the answer names it in words."""
    game_id, tokens, leader, seat_view = table
    kind = hand_of_view(seat_view)[0]
    before = stored(redis_client, game_id)
    (option,) = explain(stub, game_id, leader, tokens[leader], [encode_kind(kind)])
    assert stored(redis_client, game_id) == before
    assert decode_reading(option.reading, "reading") == Reading(Shape.SINGLE, rank_of(kind), 1)
    assert option.legal
    assert (option.reason, option.rule_id, option.message) == ("", "", "")
    assert option.description.startswith("single ")


def test_g_r16_a_follower_learns_which_single_beats_and_submit_agrees(stub, redis_client, table):
    """G-R16: DOES_NOT_BEAT for a single no higher than the top play, legal for a higher one."""
    game_id, tokens, leader, seat_view = table
    level = seat_view.guandan.level
    led = min(hand_of_view(seat_view), key=lambda k: strength(rank_of(k), level))
    after = submit(stub, game_id, leader, tokens[leader], single_action(led), seat_view.version)
    (follower,) = after.to_act
    follower_view = view(stub, game_id, follower, tokens[follower])
    hand = hand_of_view(follower_view)
    top_strength = strength(rank_of(led), level)
    low = next(k for k in hand if strength(rank_of(k), level) <= top_strength)
    high = next(k for k in hand if strength(rank_of(k), level) > top_strength)

    (refused,) = explain(stub, game_id, follower, tokens[follower], [encode_kind(low)])
    assert not refused.legal
    assert (refused.reason, refused.rule_id) == ("DOES_NOT_BEAT", "G-R16")
    assert "does not beat" in refused.message
    failure = failure_changing_nothing(
        redis_client,
        game_id,
        lambda: submit(
            stub, game_id, follower, tokens[follower], single_action(low), follower_view.version
        ),
    )
    assert_rule_break(failure, refused.reason, refused.rule_id)

    (legal,) = explain(stub, game_id, follower, tokens[follower], [encode_kind(high)])
    assert legal.legal
    submit(stub, game_id, follower, tokens[follower], single_action(high), follower_view.version)


def test_g_r2_a_seat_out_of_turn_may_ask_and_hears_not_your_turn(stub, table):
    """G-R2: every reading is listed, each refused with NOT_YOUR_TURN."""
    game_id, tokens, leader, _ = table
    other = (leader + 1) % 4
    kind = hand_of_view(view(stub, game_id, other, tokens[other]))[0]
    (option,) = explain(stub, game_id, other, tokens[other], [encode_kind(kind)])
    assert (option.legal, option.reason, option.rule_id) == (False, "NOT_YOUR_TURN", "G-R2")


def test_g_r1_cards_not_in_the_hand_are_failed_precondition(stub, redis_client, table):
    """G-R1: CARD_NOT_IN_HAND, as a play of them would get; nothing stored changes."""
    game_id, tokens, leader, seat_view = table
    hand = hand_of_view(seat_view)
    absent = next(k for k in range(54) if hand.count(k) < 2)
    cards = encode_kinds([absent] * (hand.count(absent) + 1))
    failure = failure_changing_nothing(
        redis_client, game_id, lambda: explain(stub, game_id, leader, tokens[leader], cards)
    )
    assert_rule_break(failure, "CARD_NOT_IN_HAND", "G-R1")


def test_a_game_that_is_not_guandan_is_invalid_argument(stub):
    created = create(stub, [HUMAN, HUMAN, HUMAN, HUMAN], seed=4, game_type="hearts")
    tokens = tokens_of(created)
    card = cards_pb2.Card(rank=cards_pb2.RANK_TWO, suit=cards_pb2.SUIT_CLUBS)
    failure = failure_of(lambda: explain(stub, created.game_id, 0, tokens[0], [card]))
    assert (failure.code, failure.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_FIELD")


@pytest.mark.parametrize(
    ("cards", "field"),
    [
        ([], "cards"),
        ([cards_pb2.Card(rank=cards_pb2.RANK_TWO)], "cards[0].suit"),
        ([cards_pb2.Card(rank=cards_pb2.RANK_RED_JOKER)] * 3, "cards"),
    ],
)
def test_malformed_cards_are_invalid_argument_naming_the_field(stub, table, cards, field):
    game_id, tokens, leader, _ = table
    failure = failure_of(lambda: explain(stub, game_id, leader, tokens[leader], cards))
    assert failure.code is grpc.StatusCode.INVALID_ARGUMENT
    (bad_request,) = failure.details
    assert [v.field for v in bad_request.field_violations] == [field]


def test_token_errors_are_those_of_get_game_view(stub, table):
    """No token, no seat's token, another seat's token; an unknown game is NOT_FOUND."""
    game_id, tokens, leader, seat_view = table
    cards = list(seat_view.guandan.hand[:1])
    missing = failure_of(lambda: explain(stub, game_id, leader, None, cards))
    assert (missing.code, missing.reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING")
    invalid = failure_of(lambda: explain(stub, game_id, leader, "not-a-token", cards))
    assert (invalid.code, invalid.reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID")
    other = tokens[(leader + 1) % 4]
    denied = failure_of(lambda: explain(stub, game_id, leader, other, cards))
    assert (denied.code, denied.reason) == (grpc.StatusCode.PERMISSION_DENIED, "SEAT_NOT_YOURS")
    unknown = failure_of(lambda: explain(stub, UNKNOWN_GAME, leader, tokens[leader], cards))
    assert (unknown.code, unknown.reason) == (grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND")
    bad_seat = failure_of(lambda: explain(stub, game_id, 7, tokens[leader], cards))
    assert bad_seat.code is grpc.StatusCode.INVALID_ARGUMENT


def test_refusals_are_explained_in_the_callers_language(stub, table):
    """G-R2: the same refusal in English (the rules' sentence) and French (accept-language)."""
    game_id, tokens, leader, _ = table
    other = (leader + 1) % 4
    card = encode_kind(hand_of_view(view(stub, game_id, other, tokens[other]))[0])
    request = guandan_pb2.ExplainPlayRequest(game_id=game_id, seat=other, cards=[card])
    metadata = (*token_md(tokens[other]), ("accept-language", "fr-CH, de;q=0.5"))
    (french,) = stub.ExplainPlay(request, metadata=metadata).readings
    (english,) = explain(stub, game_id, other, tokens[other], [card])
    assert (french.reason, french.rule_id) == (english.reason, english.rule_id)
    assert french.message != english.message and "G-R2" in french.message
    assert french.message.startswith("Ce n'est pas")
