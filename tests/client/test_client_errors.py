"""The client's pure parts: card text, action builders, seat names and the status mapping."""

from __future__ import annotations

import grpc
import pytest
from cardengine.v1 import cards_pb2, game_pb2
from cardengine_client import (
    Aborted,
    Cancelled,
    EngineClient,
    EngineError,
    FieldViolation,
    IllegalAction,
    Internal,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    RequestIdReused,
    Unauthenticated,
    Unavailable,
    VersionExpired,
    Violation,
    WatcherTooSlow,
    card_sort_key,
    format_card,
    format_cards,
    from_rpc_error,
    from_status,
    hearts_pass,
    hearts_play,
    parse_card,
    parse_cards,
    player_type,
)
from cardengine_client.cards import RANKS, SUITS
from google.rpc import error_details_pb2, status_pb2

QUEEN_OF_SPADES = cards_pb2.Card(rank=cards_pb2.RANK_QUEEN, suit=cards_pb2.SUIT_SPADES)
TEN_OF_HEARTS = cards_pb2.Card(rank=cards_pb2.RANK_TEN, suit=cards_pb2.SUIT_HEARTS)


# -- cards -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("QS", QUEEN_OF_SPADES),
        ("qs", QUEEN_OF_SPADES),
        (" Qs ", QUEEN_OF_SPADES),
        ("TH", TEN_OF_HEARTS),
        ("10H", TEN_OF_HEARTS),
        ("10h", TEN_OF_HEARTS),
    ],
)
def test_parse_card_reads_the_text_forms(text, card):
    assert parse_card(text) == card


@pytest.mark.parametrize("text", ["", "Q", "QSS", "1H", "11H", "QX", "XS", "10", "S Q", "♠Q"])
def test_parse_card_refuses_other_text(text):
    with pytest.raises(ValueError, match="not a card"):
        parse_card(text)


def test_every_card_round_trips_through_its_text():
    texts = [rank + suit for suit in SUITS for rank in RANKS]
    assert len(set(texts)) == 52
    for text in texts:
        assert format_card(parse_card(text)) == text


def test_format_card_marks_enum_values_it_does_not_know():
    assert format_card(cards_pb2.Card()) == "??"
    assert format_card(cards_pb2.Card(rank=cards_pb2.RANK_ACE, suit=99)) == "A?"


def test_cards_sort_by_suit_then_rank():
    cards = parse_cards(["AH", "2H", "QS", "3C", "KD", "TC"])
    assert format_cards(sorted(cards, key=card_sort_key)) == "3C TC KD QS 2H AH"


# -- actions and seats -----------------------------------------------------------------------


def test_hearts_play_builds_a_play_card_action():
    action = hearts_play("QS")
    assert action.WhichOneof("game") == "hearts"
    assert action.hearts.WhichOneof("action") == "play_card"
    assert action.hearts.play_card.card == QUEEN_OF_SPADES
    assert hearts_play(QUEEN_OF_SPADES) == action


def test_hearts_pass_keeps_the_cards_in_order_and_leaves_the_count_to_the_service():
    action = hearts_pass(["2C", "3C", "AH"])
    assert action.hearts.WhichOneof("action") == "pass_cards"
    assert format_cards(action.hearts.pass_cards.cards) == "2C 3C AH"
    # H-R2 (three cards) is the service's to judge: a short pass is still built.
    assert len(hearts_pass([TEN_OF_HEARTS]).hearts.pass_cards.cards) == 1


def test_hearts_actions_refuse_card_text_that_names_no_card():
    with pytest.raises(ValueError, match="not a card"):
        hearts_play("ZZ")
    with pytest.raises(ValueError, match="not a card"):
        hearts_pass(["2C", "3C", "1H"])


def test_player_type_accepts_short_names_and_enum_values():
    assert player_type("human") == game_pb2.PLAYER_TYPE_HUMAN
    assert player_type("Heuristic") == game_pb2.PLAYER_TYPE_BOT_HEURISTIC
    assert player_type("random") == game_pb2.PLAYER_TYPE_BOT_RANDOM
    assert player_type(game_pb2.PLAYER_TYPE_BOT_RANDOM) == game_pb2.PLAYER_TYPE_BOT_RANDOM
    with pytest.raises(ValueError, match="unknown player type"):
        player_type("robot")


# -- the status mapping ----------------------------------------------------------------------


def rich_status(code: grpc.StatusCode, message: str, *details) -> status_pb2.Status:
    status = status_pb2.Status(code=code.value[0], message=message)
    for detail in details:
        status.details.add().Pack(detail)
    return status


