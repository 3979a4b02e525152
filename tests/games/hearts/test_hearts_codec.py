"""The Hearts codec's new parts: the pass as one card choice, the history, events, snapshots."""

from __future__ import annotations

import random

from cardengine.v1 import game_pb2, hearts_pb2
from hearts_positions import last_trick, play

from engine_service.codec.cards import decode_card
from engine_service.codec.hearts import HeartsCodec
from engine_service.core.cards import Card, cards_in
from engine_service.games.hearts.actions import PassCards, PlayCard
from engine_service.games.hearts.events import (
    CardPlayed,
    CardsDealt,
    CardsPassed,
    CardsReceived,
    GameOver,
    HandDealt,
    HandScored,
    HeartsBroken,
    LeadPassed,
    PassMade,
    TrickTaken,
)
from engine_service.games.hearts.rules import HeartsRules
from engine_service.games.hearts.state import HeartsState, PassDirection
from engine_service.storage_pb import snapshot_pb2
from tests.games.positions import cards

RULES = HeartsRules()
CODEC = HeartsCodec()


def game_view(state: HeartsState, seat: int | None) -> game_pb2.GameView:
    out = game_pb2.GameView()
    if seat is not None:
        CODEC.encode_legal(RULES.legal_actions(state, seat), out)
    CODEC.encode_view(RULES.view(state, seat), RULES.config, out)
    return out


def test_h_r2_passes_are_one_card_choice_and_the_view_stays_small() -> None:
    state = RULES.new_game(11)
    view = game_view(state, 1)
    assert not view.legal_actions
    (choice,) = view.legal_choices
    assert choice.count == 3
    assert choice.action.hearts.WhichOneof("action") == "pass_cards"
    assert not choice.action.hearts.pass_cards.cards
    assert [decode_card(c, "c") for c in choice.cards] == list(cards_in(state.hands[1]))
    assert view.ByteSize() < 1024
    # filling three of the cards in gives an action the rules accept
    action = game_pb2.Action()
    action.CopyFrom(choice.action)
    action.hearts.pass_cards.cards.extend(choice.cards[:3])
    RULES.apply(state, 1, CODEC.decode_action(action))


def test_h_r2_a_seat_that_passed_gets_no_choice_and_h_r4_plays_are_listed() -> None:
    state = RULES.new_game(11)
    state = RULES.apply(state, 1, PassCards(sum(c.bit for c in list(cards_in(state.hands[1]))[:3])))
    assert not game_view(state, 1).legal_choices and not game_view(state, 1).legal_actions
    for seat in (0, 2, 3):
        state = RULES.apply(state, seat, next(iter(RULES.legal_actions(state, seat))))
    view = game_view(state, state.turn)
    assert not view.legal_choices
    assert [CODEC.decode_action(a) for a in view.legal_actions] == [PlayCard(Card.parse("2C"))]


def test_h_r10_the_view_carries_the_tricks_and_the_finished_hand() -> None:
    after = play(RULES, last_trick((1, 2, 3, 4), (3, 5, 8, 10), hand_number=0), "2D 3D 4D 5D")
    hearts = game_view(after, None).hearts
    assert hearts.HasField("previous_hand") and not hearts.completed_tricks
    finished = hearts.previous_hand
    assert finished.hand_number == 0
    assert list(finished.scores) == [3, 5, 8, 10] == list(finished.points_taken)
    (final,) = finished.tricks
    assert (final.leader, final.winner, final.points) == (0, 3, 0)
    assert [decode_card(c, "c") for c in final.cards] == list(cards("2D 3D 4D 5D"))


def test_h_r6_every_event_encodes_to_its_own_message() -> None:
    two = cards("2C 3C 4C")
    samples = {
        "pass_made": PassMade(1),
        "cards_passed": CardsPassed(1, two, 2),
        "cards_received": CardsReceived(2, two, 1),
        "card_played": CardPlayed(0, Card.parse("QS")),
        "hearts_broken": HeartsBroken(3, Card.parse("2H")),
        "trick_taken": TrickTaken(5, 1, cards("5S 6S QS 4S"), 3, 13),
        "lead_passed": LeadPassed(0, 1),
        "hand_scored": HandScored(2, (0, 26, 0, 0), (13, 0, 13, 13), 1, (20, 5, 30, 40)),
        "hand_dealt": HandDealt(3, PassDirection.NONE),
        "cards_dealt": CardsDealt(0, 3, cards("2C 3C")),
        "game_over": GameOver((1,), (20, 5, 30, 40)),
    }
    names = {f.name for f in hearts_pb2.HeartsEvent.DESCRIPTOR.oneofs_by_name["event"].fields}
    assert names == set(samples)
    for name, fact in samples.items():
        message = CODEC.encode_event(fact)
        assert message.WhichOneof("game") == "hearts"
        assert message.hearts.WhichOneof("event") == name
    taken = CODEC.encode_event(samples["trick_taken"]).hearts.trick_taken
    assert (taken.number, taken.trick.winner, taken.trick.points) == (5, 3, 13)
    scored = CODEC.encode_event(samples["hand_scored"]).hearts.hand_scored
    assert scored.moon_shooter == 1 and list(scored.totals) == [20, 5, 30, 40]
    plain = CODEC.encode_event(HandScored(0, (26, 0, 0, 0), (26, 0, 0, 0), None, (26, 0, 0, 0)))
    assert not plain.hearts.hand_scored.HasField("moon_shooter")


def test_h_r10_snapshots_keep_the_history_and_the_finished_hand() -> None:
    rng = random.Random(5)
    state = RULES.new_game(5)
    seen_previous = seen_history = False
    while RULES.current_seats(state):
        record = snapshot_pb2.GameRecord(seed=state.seed)
        CODEC.encode_state(state, record)
        assert CODEC.decode_state(record) == state
        seen_previous |= state.previous_hand is not None
        seen_history |= len(state.completed) > 1
        seat = rng.choice(RULES.current_seats(state))
        state = RULES.apply(state, seat, rng.choice(list(RULES.legal_actions(state, seat))))
    assert seen_previous and seen_history
