"""Guandan's text forms on hand-built views, and one terminal match against the real service."""

from __future__ import annotations

import io

import pytest
from cardengine.v1 import cards_pb2, game_pb2, guandan_pb2
from cardengine_client import (
    EngineClient,
    card_sort_key,
    format_card,
    format_cards,
    format_reading,
    guandan_pass,
    guandan_play,
    guandan_return,
    parse_card,
    parse_cards,
    parse_reading,
)
from cardengine_client.terminal import play
from cardengine_client.text import describe_action, parse_action, render_menu, render_view
from cardengine_client.text.guandan import render_hand

HUMAN = game_pb2.PLAYER_TYPE_HUMAN
HEURISTIC = game_pb2.PLAYER_TYPE_BOT_HEURISTIC
View = guandan_pb2.GuandanView
LEVEL_SEVEN = cards_pb2.RANK_SEVEN


def reading(text: str) -> guandan_pb2.GuandanReading:
    return parse_reading(text)


def guandan_view(phase=View.PHASE_PLAYING, legal=(), **fields) -> game_pb2.GameView:
    guandan = View(
        phase=phase,
        deal_number=2,
        levels=[LEVEL_SEVEN, cards_pb2.RANK_FOUR],
        level=LEVEL_SEVEN,
        declarer=0,
        hand=parse_cards(["RJ", "7H", "3C", "AS", "7C", "3D", "8S", "8D", "8C", "9C"]),
        card_counts=[10, -1, 14, 3],
        **fields,
    )
    return game_pb2.GameView(
        game_id="g7",
        game_type="guandan",
        version=40,
        status=game_pb2.GAME_STATUS_IN_PROGRESS,
        viewer_seat=0,
        to_act=[0],
        seats=[HUMAN, HEURISTIC, HEURISTIC, HEURISTIC],
        legal_actions=list(legal),
        guandan=guandan,
    )


def test_jokers_are_bj_and_rj_without_a_suit_and_sort_last():
    red = parse_card("rj")
    assert (red.rank, red.suit) == (cards_pb2.RANK_RED_JOKER, cards_pb2.SUIT_UNSPECIFIED)
    assert format_card(parse_card("BJ")) == "BJ"
    assert format_cards(sorted(parse_cards(["RJ", "AH", "BJ", "2C"]), key=card_sort_key)) == (
        "2C AH BJ RJ"
    )


def test_readings_read_and_write_as_the_service_does():
    assert format_reading(parse_reading("full_house:8:5")) == "full_house:8:5"
    assert format_reading(parse_reading("Straight:A:5")) == "straight:14:5"
    assert parse_reading("pair:rj:2").rank == cards_pb2.RANK_RED_JOKER
    for bad in ("pair:8", "triple:1:3", "wing:8:5", "pair:8:two"):
        with pytest.raises(ValueError, match="not a reading"):
            parse_reading(bad)


def test_g_r3_g_r5_the_hand_runs_weakest_to_strongest_with_the_level_lifted():
    hand = parse_cards(["RJ", "7H", "3C", "AS", "7C", "3D", "BJ"])
    assert render_hand(hand, LEVEL_SEVEN) == "3C-3D AS 7C-7H BJ RJ  (wild 7H)"


def test_a_playing_view_shows_levels_counts_the_play_to_beat_and_the_finish():
    top = guandan_pb2.GuandanTopPlay(
        seat=3, cards=parse_cards(["5C", "5D"]), reading=reading("pair:5:2")
    )
    text = render_view(guandan_view(top=top, passed=[1], finished=[2]))
    assert "Deal 3, playing, level 7 (you & seat 2's level)" in text
    assert "Levels: you & seat 2 at 7, seat 1 & seat 3 at 4" in text
    assert "Your hand (10): 3C-3D 8C-8D-8S 9C AS 7C-7H RJ  (wild 7H)" in text
    assert "Cards left: you 10, seat 1 ?, seat 2 14, seat 3 3" in text  # G-R23: hidden count
    assert "To beat: seat 3 pair:5:2 5C 5D   (passed: seat 1)" in text
    assert "Finished: 1st seat 2" in text
    assert text.endswith("To act: you")