def must_follow_suit_status() -> status_pb2.Status:
    """What the service sends for an H-R4 break."""
    info = error_details_pb2.ErrorInfo(
        reason="MUST_FOLLOW_SUIT", domain="cardengine", metadata={"ruleId": "H-R4", "seat": "2"}
    )
    failure = error_details_pb2.PreconditionFailure(
        violations=[
            error_details_pb2.PreconditionFailure.Violation(
                type="RULE", subject="H-R4", description="Follow the suit led."
            )
        ]
    )
    return rich_status(grpc.StatusCode.FAILED_PRECONDITION, "Follow suit.", info, failure)


def test_a_rule_break_becomes_illegal_action_with_rule_id_h_r4():
    error = from_status(grpc.StatusCode.FAILED_PRECONDITION, must_follow_suit_status())
    assert isinstance(error, IllegalAction)
    assert isinstance(error, EngineError)
    assert error.code is grpc.StatusCode.FAILED_PRECONDITION
    assert error.message == "Follow suit."
    assert error.reason == "MUST_FOLLOW_SUIT"
    assert error.domain == "cardengine"
    assert error.metadata == {"ruleId": "H-R4", "seat": "2"}
    assert error.rule_id == "H-R4"
    assert error.violations == [Violation("RULE", "H-R4", "Follow the suit led.")]
    assert error.violations[0] == ("RULE", "H-R4", "Follow the suit led.")
    assert error.field_violations == []
    assert str(error) == "FAILED_PRECONDITION: Follow suit. (MUST_FOLLOW_SUIT, H-R4)"


def test_a_bad_field_becomes_invalid_argument_with_field_violations():
    info = error_details_pb2.ErrorInfo(reason="INVALID_FIELD", domain="cardengine")
    bad = error_details_pb2.BadRequest(
        field_violations=[
            error_details_pb2.BadRequest.FieldViolation(
                field="action.hearts.play_card.card.rank", description="must be a rank"
            )
        ]
    )
    status = rich_status(grpc.StatusCode.INVALID_ARGUMENT, "Bad card.", info, bad)
    error = from_status(grpc.StatusCode.INVALID_ARGUMENT, status)
    assert isinstance(error, InvalidArgument)
    assert error.reason == "INVALID_FIELD"
    assert error.rule_id is None
    assert error.field_violations == [
        FieldViolation("action.hearts.play_card.card.rank", "must be a rank")
    ]
    assert error.violations == []


def test_details_of_unknown_types_are_skipped():
    info = error_details_pb2.ErrorInfo(reason="VERSION_MISMATCH", domain="cardengine")
    retry = error_details_pb2.RetryInfo()
    status = rich_status(grpc.StatusCode.ABORTED, "Stale.", retry, info)
    error = from_status(grpc.StatusCode.ABORTED, status)
    assert isinstance(error, Aborted)
    assert error.reason == "VERSION_MISMATCH"


def test_without_a_status_the_code_and_given_message_remain():
    error = from_status(grpc.StatusCode.UNAVAILABLE, None, "connection refused")
    assert isinstance(error, Unavailable)
    assert (error.message, error.reason, error.domain, error.metadata) == (
        "connection refused",
        "",
        "",
        {},
    )
    assert error.violations == error.field_violations == []
    assert str(error) == "UNAVAILABLE: connection refused"


def test_the_status_message_wins_over_the_given_one():
    status = rich_status(grpc.StatusCode.NOT_FOUND, "No such game.")
    assert from_status(grpc.StatusCode.NOT_FOUND, status, "other").message == "No such game."


@pytest.mark.parametrize(
    ("code", "cls"),
    [
        (grpc.StatusCode.INVALID_ARGUMENT, InvalidArgument),
        (grpc.StatusCode.OUT_OF_RANGE, InvalidArgument),
        (grpc.StatusCode.NOT_FOUND, NotFound),
        (grpc.StatusCode.UNAUTHENTICATED, Unauthenticated),
        (grpc.StatusCode.PERMISSION_DENIED, PermissionDenied),
        (grpc.StatusCode.FAILED_PRECONDITION, IllegalAction),
        (grpc.StatusCode.ABORTED, Aborted),
        (grpc.StatusCode.UNAVAILABLE, Unavailable),
        (grpc.StatusCode.DEADLINE_EXCEEDED, Unavailable),
        (grpc.StatusCode.RESOURCE_EXHAUSTED, Unavailable),
        (grpc.StatusCode.INTERNAL, Internal),
        (grpc.StatusCode.UNKNOWN, Internal),
        (grpc.StatusCode.UNIMPLEMENTED, Internal),
        (grpc.StatusCode.DATA_LOSS, Internal),
        (grpc.StatusCode.CANCELLED, Cancelled),
    ],
)
def test_each_status_family_has_its_class(code, cls):
    error = from_status(code, rich_status(code, "x"))
    assert type(error) is cls
    assert error.code is code


