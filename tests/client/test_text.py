"""The terminal's text forms, on hand-built views: no service needed."""

from __future__ import annotations

import random
import re

import grpc
import pytest
from cardengine.v1 import game_pb2, hearts_pb2
from cardengine_client import hearts_pass, hearts_play, parse_cards
from cardengine_client.errors import FieldViolation, IllegalAction, InvalidArgument
from cardengine_client.terminal import describe_event, describe_rejection, move_prompt
from cardengine_client.text import (
    describe_action,
    parse_action,
    render_menu,
    render_outcome,
    render_view,
)
from cardengine_client.text.hearts import render_hand

from engine_service.api.messages import encode_view
from engine_service.app.play import seat_view
from engine_service.core.record import GameRecord, PlayerKind, SeatRecord
from engine_service.registry import REGISTRY

HEURISTIC = game_pb2.PLAYER_TYPE_BOT_HEURISTIC
PASSING = hearts_pb2.HeartsView.PHASE_PASSING
PLAYING = hearts_pb2.HeartsView.PHASE_PLAYING


def trick(leader: int, cards: str) -> hearts_pb2.HeartsTrick:
    return hearts_pb2.HeartsTrick(leader=leader, cards=parse_cards(cards.split()))


def hearts_view(phase=PLAYING, **hearts_fields) -> game_pb2.GameView:
    hearts = hearts_pb2.HeartsView(
        phase=phase,
        hand_number=0,
        pass_direction=hearts_pb2.HEARTS_PASS_DIRECTION_LEFT,
        hand=parse_cards(["AH", "2C", "QS", "3D", "TC"]),
        pass_submitted=[False, True, True, True],
        totals=[10, 20, 30, 40],
        points_taken=[1, 0, 0, 13],
        tricks_won=[1, 2, 0, 1],
        **hearts_fields,
    )
    return game_pb2.GameView(
        game_id="g1",
        game_type="hearts",
        version=9,
        status=game_pb2.GAME_STATUS_IN_PROGRESS,
        viewer_seat=0,
        to_act=[0],
        seats=[game_pb2.PLAYER_TYPE_HUMAN, HEURISTIC, HEURISTIC, HEURISTIC],
        legal_actions=[hearts_play("2C"), hearts_play("TC")],
        hearts=hearts,
    )


def test_the_hand_is_grouped_by_suit_low_to_high():
    assert render_hand(parse_cards(["AH", "2C", "QS", "3D", "TC", "9C"])) == (
        "clubs 2C 9C TC | diamonds 3D | spades QS | hearts AH"
    )


def test_a_playing_view_shows_hand_trick_last_trick_scores_and_turn():
    last = trick(3, "5C AH 9C KC")
    last.winner = 2  # H-R6, as the service reports it
    view = hearts_view(trick=trick(2, "KD 4D"), last_trick=last, tricks_played=4)
    text = render_view(view)
    assert "you (human), seat 1 (heuristic bot)" in text
    assert "Hand 1, playing, passing left (to seat 1)" in text
    assert "Your hand: clubs 2C TC | diamonds 3D | spades QS | hearts AH" in text
    assert "Trick 5: seat 2 KD, seat 3 4D   (hearts not broken)" in text
    assert "Last trick: seat 3 5C, you AH, seat 1 9C, seat 2 KC -> won by seat 2" in text
    assert "seat 3     40" in text
    assert text.endswith("To act: you")


def test_a_passing_view_shows_who_still_passes():
    text = render_view(hearts_view(PASSING))
    assert "Hand 1, passing, passing left (to seat 1)" in text
    assert "Still to pass: you" in text
    assert "Trick" not in text


def test_a_finished_view_shows_the_outcome():
    view = hearts_view(hearts_pb2.HeartsView.PHASE_GAME_OVER)
    view.status = game_pb2.GAME_STATUS_FINISHED
    view.outcome.CopyFrom(
        game_pb2.Outcome(winners=[3], scores=[104, 51, 62, 43], summary="seat 3 wins.")
    )
    assert "To act" not in render_view(view)
    assert render_outcome(view) == (
        "Game over. seat 3 wins.\n"
        "Winner(s): seat 3\n"
        "Final scores: you 104, seat 1 51, seat 2 62, seat 3 43"
    )


