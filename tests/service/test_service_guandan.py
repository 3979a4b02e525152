"""Guandan through a real gRPC server and redis-server: errors, races, views, replay.

Refused moves must come back as FAILED_PRECONDITION naming the rule, malformed ones as
INVALID_ARGUMENT naming the field, and neither may change a stored byte. Views are checked for
leaks over many random matches with the conformance adapter's count of hidden copies (two
decks: a kind may be in two places at once), and a finished match replays from its log.
"""

from __future__ import annotations

import random
from collections import Counter

import grpc
import pytest
from cardengine.v1 import cards_pb2, game_pb2, guandan_pb2
from cardengine.v1 import engine_service_pb2 as api

from engine_service.codec.cards import decode_kind, decode_kinds
from engine_service.codec.registry import CODECS
from engine_service.games.guandan.actions import PassTurn, PlayCards, ReturnCard
from engine_service.games.guandan.cards import (
    BLACK_JOKER,
    RED_JOKER,
    hand_of,
    is_wild,
    rank_of,
    strength,
)
from engine_service.games.guandan.config import GuandanConfig
from engine_service.games.guandan.reading import Reading, Shape
from engine_service.games.guandan.state import GuandanState
from engine_service.registry import REGISTRY
from tests.conformance.adapter import cards_in_message
from tests.conformance.guandan_adapter import GuandanAdapter, numbered_copies
from tests.service.rpc_helpers import (
    HEURISTIC,
    HUMAN,
    ONE_WINS,
    RANDOM,
    Move,
    assert_malformed,
    assert_refused,
    create,
    failure_changing_nothing,
    failure_of,
    finished,
    first_legal,
    play_randomly,
    race,
    replayed,
    stored,
    stored_state,
    submit,
    token_md,
    tokens_of,
    turn_of,
    view,
)
from tests.volume import volume

GUANDAN = "guandan"
CODEC = CODECS[GUANDAN]
ADAPTER = GuandanAdapter()
FOUR_HUMANS = [HUMAN, HUMAN, HUMAN, HUMAN]


def action_of(domain_action: PlayCards | PassTurn | ReturnCard) -> game_pb2.Action:
    return CODEC.encode_action(domain_action)


def single(kind: int) -> PlayCards:
    return PlayCards.of((kind,), Reading(Shape.SINGLE, rank_of(kind), 1))


def hand_kinds(seat_view: game_pb2.GameView) -> tuple[int, ...]:
    return decode_kinds(seat_view.guandan.hand, "hand")


@pytest.fixture
def table(stub):
    """A four-human match at its first lead: the game id, tokens, and the leader's view."""
    created = create(stub, FOUR_HUMANS, seed=31, game_type=GUANDAN)
    tokens = tokens_of(created)
    (leader,) = created.view.to_act
    return created.game_id, tokens, view(stub, created.game_id, leader, tokens[leader])


# -- game type and options ------------------------------------------------------------------


def test_list_game_types_shows_every_guandan_option_with_its_rule(stub):
    reply = stub.ListGameTypes(api.ListGameTypesRequest())
    guandan = next(t for t in reply.game_types if t.name == GUANDAN)
    assert guandan.seats == 4
    options = {o.name: o for o in guandan.options}
    assert set(options) == set(GuandanConfig.__dataclass_fields__)
    assert options["allow_underdeclare_straight_flush"].rule_id == "G-R13"
    assert options["card_count_visibility"].default_value == "always"
    assert set(options["card_count_visibility"].choices) == {"always", "ten_or_fewer"}


def test_g_r1_a_seat_sees_its_27_cards_and_options_travel(stub):
    visibility = guandan_pb2.GUANDAN_CARD_COUNT_VISIBILITY_TEN_OR_FEWER
    created = create(stub, FOUR_HUMANS, seed=5, game_type=GUANDAN, card_count_visibility=visibility)
    (leader,) = created.view.to_act
    seat_view = view(stub, created.game_id, leader, tokens_of(created)[leader])
    assert len(seat_view.guandan.hand) == 27
    assert seat_view.guandan.options.card_count_visibility == visibility
    # G-R23 ten_or_fewer: 27 cards are too many to show, except the viewer's own
    assert [c for s, c in enumerate(seat_view.guandan.card_counts) if s != leader] == [-1] * 3
    assert seat_view.guandan.card_counts[leader] == 27
    assert seat_view.guandan.level == cards_pb2.RANK_TWO
    legal = [CODEC.decode_action(a) for a in seat_view.legal_actions]
    assert legal and all(isinstance(a, PlayCards) for a in legal), "G-R17: a leader plays"