@pytest.mark.parametrize(
    ("code", "reason", "cls", "family"),
    [
        (grpc.StatusCode.OUT_OF_RANGE, "VERSION_EXPIRED", VersionExpired, InvalidArgument),
        (grpc.StatusCode.RESOURCE_EXHAUSTED, "WATCHER_TOO_SLOW", WatcherTooSlow, Unavailable),
        (grpc.StatusCode.INVALID_ARGUMENT, "REQUEST_ID_REUSED", RequestIdReused, InvalidArgument),
    ],
)
def test_watch_reasons_get_a_subclass_of_their_family(code, reason, cls, family):
    info = error_details_pb2.ErrorInfo(reason=reason, domain="cardengine")
    error = from_status(code, rich_status(code, "x", info))
    assert type(error) is cls
    assert isinstance(error, family)
    assert error.reason == reason


def test_a_reason_picks_a_subclass_only_with_its_own_code_and_domain():
    info = error_details_pb2.ErrorInfo(reason="VERSION_EXPIRED", domain="cardengine")
    code = grpc.StatusCode.INVALID_ARGUMENT
    assert type(from_status(code, rich_status(code, "x", info))) is InvalidArgument
    elsewhere = error_details_pb2.ErrorInfo(reason="WATCHER_TOO_SLOW", domain="proxy.example")
    code = grpc.StatusCode.RESOURCE_EXHAUSTED
    assert type(from_status(code, rich_status(code, "x", elsewhere))) is Unavailable


# -- from_rpc_error on call-shaped errors ----------------------------------------------------


class CallError(grpc.RpcError, grpc.Call):
    """Shaped like the errors grpc raises from a unary call."""

    def __init__(self, code, details, trailing=()):
        super().__init__()
        self._code, self._details, self._trailing = code, details, tuple(trailing)

    def code(self):
        return self._code

    def details(self):
        return self._details

    def trailing_metadata(self):
        return self._trailing

    def initial_metadata(self):
        return ()

    def is_active(self):
        return False

    def time_remaining(self):
        return None

    def cancel(self):
        return False

    def add_callback(self, callback):
        return False


def test_from_rpc_error_reads_the_status_from_trailing_metadata():
    status = must_follow_suit_status()
    trailing = [("grpc-status-details-bin", status.SerializeToString())]
    error = from_rpc_error(CallError(grpc.StatusCode.FAILED_PRECONDITION, "Follow suit.", trailing))
    assert isinstance(error, IllegalAction)
    assert error.rule_id == "H-R4"


def test_from_rpc_error_without_details_keeps_code_and_message():
    error = from_rpc_error(CallError(grpc.StatusCode.UNAVAILABLE, "connection refused"))
    assert isinstance(error, Unavailable)
    assert error.message == "connection refused"


def test_from_rpc_error_ignores_details_that_contradict_the_call():
    status = must_follow_suit_status()
    trailing = [("grpc-status-details-bin", status.SerializeToString())]
    error = from_rpc_error(CallError(grpc.StatusCode.INTERNAL, "boom", trailing))
    assert isinstance(error, Internal)
    assert (error.message, error.reason) == ("boom", "")


def test_from_rpc_error_on_a_bare_rpc_error_is_internal_unknown():
    error = from_rpc_error(grpc.RpcError("odd"))
    assert isinstance(error, Internal)
    assert error.code is grpc.StatusCode.UNKNOWN
    assert error.message == "odd"


def test_a_request_id_sent_with_another_move_is_request_id_reused_from_the_service(
    engine_address,
):
    with EngineClient(engine_address) as engine:
        game = engine.create_game("hearts", ["human", "random", "random", "random"], seed=41)
        token = game.seat_tokens[0].token
        seat_view = engine.view(game.game_id, 0, token)
        hand = list(seat_view.legal_choices[0].cards)
        first = engine.submit(
            game.game_id, 0, token, hearts_pass(hand[:3]), seat_view.version, request_id="pass-1"
        )
        again = engine.submit(
            game.game_id, 0, token, hearts_pass(hand[:3]), first.version, request_id="pass-1"
        )
        assert again == first
        with pytest.raises(RequestIdReused) as caught:
            engine.submit(
                game.game_id,
                0,
                token,
                hearts_pass(hand[3:6]),
                seat_view.version,
                request_id="pass-1",
            )
    assert isinstance(caught.value, InvalidArgument)
    assert caught.value.reason == "REQUEST_ID_REUSED"