def test_actions_are_described_and_numbered_in_the_menu():
    assert describe_action(hearts_pass(["AH", "2C", "QS"])) == "pass 2C QS AH"
    assert render_menu(hearts_view()) == "   1) play 2C\n   2) play TC"


def test_a_number_picks_from_the_menu():
    view = hearts_view()
    assert parse_action(view, "2") == hearts_play("TC")
    with pytest.raises(ValueError, match="from 1 to 2"):
        parse_action(view, "3")
    with pytest.raises(ValueError, match="from 1 to 2"):
        parse_action(view, "0")


def test_typed_cards_follow_the_phase_unless_a_verb_says_otherwise():
    assert parse_action(hearts_view(PLAYING), "qs") == hearts_play("QS")
    assert parse_action(hearts_view(PASSING), "2C, 3D AH") == hearts_pass(["2C", "3D", "AH"])
    assert parse_action(hearts_view(PASSING), "play 2C") == hearts_play("2C")
    assert parse_action(hearts_view(PLAYING), "Pass 2C") == hearts_pass(["2C"])


@pytest.mark.parametrize(
    ("typed", "message"), [("QS AH", "one card"), ("play", "name a card"), ("zz", "not a card")]
)
def test_typing_mistakes_are_explained(typed, message):
    with pytest.raises(ValueError, match=message):
        parse_action(hearts_view(PLAYING), typed)


def test_a_game_without_text_support_is_played_by_number():
    view = game_pb2.GameView(legal_actions=[game_pb2.Action()], seats=[HEURISTIC])
    assert render_menu(view) == "   1) "
    assert parse_action(view, "1") == game_pb2.Action()
    with pytest.raises(ValueError, match="number"):
        parse_action(view, "QS")


def test_a_rejection_names_the_rule_h_r4_and_the_fields():
    illegal = IllegalAction(
        grpc.StatusCode.FAILED_PRECONDITION,
        "Follow suit.",
        reason="MUST_FOLLOW_SUIT",
        metadata={"ruleId": "H-R4"},
    )
    assert describe_rejection(illegal) == "Follow suit. [rule H-R4, MUST_FOLLOW_SUIT]"
    invalid = InvalidArgument(
        grpc.StatusCode.INVALID_ARGUMENT,
        "Bad.",
        reason="INVALID_FIELD",
        field_violations=[FieldViolation("seat", "0..3")],
    )
    assert describe_rejection(invalid) == "Bad. [INVALID_FIELD] (seat: 0..3)"


def taken(leader: int, cards: str, winner: int, points: int) -> hearts_pb2.HeartsTrick:
    done = trick(leader, cards)
    done.winner, done.points = winner, points
    return done


def test_h_r6_the_tricks_of_the_hand_are_listed_with_winner_and_points():
    history = [taken(0, "2C 3C 4C 5C", 3, 0), taken(3, "5S 6S QS 4S", 1, 13)]
    view = hearts_view(
        trick=trick(1, "KD"), last_trick=history[-1], completed_tricks=history, tricks_played=2
    )
    text = render_view(view)
    assert (
        "Earlier tricks:\n   1) you 2C, seat 1 3C, seat 2 4C, seat 3 5C -> won by seat 3 (0 pts)"
        in text
    )
    assert "Last trick: seat 3 5S, you 6S, seat 1 QS, seat 2 4S -> won by seat 1 (13 pts)" in text
    assert text.count("QS, seat 2 4S") == 1  # the last trick is not listed twice


def moon_hand() -> hearts_pb2.HeartsFinishedHand:
    """A whole hand in which seat 2 takes every trick, so all 13 hearts and the queen."""
    ranks = "23456789TJQKA"
    tricks = [
        taken(2, f"{rank}H {rank}C {rank}D {rank}S", 2, 1 + (13 if rank == "Q" else 0))
        for rank in ranks
    ]
    return hearts_pb2.HeartsFinishedHand(
        hand_number=0, tricks=tricks, points_taken=[0, 0, 26, 0], scores=[13, 13, 0, 13]
    )