def test_all_bot_match_is_played_to_the_end_by_the_timer_loop(stub):
    created = create(stub, [RANDOM, HEURISTIC, HEURISTIC, RANDOM], seed=3, game_type=GUANDAN)
    final = finished(stub, created.game_id)
    assert final.status == game_pb2.GAME_STATUS_FINISHED
    winners = list(final.outcome.winners)
    assert len(winners) == 2 and winners[1] == winners[0] + 2  # partners (G-R1)
    assert final.guandan.levels[winners[0] % 2] == cards_pb2.RANK_ACE  # G-R26


# -- INVALID_ARGUMENT ------------------------------------------------------------------------


def _play_message(cards: list[cards_pb2.Card], reading: guandan_pb2.GuandanReading | None):
    play = guandan_pb2.GuandanPlay(cards=cards)
    if reading is not None:
        play.reading.CopyFrom(reading)
    return game_pb2.Action(guandan=guandan_pb2.GuandanAction(play=play))


EIGHT = cards_pb2.Card(rank=cards_pb2.RANK_EIGHT, suit=cards_pb2.SUIT_CLUBS)
PAIR_OF_EIGHTS = guandan_pb2.GuandanReading(
    shape=guandan_pb2.GuandanReading.SHAPE_PAIR, rank=cards_pb2.RANK_EIGHT, size=2
)


def _reading(**fields) -> guandan_pb2.GuandanReading:
    reading = guandan_pb2.GuandanReading()
    reading.CopyFrom(PAIR_OF_EIGHTS)
    for name, value in fields.items():
        setattr(reading, name, value)
    return reading


@pytest.mark.parametrize(
    ("action", "field"),
    [
        (game_pb2.Action(guandan=guandan_pb2.GuandanAction()), "action.guandan.action"),
        (_play_message([EIGHT, EIGHT], None), "action.guandan.play.reading"),
        (_play_message([], PAIR_OF_EIGHTS), "action.guandan.play.cards"),
        (_play_message([EIGHT] * 3, _reading(size=3)), "action.guandan.play.cards"),
        (_play_message([EIGHT, EIGHT], _reading(shape=0)), "action.guandan.play.reading.shape"),
        (_play_message([EIGHT, EIGHT], _reading(shape=42)), "action.guandan.play.reading.shape"),
        (_play_message([EIGHT, EIGHT], _reading(rank=17)), "action.guandan.play.reading.rank"),
        (_play_message([EIGHT, EIGHT], _reading(rank=1)), "action.guandan.play.reading.rank"),
        (_play_message([EIGHT, EIGHT], _reading(size=0)), "action.guandan.play.reading.size"),
        (_play_message([EIGHT, EIGHT], _reading(size=11)), "action.guandan.play.reading.size"),
        (
            _play_message([cards_pb2.Card(rank=cards_pb2.RANK_EIGHT), EIGHT], PAIR_OF_EIGHTS),
            "action.guandan.play.cards[0].suit",
        ),
        (
            _play_message(
                [cards_pb2.Card(rank=cards_pb2.RANK_RED_JOKER, suit=cards_pb2.SUIT_HEARTS)],
                _reading(shape=guandan_pb2.GuandanReading.SHAPE_SINGLE, rank=16, size=1),
            ),
            "action.guandan.play.cards[0].suit",
        ),
        (
            _play_message([cards_pb2.Card(rank=20, suit=cards_pb2.SUIT_CLUBS)], PAIR_OF_EIGHTS),
            "action.guandan.play.cards[0].rank",
        ),
        (
            game_pb2.Action(
                guandan=guandan_pb2.GuandanAction(return_card=guandan_pb2.GuandanReturnCard())
            ),
            "action.guandan.return_card.card.rank",
        ),
        (game_pb2.Action(hearts={"play_card": {"card": EIGHT}}), "action"),
    ],
)
def test_malformed_guandan_actions_are_invalid_argument_and_change_nothing(
    stub, redis_client, table, action, field
):
    game_id, tokens, leader_view = table
    seat = leader_view.viewer_seat
    assert_malformed(
        stub, redis_client, game_id, seat, tokens[seat], action, leader_view.version, field
    )