def test_a_returning_view_shows_the_tribute_and_the_returns_shown():
    tributes = [
        guandan_pb2.GuandanTribute(payer=1, receiver=0, card=parse_card("RJ")),
        guandan_pb2.GuandanTribute(
            payer=3, receiver=2, card=parse_card("AS"), returned=parse_card("4C")
        ),
    ]
    text = render_view(guandan_view(View.PHASE_RETURNING, tributes=tributes))
    assert "Deal 3, returning tribute, level 7" in text
    assert "Tribute: seat 1 gave RJ to you\n" in text
    assert "Tribute: seat 3 gave AS to seat 2, got back 4C" in text


def test_an_anti_tribute_names_the_red_joker_holders_g_r33():
    text = render_view(guandan_view(anti_tribute=True, red_joker_holders=[1, 3]))
    assert "No tribute this deal (anti-tribute: red jokers held by seat 1, seat 3)" in text


def test_moves_are_described_as_the_service_writes_them():
    play_action = guandan_play(["8C", "8D", "8S", "5H", "5H"], "full_house:8:5")
    assert describe_action(play_action) == "play full_house:8:5 8C 8D 8S 5H 5H"
    assert describe_action(guandan_pass()) == "pass"
    assert describe_action(guandan_return("4c")) == "return 4C"
    menu = render_menu(guandan_view(legal=[play_action, guandan_pass()]))
    assert menu == "   1) play full_house:8:5 8C 8D 8S 5H 5H\n   2) pass"


def test_typed_cards_take_their_reading_from_the_legal_plays():
    pairs = [guandan_play(["8C", "8D"], "pair:8:2"), guandan_play(["3C", "3D"], "pair:3:2")]
    view = guandan_view(legal=[*pairs, guandan_pass()])
    # same ranks in other suits: the service accepts any suits that support the reading
    assert parse_action(view, "8s 8d") == guandan_play(["8S", "8D"], "pair:8:2")
    assert parse_action(view, "play 3C 3D") == pairs[1]
    assert parse_action(view, "pass") == guandan_pass()
    assert parse_action(view, "8C 9C pair:9:2") == guandan_play(["8C", "9C"], "pair:9:2")


def test_g_r13_several_readings_ask_the_player_to_choose():
    cards = ["8C", "8D", "8S", "7H", "7H"]
    view = guandan_view(
        legal=[guandan_play(cards, "bomb:8:5"), guandan_play(cards, "full_house:8:5")]
    )
    with pytest.raises(ValueError, match="bomb:8:5 or full_house:8:5"):
        parse_action(view, " ".join(cards))
    assert parse_action(view, " ".join(cards) + " bomb:8:5") == guandan_play(cards, "bomb:8:5")


def test_a_straight_flush_reading_needs_one_suit():
    run = ["5C", "6C", "7C", "8C", "9C"]
    mixed = ["5C", "6C", "7C", "8C", "9D"]
    view = guandan_view(
        legal=[guandan_play(mixed, "straight:9:5"), guandan_play(run, "straight_flush:9:5")]
    )
    assert parse_action(view, " ".join(mixed)).guandan.play.reading == reading("straight:9:5")
    with pytest.raises(ValueError, match="straight:9:5 or straight_flush:9:5"):
        parse_action(view, " ".join(run))


def test_a_single_card_while_returning_is_a_return():
    view = guandan_view(View.PHASE_RETURNING)
    assert parse_action(view, "3C") == guandan_return("3C")
    assert parse_action(guandan_view(), "return 3C") == guandan_return("3C")


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("8C 9C", "no legal play uses 8C 9C"),
        ("pass 8C", "takes no cards"),
        ("return 3C 3D", "return one card"),
        ("play", "name the cards"),
        ("8C pair:8:2 pair:8:2", "at most one reading"),
        ("zz", "not a card"),
        ("8C 8D pair:8", "not a reading"),
    ],
)
def test_typing_mistakes_are_explained(typed, message):
    with pytest.raises(ValueError, match=message):
        parse_action(guandan_view(), typed)


@pytest.mark.service
def test_the_terminal_plays_a_whole_guandan_match_seat_0_with_a_bot_partner(engine_address):
    """``make play GAME=guandan``: the person at seat 0, heuristic bots at seats 1, 2 and 3."""
    output = io.StringIO()
    with EngineClient(engine_address) as client:
        final = play(client, "guandan", input_fn=lambda _prompt: "1", output=output, seed=2)
    text = output.getvalue()
    assert final.status == game_pb2.GAME_STATUS_FINISHED
    assert list(final.seats) == [HUMAN, HEURISTIC, HEURISTIC, HEURISTIC]
    assert "you & seat 2 at" in text
    assert "Your hand (27):" in text
    assert "Refused" not in text
    assert "Game over." in text