def test_h_r11_the_hand_just_ended_shows_its_last_trick_and_scores_until_play_starts():
    view = hearts_view(PASSING, previous_hand=moon_hand())
    view.hearts.hand_number = 1
    text = render_view(view)
    assert "Hand 1 is over.\n  Its last trick: seat 2 AH, seat 3 AC, you AD, seat 1 AS" in text
    assert "-> won by seat 2 (1 pts)" in text
    assert "It scored: you 13, seat 1 13, seat 2 0, seat 3 13   (seat 2 shot the moon)" in text
    assert "Hand 2, passing" in text


def test_h_r10_h_r11_a_moon_hand_is_explained_seat_by_seat():
    view = hearts_view(PASSING, previous_hand=moon_hand())
    view.hearts.hand_number = 1
    lines = render_view(view).splitlines()
    start = lines.index("  Taken (H-R10: 1 a heart, 13 the queen of spades):")
    assert lines[start + 1 : start + 7] == [
        "    you: nothing = 0 pts",
        "    seat 1: nothing = 0 pts",
        "    seat 2: QS + 13 hearts = 26 pts",
        "    seat 3: nothing = 0 pts",
        "  seat 2 shot the moon (H-R11: all 13 hearts and the queen): seat 2 0 instead of 26, "
        "every other seat 13 instead of 0",
        "  It scored: you 13, seat 1 13, seat 2 0, seat 3 13   (seat 2 shot the moon)",
    ]


def test_h_r10_an_ordinary_hand_names_the_hearts_and_the_queen_each_seat_took():
    tricks = [
        taken(0, "2C 3C 4C 5C", 3, 0),
        taken(3, "5S 6S QS 4S", 1, 13),
        taken(1, "2H 3H 4H 5H", 0, 4),
        taken(0, "6H 7C 8C 9C", 0, 1),
    ]
    done = hearts_pb2.HeartsFinishedHand(
        hand_number=3, tricks=tricks, points_taken=[5, 13, 0, 0], scores=[5, 13, 0, 0]
    )
    view = hearts_view(PASSING, previous_hand=done)
    view.hearts.hand_number = 4
    text = render_view(view)
    assert "    you: 5 hearts = 5 pts\n    seat 1: QS = 13 pts\n" in text
    assert "    seat 2: nothing = 0 pts\n    seat 3: nothing = 0 pts\n" in text
    assert "shot the moon" not in text


def test_h_r10_once_the_game_is_over_its_last_hand_is_explained_too():
    view = hearts_view(hearts_pb2.HeartsView.PHASE_GAME_OVER, previous_hand=moon_hand())
    text = render_view(view)
    assert "Hand 1 scored:\n  Taken (H-R10" in text
    assert "    seat 2: QS + 13 hearts = 26 pts" in text
    assert "Hand 1 is over." not in text  # its tricks are the view's own, listed above


def test_h_r10_the_explanation_matches_the_points_over_random_hands_of_the_real_rules():
    """Hands played at random through the real rules and codec: the hearts and the queen each
    seat is said to have taken give its points, and a moon is named whenever one happened."""
    spec = REGISTRY["hearts"]
    config = spec.config_type()
    rules = spec.make_rules(config)
    seats = (SeatRecord(PlayerKind.HUMAN),) + (SeatRecord(PlayerKind.RANDOM_BOT),) * 3
    line = re.compile(r"^    (you|seat \d): (.+) = (\d+) pts?$")
    checked = 0
    for seed in range(3):
        rng = random.Random(seed)
        state = rules.new_game(seed)
        version, explained = 0, -1
        while rules.outcome(state) is None and checked < 40:
            seat = rules.current_seats(state)[0]
            state = rules.apply(state, seat, rng.choice(list(rules.legal_actions(state, seat))))
            version += 1
            record = GameRecord("hearts", config, seed, seats, state)
            view = encode_view(seat_view(rules, "g", record, version, 0))
            done = view.hearts.previous_hand
            if not view.hearts.HasField("previous_hand") or done.hand_number == explained:
                continue
            explained = done.hand_number
            lines = render_view(view).splitlines()
            start = next(i for i, text in enumerate(lines) if text.startswith("  Taken (H-R10"))
            for seat in range(4):
                match = line.match(lines[start + 1 + seat])
                assert match, lines[start + 1 + seat]
                words = match[2]
                hearts = int(words.split(" heart")[0].split()[-1]) if "heart" in words else 0
                queen = 13 if words.startswith("QS") else 0
                assert hearts + queen == int(match[3]) == done.points_taken[seat]
            moon = 26 in done.points_taken
            assert ("shot the moon (H-R11" in lines[start + 5]) == moon
            checked += 1
    assert checked >= 20