def test_hearts_still_refuses_jokers_as_malformed(stub, redis_client):
    created = create(stub, FOUR_HUMANS, seed=1)
    joker = cards_pb2.Card(rank=cards_pb2.RANK_RED_JOKER)
    action = game_pb2.Action(
        hearts={"pass_cards": {"cards": [joker, joker, joker]}},
    )
    token, field = tokens_of(created)[0], "action.hearts.pass_cards.cards[0].rank"
    assert_malformed(stub, redis_client, created.game_id, 0, token, action, 1, field)


def test_guandan_options_for_a_hearts_game_are_invalid_argument(stub):
    request = api.CreateGameRequest(
        game_type="hearts",
        seats=FOUR_HUMANS,
        options=game_pb2.GameOptions(guandan=guandan_pb2.GuandanOptions(ace_attempts=2)),
    )
    failure = failure_of(lambda: stub.CreateGame(request))
    assert failure.code is grpc.StatusCode.INVALID_ARGUMENT
    bad_option = api.CreateGameRequest(
        game_type=GUANDAN,
        seats=FOUR_HUMANS,
        options=game_pb2.GameOptions(guandan=guandan_pb2.GuandanOptions(fail_at_ace=0)),
    )
    failure = failure_of(lambda: stub.CreateGame(bad_option))
    assert failure.details[0].field_violations[0].field == "options.guandan.fail_at_ace"


# -- FAILED_PRECONDITION ---------------------------------------------------------------------


def test_g_r2_a_seat_off_turn_is_refused(stub, redis_client, table):
    game_id, tokens, leader_view = table
    other = (leader_view.viewer_seat + 1) % 4
    other_view = view(stub, game_id, other, tokens[other])
    action = action_of(single(hand_kinds(other_view)[0]))
    assert_refused(
        stub, redis_client, game_id, other, tokens[other], action, other_view.version,
        "NOT_YOUR_TURN", "G-R2",
    )  # fmt: skip


def test_g_r17_the_leader_may_not_pass(stub, redis_client, table):
    game_id, tokens, leader_view = table
    seat = leader_view.viewer_seat
    assert_refused(
        stub, redis_client, game_id, seat, tokens[seat], action_of(PassTurn()),
        leader_view.version, "LEADER_MUST_PLAY", "G-R17",
    )  # fmt: skip


def test_g_r1_a_card_not_in_hand_is_refused(stub, redis_client, table):
    game_id, tokens, leader_view = table
    seat = leader_view.viewer_seat
    hand = hand_of(hand_kinds(leader_view))
    missing = next(kind for kind, count in enumerate(hand) if not count)
    assert_refused(
        stub, redis_client, game_id, seat, tokens[seat], action_of(single(missing)),
        leader_view.version, "CARD_NOT_IN_HAND", "G-R1",
    )  # fmt: skip


def test_g_r8_cards_of_two_ranks_are_no_pair(stub, redis_client, table):
    game_id, tokens, leader_view = table
    seat, level = leader_view.viewer_seat, leader_view.guandan.level
    by_rank = {rank_of(k): k for k in hand_kinds(leader_view) if not is_wild(k, level)}
    low, high = sorted(by_rank)[:2]
    action = action_of(PlayCards.of((by_rank[low], by_rank[high]), Reading(Shape.PAIR, high, 2)))
    assert_refused(
        stub, redis_client, game_id, seat, tokens[seat], action, leader_view.version,
        "NOT_A_COMBINATION", "G-R8",
    )  # fmt: skip