def test_h_r2_a_pass_offered_as_a_card_choice_is_typed_as_cards():
    view = hearts_view(PASSING)
    del view.legal_actions[:]
    view.legal_choices.add(
        action=hearts_pass([]), cards=parse_cards(["AH", "2C", "QS", "3D", "TC"]), count=3
    )
    assert "Still to pass: you" in render_view(view)
    assert parse_action(view, "2C QS AH") == hearts_pass(["2C", "QS", "AH"])


def hearts_event(**fields) -> game_pb2.GameEvent:
    return game_pb2.GameEvent(hearts=hearts_pb2.HeartsEvent(**fields))


@pytest.mark.parametrize(
    ("fields", "text"),
    [
        ({"pass_made": hearts_pb2.HeartsPassMade(seat=2)}, "seat 2 chose a pass"),
        (
            {
                "cards_passed": hearts_pb2.HeartsCardsPassed(
                    seat=0, cards=parse_cards(["QS", "2C", "AH"]), to_seat=1
                )
            },
            "seat 0 (you) passed 2C QS AH to seat 1",
        ),
        (
            {
                "cards_received": hearts_pb2.HeartsCardsReceived(
                    seat=0, cards=parse_cards(["3D"]), from_seat=3
                )
            },
            "seat 0 (you) received 3D from seat 3",
        ),
        (
            {"card_played": hearts_pb2.HeartsCardPlayed(seat=1, card=parse_cards(["QS"])[0])},
            "seat 1 played QS",
        ),
        (
            {"hearts_broken": hearts_pb2.HeartsBroken(seat=1, card=parse_cards(["2H"])[0])},
            "hearts are broken (2H)",
        ),
        (
            {
                "trick_taken": hearts_pb2.HeartsTrickTaken(
                    number=5, trick=taken(3, "5S 6S QS 4S", 1, 13)
                )
            },
            "trick 5: 5S 6S QS 4S, taken by seat 1 (13 points)",
        ),
        (
            {"lead_passed": hearts_pb2.HeartsLeadPassed(seat=2, to_seat=3)},
            "seat 2 holds only hearts; seat 3 leads",
        ),
        (
            {
                "hand_scored": hearts_pb2.HeartsHandScored(
                    hand_number=0, scores=[13, 0, 13, 13], moon_shooter=1
                )
            },
            "hand 1 scored: seat 0 (you) 13, seat 1 0, seat 2 13, seat 3 13 (seat 1 shot the moon)",
        ),
        (
            {
                "hand_dealt": hearts_pb2.HeartsHandDealt(
                    hand_number=3, pass_direction=hearts_pb2.HEARTS_PASS_DIRECTION_NONE
                )
            },
            "hand 4 dealt, no passing",
        ),
        (
            {
                "cards_dealt": hearts_pb2.HeartsCardsDealt(
                    seat=0, hand_number=1, cards=parse_cards(["AH", "2C"])
                )
            },
            "seat 0 (you) got 2C AH",
        ),
        ({"game_over": hearts_pb2.HeartsGameOver(winners=[3])}, "game over, won by seat 3"),
        ({}, ""),
    ],
)
def test_h_r17_each_hearts_event_is_told_as_a_sentence(fields, text):
    assert describe_event(hearts_view(), hearts_event(**fields)) == text


def test_the_move_prompt_says_that_help_and_quit_are_accepted():
    view = hearts_view()
    assert move_prompt(view) == (
        "Your move (a number or e.g. QS; 'list' for the menu, 'help', 'quit'): "
    )
    view.ClearField("legal_actions")
    view.legal_choices.add(count=3)
    choosing = move_prompt(view)
    assert choosing == "Your move (3 cards or a number; 'list', 'help' or 'quit'): "
    for prompt in (move_prompt(hearts_view()), choosing):
        assert "'help'" in prompt and "'quit'" in prompt