def test_g_r16_a_lower_single_does_not_beat(stub, redis_client, table):
    game_id, tokens, leader_view = table
    seat, level = leader_view.viewer_seat, leader_view.guandan.level
    strongest = max(hand_kinds(leader_view), key=lambda k: strength(rank_of(k), level))
    after = submit(stub, game_id, seat, tokens[seat], action_of(single(strongest)), 1)
    follower = (seat + 1) % 4
    follower_view = view(stub, game_id, follower, tokens[follower])
    weakest = min(hand_kinds(follower_view), key=lambda k: strength(rank_of(k), level))
    assert strength(rank_of(weakest), level) <= strength(rank_of(strongest), level)
    assert_refused(
        stub, redis_client, game_id, follower, tokens[follower], action_of(single(weakest)),
        after.version, "DOES_NOT_BEAT", "G-R16",
    )  # fmt: skip


def test_g_r35_a_return_while_playing_is_refused(stub, redis_client, table):
    game_id, tokens, leader_view = table
    seat = leader_view.viewer_seat
    action = action_of(ReturnCard(hand_kinds(leader_view)[0]))
    assert_refused(
        stub, redis_client, game_id, seat, tokens[seat], action, leader_view.version,
        "NOT_RETURNING_NOW", "G-R35",
    )  # fmt: skip


def test_g_r13a_any_suits_supporting_the_reading_are_accepted(stub, redis_client, table):
    """Legal actions list one suit choice per distinct play; the other suits are accepted too."""
    game_id, tokens, leader_view = table
    seat, level = leader_view.viewer_seat, leader_view.guandan.level
    listed = {CODEC.decode_action(a) for a in leader_view.legal_actions}
    unlisted = [
        single(k)
        for k in set(hand_kinds(leader_view))
        if not is_wild(k, level) and single(k) not in listed
    ]
    assert unlisted, "seed 31 gives the leader a rank in two suits"
    after = submit(stub, game_id, seat, tokens[seat], action_of(unlisted[0]), 1)
    assert after.version == 2
    assert decode_kinds(after.guandan.top.cards, "top") == unlisted[0].cards
    assert stored_state(redis_client, game_id).top.cards == unlisted[0].cards


# -- ABORTED -----------------------------------------------------------------------------------


def test_two_clients_of_one_seat_racing_on_one_version_exactly_one_wins(stub, redis_client):
    for round_ in range(10):
        created = create(stub, FOUR_HUMANS, seed=100 + round_, game_type=GUANDAN)
        tokens = tokens_of(created)
        (seat,) = created.view.to_act
        seat_view = view(stub, created.game_id, seat, tokens[seat])
        choices = [first_legal(seat_view), seat_view.legal_actions[-1]]
        moves = [Move(seat, tokens[seat], action, seat_view.version) for action in choices]
        assert race(stub, created.game_id, moves) == ONE_WINS
        assert int(stored(redis_client, created.game_id)[b"v"]) == 2


def test_a_stale_version_is_aborted_and_changes_nothing(stub, redis_client, table):
    game_id, tokens, leader_view = table
    seat = leader_view.viewer_seat
    submit(stub, game_id, seat, tokens[seat], first_legal(leader_view), 1)
    nxt = (seat + 1) % 4
    stale = action_of(PassTurn())
    failure = failure_changing_nothing(
        redis_client, game_id, lambda: submit(stub, game_id, nxt, tokens[nxt], stale, 1)
    )
    assert (failure.code, failure.reason) == (grpc.StatusCode.ABORTED, "VERSION_MISMATCH")


# -- views and the log -------------------------------------------------------------------------


def _check_no_leak(message: game_pb2.GameView, state: GuandanState, seat: int | None) -> None:
    """The view's cards never exceed what the hidden copies leave over (see the adapter)."""
    current_deal = guandan_pb2.GuandanView()
    current_deal.CopyFrom(message.guandan)
    current_deal.ClearField("previous_deal")  # the ended deal's open plays (see test_service_views)
    current_deal.ClearField("top")  # the play to beat is the round history's last play
    current_deal.ClearField("round_history")  # its plays are among the seats' plays (G-R17a)
    shown = Counter(cards_in_message(current_deal))
    visible = numbered_copies(message.guandan.deal_number, shown)
    leaked = visible & ADAPTER.hidden_cards(state, seat)
    assert not leaked, f"seat {seat} sees {sorted(leaked)}"
    hand = Counter(decode_kinds(message.guandan.hand, "hand"))
    for action in message.legal_actions:
        played = CODEC.decode_action(action)
        cards = played.cards if isinstance(played, PlayCards) else ()
        assert not Counter(cards) - hand, f"legal action {played} uses cards not in the hand"


@pytest.mark.volume
def test_views_of_random_matches_show_no_hidden_card(stub, redis_client):
    """40 matches in make test, 200 in make test-deep."""
    rng = random.Random(2026)
    for number in range(volume(40, 200)):
        bots = [rng.choice([RANDOM, HEURISTIC]) for _ in range(3)]
        created = create(stub, [HUMAN, *bots], seed=number, game_type=GUANDAN)
        token = tokens_of(created)[0]
        seat_view = play_randomly(stub, created.game_id, 0, token, rng, rng.randrange(0, 60))
        state = stored_state(redis_client, created.game_id)
        _check_no_leak(seat_view, state, 0)
        _check_no_leak(view(stub, created.game_id), state, None)


def _play_match_seeing_secrets(stub, seed: int) -> tuple[str, game_pb2.GameView, bool]:
    """Seat 0 plays its first legal action to the end against heuristic bots.

    Returns the game id, seat 0's final view, and whether seat 0's log ever showed another
    seat's return redacted (G-R37) while the match ran.
    """
    created = create(stub, [HUMAN, HEURISTIC, HEURISTIC, HEURISTIC], seed=seed, game_type=GUANDAN)
    token = tokens_of(created)[0]
    seat_view = turn_of(stub, created.game_id, 0, token, view(stub, created.game_id, 0, token))
    secret_seen = False
    while seat_view.status == game_pb2.GAME_STATUS_IN_PROGRESS:
        if seat_view.guandan.phase == guandan_pb2.GuandanView.PHASE_PLAYING and not secret_seen:
            request = api.GetActionLogRequest(game_id=created.game_id, seat=0)
            running = stub.GetActionLog(request, metadata=token_md(token))
            assert not running.HasField("seed")
            redacted = [e for e in running.entries if e.redacted]
            assert all(e.seat != 0 and not e.HasField("action") for e in redacted)
            secret_seen = bool(redacted)
        seat_view = submit(
            stub, created.game_id, 0, token, first_legal(seat_view), seat_view.version
        )
        # Bots whose replies did not fit the request's budget move on in the timer loop.
        seat_view = turn_of(stub, created.game_id, 0, token, seat_view)
    return created.game_id, seat_view, secret_seen


def test_a_match_replays_from_its_action_log_and_returns_stay_secret_while_running(
    stub, redis_client
):
    for seed in (8, 9, 10):
        game_id, seat_view, secret_seen = _play_match_seeing_secrets(stub, seed)
        finished = stub.GetActionLog(api.GetActionLogRequest(game_id=game_id))
        assert finished.seed == seed and not any(e.redacted for e in finished.entries)
        assert finished.version == seat_view.version == len(finished.entries) + 1
        state = replayed(finished, GUANDAN)
        assert state == stored_state(redis_client, game_id)
        rules = REGISTRY[GUANDAN].make_rules(CODEC.decode_options(finished.options))
        outcome = rules.outcome(state)
        assert outcome is not None and list(seat_view.outcome.winners) == list(outcome.winners)
        if secret_seen:
            return
    pytest.fail("no match had another seat return a tribute card (G-R35, G-R37)")


def test_jokers_travel_without_a_suit(stub):
    for seed in range(20):
        created = create(stub, FOUR_HUMANS, seed=seed, game_type=GUANDAN)
        (seat,) = created.view.to_act
        seat_view = view(stub, created.game_id, seat, tokens_of(created)[seat])
        jokers = [c for c in seat_view.guandan.hand if c.rank >= cards_pb2.RANK_BLACK_JOKER]
        if jokers:
            assert all(c.suit == cards_pb2.SUIT_UNSPECIFIED for c in jokers)
            kinds = {decode_kind(c, "hand") for c in jokers}
            assert kinds <= {BLACK_JOKER, RED_JOKER}
            return
    pytest.fail("no joker in twenty leaders' hands")
